import cookie from "@fastify/cookie";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { jsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";
import type { Logger } from "pino";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { HttpLimits } from "../../config.js";
import type { ProjectResolver } from "../auth/context.js";
import { BodyBudget } from "./body-budget.js";
import { csrfGuard } from "./csrf.js";
import { errorAnswer } from "./error-body.js";
import { uploadBody, type UploadSpec } from "./multipart.js";
import { rawBodyDoc, type RawBodySpec } from "./raw-body.js";
import { tidyComponents } from "./openapi.js";
import { requestLogger } from "../log.js";
import { registerRoutes, type Authenticators, type RouteDef } from "./route.js";

export interface ServerOptions {
  logger: Logger;
  routes: RouteDef[];
  auth: Authenticators;
  /** Resolves the project of the routes that declare `project: true`. */
  projects: ProjectResolver;
  version: string;
  trustProxy: boolean;
  /** Timeouts, connection cap and body budget (config.http). */
  limits: HttpLimits;
  /** Sign-in and sign-out paths: guarded against other sites' pages like cookie-authenticated writes (csrfGuard). */
  signInPaths: readonly string[];
  /** false: no /openapi.json nor /docs (a worker serves its health and metrics only). */
  docs?: boolean;
}

declare module "fastify" {
  interface FastifyInstance {
    /** Answers a path no route serves with the web application's page, or null (registerWeb sets it). */
    clientPage: ((req: FastifyRequest, reply: FastifyReply) => FastifyReply | null) | null;
  }
}

/** Status of a connection-level error Node's HTTP parser reports ('clientError'). */
function clientErrorStatus(code: string | undefined): number {
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return 408;
  if (code === "HPE_HEADER_OVERFLOW") return 431;
  return 400;
}

/**
 * Fastify's `clientErrorHandler`: the answer to a request Node's HTTP server refused before any
 * route saw it (headers too large, request timeout, malformed HTTP), as a complete HTTP/1.1
 * response with a `{"detail": ...}` body, then the connection is closed. As Node's own handler
 * does, nothing is written when the peer is gone or a response is already under way.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const status = clientErrorStatus(err.code);
    const reason = STATUS_CODES[status]!;
    const body = JSON.stringify({ detail: reason });
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

const BODY_LIMIT = 1024 * 1024;

/** The Fastify application: parsers, error mapping, OpenAPI, then the module routes. */
export async function buildServer(opts: ServerOptions): Promise<FastifyInstance> {
  const { limits } = opts;
  const app = Fastify({
    loggerInstance: opts.logger as FastifyBaseLogger,
    // req.log: the request's child logger is made when it writes its first line, not for every request.
    childLoggerFactory: (logger, bindings, options) =>
      requestLogger(logger as Logger, bindings, options as Record<string, unknown>) as unknown as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT,
    // Slow clients: the whole request must arrive within requestTimeout (Node answers 408 and closes),
    // headers within headersTimeout; idle keep-alive and silent connections are closed. Node checks
    // the first two every connectionsCheckingInterval, so that interval bounds the overshoot.
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionTimeout: limits.idleTimeoutMs,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
    },
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    requestIdHeader: "x-request-id",
    trustProxy: opts.trustProxy,
    // Errors raised before routing (a path that is not UTF-8, a path parameter over maxParamLength)
    // and those Node's HTTP parser raises before Fastify (431, 408) answer {"detail": ...} too.
    frameworkErrors: (err, _req, reply: FastifyReply) => {
      const status = err.statusCode ?? 400;
      void reply.code(status).send({ detail: STATUS_CODES[status] ?? "Bad Request" });
    },
    clientErrorHandler,
  });

  app.server.maxConnections = limits.maxConnections;
  app.addHook("preParsing", new BodyBudget(limits.bodyBudgetBytes, BODY_LIMIT).hook);
  // Bodies are kept as text: routes decode JSON themselves to report errors as FastAPI does.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (req, body, done) => {
    req.rawBody = body as string;
    done(null, undefined);
  });
  // multipart/form-data is kept as bytes (an uploaded file is binary); routes that take no upload
  // read it as text, as before.
  app.addContentTypeParser("multipart/form-data", { parseAs: "buffer" }, (req, body, done) => {
    req.rawBuffer = body as Buffer;
    // Decoded only if read (a route without upload): a 5 MB upload is not copied into a string.
    Object.defineProperty(req, "rawBody", { get: () => (body as Buffer).toString("utf8"), configurable: true });
    done(null, undefined);
  });
  // Schemas are Zod objects used for the OpenAPI document; validation happens in the route wrapper
  // and responses are built field by field by presenters.
  app.setValidatorCompiler(() => (data) => ({ value: data }));
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  app.setErrorHandler((err, req, reply) => {
    const known = errorAnswer(err);
    if (known) return reply.code(known.status).headers(known.headers).send(known.body);
    const status = (err as { statusCode?: number }).statusCode;
    if (status && status >= 400 && status < 500) {
      return reply.code(status).send({ detail: STATUS_CODES[status] ?? "Bad Request" });
    }
    req.log.error({ err }, "unhandled error");
    return reply.code(500).send({ detail: "Internal Server Error" });
  });
  // A path no route serves: the web application's page when a browser asks for one (registerWeb), else 404.
  app.decorate("clientPage", null);
  app.setNotFoundHandler((req, reply) => app.clientPage?.(req, reply) ?? reply.code(404).send({ detail: "Not Found" }));

  await app.register(cookie);
  app.addHook("onRequest", csrfGuard({ signIn: opts.signInPaths }));
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Vigie",
        version: opts.version,
        description:
          "Vulnerability watch and alerting service. Programmatic API under /api/v1: API keys, and for every operation but GET /api/v1/me a signed-in user's account token or session cookie too (ADR 0029); a few, managing the organization (members, API keys, renaming, new projects), take the session only. Each operation's `security` lists exactly the credentials it accepts. Session API under /auth, /projects, /organizations. An MCP server (JSON-RPC over Streamable HTTP, the same API keys) answers POST /mcp: its tools and their schemas are listed by the protocol (tools/list), not here.",
      },
      // Relative: resolved against where this document is served, so a generated client works behind any host or proxy.
      servers: [{ url: "/", description: "This Vigie instance" }],
      components: {
        securitySchemes: {
          apiKey: { type: "http", scheme: "bearer", description: "API key of an organization (vk_…)" },
          accountToken: { type: "http", scheme: "bearer", description: "Account token from POST /auth/login (vs_…)" },
          sessionCookie: { type: "apiKey", in: "cookie", name: "vigie_session" },
        },
      },
    },
    // A route taking an upload documents its body under application/json and multipart/form-data;
    // a raw-body route, under each of its media types as a binary string.
    transform: (doc) => {
      const { upload, rawBody } = (doc.schema ?? {}) as { upload?: UploadSpec; rawBody?: RawBodySpec };
      const out = jsonSchemaTransform(doc) as { schema: Record<string, unknown>; url: string };
      if (rawBody) {
        const { rawBody: _, ...schema } = out.schema;
        return { ...out, schema: { ...schema, body: rawBodyDoc(rawBody) } };
      }
      if (!upload) return out;
      const { upload: _, ...schema } = out.schema;
      return { ...out, schema: { ...schema, body: uploadBody(schema.body, upload) } };
    },
    transformObject: (doc) =>
      tidyComponents(jsonSchemaTransformObject(doc) as Parameters<typeof tidyComponents>[0]) as ReturnType<
        typeof jsonSchemaTransformObject
      >,
  });
  if (opts.docs !== false) {
    await app.register(swaggerUi, { routePrefix: "/docs" });
    app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
  }

  registerRoutes(app, opts.routes, opts.auth, opts.projects);
  return app;
}

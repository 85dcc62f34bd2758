import cookie from "@fastify/cookie";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { jsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";
import type { Logger } from "pino";
import { STATUS_CODES } from "node:http";
import { DomainError } from "../errors.js";
import { tidyComponents } from "./openapi.js";
import { registerRoutes, type Authenticators, type RouteDef } from "./route.js";

export interface ServerOptions {
  logger: Logger;
  routes: RouteDef[];
  auth: Authenticators;
  version: string;
  trustProxy: boolean;
}

/** The Fastify application: parsers, error mapping, OpenAPI, then the module routes. */
export async function buildServer(opts: ServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: opts.logger as FastifyBaseLogger,
    bodyLimit: 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    requestIdHeader: "x-request-id",
    trustProxy: opts.trustProxy,
  });

  // Bodies are kept as text: routes decode JSON themselves to report errors as FastAPI does.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (req, body, done) => {
    req.rawBody = body as string;
    done(null, undefined);
  });
  // Schemas are Zod objects used for the OpenAPI document; validation happens in the route wrapper
  // and responses are built field by field by presenters.
  app.setValidatorCompiler(() => (data) => ({ value: data }));
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  app.setErrorHandler((err, req, reply) => {
    if (err instanceof DomainError) {
      if (err.headers) reply.headers(err.headers);
      return reply.code(err.status).send({ detail: err.detail });
    }
    const status = (err as { statusCode?: number }).statusCode;
    if (status && status >= 400 && status < 500) {
      return reply.code(status).send({ detail: STATUS_CODES[status] ?? "Bad Request" });
    }
    req.log.error({ err }, "unhandled error");
    return reply.code(500).send({ detail: "Internal Server Error" });
  });
  app.setNotFoundHandler((_req, reply) => reply.code(404).send({ detail: "Not Found" }));

  await app.register(cookie);
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Vigie",
        version: opts.version,
        description: "Vulnerability watch and alerting service. Programmatic API under /api/v1 (API keys); session API under /auth, /projects, /organizations.",
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
    transform: jsonSchemaTransform,
    transformObject: (doc) => tidyComponents(jsonSchemaTransformObject(doc) as Parameters<typeof tidyComponents>[0]) as ReturnType<typeof jsonSchemaTransformObject>,
  });
  await app.register(swaggerUi, { routePrefix: "/docs" });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());

  registerRoutes(app, opts.routes, opts.auth);
  return app;
}

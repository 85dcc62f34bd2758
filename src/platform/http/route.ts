import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from "fastify";
import { z } from "zod";
import type { ApiKeyContext, SessionContext } from "../auth/context.js";
import { Forbidden } from "../errors.js";
import { decodeBody, validateRequest, type RawRequest } from "./validation.js";

export type AuthMode = "apiKey" | "session" | "none";

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;
type AuthOf<M extends AuthMode> = M extends "apiKey" ? ApiKeyContext : M extends "session" ? SessionContext : null;

export interface RouteInput<P, Q, H, B, A> {
  params: Out<P>;
  query: Out<Q>;
  headers: Out<H>;
  body: Out<B>;
  auth: A;
  req: FastifyRequest;
  reply: FastifyReply;
}

/** A declarative route: schemas, auth mode and required scope, then one handler (one service call). */
export interface RouteDef<
  P extends z.ZodObject | undefined = z.ZodObject | undefined,
  Q extends z.ZodObject | undefined = z.ZodObject | undefined,
  H extends z.ZodObject | undefined = z.ZodObject | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  M extends AuthMode = AuthMode,
> {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  url: string;
  auth: M;
  /** Scope the API key must hold (checked before request validation, as a FastAPI dependency would be). */
  scope?: string;
  summary: string;
  description?: string;
  tags: string[];
  params?: P;
  query?: Q;
  headers?: H;
  body?: B;
  /** Success status (default 200) and the response schemas, for the OpenAPI document. */
  status?: number;
  responses: Record<number, z.ZodType | null>;
  handler(input: RouteInput<P, Q, H, B, AuthOf<M>>): Promise<unknown>;
}

/** Identity helper that keeps each route's types. */
export function route<
  P extends z.ZodObject | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
  H extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  M extends AuthMode = AuthMode,
>(def: RouteDef<P, Q, H, B, M>): RouteDef {
  return def as unknown as RouteDef;
}

/** How each auth mode turns a request into its context (401/429 thrown from here). */
export type Authenticators = {
  apiKey(req: FastifyRequest, reply: FastifyReply): Promise<ApiKeyContext>;
  session(req: FastifyRequest, reply: FastifyReply): Promise<SessionContext>;
};

declare module "fastify" {
  interface FastifyRequest {
    /** The body text as received; parsed by the route (FastAPI-compatible JSON errors). */
    rawBody?: string;
  }
}

const ALL_METHODS: HTTPMethods[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** Registers the routes, plus a 405 answer for the other methods of each path. */
export function registerRoutes(app: FastifyInstance, routes: RouteDef[], auth: Authenticators): void {
  const methodsByUrl = new Map<string, Set<string>>();
  for (const def of routes) {
    const methods = methodsByUrl.get(def.url) ?? new Set<string>();
    methods.add(def.method);
    methodsByUrl.set(def.url, methods);
    app.route({
      method: def.method,
      url: def.url,
      schema: openApiSchema(def),
      handler: async (req, reply) => {
        const raw: RawRequest = {
          params: req.params as RawRequest["params"],
          query: req.query as RawRequest["query"],
          headers: req.headers,
          rawBody: req.rawBody,
          contentType: req.headers["content-type"],
        };
        const decoded = def.body ? decodeBody(raw) : undefined;
        const ctx = def.auth === "none" ? null : await auth[def.auth](req, reply);
        if (def.scope && ctx?.kind === "apiKey" && !ctx.scopes.has(def.scope)) {
          throw new Forbidden(`Scope manquant : cette opération exige le scope « ${def.scope} » sur la clé d'API`);
        }
        const input = validateRequest(def, raw, decoded);
        reply.code(def.status ?? 200); // the handler may choose another success status
        const result = await def.handler({ ...input, auth: ctx, req, reply } as never);
        if (reply.sent) return reply;
        if (result === undefined) return reply.send();
        return result;
      },
    });
  }
  for (const [url, methods] of methodsByUrl) {
    const others = ALL_METHODS.filter((m) => !methods.has(m) && !(m === "GET" && methods.has("HEAD")));
    if (!others.length) continue;
    const allow = [...methods].join(", ");
    app.route({
      method: others,
      url,
      schema: { hide: true },
      handler: async (_req, reply) => reply.code(405).header("allow", allow).send({ detail: "Method Not Allowed" }),
    });
  }
}

const ValidationErrorItem = z.object({
  type: z.string(),
  loc: z.array(z.union([z.string(), z.int()])),
  msg: z.string(),
  input: z.unknown(),
  ctx: z.record(z.string(), z.unknown()).optional(),
}).meta({ id: "ValidationError" });
const HTTPValidationError = z.object({ detail: z.array(ValidationErrorItem) }).meta({ id: "HTTPValidationError" });
const HTTPError = z.object({
  detail: z.union([z.string(), z.object({ code: z.string(), message: z.string() }).catchall(z.unknown())]),
}).meta({ id: "HTTPError", description: "{\"detail\": \"message\"}, or for 409 {\"detail\": {\"code\", \"message\", ...}}" });

/** The documented answers of a route: its successes, then the errors it can give. */
function responsesOf(def: RouteDef): Record<number, z.ZodType> {
  const response: Record<number, z.ZodType> = {};
  for (const [status, schema] of Object.entries(def.responses)) {
    response[Number(status)] = schema ?? z.null().describe("No content");
  }
  if (def.auth !== "none") response[401] = HTTPError.describe("Not authenticated, or credential invalid / revoked");
  if (def.scope) response[403] = HTTPError.describe(`The API key lacks the scope ${def.scope}`);
  if (def.params) response[404] = HTTPError.describe("Not found for this tenant (e.g. Projet introuvable, Workflow introuvable)");
  if (def.method !== "GET") response[409] ??= HTTPError.describe("Conflict: {detail: {code, message, ...}}");
  if (def.params || def.query || def.headers || def.body) response[422] = HTTPValidationError;
  if (def.auth === "apiKey") response[429] = HTTPError.describe("Hourly call limit of the organization's plan reached (Retry-After)");
  return response;
}

function openApiSchema(def: RouteDef) {
  const response = responsesOf(def);
  const parts = { params: def.params, querystring: def.query, headers: def.headers, body: def.body };
  return {
    summary: def.summary,
    ...(def.description ? { description: def.description } : {}),
    tags: def.tags,
    ...Object.fromEntries(Object.entries(parts).filter(([, v]) => v !== undefined)),
    response,
    security: (def.auth === "apiKey" ? [{ apiKey: [] }] : def.auth === "session" ? [{ sessionCookie: [] }, { accountToken: [] }] : []) as Record<string, string[]>[],
  };
}

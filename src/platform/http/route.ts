import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from "fastify";
import { z } from "zod";
import type { ApiKeyContext, OrgScope, ProjectResolver, ProjectScope, SessionContext } from "../auth/context.js";
import { presentsSession } from "../auth/credentials.js";
import { resolveOrg, resolveProject } from "../auth/resolve.js";
import { isScope, ROLE_OF_SCOPE, roleAtLeast } from "../auth/scopes.js";
import type { Role } from "../db/schema/index.js";
import { Forbidden } from "../errors.js";
import { AUTH } from "../messages.js";
import { readUpload, type Upload, type UploadSpec } from "./multipart.js";
import { BodyTooLarge, bodyExceeded, drainBody, rawBodyOf, rawBodyParsers, type RawBody, type RawBodySpec } from "./raw-body.js";
import { decodeBody, validateRequest, type RawRequest } from "./validation.js";
import { missing } from "../pydantic/validate.js";
import { RequestInvalid } from "./error-body.js";

/**
 * The credentials a route serves: API keys (/api/v1's contract), sessions (a signed-in user: cookie
 * or account token), both (one handler for the two), or none.
 */
export type AuthMode = "apiKey" | "session" | "both" | "none";
/** Error statuses a route declares itself; the others follow from its declaration. */
export type DeclaredError = 401 | 403 | 409 | 429;

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;
type AuthOf<M extends AuthMode> = M extends "apiKey"
  ? ApiKeyContext
  : M extends "session"
    ? SessionContext
    : M extends "both"
      ? ApiKeyContext | SessionContext
      : null;

export interface RouteInput<P, Q, H, B, A, J, G = undefined> {
  params: Out<P>;
  query: Out<Q>;
  headers: Out<H>;
  body: Out<B>;
  auth: A;
  /**
   * The project the path names, resolved against the caller (routes declaring `project: true`); with
   * `project: "query"`, the optional `project_id` query parameter's (undefined when absent).
   */
  project: J extends true ? ProjectScope : J extends "query" ? ProjectScope | undefined : undefined;
  /** The organization the path names, resolved against the caller (routes declaring `org: true`). */
  org: G extends true ? OrgScope : undefined;
  /** The uploaded file of a route declaring `upload`, when the request was multipart/form-data (then `body` is undefined). */
  upload: Upload | undefined;
  /** The body of a route declaring `rawBody` (always there: a request without one is refused before): its bytes as a stream, its media type. */
  raw: RawBody | undefined;
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
  J extends true | "query" | undefined = true | "query" | undefined,
  G extends true | undefined = true | undefined,
> {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  url: string;
  /** The operation's name in the OpenAPI document (unique, checked at registration): what generated clients call it. */
  operationId: string;
  auth: M;
  /** Scope the API key must hold (checked before request validation, as a FastAPI dependency would be). */
  scope?: string;
  /**
   * The least role a signed-in user needs in the organization the route resolves (project or org),
   * checked once it is resolved (403 below it; 404 outside the organization, as for keys). Default:
   * the role of the route's scope (ROLE_OF_SCOPE: member for triage, admin for the rest), else viewer.
   */
  role?: Role;
  /**
   * The path's project_id (and org_id on /api/v1) is resolved against the caller after request
   * validation (ProjectResolver): 404 « Projet introuvable » before the handler, else `input.project`.
   * `"query"`: the same for an optional `project_id` query parameter, in the API key's organization
   * (a route over data of every tenant that a project may narrow, e.g. the statistics).
   */
  project?: J;
  /**
   * The path's org_id is resolved against the caller before the handler (orgScopeOf): 404
   * « Organisation introuvable » for another organization, else `input.org` (with the key's
   * project restriction). For organization-level resources (the risk register).
   */
  org?: G;
  /**
   * The route also takes a file as multipart/form-data (field `field`, at most `maxBytes`): the
   * request then skips the JSON body and the handler receives `upload`. Documented under both media types.
   */
  upload?: UploadSpec;
  /**
   * The body is a document read as a stream by the handler (`raw`), not JSON: its media types (another
   * Content-Type is a 415) and size limit (413 past it); a request without a body is a 422 at `body`.
   * Documented under each media type as a binary string.
   */
  rawBody?: RawBodySpec;
  /** false: the route answers without the database (health, metrics), so never 503 for its loss. */
  database?: false;
  summary: string;
  description?: string;
  tags: string[];
  params?: P;
  query?: Q;
  headers?: H;
  body?: B;
  /** Success status (default 200) and the response schemas (JSON, or `media(...)`), for the OpenAPI document. */
  status?: number;
  responses: Record<number, z.ZodType | Media | null>;
  /**
   * Error answers the service gives beyond those the declaration implies (see responsesOf), with
   * when: e.g. `{ 409: "name already used (nom_deja_utilise)" }`.
   */
  errors?: Partial<Record<DeclaredError, string>>;
  handler(input: RouteInput<P, Q, H, B, AuthOf<M>, J, G>): Promise<unknown>;
}

/**
 * A success answered in other media types than JSON alone (an export: text/csv or JSON): each
 * type with the schema of its body. The handler sets Content-Type and may return a stream.
 */
export class Media {
  constructor(readonly content: Readonly<Record<string, z.ZodType>>) {}
}

/** A success documented under these media types, e.g. `media({ "text/csv": z.string(), "application/json": Rows })`. */
export function media(content: Record<string, z.ZodType>): Media {
  return new Media(content);
}

/** Identity helper that keeps each route's types. */
export function route<
  P extends z.ZodObject | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
  H extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  M extends AuthMode = AuthMode,
  J extends true | "query" | undefined = undefined,
  G extends true | undefined = undefined,
>(def: RouteDef<P, Q, H, B, M, J, G>): RouteDef {
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
    /** The body bytes of a multipart/form-data request (routes declaring `upload` read their file from it). */
    rawBuffer?: Buffer;
  }
}

/** The least role of a route for a signed-in user (see RouteDef.role). */
export function requiredRole(def: RouteDef): Role {
  return def.role ?? (def.scope && isScope(def.scope) ? ROLE_OF_SCOPE[def.scope] : "viewer");
}

const ALL_METHODS: HTTPMethods[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** Registers the routes, plus a 405 answer for the other methods of each path. */
export function registerRoutes(app: FastifyInstance, routes: RouteDef[], auth: Authenticators, projects: ProjectResolver): void {
  const methodsByUrl = new Map<string, Set<string>>();
  const operationIds = new Set<string>();
  for (const def of routes) {
    if (operationIds.has(def.operationId)) throw new Error(`operationId ${def.operationId} is declared twice (${def.method} ${def.url})`);
    operationIds.add(def.operationId);
    const methods = methodsByUrl.get(def.url) ?? new Set<string>();
    methods.add(def.method);
    methodsByUrl.set(def.url, methods);
    if (def.project === "query" && (def.auth === "none" || def.auth === "session" || !def.query?.shape.project_id)) {
      throw new Error(`${def.operationId}: project resolution from the query needs an API key and a project_id query parameter`);
    }
    if (
      def.project === true &&
      (def.auth === "none" || !def.params?.shape.project_id || (def.auth !== "session" && !def.params.shape.org_id))
    ) {
      throw new Error(`${def.operationId}: project resolution needs a credential and the path's project_id (and org_id under /api/v1)`);
    }
    if (def.org && (def.auth === "none" || !def.params?.shape.org_id)) {
      throw new Error(`${def.operationId}: organization resolution needs a credential and the path's org_id`);
    }
    const role = requiredRole(def);
    if (role !== "viewer" && def.auth !== "apiKey" && !def.project && !def.org) {
      throw new Error(`${def.operationId}: a role above viewer is checked in an organization: declare project or org`);
    }
    const authenticate =
      def.auth === "both"
        ? (req: FastifyRequest, reply: FastifyReply) => (presentsSession(req) ? auth.session : auth.apiKey)(req, reply)
        : def.auth === "none"
          ? null
          : auth[def.auth];
    const register = (on: FastifyInstance) =>
      on.route({
        method: def.method,
        url: def.url,
        schema: openApiSchema(def),
        ...(def.upload && { bodyLimit: def.upload.maxBytes }),
        ...(def.rawBody && { bodyLimit: def.rawBody.maxBytes, config: { streamedBody: true } }),
        handler: async (req, reply) => {
          const raw: RawRequest = {
            params: req.params as RawRequest["params"],
            query: req.query as RawRequest["query"],
            headers: req.headers,
            rawBody: req.rawBody,
            contentType: req.headers["content-type"],
          };
          const multipart = def.upload !== undefined && req.rawBuffer !== undefined;
          const decoded = def.body && !multipart ? decodeBody(raw) : undefined;
          const ctx = authenticate ? await authenticate(req, reply) : null;
          if (def.scope && ctx?.kind === "apiKey" && !ctx.scopes.has(def.scope)) {
            throw new Forbidden(AUTH.missingScope(def.scope));
          }
          const input = validateRequest(multipart ? { ...def, body: undefined } : def, raw, decoded);
          const upload = multipart ? await readUpload(req.rawBuffer!, raw.contentType!, def.upload!) : undefined;
          let project: ProjectScope | undefined;
          if (def.project === true) {
            const { project_id, org_id } = input.params as { project_id: string; org_id?: string };
            project = await resolveProject(projects, ctx!, project_id, org_id);
          } else if (def.project === "query") {
            const { project_id } = input.query as { project_id?: string };
            const caller = ctx!;
            project =
              project_id === undefined
                ? undefined
                : await resolveProject(projects, caller, project_id, caller.kind === "apiKey" ? caller.orgId : undefined);
          }
          const org = def.org ? resolveOrg(ctx!, (input.params as { org_id: string }).org_id) : undefined;
          if (ctx?.kind === "session") {
            const orgId = project?.orgId ?? org?.id;
            if (orgId !== undefined && !roleAtLeast(ctx.roles.get(orgId)!, role)) throw new Forbidden(AUTH.missingRole(role));
          }
          reply.code(def.status ?? 200); // the handler may choose another success status
          let stream: RawBody | undefined;
          if (def.rawBody) {
            stream = rawBodyOf(req, def.rawBody);
            if (!stream) throw new RequestInvalid([missing(["body"], null)]);
          }
          let result: unknown;
          try {
            result = await def.handler({ ...input, auth: ctx, project, org, upload, raw: stream, req, reply } as never);
          } catch (err) {
            // Whatever the reader made of a body cut at the limit, the answer is the limit's.
            if (bodyExceeded(stream)) throw new BodyTooLarge(def.rawBody!.maxBytes);
            throw err;
          } finally {
            if (stream) drainBody(req);
          }
          if (reply.sent) return reply;
          if (result === undefined) return reply.send();
          return result;
        },
      });
    // A raw-body route takes its body through its own content parsers (an encapsulated context).
    if (def.rawBody) {
      const spec = def.rawBody;
      app.register(async (child) => {
        rawBodyParsers(child, spec);
        register(child);
      });
    } else register(app);
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

const ValidationErrorItem = z
  .object({
    type: z.string(),
    loc: z.array(z.union([z.string(), z.int()])),
    msg: z.string(),
    input: z.unknown().describe("The value that failed (null for a missing field)"),
    ctx: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: "ValidationError" });
const HTTPValidationError = z.object({ detail: z.array(ValidationErrorItem) }).meta({ id: "HTTPValidationError" });
const HTTPError = z.object({ detail: z.string() }).meta({ id: "HTTPError", description: '{"detail": "message"}' });
const HTTPConflict = z
  .object({
    detail: z
      .object({ code: z.string().describe("Stable code, e.g. nom_deja_utilise, version_perimee"), message: z.string() })
      .catchall(z.unknown())
      .describe("The code, its message, and facts of the conflict (version_perimee: current_version)"),
  })
  .meta({ id: "HTTPConflict" });

type Documented = { description: string; content: Record<string, { schema: z.ZodType }> } | z.ZodType;

function answer(description: string, schema: z.ZodType): Documented {
  return { description, content: { "application/json": { schema } } };
}

const SUCCESS: Record<number, string> = { 200: "OK", 201: "Created", 204: "No content", 503: "Service Unavailable" };

/**
 * The documented answers of a route: its successes, then every error it can give — those its
 * declaration implies, and those it declares (`errors`). Nothing it cannot give:
 * - 400: a path parameter that is not valid UTF-8 once percent-decoded (routes with path params), a
 *   JSON body nested deeper than Python's decoder reads (routes that read a body);
 * - 401: a route behind a credential; 403: a route needing a scope (or declaring a per-resource right);
 * - 404: a path parameter names something that does not exist for this tenant;
 * - 413, 415: a body over the limit, a Content-Type that is not a media type (routes that read a body);
 * - 414: a path parameter over its length limit;
 * - 422: request validation (routes reading params, query, headers or body);
 * - 429: the hourly call limit of the organization (API keys);
 * - 503: the database connection is lost (routes that read it), the budget of buffered bodies is spent (routes that read a body).
 */
export function responsesOf(def: RouteDef): Record<number, Documented> {
  const response: Record<number, Documented> = {};
  for (const [status, schema] of Object.entries(def.responses)) {
    const description = SUCCESS[Number(status)] ?? "Success";
    response[Number(status)] =
      schema instanceof Media
        ? { description, content: Object.fromEntries(Object.entries(schema.content).map(([type, s]) => [type, { schema: s }])) }
        : schema
          ? answer(description, schema)
          : z.null().describe(description);
  }
  const declared = def.errors ?? {};
  const error = (status: number, when: string) => {
    response[status] = answer(when, status === 409 ? HTTPConflict : HTTPError);
  };
  const params = def.params ? Object.keys(def.params.shape) : [];
  if (params.length || def.body) {
    error(
      400,
      [params.length && "a path parameter is not valid percent-encoded UTF-8", def.body && "the JSON body nests too deep to be read"]
        .filter(Boolean)
        .join("; "),
    );
  }
  if (def.auth !== "none") {
    error(
      401,
      def.auth === "apiKey"
        ? "No API key, or an invalid or revoked one (WWW-Authenticate: Bearer)"
        : def.auth === "session"
          ? "No session, or an expired one; an API key is not accepted here"
          : "No credential, or an invalid, revoked or expired one (API key, account token or session cookie)",
    );
  } else if (declared[401]) error(401, declared[401]);
  const role = requiredRole(def);
  const refusals = [
    def.scope && def.auth !== "session" && `the API key lacks the scope ${def.scope}`,
    def.auth !== "apiKey" && role !== "viewer" && `the signed-in user's role in the organization is below ${role}`,
    def.auth !== "apiKey" && def.method !== "GET" && "a cookie-authenticated write from another site (CSRF)",
    declared[403],
  ].filter(Boolean);
  if (refusals.length) error(403, `Refused: ${refusals.join("; or ")}`);
  if (params.length) error(404, `Not found for this credential: ${params.join(", ")} (detail names it, e.g. « Projet introuvable »)`);
  else if (def.project === "query")
    error(404, "The project_id query parameter names no project of the API key's reach (« Projet introuvable »)");
  if (declared[409]) error(409, `Conflict: ${declared[409]}`);
  if (def.body) {
    error(413, `Body over the limit (${def.upload ? `${def.upload.maxBytes / 1024 / 1024} MiB` : "1 MiB"})`);
    error(415, "Content-Type that is not a media type");
  } else if (def.rawBody) {
    error(413, `Body over the limit (${def.rawBody.maxBytes / 1024 / 1024} MiB, ${def.rawBody.maxBytes} bytes)`);
    error(415, `Content-Type other than ${def.rawBody.mediaTypes.join(", ")}`);
  }
  if (params.length) error(414, "A path parameter over the length limit (200 characters)");
  if (def.params || def.query || def.headers || def.body || def.rawBody)
    response[422] = answer(
      def.rawBody
        ? "Validation error (FastAPI/Pydantic shape): a parameter, no body, or the document refused (an item per fault, `loc` from body to the fault's place)"
        : "Validation error (FastAPI/Pydantic shape)",
      HTTPValidationError,
    );
  if (def.auth === "apiKey" || def.auth === "both") {
    error(429, `Hourly call limit of the organization's plan reached (Retry-After)${def.auth === "both" ? ": API keys only" : ""}`);
  } else if (declared[429]) error(429, declared[429]);
  const unavailable = [
    def.database !== false && "the database cannot be reached (lost connection: answers again once it is back, no restart)",
    (def.body || def.upload) && "the budget of request bodies being received is spent (the connection is closed)",
  ].filter(Boolean);
  if (unavailable.length && !response[503])
    error(503, `Service unavailable, retry after Retry-After seconds: ${unavailable.join("; or ")}`);
  return Object.fromEntries(Object.entries(response).sort(([a], [b]) => Number(a) - Number(b)));
}

function openApiSchema(def: RouteDef) {
  const response = responsesOf(def);
  const parts = { params: def.params, querystring: def.query, headers: def.headers, body: def.body };
  return {
    operationId: def.operationId,
    ...(def.upload && { upload: def.upload }),
    ...(def.rawBody && { rawBody: def.rawBody }),
    summary: def.summary,
    ...(def.description ? { description: def.description } : {}),
    tags: def.tags,
    ...Object.fromEntries(Object.entries(parts).filter(([, v]) => v !== undefined)),
    response,
    security: [
      ...(def.auth === "apiKey" || def.auth === "both" ? [{ apiKey: [] }] : []),
      ...(def.auth === "session" || def.auth === "both" ? [{ sessionCookie: [] }, { accountToken: [] }] : []),
    ] as Record<string, string[]>[],
  };
}

import type { Role } from "../db/schema/index.js";

export interface PlanInfo {
  name: string;
  slug: string;
  max_api_calls_per_hour: number;
}

/** Who calls /api/v1: an API key of one organization. */
export interface ApiKeyContext {
  kind: "apiKey";
  keyId: string;
  /** The key's name, as its holder labelled it (shown in case history). */
  keyName: string;
  orgId: string;
  orgName: string;
  scopes: ReadonlySet<string>;
  /** null: every project of the organization; else only these. */
  projectIds: ReadonlySet<string> | null;
  plan: PlanInfo | null;
}

/** Who calls the session API: a signed-in user, with the organizations they belong to. */
export interface SessionContext {
  kind: "session";
  sessionId: string;
  userId: string;
  email: string;
  /** When the session ends. */
  expiresAt: Date;
  roles: ReadonlyMap<string, Role>;
}

/** Whoever calls a route that serves API keys and sessions alike (`auth: "both"`). */
export type Caller = ApiKeyContext | SessionContext;

/** True when the key may see this project (restriction only; the organization is checked in SQL). */
export function keyAllowsProject(ctx: ApiKeyContext, projectId: string): boolean {
  return ctx.projectIds === null || ctx.projectIds.has(projectId);
}

/** A project its caller may work in, resolved where the route is declared (`project: true`) before the handler runs. */
export interface ProjectScope {
  id: string;
  orgId: string;
}

/**
 * The organization the path names, resolved against the caller (`org: true`) before the handler
 * runs: its id, and the projects the caller may see in it (null: every project).
 */
export interface OrgScope {
  id: string;
  projectIds: ReadonlySet<string> | null;
}

/**
 * The organization `orgId` as its caller may reach it, or null (404 « Organisation introuvable »):
 * an API key reaches its own organization (within its project restriction), a user those they are
 * a member of. No query: the key context and the session carry both.
 */
export function orgScopeOf(caller: ApiKeyContext | SessionContext, orgId: string): OrgScope | null {
  if (caller.kind === "apiKey") return caller.orgId === orgId ? { id: orgId, projectIds: caller.projectIds } : null;
  return caller.roles.has(orgId) ? { id: orgId, projectIds: null } : null;
}

/**
 * The one place that decides tenancy for /api/v1 and the session API: the project a caller may
 * reach, or null when it does not exist for them — another organization, outside an API key's
 * restriction, a user who is not a member, or absent (the route answers 404 « Projet introuvable »).
 */
export interface ProjectResolver {
  /** `orgId`: the organization the path names (the /api/v1 routes); the session routes name none. */
  resolve(caller: ApiKeyContext | SessionContext, projectId: string, orgId?: string): Promise<ProjectScope | null>;
}

/** Who made a change recorded in a history: an API key, a signed-in user, a workflow or a scheduled job. */
export interface Actor {
  type: "api_key" | "user" | "workflow" | "job";
  id: string | null;
  label: string | null;
}

/** The actor of a request's caller. */
export function actorOf(caller: ApiKeyContext | SessionContext): Actor {
  return caller.kind === "apiKey"
    ? { type: "api_key", id: caller.keyId, label: caller.keyName }
    : { type: "user", id: caller.userId, label: caller.email };
}

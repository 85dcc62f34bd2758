import { NotFound } from "../errors.js";
import { NOT_FOUND } from "../messages.js";
import { orgScopeOf, type ApiKeyContext, type OrgScope, type ProjectResolver, type ProjectScope, type SessionContext } from "./context.js";

/**
 * The project `projectId` as its caller may reach it, else 404 « Projet introuvable »: the one
 * resolution behind a route's `project: true` and an MCP tool's (ADR 0007).
 */
export async function resolveProject(
  projects: ProjectResolver,
  caller: ApiKeyContext | SessionContext,
  projectId: string,
  orgId?: string,
): Promise<ProjectScope> {
  const project = await projects.resolve(caller, projectId, orgId);
  if (!project) throw new NotFound(NOT_FOUND.project);
  return project;
}

/** The organization `orgId` as its caller may reach it, else 404 « Organisation introuvable » (`org: true`, routes and tools). */
export function resolveOrg(caller: ApiKeyContext | SessionContext, orgId: string): OrgScope {
  const org = orgScopeOf(caller, orgId);
  if (!org) throw new NotFound(NOT_FOUND.organization);
  return org;
}

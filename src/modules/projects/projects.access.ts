import {
  keyAllowsProject,
  type ApiKeyContext,
  type ProjectResolver,
  type ProjectScope,
  type SessionContext,
} from "../../platform/auth/context.js";
import type { NotifiedCache } from "../../platform/db/cache-feed.js";
import type { Database } from "../../platform/db/client.js";
import { projectsRepository as repo } from "./projects.repository.js";

/**
 * Tenancy of the project-scoped routes (ProjectResolver), over the projects repository.
 *
 * A key's organization and project restriction are checked in memory first (the key context is
 * cached). The project's organization is cached by project id under PROJECT_TOPIC, the topic the
 * triggers notify when a project changes organization or is deleted (rule of CacheFeed), so that
 * in the steady state resolving costs no round trip — the workflow list, the hot path, answers
 * from memory. Only the id and organization are cached: no trigger watches the other columns.
 */
export class ProjectAccess implements ProjectResolver {
  constructor(
    private readonly database: Database,
    private readonly orgOf: NotifiedCache<ProjectScope>,
  ) {}

  async resolve(caller: ApiKeyContext | SessionContext, projectId: string, orgId?: string): Promise<ProjectScope | null> {
    if (caller.kind === "apiKey" && (orgId !== caller.orgId || !keyAllowsProject(caller, projectId))) return null;
    const project = await this.project(projectId);
    if (!project) return null;
    // The path's organization (/api/v1) must be the project's; a user must be a member of it.
    if (orgId !== undefined && project.orgId !== orgId) return null;
    return caller.kind === "apiKey" || caller.roles.has(project.orgId) ? project : null;
  }

  private async project(projectId: string): Promise<ProjectScope | null> {
    const cached = this.orgOf.get(projectId);
    if (cached) return cached;
    const ticket = this.orgOf.ticket();
    const orgId = await repo.orgOf(this.database, projectId);
    if (!orgId) return null;
    const scope = { id: projectId, orgId };
    this.orgOf.set(projectId, scope, ticket);
    return scope;
  }
}

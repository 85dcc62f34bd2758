import type { Db, Executor } from "../../platform/db/client.js";
import { keyAllowsProject, type ApiKeyContext, type SessionContext } from "../../platform/auth/context.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { Conflict, invalid, NotFound } from "../../platform/errors.js";
import { isUuid } from "../../platform/ids.js";
import { organizationsRepository } from "../organizations/organizations.repository.js";
import type { WorkflowsService } from "../workflows/workflows.service.js";
import { projectsRepository as repo, type ProjectRow } from "./projects.repository.js";

export const PROJECT_NOT_FOUND = "Projet introuvable";

/** A project an API key may see, or 404 "Projet introuvable" (other organization, outside the key's restriction, or absent). */
export async function getProjectForKey(ex: Executor, ctx: ApiKeyContext, orgId: string, projectId: string): Promise<ProjectRow> {
  if (orgId !== ctx.orgId || !keyAllowsProject(ctx, projectId)) throw new NotFound(PROJECT_NOT_FOUND);
  const project = await repo.get(ex, orgId, projectId);
  if (!project) throw new NotFound(PROJECT_NOT_FOUND);
  return project;
}

/** A project of an organization the signed-in user belongs to, or 404 "Projet introuvable". */
export async function getProjectForMember(ex: Executor, session: SessionContext, projectId: string): Promise<ProjectRow> {
  const project = await repo.byId(ex, projectId);
  if (!project || !session.roles.has(project.orgId)) throw new NotFound(PROJECT_NOT_FOUND);
  return project;
}

/** Projects of an organization. */
export class ProjectsService {
  constructor(private readonly db: Db, private readonly workflows: WorkflowsService) {}

  /** Creates a project with its default workflow, in one transaction. The first project of an organization is its default. */
  async create(input: { orgId: string; name: string; description?: string | null }): Promise<ProjectRow> {
    const name = input.name.trim();
    if (!name || name.length > 200) {
      throw invalid("name", "le nom doit faire de 1 à 200 caractères", input.name);
    }
    if (!isUuid(input.orgId) || !(await organizationsRepository.orgExists(this.db, input.orgId))) throw new NotFound("Organisation introuvable");
    try {
      return await this.db.transaction(async (tx) => {
        const isDefault = (await repo.countInOrg(tx, input.orgId)) === 0;
        const project = await repo.create(tx, { orgId: input.orgId, name, description: input.description ?? null, isDefault });
        await this.workflows.createDefault(tx, project);
        return project;
      });
    } catch (err) {
      if (isUniqueViolation(err, "projects_org_name_uq")) throw new Conflict("nom_deja_utilise", `Un projet nommé « ${name} » existe déjà dans cette organisation`);
      throw err;
    }
  }

  /** A project of an organization (operators), or 404. */
  async getInOrg(orgId: string, projectId: string): Promise<ProjectRow> {
    const project = isUuid(orgId) && isUuid(projectId) ? await repo.get(this.db, orgId, projectId) : undefined;
    if (!project) throw new NotFound(PROJECT_NOT_FOUND);
    return project;
  }

  /** The projects an API key may see. */
  async listForKey(ctx: ApiKeyContext): Promise<ProjectRow[]> {
    return repo.list(this.db, ctx.orgId, ctx.projectIds ? [...ctx.projectIds] : null);
  }
}

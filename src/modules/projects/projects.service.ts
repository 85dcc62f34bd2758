import type { OrgScope, ProjectScope } from "../../platform/auth/context.js";
import type { Db, Executor } from "../../platform/db/client.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { Conflict, invalid, NotFound, type Loc } from "../../platform/errors.js";
import { isUuid } from "../../platform/ids.js";
import { CONFLICT, INVALID, NOT_FOUND } from "../../platform/messages.js";
import type { organizationsRepository } from "../organizations/organizations.repository.js";
import { projectsRepository as repo, type ProjectRow } from "./projects.repository.js";

/** What a new project gets besides its row, inside its creation transaction (its default workflow: app.ts wires it). */
export type ProjectSetup = (tx: Executor, project: ProjectScope) => Promise<unknown>;

/** Projects of an organization. */
export class ProjectsService {
  constructor(
    private readonly db: Db,
    private readonly setUp: ProjectSetup,
    private readonly organizations: Pick<typeof organizationsRepository, "orgExists">,
  ) {}

  /**
   * Creates a project with its default workflow, in one transaction. The first project of an
   * organization is its default. `at`: where the fields sit in the input (["body"] on the API).
   */
  async create(input: { orgId: string; name: string; description?: string | null }, at: Loc = []): Promise<ProjectRow> {
    const name = input.name.trim();
    if (!name || name.length > 200) throw invalid([...at, "name"], INVALID.nameLength, input.name);
    if (!isUuid(input.orgId) || !(await this.organizations.orgExists(this.db, input.orgId))) throw new NotFound(NOT_FOUND.organization);
    try {
      return await this.db.transaction(async (tx) => {
        const isDefault = (await repo.countInOrg(tx, input.orgId)) === 0;
        const project = await repo.create(tx, { orgId: input.orgId, name, description: input.description ?? null, isDefault });
        await this.setUp(tx, project);
        return project;
      });
    } catch (err) {
      if (isUniqueViolation(err, "projects_org_name_uq")) {
        throw new Conflict(CONFLICT.nameTaken.code, CONFLICT.nameTaken.message("Un projet nommé", name, " dans cette organisation"));
      }
      throw err;
    }
  }

  /** A project of an organization (operators), or 404. */
  async getInOrg(orgId: string, projectId: string): Promise<ProjectRow> {
    const project = isUuid(orgId) && isUuid(projectId) ? await repo.get(this.db, orgId, projectId) : undefined;
    if (!project) throw new NotFound(NOT_FOUND.project);
    return project;
  }

  /** The projects of an organization its caller may see. */
  async listIn(org: OrgScope): Promise<ProjectRow[]> {
    return repo.list(this.db, org.id, org.projectIds ? [...org.projectIds] : null);
  }
}

import { and, asc, eq, inArray } from "drizzle-orm";
import type { Database, Executor } from "../../platform/db/client.js";
import { projects } from "../../platform/db/schema/index.js";

export type ProjectRow = typeof projects.$inferSelect;

/** SQL of projects; every read is filtered by organization. */
export const projectsRepository = {
  async create(ex: Executor, p: { orgId: string; name: string; description: string | null; isDefault: boolean }): Promise<ProjectRow> {
    const [row] = await ex.insert(projects).values(p).returning();
    return row!;
  },

  async get(ex: Executor, orgId: string, projectId: string): Promise<ProjectRow | undefined> {
    const [row] = await ex
      .select()
      .from(projects)
      .where(and(eq(projects.orgId, orgId), eq(projects.id, projectId)));
    return row;
  },

  /** The organization of a project, or undefined when it does not exist: a prepared statement, read on every project route whose resolution is not cached. */
  async orgOf(database: Database, projectId: string): Promise<string | undefined> {
    const [row] = await database.raw<{ org_id: string }>("vigie_project_org", "select org_id from projects where id = $1", [projectId]);
    return row?.org_id;
  },

  /** Projects of an organization, optionally limited to some ids (a restricted key). */
  async list(ex: Executor, orgId: string, only: readonly string[] | null): Promise<ProjectRow[]> {
    if (only && only.length === 0) return [];
    const where = only ? and(eq(projects.orgId, orgId), inArray(projects.id, [...only])) : eq(projects.orgId, orgId);
    return ex.select().from(projects).where(where).orderBy(asc(projects.createdAt), asc(projects.id));
  },

  async countInOrg(ex: Executor, orgId: string): Promise<number> {
    return ex.$count(projects, eq(projects.orgId, orgId));
  },
};

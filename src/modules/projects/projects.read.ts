import { and, eq, inArray, sql } from "drizzle-orm";
import type { Executor } from "../../platform/db/client.js";
import { projects } from "../../platform/db/schema/index.js";
import { pgArray, rowsOf } from "../../platform/db/sql.js";

/**
 * The read model other modules use for projects (ADR 0017): the only queries on `projects` outside
 * this folder, but for the exceptions the ADR lists. Executor first, so a caller's transaction
 * passes through.
 */
export const projectsRead = {
  /** The name of a project (a fact of workflow runs). */
  async name(ex: Executor, projectId: string): Promise<string> {
    const [row] = await ex.select({ name: projects.name }).from(projects).where(eq(projects.id, projectId));
    return row!.name;
  },

  /** Which of these project ids belong to the organization. */
  async idsInOrg(ex: Executor, orgId: string, ids: string[]): Promise<string[]> {
    if (!ids.length) return [];
    const rows = await ex
      .select({ id: projects.id })
      .from(projects)
      .where(and(eq(projects.orgId, orgId), inArray(projects.id, ids)));
    return rows.map((r) => r.id);
  },

  /** The projects of each organization, by id. */
  async idsByOrg(ex: Executor, orgIds: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>(orgIds.map((o) => [o, []]));
    if (!orgIds.length) return out;
    const rows = await rowsOf<{ org_id: string; id: string }>(
      ex,
      sql`select org_id, id from projects where org_id = any(${pgArray([...new Set(orgIds)])}::uuid[]) order by org_id, id`,
    );
    for (const r of rows) out.get(r.org_id)!.push(r.id);
    return out;
  },

  /** The projects (id, name) of some organizations, by name: what a signed-in user may switch between. */
  async namedInOrgs(ex: Executor, orgIds: string[]): Promise<{ id: string; orgId: string; name: string }[]> {
    if (!orgIds.length) return [];
    return ex
      .select({ id: projects.id, orgId: projects.orgId, name: projects.name })
      .from(projects)
      .where(inArray(projects.orgId, orgIds))
      .orderBy(projects.name, projects.id);
  },

  /** Locks the project row (inside the caller's transaction): writers of its children that count them see each other. */
  async lock(ex: Executor, projectId: string): Promise<void> {
    await ex.select({ id: projects.id }).from(projects).where(eq(projects.id, projectId)).for("update");
  },
};

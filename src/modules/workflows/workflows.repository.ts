import { and, eq, isNull, sql } from "drizzle-orm";
import type { Database, Executor } from "../../platform/db/client.js";
import { idempotencyKeys, workflows } from "../../platform/db/schema/index.js";
import type { StoredGraph } from "../../engine/graph.js";

export type WorkflowRow = typeof workflows.$inferSelect;

export interface WorkflowListRow {
  id: string;
  name: string;
  is_enabled: boolean;
  is_default: boolean;
  created_at: Date;
  updated_at: Date;
}

// The list alone, the project being resolved by the route (ProjectAccess, cached). It replaced one
// statement that also checked the project's organization: in the steady state neither runs (the
// resolution and the list are cached), and on a miss — the first list after a change of the
// project's workflows, in each process — resolve-then-list measured 0.66 ms against 0.44 ms
// (PostgreSQL; PGlite 1.80 against 1.52 ms, loaded 2-core machine): 0.2 ms once per change,
// for tenancy decided in one place rather than again in this query.
const LIST_SQL = `
select id, name, is_enabled, is_default, created_at, updated_at
from workflows
where project_id = $1
order by created_at, id`;

/** Idempotency keys older than this are forgotten (and purged by the maintenance job). */
export const IDEMPOTENCY_RETENTION = "48 hours";

/** SQL of workflows and their creation idempotency keys; every method takes its tenant. */
export const workflowsRepository = {
  /** Workflows of a project. */
  async listForProject(database: Database, projectId: string): Promise<WorkflowListRow[]> {
    return database.raw<WorkflowListRow>("vigie_workflows_list", LIST_SQL, [projectId]);
  },

  async insert(
    ex: Executor,
    w: {
      orgId: string;
      projectId: string | null;
      name: string;
      description: string | null;
      family: string;
      graph: StoredGraph;
      isDefault?: boolean;
      maxRunsPerHour?: number;
    },
  ): Promise<WorkflowRow> {
    const [row] = await ex.insert(workflows).values(w).returning();
    return row!;
  },

  async getInProject(ex: Executor, projectId: string, id: string): Promise<WorkflowRow | undefined> {
    const [row] = await ex
      .select()
      .from(workflows)
      .where(and(eq(workflows.projectId, projectId), eq(workflows.id, id)));
    return row;
  },

  async getInOrg(ex: Executor, orgId: string, id: string): Promise<WorkflowRow | undefined> {
    const [row] = await ex
      .select()
      .from(workflows)
      .where(and(eq(workflows.orgId, orgId), isNull(workflows.projectId), eq(workflows.id, id)));
    return row;
  },

  /** Applies a change only if the version still matches; undefined when it does not (or no such workflow). */
  async updateIfVersion(
    ex: Executor,
    projectId: string,
    id: string,
    version: number,
    set: Partial<Pick<WorkflowRow, "name" | "description" | "family" | "graph">>,
  ): Promise<WorkflowRow | undefined> {
    const [row] = await ex
      .update(workflows)
      .set({ ...set, version: sql`${workflows.version} + 1`, updatedAt: sql`now()` })
      .where(and(eq(workflows.projectId, projectId), eq(workflows.id, id), eq(workflows.version, version)))
      .returning();
    return row;
  },

  async setEnabled(ex: Executor, projectId: string, id: string, enabled: boolean): Promise<WorkflowRow | undefined> {
    const [row] = await ex
      .update(workflows)
      .set({ isEnabled: enabled, version: sql`${workflows.version} + 1`, updatedAt: sql`now()` })
      .where(and(eq(workflows.projectId, projectId), eq(workflows.id, id)))
      .returning();
    return row;
  },

  /**
   * Workflows of every tenant with a secret action parameter still in clear (written before
   * secrets were encrypted): maintenance seals them once, at start-up.
   */
  async withClearSecrets(ex: Executor): Promise<Pick<WorkflowRow, "id" | "version" | "graph">[]> {
    return ex
      .select({ id: workflows.id, version: workflows.version, graph: workflows.graph })
      .from(workflows)
      .where(
        sql`exists (select 1 from jsonb_array_elements(${workflows.graph}->'nodes') n
          where n->>'type' = 'action'
            and ((n->>'action' = 'notify_webhook' and n->'params'->>'secret' not like 'enc:v1:%')
              or (n->>'action' in ('notify_slack', 'notify_teams') and n->'params'->>'webhook_url' not like 'enc:v1:%')))`,
      );
  },

  /** Replaces a graph by an equivalent one (the same for its users: no new version); false when the version moved. */
  async replaceGraphAtVersion(ex: Executor, id: string, version: number, graph: StoredGraph): Promise<boolean> {
    const rows = await ex
      .update(workflows)
      .set({ graph })
      .where(and(eq(workflows.id, id), eq(workflows.version, version)))
      .returning({ id: workflows.id });
    return rows.length === 1;
  },

  /** Sets the hourly run limit of a workflow of the organization (its projects' or its own). */
  async setMaxRunsPerHour(ex: Executor, orgId: string, id: string, max: number): Promise<WorkflowRow | undefined> {
    const [row] = await ex
      .update(workflows)
      .set({ maxRunsPerHour: max })
      .where(and(eq(workflows.orgId, orgId), eq(workflows.id, id)))
      .returning();
    return row;
  },

  async countInProject(ex: Executor, projectId: string): Promise<number> {
    return ex.$count(workflows, eq(workflows.projectId, projectId));
  },

  async delete(ex: Executor, projectId: string, id: string): Promise<void> {
    await ex.delete(workflows).where(and(eq(workflows.projectId, projectId), eq(workflows.id, id)));
  },

  /**
   * Claims an idempotency key: inserts it, or takes over one past retention. Returns true when
   * claimed; false when a live key exists. Concurrent claims of one key wait on the unique index,
   * so exactly one wins.
   */
  async claimIdempotencyKey(ex: Executor, k: { orgId: string; route: string; key: string; fingerprint: string }): Promise<boolean> {
    const rows = await ex
      .insert(idempotencyKeys)
      .values(k)
      .onConflictDoUpdate({
        target: [idempotencyKeys.orgId, idempotencyKeys.route, idempotencyKeys.key],
        set: { fingerprint: k.fingerprint, resourceId: null, createdAt: sql`now()` },
        setWhere: sql`${idempotencyKeys.createdAt} < now() - interval '${sql.raw(IDEMPOTENCY_RETENTION)}'`,
      })
      .returning({ key: idempotencyKeys.key });
    return rows.length > 0;
  },

  async idempotencyKey(ex: Executor, orgId: string, route: string, key: string) {
    const [row] = await ex
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.orgId, orgId), eq(idempotencyKeys.route, route), eq(idempotencyKeys.key, key)));
    return row;
  },

  async setIdempotencyResource(ex: Executor, orgId: string, route: string, key: string, resourceId: string): Promise<void> {
    await ex
      .update(idempotencyKeys)
      .set({ resourceId })
      .where(and(eq(idempotencyKeys.orgId, orgId), eq(idempotencyKeys.route, route), eq(idempotencyKeys.key, key)));
  },

  /** Deletes idempotency keys past retention; returns how many. */
  async purgeIdempotencyKeys(ex: Executor): Promise<number> {
    const rows = await ex
      .delete(idempotencyKeys)
      .where(sql`${idempotencyKeys.createdAt} < now() - interval '${sql.raw(IDEMPOTENCY_RETENTION)}'`)
      .returning({ key: idempotencyKeys.key });
    return rows.length;
  },
};

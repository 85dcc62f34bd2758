import { sql } from "drizzle-orm";
import type { Executor } from "../../platform/db/client.js";
import { rowsOf } from "../../platform/db/sql.js";

/** What a workflow run knows of the alert of its event. */
export interface AlertFacts {
  palier: string;
  tags: string[];
  match: Record<string, unknown> | null;
  is_read: boolean;
}

/**
 * The read model other modules use for alerts (ADR 0017): the only queries on `alerts` outside
 * this folder, but for the exceptions the ADR lists. Executor first, so a caller's transaction
 * passes through.
 */
export const alertsRead = {
  /** Whether the alert belongs to the project. */
  async inProject(ex: Executor, projectId: string, alertId: string): Promise<boolean> {
    return (await rowsOf(ex, sql`select 1 from alerts where project_id = ${projectId} and id = ${alertId}`)).length > 0;
  },

  /** The alert's tier, tags (by name), match and read state; null when the project has no such alert. */
  async facts(ex: Executor, projectId: string, alertId: string): Promise<AlertFacts | null> {
    const [row] = await rowsOf<AlertFacts>(
      ex,
      sql`select a.palier, a.match, a.is_read, coalesce((select array_agg(t.name order by t.name) from alert_tags x
          join tags t on t.id = x.tag_id where x.alert_id = a.id), '{}') as tags
        from alerts a where a.id = ${alertId} and a.project_id = ${projectId}`,
    );
    return row ?? null;
  },
};

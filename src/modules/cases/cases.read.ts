import { sql } from "drizzle-orm";
import type { Executor } from "../../platform/db/client.js";
import { rowsOf } from "../../platform/db/sql.js";

/** What a workflow run knows of the project's case for a CVE. */
export interface CaseFacts {
  status: string;
  severity: string | null;
}

/**
 * The read model other modules use for cases (ADR 0017): the only queries on `cases` outside this
 * folder, but for the exceptions the ADR lists. Executor first, so a caller's transaction passes
 * through.
 */
export const casesRead = {
  /** The status and severity of the project's case for the CVE; null when it has none. */
  async facts(ex: Executor, projectId: string, cveId: string): Promise<CaseFacts | null> {
    const [row] = await rowsOf<CaseFacts>(
      ex,
      sql`select status, severity from cases where project_id = ${projectId} and cve_id = ${cveId.toUpperCase()}`,
    );
    return row ?? null;
  },
};

import { sql } from "drizzle-orm";
import type { Executor } from "../../platform/db/client.js";
import type { CaseStatus, ExceptionNature, VexJustification } from "../../platform/db/schema/index.js";
import { pgArray, rowsOf } from "../../platform/db/sql.js";

/** What a workflow run knows of the project's case for a CVE. */
export interface CaseFacts {
  status: string;
  severity: string | null;
}

/** What a VEX document says of a case: its analysis, its exception, or the register entry covering it. */
export interface CaseVexFacts {
  cve_id: string;
  status: CaseStatus;
  vex_justification: VexJustification | null;
  notes: string | null;
  exception_nature: ExceptionNature | null;
  exception_measure: string | null;
  exception_justification: string | null;
  exception_expires_on: string | null;
  exception_set_at: Date | string | null;
  risk_title: string | null;
  risk_justification: string | null;
  risk_expires_on: string | null;
  created_at: Date | string;
  updated_at: Date | string;
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

  /** `facts` for many (project, CVE) pairs in one query, keyed `${projectId}:${CVE id}`; absent when there is no case. */
  async factsMany(ex: Executor, pairs: { projectId: string; cveId: string }[]): Promise<Map<string, CaseFacts>> {
    if (!pairs.length) return new Map();
    const rows = await rowsOf<CaseFacts & { project_id: string; cve_id: string }>(
      ex,
      sql`select c.project_id, c.cve_id, c.status, c.severity from cases c
        join unnest(${pgArray(pairs.map((p) => p.projectId))}::uuid[], ${pgArray(pairs.map((p) => p.cveId.toUpperCase()))}::text[]) as k(project_id, cve_id)
          on c.project_id = k.project_id and c.cve_id = k.cve_id`,
    );
    return new Map(rows.map((r) => [`${r.project_id}:${r.cve_id}`, { status: r.status, severity: r.severity }]));
  },

  /** The statuses of the project's cases for these CVEs (absent: no case). One query. */
  async statuses(ex: Executor, projectId: string, cveIds: string[]): Promise<Map<string, CaseStatus>> {
    if (!cveIds.length) return new Map();
    const rows = await rowsOf<{ cve_id: string; status: CaseStatus }>(
      ex,
      sql`select cve_id, status from cases where project_id = ${projectId} and cve_id = any(${pgArray(cveIds)}::text[])`,
    );
    return new Map(rows.map((r) => [r.cve_id, r.status]));
  },

  /**
   * Every case of the project with what a VEX document says of it (the register entry covering it
   * joined), in CVE order: one set-based query whatever the number of cases.
   */
  async vexFacts(ex: Executor, projectId: string): Promise<CaseVexFacts[]> {
    return rowsOf<CaseVexFacts>(
      ex,
      sql`select c.cve_id, c.status, c.vex_justification, c.notes, c.exception_nature, c.exception_measure, c.exception_justification,
        to_char(c.exception_expires_on, 'YYYY-MM-DD') as exception_expires_on, c.exception_set_at,
        r.title as risk_title, r.justification as risk_justification, to_char(r.expires_on, 'YYYY-MM-DD') as risk_expires_on,
        c.created_at, c.updated_at
      from cases c left join risks r on r.id = c.risk_id where c.project_id = ${projectId} order by c.cve_id`,
    );
  },
};

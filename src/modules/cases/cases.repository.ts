import { sql } from "drizzle-orm";
import type { Actor } from "../../platform/auth/context.js";
import type { Executor } from "../../platform/db/client.js";
import type { CaseStatus, ExceptionNature } from "../../platform/db/schema/index.js";
import { rowsOf } from "../../platform/db/sql.js";
import type { CaseEvent } from "./cases.schemas.js";

/** A case as the API shows it: the row and the register entry covering it. */
export interface CaseRow {
  id: string;
  org_id: string;
  project_id: string;
  cve_id: string;
  status: CaseStatus;
  severity: string | null;
  severity_manual: boolean;
  notes: string | null;
  exception_nature: ExceptionNature | null;
  exception_measure: string | null;
  exception_justification: string | null;
  exception_expires_on: string | null;
  exception_set_at: Date | string | null;
  risk_id: string | null;
  risk_title: string | null;
  risk_expires_on: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

export interface HistoryRow {
  event: CaseEvent;
  from_status: CaseStatus | null;
  to_status: CaseStatus;
  comment: string | null;
  actor_type: Actor["type"];
  actor_id: string | null;
  actor_label: string | null;
  details: Record<string, unknown> | null;
  created_at: Date | string;
}

/** One history row to write. */
export interface HistoryEntry {
  caseId: string;
  event: CaseEvent;
  from: CaseStatus | null;
  to: CaseStatus;
  comment?: string | null;
  details?: Record<string, unknown> | null;
}

/** The columns of a case a change may set (undefined: unchanged). */
export interface CasePatch {
  status?: CaseStatus;
  severity?: string | null;
  severity_manual?: boolean;
  notes?: string | null;
  exception?: {
    nature: ExceptionNature;
    measure: string | null;
    justification: string;
    expires_on: string;
  } | null;
  risk_id?: string | null;
}

/** A case with its register entry; `c` and `r` are the aliases the list queries build on. */
export const CASE_SELECT = sql`select c.id, c.org_id, c.project_id, c.cve_id, c.status, c.severity, c.severity_manual, c.notes,
  c.exception_nature, c.exception_measure, c.exception_justification, to_char(c.exception_expires_on, 'YYYY-MM-DD') as exception_expires_on,
  c.exception_set_at, c.risk_id, r.title as risk_title, to_char(r.expires_on, 'YYYY-MM-DD') as risk_expires_on, c.created_at, c.updated_at`;
export const CASE_FROM = sql`from cases c left join risks r on r.id = c.risk_id`;

/** SQL of cases and their history; every method takes the project (or the case of a project) it works within. */
export const casesRepository = {
  async get(ex: Executor, projectId: string, cveId: string, forUpdate = false): Promise<CaseRow | undefined> {
    const lock = forUpdate ? sql` for update of c` : sql``;
    const [row] = await rowsOf<CaseRow>(
      ex,
      sql`${CASE_SELECT} ${CASE_FROM} where c.project_id = ${projectId} and c.cve_id = ${cveId}${lock}`,
    );
    return row;
  },

  /**
   * Creates the case unless the project has one for the CVE (then nothing): severity is the CVE's
   * when Vigie knows it. True when created.
   */
  async insert(
    ex: Executor,
    c: { orgId: string; projectId: string; cveId: string; status: CaseStatus; severity: string | null; notes: string | null },
  ): Promise<boolean> {
    const rows = await rowsOf(
      ex,
      sql`insert into cases (org_id, project_id, cve_id, status, severity, severity_manual, notes)
      select ${c.orgId}, ${c.projectId}, ${c.cveId}, ${c.status},
        coalesce(${c.severity}::text, (select severity from cves where cve_id = ${c.cveId})), ${c.severity !== null}, ${c.notes}
      on conflict (project_id, cve_id) do nothing returning 1`,
    );
    return rows.length > 0;
  },

  /** Applies a patch; `exception` null clears it, an exception sets it with set_at = now(). */
  async update(ex: Executor, caseId: string, p: CasePatch): Promise<void> {
    const sets = [sql`updated_at = now()`];
    if (p.status !== undefined) sets.push(sql`status = ${p.status}`);
    if (p.notes !== undefined) sets.push(sql`notes = ${p.notes}`);
    if (p.severity_manual !== undefined) sets.push(sql`severity_manual = ${p.severity_manual}`);
    if (p.severity !== undefined)
      // Following the CVE again takes its severity at once.
      sets.push(
        p.severity === null ? sql`severity = (select v.severity from cves v where v.cve_id = cases.cve_id)` : sql`severity = ${p.severity}`,
      );
    if (p.risk_id !== undefined) sets.push(sql`risk_id = ${p.risk_id}`);
    if (p.exception !== undefined) {
      const e = p.exception;
      sets.push(
        e === null
          ? sql`exception_nature = null, exception_measure = null, exception_justification = null, exception_expires_on = null, exception_set_at = null`
          : sql`exception_nature = ${e.nature}, exception_measure = ${e.measure}, exception_justification = ${e.justification},
              exception_expires_on = ${e.expires_on}::date, exception_set_at = now()`,
      );
    }
    await ex.execute(sql`update cases set ${sql.join(sets, sql`, `)} where id = ${caseId}`);
  },

  /** Writes history rows, all by one actor, in one statement. */
  async addHistory(ex: Executor, actor: Actor, entries: HistoryEntry[]): Promise<void> {
    if (!entries.length) return;
    const rows = entries.map((e) => ({
      case_id: e.caseId,
      event: e.event,
      from_status: e.from,
      to_status: e.to,
      comment: e.comment ?? null,
      details: e.details ?? null,
    }));
    await ex.execute(sql`
      insert into case_history (case_id, event, from_status, to_status, comment, actor_type, actor_id, actor_label, details)
      select h.case_id, h.event, h.from_status, h.to_status, h.comment, ${actor.type}, ${actor.id}, ${actor.label}, h.details
      from json_to_recordset(${JSON.stringify(rows)}::json)
        as h(case_id uuid, event text, from_status text, to_status text, comment text, details jsonb)`);
  },

  /** A case's history, oldest first. */
  async history(ex: Executor, caseId: string): Promise<HistoryRow[]> {
    return rowsOf<HistoryRow>(
      ex,
      sql`select event, from_status, to_status, comment, actor_type, actor_id, actor_label, details, created_at
      from case_history where case_id = ${caseId} order by id`,
    );
  },
};

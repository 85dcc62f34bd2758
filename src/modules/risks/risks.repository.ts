import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "../../platform/db/client.js";
import type { CaseStatus } from "../../platform/db/schema/index.js";
import { likeContains, pgArray, rowsOf } from "../../platform/db/sql.js";
import type { CaseRow } from "../cases/cases.repository.js";
import { CASE_COLUMNS } from "../cases/cases.sql.js";
import type { RiskCaseRef, RiskListQuery, RiskStatus } from "./risks.schemas.js";

/** A register entry as the API shows it: `status` is the effective one on `today` (Paris), `cases_count` among the visible cases. */
export interface RiskRow {
  id: string;
  org_id: string;
  title: string;
  owner: string;
  justification: string;
  review_on: string | null;
  expires_on: string;
  status: RiskStatus;
  cases_count: number;
  created_at: Date | string;
  updated_at: Date | string;
}

export interface RiskCaseRow {
  project_id: string;
  cve_id: string;
  status: CaseStatus;
  severity: string | null;
}

/** The columns a change may set (undefined: unchanged). */
export interface RiskPatch {
  title?: string;
  owner?: string;
  justification?: string;
  review_on?: string | null;
  expires_on?: string;
}

/**
 * Which projects' cases the caller may see: null for every project of the organization, else
 * those ids (a restricted key). The organization itself is always filtered by the entry's org.
 */
export type Visible = readonly string[] | null;

const visibleCases = (visible: Visible): SQL => (visible === null ? sql`true` : sql`c.project_id = any(${pgArray([...visible])}::uuid[])`);

/** Expired from 00:00 Paris the day after expires_on, whether or not the expiry job has marked it yet. */
const effectiveStatus = (today: string): SQL =>
  sql`case when r.status = 'expiree' or r.expires_on < ${today}::date then 'expiree' else 'active' end`;

function riskSelect(today: string, visible: Visible): SQL {
  return sql`select r.id, r.org_id, r.title, r.owner, r.justification,
    to_char(r.review_on, 'YYYY-MM-DD') as review_on, to_char(r.expires_on, 'YYYY-MM-DD') as expires_on,
    ${effectiveStatus(today)} as status,
    (select count(*)::int from cases c where c.risk_id = r.id and ${visibleCases(visible)}) as cases_count,
    r.created_at, r.updated_at
    from risks r`;
}

/** The cases named by a batch, as a relation `refs(project_id, cve_id)` built from one JSON parameter. */
function refsOf(refs: RiskCaseRef[]): SQL {
  return sql`(select distinct * from json_to_recordset(${JSON.stringify(refs)}::json) as x(project_id uuid, cve_id text)) refs`;
}

/** SQL of the risk register; every method takes the organization (or an entry already read within it). */
export const risksRepository = {
  async list(ex: Executor, orgId: string, visible: Visible, today: string, q: RiskListQuery): Promise<{ rows: RiskRow[]; total: number }> {
    const where = [sql`r.org_id = ${orgId}`];
    if (q.status) where.push(sql`${effectiveStatus(today)} = ${q.status}`);
    if (q.q) where.push(sql`(r.title ilike ${likeContains(q.q)} or r.owner ilike ${likeContains(q.q)})`);
    if (q.review_before) where.push(sql`r.review_on <= ${q.review_before}::date`);
    if (q.expiring_before) where.push(sql`r.expires_on <= ${q.expiring_before}::date`);
    const filter = sql.join(where, sql` and `);
    const [rows, [count]] = await Promise.all([
      rowsOf<RiskRow>(
        ex,
        sql`${riskSelect(today, visible)} where ${filter} order by r.expires_on, r.title, r.id
        limit ${q.page_size} offset ${(q.page - 1) * q.page_size}`,
      ),
      rowsOf<{ n: number }>(ex, sql`select count(*)::int as n from risks r where ${filter}`),
    ]);
    return { rows, total: count!.n };
  },

  /** One entry of the organization; `forUpdate` locks it (writes on the entry and its cases serialize on it). */
  async get(ex: Executor, orgId: string, riskId: string, visible: Visible, today: string, forUpdate = false): Promise<RiskRow | undefined> {
    const lock = forUpdate ? sql` for update of r` : sql``;
    const [row] = await rowsOf<RiskRow>(ex, sql`${riskSelect(today, visible)} where r.org_id = ${orgId} and r.id = ${riskId}${lock}`);
    return row;
  },

  async insert(ex: Executor, orgId: string, r: Required<RiskPatch>): Promise<string> {
    const [row] = await rowsOf<{ id: string }>(
      ex,
      sql`insert into risks (org_id, title, owner, justification, review_on, expires_on)
      values (${orgId}, ${r.title}, ${r.owner}, ${r.justification}, ${r.review_on}::date, ${r.expires_on}::date) returning id`,
    );
    return row!.id;
  },

  async update(ex: Executor, riskId: string, p: RiskPatch): Promise<void> {
    const sets = [sql`updated_at = now()`];
    if (p.title !== undefined) sets.push(sql`title = ${p.title}`);
    if (p.owner !== undefined) sets.push(sql`owner = ${p.owner}`);
    if (p.justification !== undefined) sets.push(sql`justification = ${p.justification}`);
    if (p.review_on !== undefined) sets.push(sql`review_on = ${p.review_on}::date`);
    if (p.expires_on !== undefined) sets.push(sql`expires_on = ${p.expires_on}::date`);
    await ex.execute(sql`update risks set ${sql.join(sets, sql`, `)} where id = ${riskId}`);
  },

  async delete(ex: Executor, riskId: string): Promise<void> {
    await ex.execute(sql`delete from risks where id = ${riskId}`);
  },

  /** The cases an entry covers, among the visible ones, by project then CVE. */
  async casesOf(ex: Executor, riskId: string, visible: Visible): Promise<RiskCaseRow[]> {
    return rowsOf<RiskCaseRow>(
      ex,
      sql`select c.project_id, c.cve_id, c.status, c.severity from cases c
      where c.risk_id = ${riskId} and ${visibleCases(visible)} order by c.project_id, c.cve_id`,
    );
  },

  /** The projects whose cases an entry covers (every project: for the versions to bump and the restriction check). */
  async coveredProjects(ex: Executor, riskId: string): Promise<string[]> {
    const rows = await rowsOf<{ project_id: string }>(ex, sql`select distinct project_id from cases where risk_id = ${riskId}`);
    return rows.map((r) => r.project_id);
  },

  /** The cases of the batch, locked (in id order: concurrent batches lock in one order), with the entry covering each. */
  async lockBatch(ex: Executor, refs: RiskCaseRef[]): Promise<CaseRow[]> {
    if (!refs.length) return [];
    return rowsOf<CaseRow>(
      ex,
      sql`select ${CASE_COLUMNS} from cases c join ${refsOf(refs)} on c.project_id = refs.project_id and c.cve_id = refs.cve_id
      left join risks cr on cr.id = c.risk_id order by c.id for update of c`,
    );
  },

  /** The cases an entry covers (optionally one case), locked, with the entry. */
  async lockCovered(ex: Executor, riskId: string, one?: { projectId: string; cveId: string }): Promise<CaseRow[]> {
    const only = one ? sql` and c.project_id = ${one.projectId} and c.cve_id = ${one.cveId}` : sql``;
    return rowsOf<CaseRow>(
      ex,
      sql`select ${CASE_COLUMNS} from cases c left join risks cr on cr.id = c.risk_id
      where c.risk_id = ${riskId}${only} order by c.id for update of c`,
    );
  },

  /** Covers the cases by the entry in one statement: risque_accepte, their own exception cleared. */
  async cover(ex: Executor, riskId: string, caseIds: string[]): Promise<void> {
    if (!caseIds.length) return;
    await ex.execute(sql`update cases set status = 'risque_accepte', risk_id = ${riskId}, exception_nature = null,
      exception_measure = null, exception_justification = null, exception_expires_on = null, exception_set_at = null,
      updated_at = now() where id = any(${pgArray(caseIds)}::uuid[])`);
  },

  /** Uncovers the cases in one statement: they reopen to `status`. */
  async uncover(ex: Executor, caseIds: string[], status: CaseStatus): Promise<void> {
    if (!caseIds.length) return;
    await ex.execute(sql`update cases set status = ${status}, risk_id = null, updated_at = now()
      where id = any(${pgArray(caseIds)}::uuid[])`);
  },
};

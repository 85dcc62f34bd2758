import { sql, type SQL } from "drizzle-orm";
import type { Actor } from "../../platform/auth/context.js";
import { insertEvents } from "../../events/outbox.js";
import type { Executor } from "../../platform/db/client.js";
import type { CaseStatus, ExceptionNature, VexJustification } from "../../platform/db/schema/index.js";
import { pgArray, rowsOf } from "../../platform/db/sql.js";
import { caseAfter, caseFilters, caseKeys, caseOrder, EXCEPTION_STATUS_SQL, EXPIRY } from "./cases.filters.js";
import { CASE_COLUMNS, exceptionJson, riskJson } from "./cases.sql.js";
import type { CaseEvent, CaseFilter, CaseListQuery, CaseSort } from "./cases.schemas.js";

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
  vex_justification: VexJustification | null;
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
  /** Undefined: kept while the case stays non_concerne, cleared when `status` takes another value. */
  vex_justification?: VexJustification | null;
}

/** A case with its register entry (`c`, `cr`). */
const CASE_SELECT = sql`select ${CASE_COLUMNS}`;
const CASE_FROM = sql`from cases c left join risks cr on cr.id = c.risk_id`;

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
   * Creates the cases of these (project, CVE) pairs their projects do not have yet (status
   * `nouveau`, the CVE's severity when Vigie knows it), in one statement; the projects are the
   * organization's (checked before). Returns the created cases.
   */
  async insertMissing(
    ex: Executor,
    orgId: string,
    refs: { project_id: string; cve_id: string }[],
  ): Promise<{ id: string; project_id: string; cve_id: string }[]> {
    if (!refs.length) return [];
    return rowsOf(
      ex,
      sql`insert into cases (org_id, project_id, cve_id, status, severity)
      select ${orgId}, refs.project_id, refs.cve_id, 'nouveau', v.severity
      from (select distinct * from json_to_recordset(${JSON.stringify(refs)}::json) as x(project_id uuid, cve_id text)) refs
        left join cves v on v.cve_id = refs.cve_id
      order by refs.project_id, refs.cve_id
      on conflict (project_id, cve_id) do nothing returning id, project_id, cve_id`,
    );
  },

  /** Applies a patch; `exception` null clears it, an exception sets it with set_at = now(). */
  async update(ex: Executor, caseId: string, p: CasePatch): Promise<void> {
    const sets = [sql`updated_at = now()`];
    if (p.status !== undefined) sets.push(sql`status = ${p.status}`);
    // The VEX justification lives only with non_concerne: whatever moves the case elsewhere drops it.
    if (p.vex_justification !== undefined) sets.push(sql`vex_justification = ${p.vex_justification}`);
    else if (p.status !== undefined && p.status !== "non_concerne") sets.push(sql`vex_justification = null`);
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

  /** One page of the list (chosen on `cases` alone, off the sort's index), completed with the register entries. */
  async page(ex: Executor, projectId: string, q: CaseListQuery): Promise<CaseRow[]> {
    const order = caseOrder(q.sort);
    const where = sql.join(caseFilters(projectId, q), sql` and `);
    const offset = (q.page - 1) * q.page_size;
    let chosen = sql`select * from cases c where ${where} order by ${order} limit ${q.page_size} offset ${offset}`;
    if (q.sort === "expires_on") {
      // The cases under an exception or covered (sorted by expiry), then the others off the
      // (project_id, cve_id) index: 50,000 cases sorted whole took 35-50 ms, their split a fraction.
      const some = sql`(c.exception_nature is not null or c.risk_id is not null)`;
      const upTo = q.page * q.page_size;
      chosen = sql`select * from (
          (select c.*, 0 as grp from cases c where ${where} and ${some} order by ${order} limit ${upTo})
          union all
          (select c.*, 1 as grp from cases c where ${where} and not ${some} order by c.cve_id limit ${upTo})
        ) c order by c.grp, ${order} limit ${q.page_size} offset ${offset}`;
    }
    return rowsOf<CaseRow>(ex, sql`${CASE_SELECT} from (${chosen}) c left join risks cr on cr.id = c.risk_id order by ${order}`);
  },

  /** How many cases the filters select. */
  async count(ex: Executor, projectId: string, f: CaseFilter): Promise<number> {
    const [r] = await rowsOf<{ n: number }>(
      ex,
      sql`select count(*)::int as n from cases c where ${sql.join(caseFilters(projectId, f), sql` and `)}`,
    );
    return r!.n;
  },

  /**
   * The next `limit` exported cases after `last` (the sort keys of the previous chunk's last row,
   * `k0`…), with their tag names: the export walks the list by keyset, a chunk at a time.
   */
  async exportChunk(
    ex: Executor,
    projectId: string,
    q: CaseFilter & { sort: CaseSort },
    last: string[] | null,
    limit: number,
  ): Promise<(CaseRow & { tag_names: string; [k: `k${number}`]: string })[]> {
    const where = caseFilters(projectId, q);
    if (last) where.push(caseAfter(q.sort, last));
    return rowsOf(
      ex,
      sql`${CASE_SELECT}, ${caseKeys(q.sort)},
        coalesce((select string_agg(t.name, '; ' order by lower(t.name), t.name) from case_tags ct join tags t on t.id = ct.tag_id
          where ct.case_id = c.id), '') as tag_names
      ${CASE_FROM} where ${sql.join(where, sql` and `)} order by ${caseOrder(q.sort)} limit ${limit}`,
    );
  },

  /**
   * The cases a bulk change selects (these CVE ids, or the filters), locked in id order (concurrent
   * bulk changes lock alike); at most `limit` rows.
   */
  async lockForBulk(
    ex: Executor,
    projectId: string,
    by: { cveIds: string[] } | { filter: CaseFilter },
    limit: number,
  ): Promise<{ id: string; cve_id: string; status: CaseStatus }[]> {
    const where =
      "cveIds" in by
        ? [sql`c.project_id = ${projectId}`, sql`c.cve_id = any(${pgArray(by.cveIds)}::text[])`]
        : caseFilters(projectId, by.filter);
    return rowsOf(
      ex,
      sql`select c.id, c.cve_id, c.status from cases c where ${sql.join(where, sql` and `)} order by c.id limit ${limit} for update of c`,
    );
  },

  /**
   * Moves these cases to `to` (those already in it are left alone), in one statement with their
   * history rows. Leaving attenue or risque_accepte removes the case's own exception
   * (exception_removed, with its content) or uncovers it from its register entry (risk_unlinked,
   * with the entry), as a single change does. Returns the changed case ids.
   */
  async bulkStatus(
    ex: Executor,
    ids: string[],
    to: CaseStatus,
    actor: Actor,
    comment: string | null,
    justification: VexJustification | null = null,
  ): Promise<string[]> {
    // non_concerne takes the justification given; any other status drops the one held (ADR 0031).
    const vex = to === "non_concerne" ? sql`${justification}::text` : sql`null::text`;
    const rows = await rowsOf<{ case_id: string }>(
      ex,
      sql`with old as (
        select c.id, c.status, c.exception_nature, c.exception_measure, c.exception_justification, c.exception_expires_on,
          c.exception_set_at, c.risk_id, r.title as risk_title, r.expires_on as risk_expires_on, c.vex_justification,
          c.status in ${EXCEPTION_STATUS_SQL} as leaving
        from cases c left join risks r on r.id = c.risk_id
        where c.id = any(${pgArray(ids)}::uuid[]) and c.status <> ${to}
      ), upd as (
        update cases k set status = ${to}, updated_at = now(), vex_justification = ${vex},
          exception_nature = case when o.leaving then null else k.exception_nature end,
          exception_measure = case when o.leaving then null else k.exception_measure end,
          exception_justification = case when o.leaving then null else k.exception_justification end,
          exception_expires_on = case when o.leaving then null else k.exception_expires_on end,
          exception_set_at = case when o.leaving then null else k.exception_set_at end,
          risk_id = case when o.leaving then null else k.risk_id end
        from old o where k.id = o.id returning k.id
      )
      insert into case_history (case_id, event, from_status, to_status, comment, actor_type, actor_id, actor_label, details)
      select o.id,
        case when o.leaving and o.exception_nature is not null then 'exception_removed'
          when o.leaving and o.risk_id is not null then 'risk_unlinked' else 'status' end,
        o.status, ${to}, ${comment}, ${actor.type}, ${actor.id}, ${actor.label},
        nullif(coalesce(case when o.leaving and o.exception_nature is not null then jsonb_build_object('exception', ${exceptionJson("o")})
          when o.leaving and o.risk_id is not null then jsonb_build_object('risk', ${riskJson(sql`o.risk_id`, sql`o.risk_title`, sql`o.risk_expires_on`)})
        end, '{}'::jsonb)
        || case when ${vex} is not null then jsonb_build_object('justification_vex', ${vex})
          when o.vex_justification is not null then jsonb_build_object('justification_vex', null, 'previous_justification_vex', o.vex_justification)
          else '{}'::jsonb end, '{}'::jsonb)
      from old o join upd u on u.id = o.id order by o.id
      returning case_id`,
    );
    return rows.map((r) => r.case_id);
  },

  /**
   * Sets the severity of these cases by hand, or (null) has them follow their CVE's again, in one
   * statement with their history rows; cases already so are left alone. Returns the changed case ids.
   */
  async bulkSeverity(ex: Executor, ids: string[], severity: string | null, actor: Actor, comment: string | null): Promise<string[]> {
    const changes = severity === null ? sql`c.severity_manual` : sql`(c.severity is distinct from ${severity} or not c.severity_manual)`;
    const value = severity === null ? sql`(select v.severity from cves v where v.cve_id = k.cve_id)` : sql`${severity}`;
    const rows = await rowsOf<{ case_id: string }>(
      ex,
      sql`with old as (
        select c.id, c.status, c.severity from cases c where c.id = any(${pgArray(ids)}::uuid[]) and ${changes}
      ), upd as (
        update cases k set severity = ${value}, severity_manual = ${severity !== null}, updated_at = now()
        from old o where k.id = o.id returning k.id
      )
      insert into case_history (case_id, event, from_status, to_status, comment, actor_type, actor_id, actor_label, details)
      select o.id, 'severity', o.status, o.status, ${comment}, ${actor.type}, ${actor.id}, ${actor.label},
        jsonb_build_object('from', o.severity, 'to', ${severity}::text, 'follows_cve', ${severity === null}::boolean)
      from old o join upd u on u.id = o.id order by o.id
      returning case_id`,
    );
    return rows.map((r) => r.case_id);
  },

  /**
   * Sets the VEX justification of these cases that are non_concerne (null removes it), in one
   * statement with a `vex_justification` history row each; cases already so are left alone.
   * Returns the changed case ids.
   */
  async bulkJustification(
    ex: Executor,
    ids: string[],
    justification: VexJustification | null,
    actor: Actor,
    comment: string | null,
  ): Promise<string[]> {
    const rows = await rowsOf<{ case_id: string }>(
      ex,
      sql`with old as (
        select c.id, c.status, c.vex_justification from cases c
        where c.id = any(${pgArray(ids)}::uuid[]) and c.status = 'non_concerne' and c.vex_justification is distinct from ${justification}::text
      ), upd as (
        update cases k set vex_justification = ${justification}::text, updated_at = now() from old o where k.id = o.id returning k.id
      )
      insert into case_history (case_id, event, from_status, to_status, comment, actor_type, actor_id, actor_label, details)
      select o.id, 'vex_justification', o.status, o.status, ${comment}, ${actor.type}, ${actor.id}, ${actor.label},
        jsonb_build_object('from', o.vex_justification, 'to', ${justification}::text)
      from old o join upd u on u.id = o.id order by o.id
      returning case_id`,
    );
    return rows.map((r) => r.case_id);
  },

  /**
   * Attaches (or detaches) these tags to these cases, in one statement with a history row per
   * case and tag actually added (removed). Returns the changed case ids (one per row).
   */
  async bulkTags(ex: Executor, ids: string[], tagIds: string[], attach: boolean, actor: Actor, comment: string | null): Promise<string[]> {
    const caseIds = sql`${pgArray(ids)}::uuid[]`;
    const tags = sql`${pgArray(tagIds)}::uuid[]`;
    const change = attach
      ? sql`insert into case_tags (case_id, tag_id) select i, t from unnest(${caseIds}) i cross join unnest(${tags}) t
          on conflict do nothing returning case_id, tag_id`
      : sql`delete from case_tags where case_id = any(${caseIds}) and tag_id = any(${tags}) returning case_id, tag_id`;
    const rows = await rowsOf<{ case_id: string }>(
      ex,
      sql`with changed as (${change}),
      upd as (update cases k set updated_at = now() where k.id in (select case_id from changed) returning k.id, k.status)
      insert into case_history (case_id, event, from_status, to_status, comment, actor_type, actor_id, actor_label, details)
      select x.case_id, ${attach ? "tag_added" : "tag_removed"}, u.status, u.status, ${comment}, ${actor.type}, ${actor.id}, ${actor.label},
        jsonb_build_object('tag', jsonb_build_object('id', t.id, 'name', t.name))
      from changed x join upd u on u.id = x.case_id join tags t on t.id = x.tag_id order by x.case_id, lower(t.name)
      returning case_id`,
    );
    return rows.map((r) => r.case_id);
  },

  /**
   * The project's cases counted by status and severity (null: unknown), with those under their own
   * exception, covered by the register, and whose effective expiry is on or before `today` plus
   * the project's exception_warning_days. One pass.
   */
  async stats(
    ex: Executor,
    projectId: string,
    today: string,
  ): Promise<{ status: CaseStatus; severity: string; n: number; own: number; covered: number; soon: number }[]> {
    return rowsOf(
      ex,
      sql`select c.status, coalesce(c.severity, 'unknown') as severity, count(*)::int as n,
        (count(*) filter (where c.exception_nature is not null))::int as own,
        (count(*) filter (where c.risk_id is not null))::int as covered,
        (count(*) filter (where ${EXPIRY} <= ${today}::date + (select p.exception_warning_days from projects p where p.id = ${projectId})))::int as soon
      from cases c where c.project_id = ${projectId} group by 1, 2`,
    );
  },
};

/** A project whose cases or alerts an expiry statement changed. */
export interface ExpiryChange {
  kind: "case" | "alert" | "risk";
  project_id: string | null;
}

/**
 * The common end of both expiry statements, over a CTE `due` of reopened cases carrying what
 * expired (column `exception` or `risk`): the history row (`exception_expired` / `risk_expired`, by
 * the job), the `case.exception_expired` event with the project's alert, and that alert unread again.
 */
function reopenDue(reopened: CaseStatus, what: "exception" | "risk"): SQL {
  const [event, source, fact] =
    what === "exception" ? ["exception_expired", "case", sql`due.exception`] : ["risk_expired", "register", sql`due.risk`];
  return sql`
      hist as (
        insert into case_history (case_id, event, from_status, to_status, comment, actor_type, actor_id, actor_label, details)
        select due.id, ${event}, due.status, ${reopened}, null, 'job', null, 'cases-expiry', jsonb_build_object(${what}::text, ${fact})
        from due order by due.id),
      ev as (${insertEvents("case.exception_expired", {
        org_id: sql`due.org_id`,
        project_id: sql`due.project_id`,
        cve_id: sql`due.cve_id`,
        alert_id: sql`a.id`,
        payload: { case_id: sql`due.id`, cve_id: sql`due.cve_id`, source: sql`${source}::text`, [what]: fact },
        from: sql`from due left join alerts a on a.project_id = due.project_id and a.cve_id = due.cve_id order by due.id`,
      })}),
      unread as (
        update alerts a set is_read = false from due
        where a.project_id = due.project_id and a.cve_id = due.cve_id and a.is_read returning a.project_id)`;
}

/**
 * SQL of the expiry job (cases.expiry.ts): set-based statements that each reopen every due case at
 * once — row, history row, outbox event and the project's alert unread again, in one statement —
 * and return which projects they changed, so that the caller bumps their data versions. `today` is
 * the Paris calendar day (YYYY-MM-DD), computed by the caller: nothing here reads the database's clock
 * or time zone.
 */
export const caseExpiryRepository = {
  /**
   * Serializes the job: a second run (another process, or the CLI while the server runs) waits for
   * the first to commit, then finds nothing left to do. Released at the end of the transaction.
   */
  async lock(ex: Executor): Promise<void> {
    await ex.execute(sql`select pg_advisory_xact_lock(hashtext('vigie:cases-expiry'))`);
  },

  /**
   * Own exceptions valid through a day before `today`: the case reopens (en_analyse) and loses its
   * exception, kept in the `exception_expired` history row and the `case.exception_expired` event.
   * The rows are locked and re-read (FOR UPDATE): an exception extended meanwhile stays.
   */
  async expireExceptions(ex: Executor, today: string, reopened: CaseStatus): Promise<ExpiryChange[]> {
    return rowsOf<ExpiryChange>(
      ex,
      sql`
      with due as (
        select c.id, c.org_id, c.project_id, c.cve_id, c.status, ${exceptionJson("c")} as exception
        from cases c where c.exception_expires_on is not null and c.exception_expires_on < ${today}::date
        for update),
      upd as (
        update cases c set status = ${reopened}, exception_nature = null, exception_measure = null, exception_justification = null,
          exception_expires_on = null, exception_set_at = null, updated_at = now()
        from due where c.id = due.id returning c.id),
      ${reopenDue(reopened, "exception")}
      select 'case' as kind, due.project_id from due
      union all select 'alert', unread.project_id from unread`,
    );
  },

  /**
   * Active register entries valid through a day before `today` become `expiree`; every case they
   * cover reopens (en_analyse), uncovered, with a `risk_expired` history row and the event.
   */
  async expireRisks(ex: Executor, today: string, reopened: CaseStatus): Promise<ExpiryChange[]> {
    return rowsOf<ExpiryChange>(
      ex,
      sql`
      with r as (
        select r.id, ${riskJson(sql`r.id`, sql`r.title`, sql`r.expires_on`)} as risk
        from risks r where r.status = 'active' and r.expires_on < ${today}::date
        for update),
      ru as (update risks x set status = 'expiree', updated_at = now() from r where x.id = r.id returning x.id),
      due as (
        select c.id, c.org_id, c.project_id, c.cve_id, c.status, r.risk
        from cases c join r on c.risk_id = r.id
        for update of c),
      upd as (update cases c set status = ${reopened}, risk_id = null, updated_at = now() from due where c.id = due.id returning c.id),
      ${reopenDue(reopened, "risk")}
      select 'risk' as kind, null::uuid as project_id from ru
      union all select 'case', due.project_id from due
      union all select 'alert', unread.project_id from unread`,
    );
  },

  /**
   * `case.exception_expiring`, once per expiry date: cases whose expiry E (own exception's or
   * covering entry's) is within their project's warning days (E − days ≤ today ≤ E) and not yet
   * warned for E; `expiry_warned_for` = E then, so a changed expiry warns again. Read through
   * cases_exception_warning_idx (own exceptions not warned for their date) and
   * risks_active_expiry_idx, each bounded by the largest warning setting: when nothing is due, two
   * short index range scans.
   */
  async warn(ex: Executor, today: string): Promise<ExpiryChange[]> {
    return rowsOf<ExpiryChange>(
      ex,
      sql`
      with horizon as (select ${today}::date + coalesce(max(exception_warning_days), 0) as last from projects),
      w as (
        select c.id, c.org_id, c.project_id, c.cve_id, c.exception_expires_on as expires_on, 'case' as source
        from cases c join projects p on p.id = c.project_id
        where c.exception_expires_on is not null and c.expiry_warned_for is distinct from c.exception_expires_on
          and c.exception_expires_on >= ${today}::date and c.exception_expires_on <= (select last from horizon)
          and c.exception_expires_on <= ${today}::date + p.exception_warning_days
        union all
        select c.id, c.org_id, c.project_id, c.cve_id, r.expires_on, 'register'
        from risks r join cases c on c.risk_id = r.id join projects p on p.id = c.project_id
        where r.status = 'active' and r.expires_on >= ${today}::date and r.expires_on <= (select last from horizon)
          and r.expires_on <= ${today}::date + p.exception_warning_days and c.expiry_warned_for is distinct from r.expires_on),
      upd as (update cases c set expiry_warned_for = w.expires_on from w where c.id = w.id returning c.id),
      ev as (${insertEvents("case.exception_expiring", {
        org_id: sql`w.org_id`,
        project_id: sql`w.project_id`,
        cve_id: sql`w.cve_id`,
        alert_id: sql`a.id`,
        payload: {
          case_id: sql`w.id`,
          cve_id: sql`w.cve_id`,
          expires_on: sql`to_char(w.expires_on, 'YYYY-MM-DD')`,
          days_left: sql`w.expires_on - ${today}::date`,
          source: sql`w.source`,
        },
        from: sql`from w left join alerts a on a.project_id = w.project_id and a.cve_id = w.cve_id order by w.id`,
      })})
      select 'case' as kind, w.project_id from w`,
    );
  },

  /** The project's warning setting (days before an expiry). */
  async warningDays(ex: Executor, projectId: string): Promise<number> {
    const [row] = await rowsOf<{ days: number }>(ex, sql`select exception_warning_days as days from projects where id = ${projectId}`);
    return row?.days ?? 7;
  },

  async setWarningDays(ex: Executor, projectId: string, days: number): Promise<void> {
    await ex.execute(sql`update projects set exception_warning_days = ${days} where id = ${projectId}`);
  },
};

import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "../../platform/db/client.js";
import { pgArray, rowsOf } from "../../platform/db/sql.js";

/**
 * The SQL that reads what a report covers (one project). Every figure is computed set-based in the
 * database: a project of 50,000 alerts and 10,000 cases is read in a handful of aggregate
 * statements, and only capped lists (top N) come back as rows (bench/reports.ts).
 */

/** A span of instants [from, to[ (Paris midnights of the period's first day and of the day after its last). */
export interface Span {
  from: Date;
  to: Date;
}

/** `col` is one of the report's projects (one for a project report, the organization's for an organization report). */
const inProjects = (col: SQL, projects: string[]) => sql`${col} = any(${pgArray(projects)}::uuid[])`;
const inSpan = (col: SQL, s: Span) => sql`${col} >= ${s.from.toISOString()}::timestamptz and ${col} < ${s.to.toISOString()}::timestamptz`;
/** When a case reached its current status (its last move to it): for a closed case, when it was closed. */
const CLOSED_AT = sql`(select max(h.created_at) from case_history h where h.case_id = c.id and h.to_status = c.status)`;
const CLOSED = sql`c.status in ('corrige', 'non_concerne')`;
const days = (a: SQL, b: SQL) => sql`extract(epoch from (${a} - ${b})) / 86400.0`;

export interface DelayStats {
  n: number;
  mean: number | null;
  median: number | null;
  p90: number | null;
}

function delayStats(expr: SQL): SQL {
  return sql`json_build_object('n', count(${expr})::int, 'mean', avg(${expr})::float8,
    'median', (percentile_cont(0.5) within group (order by ${expr}))::float8,
    'p90', (percentile_cont(0.9) within group (order by ${expr}))::float8)`;
}

export interface TopAlert {
  cve_id: string;
  palier: string;
  severity: string;
  cvss_score: number | null;
  is_kev: boolean;
  has_poc: boolean;
  vendor: string | null;
  product: string | null;
  triggered_at: Date | string;
}

export interface ExceptionRow {
  project: string;
  cve_id: string;
  status: string;
  severity: string | null;
  nature: string;
  measure: string | null;
  justification: string | null;
  expires_on: string;
  set_at: Date | string | null;
  risk_id: string | null;
  risk_title: string | null;
  risk_owner: string | null;
}

export interface RegisterRow {
  id: string;
  title: string;
  owner: string;
  justification: string;
  review_on: string | null;
  expires_on: string;
  status: string;
  cases_count: number;
}

export interface KevRow {
  project: string;
  cve_id: string;
  vendor: string | null;
  product: string | null;
  date_added: string | null;
  due_date: string | null;
  case_status: string | null;
  handled_at: Date | string | null;
}

export interface InventoryRow {
  id: string;
  project: string;
  stack: string;
  item_type: string;
  value: string;
  min_severity: string | null;
  alerts: number;
}

export interface UrlRow {
  project: string;
  url: string;
  label: string | null;
  is_enabled: boolean;
  last_status: string;
  last_http_status: number | null;
  cert_expires_at: Date | string | null;
  cert_issuer: string | null;
  cert_valid: boolean | null;
  last_scanned_at: Date | string | null;
}

export const reportsData = {
  /** The report's projects: the one named, or every project of the organization (by name). */
  async projects(ex: Executor, orgId: string, projectId: string | null): Promise<{ id: string; name: string }[]> {
    return rowsOf(
      ex,
      sql`select id, name from projects where org_id = ${orgId} ${projectId === null ? sql`` : sql`and id = ${projectId}`} order by name, id`,
    );
  },

  async orgName(ex: Executor, orgId: string): Promise<string> {
    const [r] = await rowsOf<{ name: string }>(ex, sql`select name from organizations where id = ${orgId}`);
    return r?.name ?? "";
  },

  /** Alerts raised in the span: total, by tier, by severity, KEV and PoC (one scan of the project's alerts). */
  async alertCounts(ex: Executor, projects: string[], s: Span) {
    const [r] = await rowsOf<{
      total: number;
      kev: number;
      poc: number;
      by_palier: Record<string, number> | null;
      by_severity: Record<string, number> | null;
    }>(
      ex,
      sql`with a as (select palier, severity, is_kev, has_poc from alerts where ${inProjects(sql`project_id`, projects)} and ${inSpan(sql`triggered_at`, s)})
      select (select count(*)::int from a) as total, (select count(*)::int from a where is_kev) as kev,
        (select count(*)::int from a where has_poc) as poc,
        (select json_object_agg(palier, n) from (select palier, count(*)::int as n from a group by palier) p) as by_palier,
        (select json_object_agg(severity, n) from (select severity, count(*)::int as n from a group by severity) v) as by_severity`,
    );
    return { total: r!.total, kev: r!.kev, poc: r!.poc, by_palier: r!.by_palier ?? {}, by_severity: r!.by_severity ?? {} };
  },

  /** The span's most pressing alerts: tier first, then CVSS, then the CVE id. */
  async topAlerts(ex: Executor, projects: string[], s: Span, limit: number): Promise<TopAlert[]> {
    return rowsOf(
      ex,
      sql`select cve_id, palier, severity, cvss_score, is_kev, has_poc, vendor, product, triggered_at from alerts
      where ${inProjects(sql`project_id`, projects)} and ${inSpan(sql`triggered_at`, s)}
      order by palier, cvss_score desc nulls last, cve_id limit ${limit}`,
    );
  },

  /** Cases: every case by its current status; opened and closed within the span. */
  async caseCounts(ex: Executor, projects: string[], s: Span) {
    const [r] = await rowsOf<{ total: number; opened: number; closed: number; by_status: Record<string, number> | null }>(
      ex,
      sql`select count(*)::int as total, count(*) filter (where ${inSpan(sql`c.created_at`, s)})::int as opened,
        count(*) filter (where ${CLOSED} and ${inSpan(CLOSED_AT, s)})::int as closed,
        (select json_object_agg(status, n) from (select status, count(*)::int as n from cases where ${inProjects(sql`project_id`, projects)} group by status) x) as by_status
      from cases c where ${inProjects(sql`c.project_id`, projects)}`,
    );
    return { total: r!.total, opened: r!.opened, closed: r!.closed, by_status: r!.by_status ?? {} };
  },

  /**
   * Delays in days: CVE publication → alert (alerts raised in the span), alert → case closed and
   * publication → case closed (cases closed in the span whose CVE alerted the project).
   */
  async delays(ex: Executor, projects: string[], s: Span) {
    const [pa] = await rowsOf<{ d: DelayStats }>(
      ex,
      sql`select ${delayStats(sql`x.d`)} as d from (
        select ${days(sql`a.triggered_at`, sql`v.date_published`)} as d from alerts a join cves v on v.cve_id = a.cve_id
        where ${inProjects(sql`a.project_id`, projects)} and ${inSpan(sql`a.triggered_at`, s)} and v.date_published is not null) x`,
    );
    const [closed] = await rowsOf<{ ac: DelayStats; pc: DelayStats }>(
      ex,
      sql`select ${delayStats(sql`x.ac`)} as ac, ${delayStats(sql`x.pc`)} as pc from (
        select ${days(sql`k.closed_at`, sql`a.triggered_at`)} as ac, ${days(sql`k.closed_at`, sql`v.date_published`)} as pc
        from (select c.project_id, c.cve_id, ${CLOSED_AT} as closed_at from cases c where ${inProjects(sql`c.project_id`, projects)} and ${CLOSED}) k
        join alerts a on a.project_id = k.project_id and a.cve_id = k.cve_id
        left join cves v on v.cve_id = k.cve_id
        where ${inSpan(sql`k.closed_at`, s)}) x`,
    );
    return { publication_alert: pa!.d, alert_closed: closed!.ac, publication_closed: closed!.pc };
  },

  /** Exceptions in force on `today` (Paris): the case's own, or the register entry covering it; soonest expiry first. */
  async exceptions(
    ex: Executor,
    projects: string[],
    today: string,
    limit: number | null,
  ): Promise<{ total: number; expiring: number; rows: ExceptionRow[] }> {
    const inForce = sql`from cases c join projects p on p.id = c.project_id left join risks r on r.id = c.risk_id
      where ${inProjects(sql`c.project_id`, projects)} and c.status in ('attenue', 'risque_accepte')
        and coalesce(c.exception_expires_on, r.expires_on) >= ${today}::date`;
    const [n] = await rowsOf<{ total: number; expiring: number }>(
      ex,
      sql`select count(*)::int as total,
        count(*) filter (where coalesce(c.exception_expires_on, r.expires_on) <= ${today}::date + 30)::int as expiring ${inForce}`,
    );
    const rows = await rowsOf<ExceptionRow>(
      ex,
      sql`select p.name as project, c.cve_id, c.status, c.severity, case when c.risk_id is not null then 'REGISTRE' else c.exception_nature end as nature,
        c.exception_measure as measure, coalesce(c.exception_justification, r.justification) as justification,
        to_char(coalesce(c.exception_expires_on, r.expires_on), 'YYYY-MM-DD') as expires_on, c.exception_set_at as set_at,
        r.id as risk_id, r.title as risk_title, r.owner as risk_owner
      ${inForce} order by coalesce(c.exception_expires_on, r.expires_on), c.cve_id, p.name ${limit === null ? sql`` : sql`limit ${limit}`}`,
    );
    return { total: n!.total, expiring: n!.expiring, rows };
  },

  /** The organization's register entries that cover cases of this project, with how many of its cases each covers. */
  async register(ex: Executor, projects: string[], today: string): Promise<RegisterRow[]> {
    return rowsOf(
      ex,
      sql`select r.id, r.title, r.owner, r.justification, to_char(r.review_on, 'YYYY-MM-DD') as review_on,
        to_char(r.expires_on, 'YYYY-MM-DD') as expires_on,
        case when r.status = 'expiree' or r.expires_on < ${today}::date then 'expiree' else 'active' end as status,
        count(c.id)::int as cases_count
      from risks r join cases c on c.risk_id = r.id and ${inProjects(sql`c.project_id`, projects)}
      group by r.id order by r.expires_on, r.title, r.id`,
    );
  },

  /**
   * Every KEV CVE that alerted the project, with CISA's dates and the case: `handled_at` is when
   * the case last reached its current status when that status ends the exposure (corrige,
   * non_concerne, attenue), else null.
   */
  async kev(ex: Executor, projects: string[]): Promise<KevRow[]> {
    return rowsOf(
      ex,
      sql`select p.name as project, a.cve_id, coalesce(v.vendor, a.vendor) as vendor, coalesce(v.product, a.product) as product,
        v.kev->>'date_added' as date_added, v.kev->>'due_date' as due_date, c.status as case_status,
        case when c.status in ('corrige', 'non_concerne', 'attenue') then ${CLOSED_AT} end as handled_at
      from alerts a join cves v on v.cve_id = a.cve_id and v.is_kev join projects p on p.id = a.project_id
      left join cases c on c.project_id = a.project_id and c.cve_id = a.cve_id
      where ${inProjects(sql`a.project_id`, projects)} order by v.kev->>'due_date' nulls last, a.cve_id, p.name`,
    );
  },

  /** The project's stacks and their items, with the alerts each item raised. */
  async inventory(ex: Executor, projects: string[]): Promise<InventoryRow[]> {
    return rowsOf(
      ex,
      sql`select i.id, p.name as project, s.name as stack, i.item_type, i.value, i.min_severity, coalesce(n.alerts, 0) as alerts
      from stacks s join projects p on p.id = s.project_id join stack_items i on i.stack_id = s.id
      left join (select item_id, count(*)::int as alerts from alerts where ${inProjects(sql`project_id`, projects)} and item_id is not null group by item_id) n
        on n.item_id = i.id
      where ${inProjects(sql`s.project_id`, projects)} order by p.name, s.project_id, s.name, i.item_type, i.value, i.id`,
    );
  },

  /** The monitored URLs of the projects, with their last scan and certificate. */
  async urls(ex: Executor, projects: string[]): Promise<UrlRow[]> {
    return rowsOf(
      ex,
      sql`select p.name as project, u.url, u.label, u.is_enabled, u.last_status, u.last_http_status, u.cert_expires_at, u.cert_issuer,
        u.cert_valid, u.last_scanned_at
      from monitored_urls u join projects p on p.id = u.project_id
      where ${inProjects(sql`u.project_id`, projects)} order by p.name, u.url, u.id`,
    );
  },

  /** A fingerprint of the projects' stacks and items (the inventory's data, which has no data version). */
  async stackSignature(ex: Executor, projects: string[]): Promise<string> {
    const [r] = await rowsOf<{ sig: string | null }>(
      ex,
      sql`select md5(string_agg(p.id || '|' || p.name || '|' || coalesce(s.name, '') || '|' || coalesce(i.item_type, '') || '|' || coalesce(i.value, '')
          || '|' || coalesce(i.min_severity, ''), ',' order by p.id, i.id)) as sig
        from projects p left join stacks s on s.project_id = p.id left join stack_items i on i.stack_id = s.id
        where ${inProjects(sql`p.id`, projects)}`,
    );
    // The monitored URLs' scan results and the EOL data (imports change cycles) move the inventory too.
    const [u] = await rowsOf<{ sig: string | null }>(
      ex,
      sql`select md5(coalesce(string_agg(u.id || '|' || u.url || '|' || coalesce(u.label, '') || '|' || u.is_enabled || '|' || u.last_status
          || '|' || coalesce(u.last_http_status::text, '') || '|' || coalesce(u.cert_expires_at::text, '') || '|' || coalesce(u.cert_issuer, ''),
          ',' order by u.id), '') || '|' || coalesce((select max(updated_at)::text from eol_products), '')) as sig
        from monitored_urls u where ${inProjects(sql`u.project_id`, projects)}`,
    );
    return `${r?.sig ?? ""}:${u?.sig ?? ""}`;
  },
};

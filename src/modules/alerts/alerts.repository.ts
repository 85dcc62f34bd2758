import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "../../platform/db/client.js";
import { likeContains, pgArray, rowsOf } from "../../platform/db/sql.js";
import { digestsRead } from "../digests/digests.read.js";
import type { AlertListQuery } from "./alerts.schemas.js";

export interface AlertRow {
  id: string;
  cve_id: string;
  triggered_at: Date | string;
  is_read: boolean;
  severity: string;
  cvss_score: number | null;
  is_kev: boolean;
  has_poc: boolean;
  palier: string;
  vendor: string | null;
  product: string | null;
  source: string;
  match: Record<string, unknown>;
  description: string | null;
  aliases: string[] | null;
  fusion_de: string[] | null;
  epss: number | null;
  matching: boolean;
}

/** An alert with what the CVE record says (description, aliases…), for a handful of alerts already chosen. */
const SELECT = sql`select a.id, a.cve_id, a.triggered_at, a.is_read, a.severity, a.cvss_score, a.is_kev, a.has_poc, a.palier,
  coalesce(a.vendor, c.vendor) as vendor, coalesce(a.product, c.product) as product, a.source, a.match,
  c.description, c.aliases, c.fusion_de, a.epss, a.matching`;
const JOIN = sql`left join cves c on c.cve_id = a.cve_id`;

// Newest first is read off alerts_project_triggered_idx (its DESC NULLS LAST order, spelled out).
const NEWEST = sql`a.triggered_at desc nulls last, a.id desc nulls last`;
const ORDER: Record<AlertListQuery["sort"], SQL> = {
  "-triggered_at": NEWEST,
  "triggered_at": sql`a.triggered_at asc nulls first, a.id asc nulls first`,
  "-cvss": sql`a.cvss_score desc nulls last, ${NEWEST}`,
  "cvss": sql`a.cvss_score nulls first, ${NEWEST}`,
  "-epss": sql`a.epss desc nulls last, ${NEWEST}`,
  "epss": sql`a.epss nulls first, ${NEWEST}`,
  // What to handle first: the tier, a verified match before a "non vérifiable" one (KEV names the
  // product, no source gives versions), then severity (unscored after low), then the newest. The
  // expressions are those of alerts_project_priority_idx (migration 0032), which serves the order.
  "palier": sql`a.palier, ((a.match ->> 'rule') = 'unversioned'),
    (case a.severity when 'critical' then 0 when 'high' then 1 when 'medium' then 2 when 'low' then 3 when 'unknown' then 4 else 5 end),
    ${NEWEST}`,
};

/** The filters of the alert list, is_read aside (the unread count ignores it). */
function filters(projectId: string, q: AlertListQuery): SQL[] {
  const where: SQL[] = [sql`a.project_id = ${projectId}`];
  if (q.resume) where.push(sql`a.id in (${digestsRead.alertIds(q.resume)})`);
  if (q.severity?.length)
    where.push(
      sql`a.severity in (${sql.join(
        q.severity.map((s) => sql`${s}`),
        sql`, `,
      )})`,
    );
  if (q.palier?.length)
    where.push(
      sql`a.palier in (${sql.join(
        q.palier.map((p) => sql`${p}`),
        sql`, `,
      )})`,
    );
  if (q.is_kev !== undefined) where.push(sql`a.is_kev = ${q.is_kev}`);
  if (q.correspond_encore !== undefined) where.push(sql`a.matching = ${q.correspond_encore}`);
  if (q.has_poc !== undefined) where.push(sql`a.has_poc = ${q.has_poc}`);
  if (q.min_epss !== undefined) where.push(sql`a.epss >= ${q.min_epss}`);
  if (q.rule?.length)
    where.push(
      sql`a.match->>'rule' in (${sql.join(
        q.rule.map((r) => sql`${r}`),
        sql`, `,
      )})`,
    );
  if (q.tag) {
    where.push(sql`exists (select 1 from alert_tags at join tags t on t.id = at.tag_id where at.alert_id = a.id
      and (t.id::text = ${q.tag.toLowerCase()} or lower(t.name) = lower(${q.tag})))`);
  }
  if (q.q) {
    const like = likeContains(q.q);
    where.push(sql`(a.cve_id ilike ${like} or a.vendor ilike ${like} or a.product ilike ${like}
      or exists (select 1 from cves s where s.cve_id = a.cve_id and s.search @@ plainto_tsquery('simple', ${q.q})))`);
  }
  return where;
}

/** SQL of alerts; every method takes the project it works within. */
export const alertsRepository = {
  async page(ex: Executor, projectId: string, q: AlertListQuery): Promise<AlertRow[]> {
    const where = filters(projectId, q);
    if (q.is_read !== undefined) where.push(sql`a.is_read = ${q.is_read}`);
    // The page is chosen on the alerts alone, then completed from the CVE records (20 lookups, not 50,000).
    return rowsOf(
      ex,
      sql`${SELECT} from (select * from alerts a where ${sql.join(where, sql` and `)}
      order by ${ORDER[q.sort]} limit ${q.page_size} offset ${(q.page - 1) * q.page_size}) a ${JOIN}
      order by ${ORDER[q.sort]}`,
    );
  },

  /** total (every filter) and unread_count (is_read aside), in one pass. */
  async counts(ex: Executor, projectId: string, q: AlertListQuery): Promise<{ total: number; unread: number }> {
    const total = q.is_read === undefined ? sql`count(*)` : sql`count(*) filter (where a.is_read = ${q.is_read})`;
    const [r] = await rowsOf<{ total: number; unread: number }>(
      ex,
      sql`
      select ${total}::int as total, (count(*) filter (where not a.is_read))::int as unread
      from alerts a where ${sql.join(filters(projectId, q), sql` and `)}`,
    );
    return r!;
  },

  async get(ex: Executor, projectId: string, id: string): Promise<AlertRow | undefined> {
    const [row] = await rowsOf<AlertRow>(ex, sql`${SELECT} from alerts a ${JOIN} where a.project_id = ${projectId} and a.id = ${id}`);
    return row;
  },

  async exists(ex: Executor, projectId: string, id: string): Promise<boolean> {
    return (await rowsOf(ex, sql`select 1 from alerts where project_id = ${projectId} and id = ${id}`)).length > 0;
  },

  async setRead(ex: Executor, projectId: string, id: string, isRead: boolean): Promise<boolean> {
    return (
      (await rowsOf(ex, sql`update alerts set is_read = ${isRead} where project_id = ${projectId} and id = ${id} returning 1`)).length > 0
    );
  },

  /** Marks alerts read (these ids, or every unread one); returns how many changed. */
  async markRead(ex: Executor, projectId: string, ids: string[] | "all"): Promise<number> {
    const which = ids === "all" ? sql`true` : sql`id = any(${pgArray(ids)}::uuid[])`;
    const rows = await rowsOf(
      ex,
      sql`update alerts set is_read = true where project_id = ${projectId} and not is_read and ${which} returning 1`,
    );
    return rows.length;
  },

  /** The counts of the project's statistics, in one pass over its alerts. */
  async stats(
    ex: Executor,
    projectId: string,
  ): Promise<{ total: number; unread: number; kev: number; poc: number; bySeverity: Record<string, number> }> {
    const rows = await rowsOf<{ severity: string; total: number; unread: number; kev: number; poc: number }>(
      ex,
      sql`
      select severity, count(*)::int as total, (count(*) filter (where not is_read))::int as unread,
        (count(*) filter (where is_kev))::int as kev, (count(*) filter (where has_poc))::int as poc
      from alerts where project_id = ${projectId} group by severity`,
    );
    const sum = (k: "total" | "unread" | "kev" | "poc") => rows.reduce((n, r) => n + r[k], 0);
    return {
      total: sum("total"),
      unread: sum("unread"),
      kev: sum("kev"),
      poc: sum("poc"),
      bySeverity: Object.fromEntries(rows.map((r) => [r.severity, r.total])),
    };
  },
};

/** The project's alerting settings (columns of projects). */
export const alertSettingsRepository = {
  async get(ex: Executor, projectId: string): Promise<{ alert_backfill: "recent" | "all"; alert_backfill_days: number }> {
    const [r] = await rowsOf<{ alert_backfill: "recent" | "all"; alert_backfill_days: number }>(
      ex,
      sql`
      select alert_backfill, alert_backfill_days from projects where id = ${projectId}`,
    );
    return r!;
  },

  async set(ex: Executor, projectId: string, s: { alert_backfill?: string; alert_backfill_days?: number }): Promise<void> {
    await ex.execute(sql`update projects set alert_backfill = coalesce(${s.alert_backfill ?? null}, alert_backfill),
      alert_backfill_days = coalesce(${s.alert_backfill_days ?? null}::int, alert_backfill_days) where id = ${projectId}`);
  },
};

import { sql } from "drizzle-orm";
import type { Executor } from "../platform/db/client.js";
import { insertEvents } from "../events/outbox.js";
import { rowsOf } from "../platform/db/sql.js";
import { alertsVersion, bumpVersions } from "../platform/db/versions.js";

/**
 * One alert to raise: a project's item meets a CVE (the matcher's decision on a CVE record, or a
 * vendor's known_affected in a CSAF advisory). The CVE's facts (KEV, PoC, EPSS) as the caller read them.
 */
export interface AlertHit {
  project_id: string;
  org_id: string;
  item_id: string;
  cve_id: string;
  severity: string;
  cvss_score: number | null;
  is_kev: boolean;
  has_poc: boolean;
  epss: number | null;
  palier: string;
  vendor: string | null;
  product: string | null;
  source: string;
  /** Why it matched, structured: {item_id, item_type, value, rule, version, range, origin, …}. */
  match: object;
}

/**
 * Raises the alerts of these hits that do not exist yet, each with its cve.new_match event; an
 * alert the project already has for the CVE is left as it is. One statement; the projects' alert
 * versions are bumped. Returns how many alerts each item raised. The one insert of alerts: the
 * matcher (src/matching/matcher.ts) and the CSAF providers (src/modules/csaf) both raise through it.
 */
export async function insertAlerts(ex: Executor, hits: AlertHit[]): Promise<Map<string, number>> {
  const byItem = new Map<string, number>();
  if (!hits.length) return byItem;
  // In (project, CVE) order: concurrent writers of the same alerts take their locks in one order.
  const sorted = hits.sort((a, b) => (a.project_id + a.cve_id < b.project_id + b.cve_id ? -1 : 1));
  const rows = await rowsOf<{ project_id: string; item_id: string; n: number }>(
    ex,
    sql`
    with h as (
      select * from json_to_recordset(${JSON.stringify(sorted)}::json) as h(project_id uuid, org_id uuid, item_id uuid, cve_id text,
        severity text, cvss_score real, is_kev boolean, has_poc boolean, epss double precision, palier text, vendor text, product text,
        source text, match jsonb)),
    ins as (
      insert into alerts (org_id, project_id, cve_id, severity, cvss_score, is_kev, has_poc, epss, palier, vendor, product, source, match, item_id)
      select org_id, project_id, cve_id, severity, cvss_score, is_kev, has_poc, epss, palier, vendor, product, source, match, item_id from h
      on conflict (project_id, cve_id) do nothing
      returning id, org_id, project_id, cve_id, item_id, severity, is_kev, has_poc, palier, source, match),
    ev as (${insertEvents("cve.new_match", {
      org_id: sql`org_id`,
      project_id: sql`project_id`,
      cve_id: sql`cve_id`,
      alert_id: sql`id`,
      payload: {
        alert_id: sql`id`,
        cve_id: sql`cve_id`,
        severity: sql`severity`,
        is_kev: sql`is_kev`,
        has_poc: sql`has_poc`,
        palier: sql`palier`,
        source: sql`source`,
        match: sql`match`,
      },
      from: sql`from ins`,
      returning: sql`project_id`,
    })})
    -- ev runs whether read or not (a data-modifying CTE): one event per inserted alert.
    select project_id, item_id, count(*)::int as n from ins group by project_id, item_id`,
  );
  await bumpVersions(ex, [...new Set(rows.map((r) => r.project_id))].map(alertsVersion));
  for (const r of rows) byItem.set(r.item_id, (byItem.get(r.item_id) ?? 0) + r.n);
  return byItem;
}

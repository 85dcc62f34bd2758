import { sql } from "drizzle-orm";
import type { Executor } from "../../platform/db/client.js";
import { pgArray, rowsOf } from "../../platform/db/sql.js";

/** What a workflow run knows of the alert of its event. */
export interface AlertFacts {
  palier: string;
  tags: string[];
  match: Record<string, unknown> | null;
  is_read: boolean;
}

/** An alerted CVE as a VEX document names it: the stack item it matched and what Vigie knows of the CVE. */
export interface AlertVexFacts {
  cve_id: string;
  triggered_at: Date | string;
  /** The matched stack item (null when it was deleted since: then `match_value`, from the alert's match). */
  item_type: string | null;
  item_value: string | null;
  match_type: string | null;
  match_value: string | null;
  vendor: string | null;
  product: string | null;
  description: string | null;
  severity: string | null;
  cvss_score: number | null;
  cvss_vector: string | null;
  cvss_version: string | null;
  cwe_ids: string[] | null;
  /** The record's other ids (GHSA, GO, PYSEC, RUSTSEC…, or the CVE of an advisory). */
  aliases: string[] | null;
  date_published: Date | string | null;
  date_updated: Date | string | null;
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

  /**
   * `facts` for many alerts in one query (a batch of workflow runs), by alert id; an alert absent,
   * or not of the project given with it, is left out.
   */
  async factsMany(ex: Executor, alerts: { projectId: string; alertId: string }[]): Promise<Map<string, AlertFacts>> {
    if (!alerts.length) return new Map();
    const rows = await rowsOf<AlertFacts & { id: string; project_id: string }>(
      ex,
      sql`select a.id, a.project_id, a.palier, a.match, a.is_read, coalesce((select array_agg(t.name order by t.name) from alert_tags x
          join tags t on t.id = x.tag_id where x.alert_id = a.id), '{}') as tags
        from alerts a where a.id = any(${pgArray(alerts.map((a) => a.alertId))}::uuid[])`,
    );
    const projectOf = new Map(alerts.map((a) => [a.alertId, a.projectId]));
    return new Map(
      rows.filter((r) => projectOf.get(r.id) === r.project_id).map(({ id, project_id: _, ...facts }) => [id, facts as AlertFacts]),
    );
  },

  /** The tiers (P1…P4) of these alerts, by id: one query (the dispatch ranks runs by them). */
  async paliers(ex: Executor, alertIds: string[]): Promise<Map<string, string>> {
    if (!alertIds.length) return new Map();
    const rows = await rowsOf<{ id: string; palier: string }>(
      ex,
      sql`select id, palier from alerts where id = any(${pgArray(alertIds)}::uuid[])`,
    );
    return new Map(rows.map((r) => [r.id, r.palier]));
  },

  /**
   * Every alert of the project with its matched stack item and the CVE's facts, in CVE order: one
   * set-based query (a 50,000-alert project reads 50,000 rows once, never a query per alert).
   */
  async vexFacts(ex: Executor, projectId: string): Promise<AlertVexFacts[]> {
    return rowsOf<AlertVexFacts>(
      ex,
      sql`select a.cve_id, a.triggered_at, si.item_type, si.value as item_value, a.match->>'item_type' as match_type,
        a.match->>'value' as match_value, a.vendor, a.product, v.description, coalesce(v.severity, a.severity) as severity,
        coalesce(v.cvss_score, a.cvss_score) as cvss_score, v.cvss_vector, v.cvss_version, v.cwe_ids, v.aliases, v.date_published, v.date_updated
      from alerts a left join stack_items si on si.id = a.item_id left join cves v on v.cve_id = a.cve_id
      where a.project_id = ${projectId} order by a.cve_id`,
    );
  },

  /** Which of these CVEs the project has an alert for. One query. */
  async alertedCves(ex: Executor, projectId: string, cveIds: string[]): Promise<Set<string>> {
    if (!cveIds.length) return new Set();
    const rows = await rowsOf<{ cve_id: string }>(
      ex,
      sql`select cve_id from alerts where project_id = ${projectId} and cve_id = any(${pgArray(cveIds)}::text[])`,
    );
    return new Set(rows.map((r) => r.cve_id));
  },
};

/**
 * maintenance-purge's retention of workflow runs and outbox events (VIGIE_RUNS_RETENTION_DAYS,
 * VIGIE_EVENTS_RETENTION_DAYS): rows are inserted with timestamps around the cut-offs of a fixed
 * `now`, and the job must delete exactly those past retention — never an unfinished run, an
 * unprocessed event, or the event of a run it keeps.
 */
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { JOBS } from "../src/jobs.js";
import { createLogger } from "../src/platform/log.js";
import { createTenant, createTestApp } from "./helpers.js";

const t = await createTestApp();
// Another application with short retentions (the settings are read at start-up).
const short = await createTestApp({ VIGIE_RUNS_RETENTION_DAYS: "1", VIGIE_EVENTS_RETENTION_DAYS: "2" });
const NOW = new Date("2026-06-01T00:00:00Z");
// 90 days before NOW is 2026-03-03T00:00:00Z; 30 days before is 2026-05-02T00:00:00Z.
const RUNS_CUT = "2026-03-03T00:00:00Z";
const EVENTS_CUT = "2026-05-02T00:00:00Z";
const JUST_BEFORE = (iso: string) => new Date(new Date(iso).getTime() - 1000).toISOString();

const sql = async <T>(text: string, values: unknown[] = []) => (await t.database.executeSql(text, values)).rows as T[];

describe("maintenance-purge: runs kept 90 days, processed events 30 days", async () => {
  const tenant = await createTenant(t);
  const event = async (name: string, processedAt: string | null, createdAt = "2026-01-01T00:00:00Z") => {
    const [row] = await sql<{ id: string }>(
      `insert into outbox_events (org_id, project_id, event, payload, created_at, processed_at)
       values ($1, $2, 'cve.new_match', $3::jsonb, $4, $5) returning id`,
      [tenant.orgId, tenant.projectId, JSON.stringify({ name }), createdAt, processedAt],
    );
    return Number(row!.id);
  };
  // A run without an event is a dry run (finished as it starts); the others ran for their event.
  const run = async (name: string, finishedAt: string | null, eventId: number | null) => {
    await sql(
      `insert into workflow_runs (workflow_id, project_id, trigger_event, cve_id, status, started_at, finished_at, event_id)
       values ($1, $2, 'cve.new_match', $3, $4, '2025-12-01T00:00:00Z', $5, $6)`,
      [tenant.defaultWorkflowId, tenant.projectId, name, eventId === null ? "dry_run" : "success", finishedAt, eventId],
    );
  };

  it("deletes exactly what is past retention, in batches, and reports the counts", async () => {
    // Events: past retention alone (gone), inside it (kept), never processed (kept), held by a kept
    // run (kept), held by a run past retention (gone with it), held by an unfinished run (kept).
    const oldAlone = await event("old-alone", JUST_BEFORE(EVENTS_CUT));
    await event("at-cut", EVENTS_CUT);
    await event("pending", null, "2025-01-01T00:00:00Z");
    const heldByKept = await event("held-by-kept", "2026-01-02T00:00:00Z");
    const heldByOld = await event("held-by-old", "2026-01-02T00:00:00Z");
    const heldByUnfinished = await event("held-by-unfinished", "2026-01-02T00:00:00Z");
    await run("CVE-2026-0001", JUST_BEFORE(RUNS_CUT), heldByOld); // gone
    await run("CVE-2026-0002", RUNS_CUT, heldByKept); // kept: exactly at the cut-off
    await run("CVE-2026-0003", null, heldByUnfinished); // unfinished, started long ago: kept
    await run("CVE-2026-0004", "2026-01-01T00:00:00Z", null); // a dry run past retention: gone
    await run("CVE-2026-0005", "2026-05-31T00:00:00Z", null); // a recent dry run: kept
    // More than one batch (5,000) of old finished runs: the purge loops until a batch comes back short.
    await sql(
      `insert into workflow_runs (workflow_id, project_id, trigger_event, cve_id, status, started_at, finished_at)
       select $1, $2, 'cve.new_match', 'CVE-2025-' || lpad(g::text, 5, '0'), 'dry_run', '2025-06-01T00:00:00Z', '2025-06-01T00:00:00Z'
       from generate_series(1, 5003) g`,
      [tenant.defaultWorkflowId, tenant.projectId],
    );

    const result = await JOBS["maintenance-purge"].handler({}, t.services, createLogger("silent"), NOW);
    expect(result).toEqual({ idempotency_keys: 0, runs: 5005, events: 2, api_usage_windows: 0, epss_scores: 0, digests: 0 });

    const runs = await sql<{ cve_id: string }>("select cve_id from workflow_runs where project_id = $1 order by cve_id", [
      tenant.projectId,
    ]);
    expect(runs.map((r) => r.cve_id)).toEqual(["CVE-2026-0002", "CVE-2026-0003", "CVE-2026-0005"]);
    const events = await sql<{ id: string; name: string }>("select id, payload->>'name' as name from outbox_events order by id");
    expect(events.map((e) => e.name)).toEqual(["at-cut", "pending", "held-by-kept", "held-by-unfinished"]);
    expect(events.map((e) => Number(e.id))).not.toContain(oldAlone);
    expect(events.map((e) => Number(e.id))).not.toContain(heldByOld);

    // Run again at the same instant: nothing left past retention.
    expect(await JOBS["maintenance-purge"].handler({}, t.services, createLogger("silent"), NOW)).toEqual({
      idempotency_keys: 0,
      runs: 0,
      events: 0,
      api_usage_windows: 0,
      epss_scores: 0,
      digests: 0,
    });
  });

  it("the retention follows VIGIE_RUNS_RETENTION_DAYS and VIGIE_EVENTS_RETENTION_DAYS", async () => {
    expect(short.config.runs).toMatchObject({ retentionDays: 1, eventsRetentionDays: 2 });
    const other = await createTenant(short);
    const q = async <T>(text: string, values: unknown[] = []) => (await short.database.executeSql(text, values)).rows as T[];
    await q(
      `insert into outbox_events (org_id, project_id, event, payload, processed_at) values
         ($1, $2, 'cve.new_match', '{"name": "three-days"}', $3), ($1, $2, 'cve.new_match', '{"name": "one-day"}', $4)`,
      [other.orgId, other.projectId, "2026-05-29T00:00:00Z", "2026-05-31T00:00:00Z"],
    );
    await q(
      `insert into workflow_runs (workflow_id, project_id, trigger_event, status, started_at, finished_at) values
         ($1, $2, 'cve.new_match', 'dry_run', $3, $3), ($1, $2, 'cve.new_match', 'dry_run', $4, $4)`,
      [other.defaultWorkflowId, other.projectId, "2026-05-30T12:00:00Z", "2026-05-31T12:00:00Z"],
    );
    expect(await JOBS["maintenance-purge"].handler({}, short.services, createLogger("silent"), NOW)).toEqual({
      idempotency_keys: 0,
      runs: 1,
      events: 1,
      api_usage_windows: 0,
      epss_scores: 0,
      digests: 0,
    });
    expect(await q<{ name: string }>("select payload->>'name' as name from outbox_events")).toEqual([{ name: "one-day" }]);
  });

  it("a bad retention setting fails at start-up", async () => {
    expect(() => loadConfig({ VIGIE_RUNS_RETENTION_DAYS: "0" })).toThrow(/VIGIE_RUNS_RETENTION_DAYS/);
    expect(() => loadConfig({ VIGIE_EVENTS_RETENTION_DAYS: "trente" })).toThrow(/VIGIE_EVENTS_RETENTION_DAYS/);
  });
});

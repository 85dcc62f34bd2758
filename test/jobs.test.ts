import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { FeedsService } from "../src/feeds/feeds.service.js";
import { JOBS, startJobs } from "../src/jobs.js";
import { cronOf } from "../src/platform/jobs/jobs.js";
import { createLogger } from "../src/platform/log.js";
import { createTenant, createTestApp, createWorkflow } from "./helpers.js";

const t = await createTestApp();

describe("background jobs (pg-boss on the service database)", () => {
  it("starts on this driver, creates the queues and schedules the cron jobs", async () => {
    const jobs = await startJobs(t.database, t.services, createLogger("silent"), t.config);
    try {
      const { rows } = (await t.database.executeSql("select name, cron from pgboss.schedule order by name", [])) as {
        rows: { name: string; cron: string }[];
      };
      // cases-expiry every hour at minute 0 UTC;
      // the engine's dispatch and recovery every minute.
      expect(rows).toEqual([
        { name: "cases-expiry", cron: "0 * * * *" },
        { name: "csaf-sync", cron: "41 * * * *" },
        { name: "digests-send", cron: "* * * * *" },
        { name: "eol-notices", cron: "0 * * * *" },
        { name: "items-match", cron: "* * * * *" },
        { name: "maintenance-purge", cron: "17 * * * *" },
        { name: "reports-schedule", cron: "5 * * * *" },
        { name: "reports-sync", cron: "* * * * *" },
        { name: "runs-dispatch", cron: "* * * * *" },
        { name: "runs-recover", cron: "* * * * *" },
        { name: "urls-scan-due", cron: "* * * * *" },
      ]);
      // The feed sync has its own scheduler (each source on its rhythm): `jobs run feeds-sync` syncs them all now.
      expect(cronOf(JOBS["feeds-sync"], t.config)).toBeNull();
      expect(await jobs.send("maintenance-purge", {})).toEqual(expect.any(String));
    } finally {
      await jobs.stop();
    }
  });

  it("a connection lost while the jobs start (PostgreSQL dropping its connections): that start is stopped and begun again", async () => {
    // The soak's worker died so once: its start, slowed by load, met the connection drop at boss.start().
    let dropped = 0;
    const executeSql: typeof t.database.executeSql = async (text, values) => {
      if (!dropped && /create schema|pgboss\.version/i.test(text)) {
        dropped++;
        throw Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" });
      }
      return t.database.executeSql(text, values);
    };
    const warnings: { attempt?: number; msg?: string }[] = [];
    const logger = createLogger("silent");
    logger.warn = ((obj: { attempt?: number }, msg?: string) => void warnings.push({ ...obj, msg })) as typeof logger.warn;
    const jobs = await startJobs({ ...t.database, executeSql }, t.services, logger, t.config);
    try {
      expect(dropped).toBe(1);
      expect(warnings).toEqual([
        expect.objectContaining({ attempt: 1, msg: "connexion à la base perdue au démarrage des jobs : nouvel essai" }),
      ]);
      expect(await jobs.send("maintenance-purge", {})).toEqual(expect.any(String));
    } finally {
      await jobs.stop();
    }
    // Another fault than a lost connection is not retried.
    const broken: typeof t.database.executeSql = async () => {
      throw Object.assign(new Error("permission denied for schema pgboss"), { code: "42501" });
    };
    await expect(startJobs({ ...t.database, executeSql: broken }, t.services, logger, t.config)).rejects.toThrow(/permission denied/);
    expect(warnings).toHaveLength(1);
  });

  it("removes the schedules of jobs no longer in the catalog (the names before the renaming) when it starts", async () => {
    const first = await startJobs(t.database, t.services, createLogger("silent"), t.config);
    // A database upgraded from a version whose jobs had other names.
    await first.boss.createQueue("maintenance.purge");
    await first.boss.schedule("maintenance.purge", "17 * * * *", {}, { tz: "UTC" });
    await first.stop();
    const again = await startJobs(t.database, t.services, createLogger("silent"), t.config);
    try {
      const { rows } = (await t.database.executeSql("select name from pgboss.schedule order by name", [])) as { rows: { name: string }[] };
      expect(rows.map((r) => r.name)).toEqual([
        "cases-expiry",
        "csaf-sync",
        "digests-send",
        "eol-notices",
        "items-match",
        "maintenance-purge",
        "reports-schedule",
        "reports-sync",
        "runs-dispatch",
        "runs-recover",
        "urls-scan-due",
      ]);
    } finally {
      await again.stop();
    }
  });

  it("maintenance-purge forgets the hourly call counts of the windows before the previous hour", async () => {
    const tenant = await createTenant(t);
    const now = new Date();
    const hour = Math.floor(now.getTime() / 3_600_000) * 3600;
    for (const [ago, count] of [
      [0, 7],
      [1, 5],
      [2, 3],
      [30, 1],
    ])
      await t.database.executeSql(
        "insert into api_usage (org_id, window_start, count) values ($1, to_timestamp($2), $3) on conflict (org_id, window_start) do update set count = excluded.count",
        [tenant.orgId, hour - ago! * 3600, count],
      );
    const result = await JOBS["maintenance-purge"].handler({}, t.services, createLogger("silent"), now);
    expect(result).toMatchObject({ api_usage_windows: expect.any(Number) });
    expect((result as { api_usage_windows: number }).api_usage_windows).toBeGreaterThanOrEqual(2);
    const { rows } = (await t.database.executeSql(
      "select extract(epoch from window_start)::bigint as w, count from api_usage where org_id = $1 order by w desc",
      [tenant.orgId],
    )) as { rows: { w: string; count: number }[] };
    expect(rows.map((r) => [Number(r.w), r.count])).toEqual([
      [hour, 7],
      [hour - 3600, 5],
    ]);
  });

  it("maintenance-purge keeps VIGIE_EPSS_HISTORY_DAYS of daily EPSS scores before the newest date, and each current score", async () => {
    // Two real daily files a week apart (FIRST's API, 2026-08-09 and 2026-08-16: five CVEs each).
    for (const day of ["09", "16"]) await t.services.feeds.import("epss", [`test/fixtures/import/epss_scores-2026-08-${day}.csv`]);
    const scores = async () =>
      (
        (await t.database.executeSql("select score_date::text as d, count(*)::int as n from epss_scores group by 1 order by 1", [])) as {
          rows: { d: string; n: number }[];
        }
      ).rows;
    const current = "select cve_id, score_date::text, epss, percentile, first_date from epss_current order by cve_id";
    const before = (await t.database.executeSql(current, [])).rows;
    expect(await scores()).toEqual([
      { d: "2026-08-09", n: 5 },
      { d: "2026-08-16", n: 5 },
    ]);

    // The default window (365 days, counted back from 2026-08-16, not from today) keeps both.
    expect(await JOBS["maintenance-purge"].handler({}, t.services, createLogger("silent"), new Date())).toMatchObject({
      epss_scores: 0,
    });
    const within = (days: number) => new FeedsService(t.database.db, { ...t.config.feeds, epssHistoryDays: days });
    // 7 days before 2026-08-16 is 2026-08-09 itself: kept.
    expect(await within(7).purgeEpssHistory()).toBe(0);
    expect(await within(6).purgeEpssHistory()).toBe(5);
    expect(await scores()).toEqual([{ d: "2026-08-16", n: 5 }]);
    // The current scores and their first dates (2026-08-09 for the CVEs of both files) are untouched.
    expect((await t.database.executeSql(current, [])).rows).toEqual(before);
    expect(await within(1).purgeEpssHistory()).toBe(0);
    expect(t.config.feeds.epssHistoryDays).toBe(365);
    expect(() => loadConfig({ VIGIE_EPSS_HISTORY_DAYS: "0" })).toThrow(/VIGIE_EPSS_HISTORY_DAYS/);
  });

  it("maintenance-purge forgets idempotency keys past retention only", async () => {
    const tenant = await createTenant(t);
    await createWorkflow(t, tenant, { name: "old", trigger: { event: "cve.new_match" } }, "old-key");
    await createWorkflow(t, tenant, { name: "new", trigger: { event: "cve.new_match" } }, "new-key");
    await t.database.executeSql("update idempotency_keys set created_at = now() - interval '3 days' where key = 'old-key'", []);
    expect(await JOBS["maintenance-purge"].handler({}, t.services, createLogger("silent"), new Date())).toMatchObject({
      idempotency_keys: 1,
    });
    const { rows } = (await t.database.executeSql("select key from idempotency_keys where org_id = $1", [tenant.orgId])) as {
      rows: { key: string }[];
    };
    expect(rows.map((r) => r.key)).toEqual(["new-key"]);
    // A key past retention is free again: reusing it with another body creates a new workflow.
    const reuse = await createWorkflow(t, tenant, { name: "again", trigger: { event: "cve.new_match" } }, "old-key");
    expect(reuse.statusCode).toBe(201);
  });
});

/**
 * The server measured by bench/broad-item.ts, in its own process, as `vigie serve` runs it: the
 * Vigie app and the job catalog (runs dispatched and executed, background matching) over
 * BENCH_DB_URL (or BENCH_DATA_DIR), which `prepare` (another process, run first) migrated and
 * filled with the bundled snapshot. An organization, a project matching every stored CVE
 * (alert_backfill all), four workflows opening a case on each new match besides the project's
 * default one, and a key. Two bench routes: /bench/loop (the event loop's longest stall since the
 * last call, perf_hooks monitorEventLoopDelay, then reset) and /bench/progress (the project's
 * alerts, the events not yet dispatched, its runs not finished, its cases).
 * Prints {"port", "key", "base"} once listening.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { importSnapshotIfEmpty } from "../src/feeds/snapshot.js";
import { startJobs } from "../src/jobs.js";
import { openDatabase } from "../src/platform/db/client.js";
import { createLogger } from "../src/platform/log.js";

const config = loadConfig({ ...process.env, LOG_LEVEL: "warn", VIGIE_JOBS: "on", VIGIE_FEEDS_SYNC: "off" });
const database = await openDatabase({ databaseUrl: process.env.BENCH_DB_URL, dataDir: process.env.BENCH_DATA_DIR });
const logger = createLogger("warn", 2);
if (process.argv[2] === "prepare") {
  await database.migrate();
  await importSnapshotIfEmpty(database.db, logger);
  await database.close();
  process.exit(0);
}
const { app, services } = await buildApp({ config, database, logger });
const plan = await services.organizations.upsertPlan({ slug: "bench", name: "Bench", maxApiCallsPerHour: 1_000_000_000 });
const { org } = await services.organizations.createOrg({ name: "Bench broad item", planSlug: plan.slug });
const project = await services.projects.create({ orgId: org.id, name: "Bench broad item" });
await database.executeSql(`update projects set alert_backfill = 'all' where id = '${project.id}'`);
for (let i = 1; i <= Number(process.env.BENCH_WORKFLOWS ?? 4); i++)
  await services.workflows.createAsOperator({
    orgId: org.id,
    projectId: project.id,
    name: `Case on every match ${i}`,
    trigger: { event: "cve.new_match", match: "all" },
    actions: [],
    create_case: true,
  });
const { key } = await services.apiKeys.create({ orgId: org.id, scopes: ["stacks-write", "workflows-write"], projectIds: [] });

const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
app.get("/bench/loop", async () => {
  const r = { max_ms: Math.round(loop.max / 1e6), p99_ms: Math.round(loop.percentile(99) / 1e6) };
  loop.reset();
  return r;
});
app.get("/bench/progress", async () => {
  const [row] = await database.raw<{ alerts: number; pending_events: number; open_runs: number; cases: number }>(
    "bench_progress",
    `select (select count(*)::int from alerts where project_id = $1) as alerts,
      (select count(*)::int from outbox_events where processed_at is null) as pending_events,
      (select count(*)::int from workflow_runs where project_id = $1 and finished_at is null) as open_runs,
      (select count(*)::int from cases where project_id = $1) as cases`,
    [project.id],
  );
  return row;
});

const jobs = await startJobs(database, services, logger, config);
await app.listen({ port: 0, host: "127.0.0.1" });
const address = app.server.address();
const port = typeof address === "object" && address ? address.port : 0;
process.stdout.write(`${JSON.stringify({ port, key, base: `/api/v1/organizations/${org.id}/projects/${project.id}` })}\n`);
process.on("SIGTERM", async () => {
  await app.close();
  await jobs.stop(5_000);
  await database.close();
  process.exit(0);
});

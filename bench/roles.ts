/**
 * Separate processes on PostgreSQL (VIGIE_ROLE), with the built server (`node dist/cli.js serve`)
 * on a database made and dropped here on DATABASE_URL's server (skipped without it):
 * 1. workflow-list throughput, one `api` process against two: the client (autocannon in this
 *    process, 10 connections; with two addresses it gives its connections to each in turn, as a
 *    round-robin balancer) in alternating rounds (BENCH_ROUNDS, default 3, of BENCH_SECONDS, default
 *    10); req/s, p50/p99, the CPU of each side, and the database transactions per 1,000 requests;
 * 2. runs/s, one `worker` against two, alternating rounds (BENCH_ROUNDS each): a fresh project
 *    watching BENCH_ROLES_EVENTS (default 1,000) CVEs of the 2024 CVE List file, whose import (here,
 *    the CLI's code) writes as many `cve.new_match` events, each making two runs (the default
 *    workflow's create_case, a notify_webhook to a local receiver); from the first event to the last
 *    run finished (the database's clock), the runs each worker executed and their mean duration
 *    (its /metrics), CPU, and the database transactions per run;
 * 3. time to ready after `kill -9` (BENCH_ROLES_KILLS, default 5, of each role): the replacement is
 *    spawned on the same port; spawn → first 200 on /readyz and, for the api, on the workflow list.
 */
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { createServices, type Services } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { openDatabase, type Database } from "../src/platform/db/client.js";
import { pct, receiver, records, waitFor, watchingProject } from "./harness.js";
import { backendsOf, cpuMeter, freePort, msUntil200, spawnVigie, stopAll, type Role, type VigieProcess } from "./roles-procs.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const EVENTS = Number(process.env.BENCH_ROLES_EVENTS ?? 1_000);
const KILLS = Number(process.env.BENCH_ROLES_KILLS ?? 5);
const CONNECTIONS = 10;
// PostgreSQL flushes an idle backend's statistics within 10 s (PGSTAT_IDLE_INTERVAL): counts are read after that.
const STATS_SETTLE_MS = 11_000;

type Row = Record<string, string | number>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => pct(xs, 0.5);

interface Setup {
  database: Database;
  dbName: string;
  services: Services;
  orgId: string;
  /** Path of the workflow list (20 workflows) and its key's header. */
  list: string;
  auth: Record<string, string>;
  /** Environment of every spawned process. */
  env: Record<string, string>;
  /** A temporary directory (import files). */
  dir: string;
}

async function sql<T>(database: Database, text: string, values: unknown[] = []): Promise<T[]> {
  return (await database.executeSql(text, values)).rows as T[];
}

/** Transactions committed in this database while `fn` runs, read once PostgreSQL's statistics have settled. */
async function transactions(database: Database, fn: () => Promise<void>): Promise<number> {
  const commits = async () =>
    (await sql<{ n: number }>(database, "select xact_commit::float8 as n from pg_stat_database where datname = current_database()"))[0]!.n;
  await sleep(STATS_SETTLE_MS);
  const before = await commits();
  await fn();
  await sleep(STATS_SETTLE_MS);
  return (await commits()) - before;
}

/** Spawns a process of this role on a new port and waits until /readyz answers 200. */
async function started(role: Role, env: Record<string, string>, port?: number): Promise<VigieProcess> {
  const p = spawnVigie(role, port ?? (await freePort()), env);
  await msUntil200(`http://127.0.0.1:${p.port}/readyz`, p.spawnedAt);
  return p;
}

/** 1. One API process against two, the client's connections spread over both. */
async function throughput(s: Setup, apis: VigieProcess[]): Promise<Row[]> {
  const urls = apis.map((a) => `http://127.0.0.1:${a.port}${s.list}`);
  const load = (targets: string[], duration: number) =>
    autocannon({ url: targets.length === 1 ? targets[0] : targets, connections: CONNECTIONS, duration, headers: s.auth });
  await load(urls, 3); // warm-up of both: JIT, pools, caches
  let requests = 0;
  const rows: Row[] = [];
  const commits = await transactions(s.database, async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const n of [1, 2]) {
        const meter = cpuMeter({
          "API processes": () => apis.map((a) => a.proc.pid!),
          client: "self",
          PostgreSQL: () => backendsOf(s.dbName),
        });
        const r = await load(urls.slice(0, n), DURATION);
        requests += r.requests.total;
        rows.push({
          round,
          "API processes": n,
          "req/s": Math.round(r.requests.average),
          "p50 ms": r.latency.p50,
          "p99 ms": r.latency.p99,
          "not 200": r.errors + r.non2xx,
          ...meter(),
        });
        console.log(JSON.stringify(rows.at(-1)));
      }
    }
  });
  console.log(
    `database transactions during the rounds: ${commits} for ${requests} requests (${((1000 * commits) / requests).toFixed(2)} per 1,000)`,
  );
  return rows;
}

/** `runs-execute` jobs this worker has handled and the seconds they took, from its /metrics. */
async function executed(worker: VigieProcess): Promise<{ jobs: number; seconds: number }> {
  const text = await (await fetch(`http://127.0.0.1:${worker.port}/metrics`)).text();
  const sum = (metric: string) =>
    text
      .split("\n")
      .filter((l) => l.startsWith(`${metric}{`) && l.includes('name="runs-execute"'))
      .reduce((a, l) => a + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
  return { jobs: sum("vigie_jobs_total"), seconds: sum("vigie_job_duration_seconds_sum") };
}

/** One burst: a fresh project watching these CVEs, their import, until its last run has finished. */
async function burst(
  s: Setup,
  rcv: ReturnType<typeof receiver>,
  workers: VigieProcess[],
  watched: { id: string; line: string }[],
  name: string,
) {
  const hook = `http://127.0.0.1:${(rcv.server.address() as AddressInfo).port}/hook`;
  const projectId = await watchingProject(
    s.services,
    s.orgId,
    name,
    watched.map((r) => r.id),
    hook,
  );
  // The bench measures the workers, not the hourly limit of runs (500 per workflow by default).
  await sql(s.database, "update workflows set max_runs_per_hour = 1000000 where project_id = $1", [projectId]);
  const file = join(s.dir, `${name}.jsonl`);
  writeFileSync(file, watched.map((r) => r.line).join("\n") + "\n");
  const received = rcv.arrivals.size;
  const duplicates = rcv.duplicates();
  const before = await Promise.all(workers.map(executed));
  const meter = cpuMeter({
    workers: () => workers.map((w) => w.proc.pid!),
    "bench (import, receiver)": "self",
    PostgreSQL: () => backendsOf(s.dbName),
  });
  await s.services.feeds.import("cve5", [file]);
  const count = async (text: string) => (await sql<{ n: number }>(s.database, text, [projectId]))[0]!.n;
  const events = await count("select count(*)::int as n from outbox_events where project_id = $1");
  await waitFor(
    async () =>
      (await count("select count(*)::int as n from workflow_runs where project_id = $1 and finished_at is not null")) >= 2 * events,
    600_000,
  );
  const cpu = meter();
  const jobs = (await Promise.all(workers.map(executed))).map((a, i) => ({
    jobs: a.jobs - before[i]!.jobs,
    seconds: a.seconds - before[i]!.seconds,
  }));
  const [t] = await sql<{ ms: number; runs: number; not_success: number }>(
    s.database,
    `select extract(epoch from max(r.finished_at) - (select min(created_at) from outbox_events where project_id = $1))::float8 * 1000 as ms,
            count(*)::int as runs, count(*) filter (where r.status <> 'success')::int as not_success
       from workflow_runs r where r.project_id = $1`,
    [projectId],
  );
  return {
    workers: workers.length,
    events,
    runs: t!.runs,
    "not success": t!.not_success,
    "s first event → last run": +(t!.ms / 1000).toFixed(2),
    "runs/s": Math.round((1000 * t!.runs) / t!.ms),
    "runs by worker": jobs.map((j) => j.jobs).join(" + "),
    "ms a run (mean)": Math.round((1000 * jobs.reduce((a, j) => a + j.seconds, 0)) / jobs.reduce((a, j) => a + j.jobs, 0)),
    webhooks: rcv.arrivals.size - received,
    "received twice": rcv.duplicates() - duplicates,
    ...cpu,
  };
}

/** 2. Runs/s of one worker against two (the second started for its rounds only), alternating. */
async function runsPerSecond(s: Setup): Promise<Row[]> {
  const rcv = receiver();
  await new Promise<void>((r) => rcv.server.listen(0, "127.0.0.1", () => r()));
  const all = await records(2 * ROUNDS * EVENTS);
  const first = await started("worker", s.env);
  const rows: Row[] = [];
  try {
    const commits = await transactions(s.database, async () => {
      for (let i = 0; i < 2 * ROUNDS; i++) {
        const workers = i % 2 ? [first, await started("worker", s.env)] : [first];
        rows.push({
          round: Math.floor(i / 2) + 1,
          ...(await burst(s, rcv, workers, all.slice(i * EVENTS, (i + 1) * EVENTS), `runs-${i}`)),
        });
        console.log(JSON.stringify(rows.at(-1)));
        await workers[1]?.stop();
      }
    });
    const runs = rows.reduce((a, r) => a + (r.runs as number), 0);
    console.log(
      `database transactions during the rounds: ${commits} for ${runs} runs (${(commits / runs).toFixed(1)} per run, set-ups and imports included)`,
    );
  } finally {
    await first.stop();
    await new Promise<void>((r) => rcv.server.close(() => r()));
  }
  return rows;
}

/** 3. kill -9, then a replacement on the same port: spawn → first 200 on /readyz (and the workflow list). */
async function timeToReady(s: Setup, victim: VigieProcess): Promise<Row> {
  const ready: number[] = [];
  const listed: number[] = [];
  let current = victim;
  for (let i = 0; i < KILLS; i++) {
    await current.stop("SIGKILL");
    current = spawnVigie(victim.role, victim.port, s.env);
    const base = `http://127.0.0.1:${victim.port}`;
    const [r, l] = await Promise.all([
      msUntil200(`${base}/readyz`, current.spawnedAt),
      victim.role === "api" ? msUntil200(base + s.list, current.spawnedAt, s.auth) : null,
    ]);
    ready.push(r);
    if (l !== null) listed.push(l);
  }
  const row: Row = {
    process: victim.role,
    kills: KILLS,
    "→ /readyz p50 ms": median(ready),
    "→ /readyz max ms": Math.round(Math.max(...ready)),
  };
  if (listed.length)
    Object.assign(row, { "→ workflow list p50 ms": median(listed), "→ workflow list max ms": Math.round(Math.max(...listed)) });
  console.log(JSON.stringify(row));
  return row;
}

async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A fresh database on DATABASE_URL's server, an organization on a plan far above the load, 20 workflows and a key. */
async function setUp(adminUrl: string): Promise<Setup> {
  const dbName = `vigie_bench_roles_${process.pid}`;
  await adminQuery(adminUrl, `create database ${dbName}`);
  const u = new URL(adminUrl);
  u.pathname = `/${dbName}`;
  const env = {
    DATABASE_URL: u.toString(),
    VIGIE_SECRET_KEY: "0".repeat(64),
    VIGIE_ALLOW_PRIVATE_TARGETS: "true",
    VIGIE_SNAPSHOT: "off",
    VIGIE_FEEDS_SYNC: "off",
  };
  const database = await openDatabase({ databaseUrl: env.DATABASE_URL });
  await database.migrate();
  const services = createServices(database, loadConfig({ ...process.env, ...env, LOG_LEVEL: "silent" }));
  const plan = await services.organizations.upsertPlan({ slug: "bench", name: "Bench", maxApiCallsPerHour: 1_000_000_000 });
  const { org } = await services.organizations.createOrg({ name: "Bench roles", planSlug: plan.slug });
  const project = await services.projects.create({ orgId: org.id, name: "Bench API" });
  for (let i = 1; i <= 20; i++)
    await services.workflows.createAsOperator({
      orgId: org.id,
      projectId: project.id,
      name: `Workflow ${i}`,
      trigger: { event: "cve.kev_added", match: "all" },
      actions: [{ type: "add_tag", params: { tag: `t${i}` } }],
      create_case: false,
    } as never);
  const { key } = await services.apiKeys.create({ orgId: org.id, scopes: ["workflows-write"], projectIds: [] });
  return {
    database,
    dbName,
    services,
    orgId: org.id,
    list: `/api/v1/organizations/${org.id}/projects/${project.id}/workflows`,
    auth: { authorization: `Bearer ${key}` },
    env,
    dir: mkdtempSync(join(tmpdir(), "vigie-roles-")),
  };
}

export async function benchRoles(): Promise<void> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    console.log("roles: separate processes need PostgreSQL: set DATABASE_URL (skipped)");
    return;
  }
  const load = () =>
    loadavg()
      .map((x) => x.toFixed(2))
      .join(" ");
  console.log(`Separate processes (VIGIE_ROLE) on PostgreSQL — load average before: ${load()}`);
  const s = await setUp(adminUrl);
  try {
    const apis = [await started("api", s.env), await started("api", s.env)];
    const lists = await throughput(s, apis);
    const runs = await runsPerSecond(s);
    const api = await timeToReady(s, apis[0]!);
    const worker = await timeToReady(s, await started("worker", s.env));

    console.log(
      `\nWorkflow list (20 workflows), ${CONNECTIONS} connections, ${DURATION} s a round; CPU in % of one core, machine busy in % of all cores`,
    );
    console.table(lists);
    for (const n of [1, 2]) {
      const rps = lists.filter((r) => r["API processes"] === n).map((r) => r["req/s"] as number);
      console.log(`${n} API process${n > 1 ? "es" : ""}: median ${median(rps)} req/s (${Math.min(...rps)}–${Math.max(...rps)})`);
    }
    console.log(`\nRuns: ${EVENTS} events a round, 2 runs each (create_case, notify_webhook to a local receiver)`);
    console.table(runs);
    for (const n of [1, 2]) {
      const rps = runs.filter((r) => r.workers === n).map((r) => r["runs/s"] as number);
      console.log(`${n} worker${n > 1 ? "s" : ""}: median ${median(rps)} runs/s (${Math.min(...rps)}–${Math.max(...rps)})`);
    }
    console.log("\nTime to ready after kill -9 (spawn → first 200)");
    console.table([api, worker]);
    console.log(`load average after: ${load()}`);
  } finally {
    await stopAll();
    await s.services.cacheFeed.close();
    await s.database.close();
    rmSync(s.dir, { recursive: true, force: true });
    await adminQuery(adminUrl, `drop database if exists ${s.dbName} with (force)`);
  }
}

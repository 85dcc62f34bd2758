/**
 * Workflow engine benchmark, through the job queue as the server runs it (pg-boss on the service
 * database): one project watching 2,000 real CVEs of the 2024 CVE List file (items of type `cve`),
 * its default workflow (create_case) and a workflow posting a webhook to a local receiver.
 * 1. burst: importing the 2,000 records writes 2,000 `cve.new_match` events → 4,000 runs; runs
 *    finished per second from the import's commit, the webhooks received and the cases opened (the
 *    default workflow opens one for every match unless BENCH_ENGINE_CASES=default: its own graph
 *    opens one only for verified P1/P2 matches);
 * 2. latency: 20 imports of one new matching CVE each; commit → webhook arrival, p50/p95;
 * 3. PostgreSQL only: the same burst with two job runners (two pg-boss instances, two pools) on one
 *    database — deliveries received twice, runs created twice (both must be 0).
 * 4. PostgreSQL only: the CLI in another process (`node dist/cli.js feeds import`, 20 times, one new
 *    matching CVE each) while this process serves the jobs: the dispatch is woken by the NOTIFY of
 *    the commit (ADR 0016), not the minute's cron; webhook arrival − the CLI's exit, and − the event
 *    row's created_at, p50/p95.
 * 5. PostgreSQL only (BENCH_ENGINE_TWO=on): a second burst served by two job runners (two pg-boss
 *    instances, two pools, as two worker processes would), to compare with step 1's single runner.
 * Transactions and round trips per run are counted in this process during the burst (node-postgres:
 * every statement sent, and BEGIN or a statement outside a transaction as one transaction; PGlite:
 * each top-level query, exec or transaction), pg-boss's own work included.
 * On PostgreSQL (BENCH_DATABASE_URL) and on embedded PGlite (BENCH_PGLITE=off to skip it).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { createServices, type Services } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { startJobs } from "../src/jobs.js";
import { openDatabase, type Database } from "../src/platform/db/client.js";
import { createLogger } from "../src/platform/log.js";
import { onEachDriver, type BenchTarget } from "./drivers.js";
import { pct, receiver, records, waitFor, watchingProject } from "./harness.js";

const BURST = Number(process.env.BENCH_ENGINE_EVENTS ?? 2_000);
const SINGLES = 20;
const CLI_ROUNDS = Number(process.env.BENCH_ENGINE_CLI_ROUNDS ?? 20);
const run = promisify(execFile);

type Row = Record<string, string | number>;

/** Statements and transactions sent by this process (see the header). */
const counted = { statements: 0, transactions: 0 };
{
  const inBlock = new WeakSet<object>();
  const textOf = (q: unknown) => (typeof q === "string" ? q : ((q as { text?: string } | null)?.text ?? ""));
  const query = pg.Client.prototype.query as (...a: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: object, ...args: unknown[]) {
    const text = textOf(args[0]).trimStart().slice(0, 10).toLowerCase();
    counted.statements++;
    if (text.startsWith("begin")) {
      counted.transactions++;
      inBlock.add(this);
    } else if (text.startsWith("commit") || text.startsWith("rollback")) inBlock.delete(this);
    else if (!inBlock.has(this)) counted.transactions++;
    return query.apply(this, args);
  } as never;
  const proto = PGlite.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  for (const name of ["query", "exec", "transaction"]) {
    const original = proto[name]!;
    proto[name] = function (this: unknown, ...args: unknown[]) {
      counted.transactions++;
      return original.apply(this, args);
    };
  }
}
const perRun = (from: typeof counted, runs: number) => ({
  "transactions/run": +((counted.transactions - from.transactions) / runs).toFixed(1),
  "statements/run": from.statements === counted.statements ? "n/a" : +((counted.statements - from.statements) / runs).toFixed(1),
});

/**
 * PostgreSQL's own count of this database's transactions (pg_stat_database: every client, pg-boss
 * included). Backends report their counts when idle for 10 s at most, hence the wait before reading.
 */
async function serverTransactions(database: Database): Promise<number> {
  await new Promise((r) => setTimeout(r, 11_000));
  const [row] = await sql<{ n: number }>(
    database,
    "select (xact_commit + xact_rollback)::int as n from pg_stat_database where datname = current_database()",
  );
  return row!.n;
}

async function sql<T>(database: Database, text: string, values: unknown[] = []): Promise<T[]> {
  return (await database.executeSql(text, values)).rows as T[];
}

async function benchDriver(t: BenchTarget): Promise<{ steps: Row[] }> {
  const database = await openDatabase({ databaseUrl: t.databaseUrl, dataDir: t.dataDir });
  const dir = mkdtempSync(join(tmpdir(), "vigie-engine-"));
  const rcv = receiver();
  await new Promise<void>((r) => rcv.server.listen(0, "127.0.0.1", () => r()));
  const config = loadConfig({
    ...process.env,
    ...(t.databaseUrl ? { DATABASE_URL: t.databaseUrl } : { DATABASE_URL: "" }),
    VIGIE_DATA_DIR: t.dataDir ?? join(dir, "data"),
    VIGIE_ALLOW_PRIVATE_TARGETS: "true",
    VIGIE_SECRET_KEY: "0".repeat(64),
    LOG_LEVEL: "silent",
  });
  const logger = createLogger("silent");
  const stops: (() => Promise<void>)[] = [];
  try {
    await database.migrate();
    const services = createServices(database, config);
    stops.push(() => services.cacheFeed.close());
    stops.push((await startJobs(database, services, logger, config)).stop);
    const steps: Row[] = [];
    const two = t.driver === "postgres" && process.env.BENCH_ENGINE_TWO === "on";
    const all = await records(BURST + SINGLES * 2 + CLI_ROUNDS + (two ? BURST : 0));
    const burst = all.slice(0, BURST);
    const singles = all.slice(BURST, BURST + SINGLES);
    const second = all.slice(BURST + SINGLES, BURST + SINGLES * 2);
    const byCli = all.slice(BURST + SINGLES * 2, BURST + SINGLES * 2 + CLI_ROUNDS);
    const burst2 = all.slice(BURST + SINGLES * 2 + CLI_ROUNDS);

    const { org } = await services.organizations.createOrg({ name: "Bench engine" });
    const setup = async (name: string, watched: { id: string }[]) => {
      const projectId = await watchingProject(
        services,
        org.id,
        name,
        watched.map((r) => r.id),
        `http://127.0.0.1:${(rcv.server.address() as AddressInfo).port}/hook`,
      );
      // The bench measures the engine, not the hourly limit (500 runs per workflow by default).
      await sql(database, "update workflows set max_runs_per_hour = 1000000 where project_id = $1", [projectId]);
      // The default workflow opens a case only for a verified P1/P2 match: few of the burst's. Unless
      // BENCH_ENGINE_CASES=default, every run of it opens one (the costlier path: a data write per run).
      if (process.env.BENCH_ENGINE_CASES !== "default")
        await sql(database, "update workflows set graph = $2::jsonb where project_id = $1 and is_default", [
          projectId,
          JSON.stringify({
            nodes: [
              { id: "trigger", type: "trigger", event: "cve.new_match", params: {} },
              { id: "action-1", type: "action", action: "create_case", params: {}, on_error: "continue" },
            ],
            edges: [{ from: "trigger", to: "action-1" }],
          }),
        ]);
      return projectId;
    };
    const projectId = await setup("Production", [...burst, ...singles, ...byCli]);
    const runsDone = async (pid: string) =>
      (
        await sql<{ n: number }>(
          database,
          "select count(*)::int as n from workflow_runs where project_id = $1 and finished_at is not null",
          [pid],
        )
      )[0]!.n;

    const importLines = async (lines: string[], s: Services = services) => {
      const file = join(dir, `import-${Math.random().toString(36).slice(2)}.jsonl`);
      writeFileSync(file, lines.join("\n") + "\n");
      await s.feeds.import("cve5", [file]);
      return performance.now();
    };

    // 1. The burst.
    const serverBefore = t.driver === "postgres" ? await serverTransactions(database) : 0;
    const committed = await importLines(burst.map((r) => r.line));
    const from = { ...counted };
    await waitFor(async () => (await runsDone(projectId)) >= BURST * 2, 600_000);
    const elapsed = (performance.now() - committed) / 1000;
    const arrivals = [...rcv.arrivals.values()].map((a) => a - committed);
    steps.push({
      step: `burst: ${BURST} events → ${BURST * 2} runs (create_case + webhook)`,
      "runs/s": Math.round((BURST * 2) / elapsed),
      "s to the last run": +elapsed.toFixed(1),
      ...perRun(from, BURST * 2),
      ...(t.driver === "postgres" && {
        // The import's own transactions are in it, and this read's: a few in all.
        "server transactions/run": +(((await serverTransactions(database)) - serverBefore) / (BURST * 2)).toFixed(2),
      }),
      webhooks: rcv.arrivals.size,
      "cases opened": (await sql<{ n: number }>(database, "select count(*)::int as n from cases where project_id = $1", [projectId]))[0]!.n,
      "duplicate deliveries": rcv.duplicates(),
      "arrival p50 ms": pct(arrivals, 0.5),
      "arrival p95 ms": pct(arrivals, 0.95),
    });
    console.log(JSON.stringify(steps.at(-1)));

    // 2. One matching CVE at a time: commit → webhook.
    const latencies: number[] = [];
    for (const r of singles) {
      const before = rcv.arrivals.size;
      const at = await importLines([r.line]);
      await waitFor(() => rcv.arrivals.size > before, 60_000);
      latencies.push(Math.max(...[...rcv.arrivals.values()].slice(before)) - at);
    }
    steps.push({
      step: `latency: ${SINGLES} imports of one matching CVE`,
      "arrival p50 ms": pct(latencies, 0.5),
      "arrival p95 ms": pct(latencies, 0.95),
    });
    console.log(JSON.stringify(steps.at(-1)));

    // 3. Two job runners on one PostgreSQL: nothing twice.
    let services2: Services | null = null;
    if (t.driver === "postgres") {
      const other = await openDatabase({ databaseUrl: t.databaseUrl });
      stops.push(() => other.close());
      const s2 = createServices(other, config);
      services2 = s2;
      stops.push(() => s2.cacheFeed.close());
      stops.push((await startJobs(other, s2, logger, config)).stop);
      const p2 = await setup("Recette", second);
      const before = rcv.arrivals.size;
      const dupBefore = rcv.duplicates();
      const at = await importLines(
        second.map((r) => r.line),
        s2,
      );
      await waitFor(async () => (await runsDone(p2)) >= second.length * 2, 120_000);
      const doubled = await sql<{ n: number }>(
        database,
        "select count(*)::int as n from (select event_id, workflow_id from workflow_runs where project_id = $1 group by 1, 2 having count(*) > 1) d",
        [p2],
      );
      steps.push({
        step: `two job runners: ${second.length} events`,
        "s to the last run": +((performance.now() - at) / 1000).toFixed(1),
        webhooks: rcv.arrivals.size - before,
        "duplicate deliveries": rcv.duplicates() - dupBefore,
        "runs created twice": doubled[0]!.n,
      });
      console.log(JSON.stringify(steps.at(-1)));
    }
    // 4. The CLI in another process: NOTIFY at its commit wakes this process's dispatch.
    if (t.driver === "postgres" && CLI_ROUNDS > 0) {
      const env = { ...process.env, DATABASE_URL: t.databaseUrl!, VIGIE_SECRET_KEY: "0".repeat(64), LOG_LEVEL: "silent" };
      const afterExit: number[] = [];
      const afterCommit: number[] = [];
      for (const r of byCli) {
        const file = join(dir, `cli-${r.id}.jsonl`);
        writeFileSync(file, `${r.line}\n`);
        const before = rcv.arrivals.size;
        await run(process.execPath, ["dist/cli.js", "feeds", "import", "--source", "cve5", file, "--json"], { env });
        const exited = performance.now();
        const exitedWall = Date.now();
        await waitFor(() => rcv.arrivals.size > before, 120_000);
        const arrived = Math.max(...[...rcv.arrivals.values()].slice(before));
        afterExit.push(arrived - exited);
        const [row] = await sql<{ created: number }>(
          database,
          "select (extract(epoch from created_at) * 1000)::float8 as created from outbox_events where cve_id = $1 and event = 'cve.new_match' and project_id = $2",
          [r.id, projectId],
        );
        afterCommit.push(arrived - exited + (exitedWall - row!.created));
      }
      steps.push({
        step: `CLI in another process: ${CLI_ROUNDS} imports of one matching CVE (NOTIFY wake-up)`,
        "after CLI exit p50 ms": pct(afterExit, 0.5),
        "after CLI exit p95 ms": pct(afterExit, 0.95),
        "after event row p50 ms": pct(afterCommit, 0.5),
        "after event row p95 ms": pct(afterCommit, 0.95),
      });
      console.log(JSON.stringify(steps.at(-1)));
    }
    // 5. A second burst served by two job runners.
    if (two && services2) {
      const p3 = await setup("Burst à deux", burst2);
      const dupBefore = rcv.duplicates();
      const at = await importLines(burst2.map((r) => r.line));
      const from2 = { ...counted };
      await waitFor(async () => (await runsDone(p3)) >= BURST * 2, 600_000);
      const s = (performance.now() - at) / 1000;
      const doubled = await sql<{ n: number }>(
        database,
        "select count(*)::int as n from (select event_id, workflow_id from workflow_runs where project_id = $1 group by 1, 2 having count(*) > 1) d",
        [p3],
      );
      steps.push({
        step: `burst with two job runners: ${BURST} events → ${BURST * 2} runs`,
        "runs/s": Math.round((BURST * 2) / s),
        "s to the last run": +s.toFixed(1),
        ...perRun(from2, BURST * 2),
        "duplicate deliveries": rcv.duplicates() - dupBefore,
        "runs created twice": doubled[0]!.n,
      });
      console.log(JSON.stringify(steps.at(-1)));
    }
    return { steps };
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await new Promise<void>((r) => rcv.server.close(() => r()));
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchEngine(): Promise<void> {
  const results = await onEachDriver("engine", benchDriver);
  for (const r of results) {
    console.log(`\nEngine — ${r.driver}`);
    console.table(r.steps);
  }
}

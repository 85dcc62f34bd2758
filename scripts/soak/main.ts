/**
 * The soak test (README, Soak test; run by scripts/soak.sh): on a fresh PostgreSQL database, two
 * `api` and two `worker` processes of the built server; a client spreading mixed traffic over both
 * APIs; CVEs arriving by `feeds import` (the CLI, another process) and by the workers' sync from a
 * local CVE List mirror, each raising an alert, its runs and a webhook to a local receiver. Every
 * SOAK_KILL_EVERY seconds a random worker or API process is killed with SIGKILL and started again
 * on its port; once, every database connection is terminated. Then the workers drain, and the
 * checks print: no acknowledged write lost, no run stuck, each webhook delivered (twice only when
 * a kill explains it), no 5xx but the drop's 503s, the hourly limit exact, the caches agreeing
 * with the database. Exits 1 when a check fails.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Check, Window } from "./checks.js";
import { spread, summary } from "./checks.js";
import { Client } from "./client.js";
import { Cluster } from "./cluster.js";
import { type ImportRun, importBatch, soakRecords, startMirrors } from "./feeds.js";
import { type LimitPhase, limitChecks, QUOTA, quotaOrgs, secondsLeftInHour, spendQuota } from "./limit.js";
import { Probes } from "./probes.js";
import { startReceiver } from "./receiver.js";
import { cliRunner, createDatabase, createTenant } from "./setup.js";
import { Traffic } from "./traffic.js";
import { engineChecks, feedsCheck, httpCheck, listsCheck, processCheck, writesCheck } from "./verify.js";

const env = process.env;
const MINUTES = Number(env.SOAK_MINUTES ?? 10);
const KILL_EVERY_MS = Number(env.SOAK_KILL_EVERY ?? 60) * 1000;
const RATE = Number(env.SOAK_RATE ?? 50);
const LOOPS = 8;
const ADMIN_URL = env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test";
/** The shared data (scripts/soak.sh sets it: VIGIE_SHARED_DATA, else ../shared/data beside the checkout). */
const DATA = env.VIGIE_SHARED_DATA ?? "../shared/data";
/** What the soak reads of it: the 2024 CVE List records (bench/harness.ts) and the KEV catalog (its mirror). */
const DATA_FILES = ["cve-json5/vulnrichment-2024.jsonl.gz", "kev/known_exploited_vulnerabilities.json"];
/** `feeds import` by the CLI: this many records every IMPORT_EVERY_MS; the mirror: PER_DELTA records every PUBLISH_EVERY_MS. */
const IMPORT_EVERY_MS = 15_000;
const BATCH = 5;
const PUBLISH_EVERY_MS = 10_000;
const PER_DELTA = 2;
const PROBE_EVERY_MS = 20_000;
/** After every process is ready again, 503s are still allowed this long (requests that met a dead connection). */
const DROP_GRACE_MS = 10_000;
const DRAIN_MS = Number(env.SOAK_DRAIN_SECONDS ?? 240) * 1000;
const LEASE_SECONDS = 15;
const SHUTDOWN_MS = 10_000;
/** How long a process may take to answer /readyz 200 (a loaded 2-core machine: four starting at once took 100 s). */
const READY_MS = 300_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const t0 = Date.now();
const say = (line: string) => console.log(`[${String(Math.round((Date.now() - t0) / 1000)).padStart(4)} s] ${line}`);
const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)]!;

async function main(): Promise<number> {
  const absent = DATA_FILES.filter((f) => !existsSync(join(DATA, f)));
  if (absent.length) {
    throw new Error(
      `the shared data is not at ${DATA} (${absent.join(", ")} missing): set VIGIE_SHARED_DATA to the shared/data directory ` +
        "(the default, ../shared/data, holds only when the checkout sits beside shared/); nothing was created",
    );
  }
  const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
  const dir = join("var", "soak", stamp);
  mkdirSync(dir, { recursive: true });
  const db = await createDatabase(ADMIN_URL, `vigie_soak_${stamp}_${process.pid}`);
  // The database goes on every way out (SOAK_KEEP=1 aside): a failed set-up, a failed or passed run,
  // Ctrl-C or SIGTERM (the exit handler then stops the server processes).
  let dropped = false;
  const dropDatabase = async () => {
    if (dropped || env.SOAK_KEEP === "1") return;
    dropped = true;
    await db.drop().catch((err: Error) => say(`database ${db.name} not dropped: ${err.message}`));
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      say(`${signal}: stopping, database ${db.name} dropped`);
      void dropDatabase().finally(() => process.exit(130));
    });
  }
  const hookSecret = randomBytes(16).toString("hex");
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
  let mirrors: Awaited<ReturnType<typeof startMirrors>>;
  try {
    receiver = await startReceiver(hookSecret);
    mirrors = await startMirrors(DATA);
  } catch (err) {
    await receiver?.close();
    await dropDatabase();
    throw err;
  }
  const serverEnv = {
    DATABASE_URL: db.url,
    VIGIE_SECRET_KEY: randomBytes(32).toString("base64"),
    VIGIE_ALLOW_PRIVATE_TARGETS: "true",
    VIGIE_SNAPSHOT: "off",
    VIGIE_RUN_LEASE_SECONDS: String(LEASE_SECONDS),
    VIGIE_SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_MS),
    LOG_LEVEL: env.SOAK_LOG_LEVEL ?? "warn",
    ...mirrors.env,
  };
  const cluster = new Cluster(serverEnv, dir, READY_MS);
  // Whatever ends the driver, no server process outlives it.
  process.once("exit", () => cluster.killAll());
  const client = new Client(cluster);
  const cli = cliRunner(serverEnv);
  let code = 1;
  try {
    say(`soak: ${MINUTES} min, a kill every ${KILL_EVERY_MS / 1000} s, ${RATE} req/s; database ${db.name}; logs in ${dir}/`);
    await cli("migrate");
    const seconds = MINUTES * 60;
    const recs = await soakRecords(
      Math.ceil(((RATE * seconds * 5) / 87) * 1.2) + 100,
      Math.ceil((seconds * 1000) / IMPORT_EVERY_MS) * BATCH,
      Math.ceil((seconds * 1000) / PUBLISH_EVERY_MS) * PER_DELTA,
    );
    say(`importing ${recs.base.length} CVEs, starting 2 api + 2 worker processes, creating the organizations`);
    const serving = cluster.start(["api", "api", "worker", "worker"]).then(() => say("every process ready"));
    serving.catch(() => undefined); // awaited by createTenant, after its CLI steps
    const watched = [...recs.imported, ...recs.published].map((r) => r.id);
    const [, tenant, quota] = await Promise.all([
      importBatch(cli, dir, recs.base, []).then(() => say(`${recs.base.length} CVEs imported`)),
      createTenant(cli, client, serving, { hook: receiver.url, secret: hookSecret, watched }),
      quotaOrgs(cli, ["Quota A", "Quota B"]),
    ]);
    const [quotaA, quotaB] = quota as [{ orgId: string; key: string }, { orgId: string; key: string }];
    const [dropKey, endKey] = tenant.spareKeys as [{ id: string; key: string }, { id: string; key: string }];
    const probes = new Probes(client, cluster, tenant, db.sql, cli);
    say(`tenant ready: ${watched.length} CVEs watched for the imports and the mirror`);

    // The hourly limit, exact: before any kill, in one window.
    if (secondsLeftInHour() < 90) {
      say(`the hour ends in ${secondsLeftInHour()} s: waiting for the next window`);
      await sleep(secondsLeftInHour() * 1000 + 2000);
    }
    const phases: LimitPhase[] = [await spendQuota(client, cluster, quotaA, "(no kill)", { sequential: 100, loops: 8 })];
    say(`hourly limit: ${phases[0]!.accepted} calls accepted of ${QUOTA}`);

    const start = Date.now();
    const end = start + seconds * 1000;
    const over = () => Date.now() >= end;
    const until = (ms: number) => sleep(Math.max(0, start + ms - Date.now()));
    const killAt = Array.from({ length: Math.ceil((seconds * 1000) / KILL_EVERY_MS) - 1 }, (_, i) => (i + 1) * KILL_EVERY_MS);
    const dropAt = killAt.length ? (Math.floor(killAt.length / 2) + 0.5) * KILL_EVERY_MS : (seconds * 1000) / 2;
    let terminated = 0;
    const drop: Window = { kind: "drop", process: "all", start: Number.POSITIVE_INFINITY, end: Number.POSITIVE_INFINITY };
    const imports: ImportRun[] = [];
    const published: string[] = [];
    const traffic = new Traffic(
      client,
      tenant,
      recs.base.map((r) => r.id),
      `soak${stamp}`,
    );

    const kills = async () => {
      for (const [i, at] of killAt.entries()) {
        await until(at);
        // Workers and APIs in turn; the second kill is an API's, while the second quota phase runs.
        const name = pick(cluster.names(i % 2 ? "api" : "worker"));
        say(`kill -9 ${name} (pid ${cluster.pid(name)})`);
        const r = await cluster.kill(name);
        say(`${name} ready again ${(r.killToReady / 1000).toFixed(1)} s after the kill`);
      }
    };
    const quotaUnderKill = async () => {
      if (killAt.length < 2) return;
      await until(killAt[1]! - 4000);
      if (secondsLeftInHour() < 60) return say("second quota phase skipped: the hour ends within a minute");
      phases.push(await spendQuota(client, cluster, quotaB, "(an API killed)", { sequential: 0, loops: 2, pauseMs: 60 }));
      say(`hourly limit under a kill: ${phases[1]!.accepted} calls accepted of ${QUOTA}`);
    };
    const dropConnections = async () => {
      await until(dropAt);
      say("dropping every database connection (pg_terminate_backend)");
      await probes.revoked(
        "key revoked by SQL while the connections were down",
        dropKey.key,
        async () => {
          drop.start = Date.now();
          const { rows } = await db.sql.query<{ n: number }>(
            "select count(*) filter (where pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()",
            [db.name],
          );
          await db.sql.query("update api_keys set revoked_at = now() where id = $1", [dropKey.id]);
          terminated = rows[0]!.n;
          say(`${terminated} connections terminated`);
        },
        async () => {
          await sleep(1000);
          await cluster.allReady();
          const ready = Date.now();
          drop.end = ready + DROP_GRACE_MS;
          say(`every process ready again ${((ready - drop.start) / 1000).toFixed(1)} s after the drop`);
          return ready;
        },
      );
      await probes.workflow();
      await probes.plan();
    };
    const feedImports = async () => {
      for (let i = 0; !over() && i * BATCH < recs.imported.length; i++) {
        await until(i * IMPORT_EVERY_MS + 5000);
        await importBatch(cli, dir, recs.imported.slice(i * BATCH, (i + 1) * BATCH), imports);
      }
    };
    const mirrorDeltas = async () => {
      for (let i = 0; i * PER_DELTA < recs.published.length; i++) {
        await until(i * PUBLISH_EVERY_MS + 2000);
        if (over()) return;
        const batch = recs.published.slice(i * PER_DELTA, (i + 1) * PER_DELTA);
        await mirrors.cve5.publishDelta(batch.map((r) => r.line));
        published.push(...batch.map((r) => r.id));
      }
    };
    const cacheProbes = async () => {
      for (let i = 1; ; i++) {
        await until(i * PROBE_EVERY_MS);
        if (over()) return;
        const dropping = Date.now() >= drop.start && Date.now() <= drop.end;
        if (dropping || cluster.names("api").some((n) => cluster.down.has(n))) continue;
        await probes.workflow();
        if (i % 3 === 0) await probes.plan();
      }
    };
    await Promise.all([
      traffic.run(RATE, LOOPS, over),
      kills(),
      quotaUnderKill(),
      dropConnections(),
      feedImports(),
      mirrorDeltas(),
      cacheProbes(),
    ]);
    say(`traffic stopped: ${client.attempts.length} requests; draining`);

    const drained = await drain(db.sql, cluster, published);
    say(drained);
    await probes.revokedByCli(endKey.id, endKey.key);
    const windows = [...cluster.windows, drop];
    const facts = {
      sql: db.sql,
      client,
      cluster,
      tenant,
      journal: traffic.journal,
      imports,
      published,
      receipts: receiver.receipts,
      windows,
    };
    const checks: Check[] = [
      processCheck(cluster),
      {
        name: "connection drop: every process back without a restart",
        pass: Number.isFinite(drop.end) && !cluster.unexpectedExits.some((e) => e.at >= drop.start && e.at <= drop.end),
        figures: Number.isFinite(drop.end)
          ? `${terminated} connections terminated; every process ready ${((drop.end - DROP_GRACE_MS - drop.start) / 1000).toFixed(1)} s after, ` +
            `503s allowed until ${DROP_GRACE_MS / 1000} s later`
          : "the drop did not happen",
      },
      httpCheck(client.attempts, windows),
      await writesCheck(facts),
      ...(await engineChecks(facts)),
      await feedsCheck(facts),
      ...(await limitChecks(db.sql, phases)),
      probes.check(),
      await listsCheck(facts),
    ];
    const stopped = await cluster.stop(SHUTDOWN_MS + 5000);
    checks.push({
      name: "graceful stop: SIGTERM, exit 0",
      pass: stopped.every((s) => s.code === 0),
      figures: `${stopped.map((s) => `${s.name} ${s.code ?? s.signal}`).join(", ")} in ${spread(stopped.map((s) => s.ms))}`,
    });
    console.log(
      `\n== Soak summary: ${MINUTES} min, 2 api + 2 worker on ${(await db.sql.query("show server_version")).rows[0].server_version}\n`,
    );
    console.log(summary(checks));
    code = checks.every((c) => c.pass) ? 0 : 1;
  } finally {
    try {
      await cluster.stop(2000);
      await client.close();
      await receiver?.close();
      mirrors.cve5.stop();
      await mirrors.server.close();
    } finally {
      if (env.SOAK_KEEP === "1") {
        await db.sql.end();
        say(`database kept: ${db.url}; logs in ${dir}/`);
      } else {
        await dropDatabase();
        // The processes' logs and data directories are kept when a check failed.
        if (code === 0) rmSync(dir, { recursive: true, force: true });
        else say(`logs kept in ${dir}/`);
      }
    }
  }
  return code;
}

/**
 * Waits until the workers have done everything: no event pending, no run unfinished, every CVE the
 * mirror published stored. A CVE List sync lease held by a killed process holds the mirror's
 * records back until it runs out (README, Keeping current): the wait is extended to it then.
 */
async function drain(sql: import("pg").Client, cluster: Cluster, published: string[]): Promise<string> {
  const started = Date.now();
  let deadline = started + DRAIN_MS;
  let quiet = 0;
  let last = "";
  let stalled = false;
  for (let i = 0; Date.now() < deadline; i++) {
    const { rows } = await sql.query<{ pending: number; unfinished: number; stored: number; owner: string | null; until: Date | null }>(
      `select (select count(*)::int from outbox_events where processed_at is null) as pending,
              (select count(*)::int from workflow_runs where finished_at is null) as unfinished,
              (select count(*)::int from cves where cve_id = any($1::text[])) as stored,
              s.lease_owner as owner, s.lease_until as until
         from (select 1) one left join feed_sources s on s.source = 'cve5' and s.lease_until > now()`,
      [published],
    );
    const r = rows[0]!;
    last = `${r.pending} events pending, ${r.unfinished} runs unfinished, ${published.length - r.stored} mirror CVEs not stored`;
    const pid = Number(r.owner?.split(":")[1]);
    if (r.stored < published.length && r.until && cluster.deadPids.has(pid) && !stalled) {
      stalled = true;
      deadline = Math.max(deadline, r.until.getTime() + 30_000);
      say(`the CVE List sync lease is held by dead pid ${pid} until ${r.until.toISOString()} (README, Keeping current): waiting for it`);
    }
    quiet = r.pending === 0 && r.unfinished === 0 && r.stored === published.length ? quiet + 1 : 0;
    if (quiet >= 3) return `drained in ${((Date.now() - started) / 1000).toFixed(1)} s`;
    if (i % 15 === 14) say(`draining: ${last}`);
    await sleep(1000);
  }
  return `not drained after ${((Date.now() - started) / 1000).toFixed(1)} s: ${last}`;
}

process.exitCode = await main().catch((err) => {
  console.error(err);
  return 1;
});

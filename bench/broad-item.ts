/**
 * One broad item must not stall the server (issue 33 §4, BENCH=broad-item). A server process as
 * `vigie serve` runs it (bench/broad-item-server.ts: jobs on, the bundled snapshot, a project
 * alerting on every stored CVE, four workflows opening a case on each new match besides the
 * default one) answers a steady load of light requests (autocannon, GET the project's workflow
 * list). First the load alone, then the same load while a stack whose one item is the keyword
 * « remote code execution » is created and everything it sets off runs: its alerts (inline or in
 * the background matching job), their cve.new_match events, the runs and cases they make. Prints,
 * for each phase, the light requests' p50/p99/max latency and errors or timeouts, the server's
 * longest event-loop stall (perf_hooks, in the server), and for the broad item the POST's own
 * time, the time until every alert is raised and until every run is finished, and the counts.
 * On PostgreSQL (BENCH_DATABASE_URL's server, a fresh database), then PGlite (BENCH_PGLITE=off skips it).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { onEachDriver, type BenchTarget } from "./drivers.js";

type Json = Record<string, unknown>;

const SERVER = fileURLToPath(new URL("./broad-item-server.ts", import.meta.url));
const NODE_ARGS = ["--max-old-space-size=1024", "--import", "tsx"];
const KEYWORD = process.env.BENCH_KEYWORD ?? "remote code execution";
const CONNECTIONS = 4;
const BASELINE_SECONDS = 5;
const RUNS_WAIT = Number(process.env.BENCH_RUNS_WAIT ?? 60);
const round = (n: number) => Math.round(n * 100) / 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function env(target: BenchTarget): NodeJS.ProcessEnv {
  return {
    ...process.env,
    MALLOC_ARENA_MAX: "2",
    ...(target.databaseUrl ? { BENCH_DB_URL: target.databaseUrl } : { BENCH_DATA_DIR: target.dataDir }),
  };
}

async function prepare(target: BenchTarget): Promise<void> {
  const child = spawn(process.execPath, [...NODE_ARGS, SERVER, "prepare"], { env: env(target), stdio: "inherit" });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`prepare exited with ${code}`);
}

async function serve(target: BenchTarget): Promise<{ child: ChildProcess; port: number; key: string; base: string }> {
  const child = spawn(process.execPath, [...NODE_ARGS, SERVER], { env: env(target), stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise<string>((resolve, reject) => {
    let started = false;
    createInterface({ input: child.stdout! }).on("line", (l) => {
      if (!started && l.startsWith("{")) {
        started = true;
        resolve(l);
      } else console.log(l);
    });
    child.once("exit", (code) => reject(new Error(`the server exited with ${code}`)));
  });
  return { child, ...(JSON.parse(line) as { port: number; key: string; base: string }) };
}

interface Load {
  result: Promise<Json>;
  stop: () => void;
}

/** The steady load of light requests, until stopped (or `seconds`). */
function load(url: string, key: string, seconds: number): Load {
  const instance = autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    timeout: 10,
    headers: { authorization: `Bearer ${key}` },
  });
  const result = new Promise<Json>((resolve) => instance.once("done", resolve));
  return { result, stop: () => instance.stop() };
}

function summary(r: Json): Json {
  const l = r.latency as Json;
  return {
    requests: (r.requests as Json).total,
    p50_ms: l.p50,
    p99_ms: l.p99,
    max_ms: l.max,
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
  };
}

export async function benchBroadItem(): Promise<void> {
  const rows = await onEachDriver("broad", async (target) => {
    await prepare(target);
    const server = await serve(target);
    const origin = `http://127.0.0.1:${server.port}`;
    // A poll the server does not answer within 15 s counts as a failure (the phase goes on).
    let pollFailures = 0;
    let longestPollMs = 0;
    const poll = async (path: string, headers: Record<string, string> = {}): Promise<Json | null> => {
      const t = performance.now();
      try {
        return (await (await fetch(`${origin}${path}`, { headers, signal: AbortSignal.timeout(15_000) })).json()) as Json;
      } catch {
        pollFailures++;
        return null;
      } finally {
        longestPollMs = Math.max(longestPollMs, performance.now() - t);
      }
    };
    const get = async (path: string) => (await (await fetch(`${origin}${path}`)).json()) as Json;
    try {
      const light = `${origin}${server.base}/workflows`;
      await get("/bench/loop");
      const baseline = summary(await load(light, server.key, BASELINE_SECONDS).result);
      const baselineLoop = await get("/bench/loop");

      const during = load(light, server.key, 300);
      await sleep(1000);
      const t0 = performance.now();
      const res = await fetch(`${origin}${server.base}/stacks`, {
        method: "POST",
        headers: { authorization: `Bearer ${server.key}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "broad", items: [{ item_type: "keyword", value: KEYWORD }] }),
      });
      const created = (await res.json()) as Json;
      const postSeconds = (performance.now() - t0) / 1000;
      if (res.status !== 201) throw new Error(`POST stacks: ${res.status} ${JSON.stringify(created).slice(0, 300)}`);
      const itemId = ((created.items as Json[])[0] as Json).id as string;
      // Until the item's matching is done (when it went to the job) and every run is finished.
      let alertsAt: number | null = null;
      let progress: Json = {};
      let last = -1;
      for (let stable = 0; stable < 3; ) {
        await sleep(250);
        const item = (await poll(`${server.base}/stacks/${created.id}/items?page_size=1`, {
          authorization: `Bearer ${server.key}`,
        })) as { items: Json[] } | null;
        const p = await poll("/bench/progress");
        if (!item || !p) continue;
        const matching = item.items.find((i) => i.id === itemId)?.matching as Json | undefined;
        progress = p;
        if (alertsAt === null && (!matching || matching.state === "done")) alertsAt = (performance.now() - t0) / 1000;
        const settled = alertsAt !== null && progress.pending_events === 0 && progress.open_runs === 0;
        stable = settled && progress.alerts === last ? stable + 1 : 0;
        last = progress.alerts as number;
        if (alertsAt === null && (performance.now() - t0) / 1000 > 280)
          throw new Error(`alerts not raised after 280 s: ${JSON.stringify(progress)}`);
        // The runs are the engine's pace (bench/engine.ts), not this one's subject: measured up to RUNS_WAIT.
        if (alertsAt !== null && (performance.now() - t0) / 1000 > alertsAt + RUNS_WAIT) break;
      }
      const settled = progress.open_runs === 0 && progress.pending_events === 0;
      const settledSeconds = (performance.now() - t0) / 1000 - (settled ? 0.75 : 0);
      during.stop();
      const duringLoad = summary(await during.result);
      const duringLoop = await get("/bench/loop");
      const result = {
        rows: [
          { phase: "light requests alone", ...baseline, "loop max stall ms": baselineLoop.max_ms },
          { phase: "light requests, broad item", ...duringLoad, "loop max stall ms": duringLoop.max_ms },
        ],
        item: {
          "POST s": round(postSeconds),
          alertes_creees: created.alertes_creees,
          matching: JSON.stringify((created.items as Json[])[0]!.matching ?? null),
          avertissement: created.avertissement ?? "",
          "alerts raised after s": round(alertsAt ?? 0),
          "all runs finished after s": settled ? round(settledSeconds) : `not after ${round(settledSeconds)}`,
          "runs left": progress.open_runs,
          alerts: progress.alerts,
          cases: progress.cases,
          "progress polls unanswered (15 s)": pollFailures,
          "longest poll s": round(longestPollMs / 1000),
        },
      };
      console.log(`\n${target.driver}:`);
      console.table(result.rows);
      console.table([result.item]);
      return result;
    } finally {
      server.child.kill("SIGTERM");
      await new Promise((resolve) => server.child.once("exit", resolve));
    }
  });
  for (const r of rows) {
    console.log(`\nOne broad keyword item « ${KEYWORD} » under a steady load (${r.driver}; ${process.env.BENCH_CPU ?? "this machine"}):`);
    console.table(r.rows);
    console.table([r.item]);
  }
}

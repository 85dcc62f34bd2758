/**
 * BENCH=csaf: a CSAF provider of 5,000 advisories (bench/csaf-provider.ts, a child process: real
 * documents of test/fixtures/csaf replicated with distinct tracking ids), followed by an
 * organization with a small stack that its documents name (a purl, CPEs, product names), in a
 * Vigie process of its own run as `npm start` runs the server (bench/csaf-child.mjs: node on dist/,
 * MALLOC_ARENA_MAX=2, --max-old-space-size=1024): the first sync from scratch (discovery, 5,000 ×
 * document + .sha512 + .asc, schema, hash, signature, write, matching), then a sync with nothing
 * changed — time, requests the provider served, the Vigie process's peak RSS (VmHWM, reset before
 * each step) and CPU — then a revised advisory (ICSA-23-208-03 version 5 → 6) and the csaf-sync job
 * run as its cron runs it: the time from the listing's change to the alert's change. On PostgreSQL
 * (BENCH_DATABASE_URL) and on embedded PGlite (BENCH_PGLITE=off to skip it). CSAF_BENCH_BEFORE=<dir
 * of an older build, under the checkout> runs that build first, in the same run, to compare.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { onEachDriver, type BenchTarget } from "./drivers.js";

const DOCS = Number(process.env.CSAF_BENCH_DOCS ?? 5000);

async function startProvider(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/csaf-provider.ts"], {
    env: { ...process.env, CSAF_BENCH_DOCS: String(DOCS) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /READY (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", (code) => reject(new Error(`provider exited: ${code}`)));
  });
  return { child, port };
}

interface Step {
  ms: number;
  cpuMs: number;
  beforeMb: number;
  peakMb: number;
  requests: number;
  result: string;
}
interface ChildOut {
  startedMb: number;
  first: Step;
  idle: Step;
  revision: { alertChangedMs: number | null; jobMs: number; result: string };
}

/** bench/csaf-child.mjs as `npm start` runs the server, with the given build; its last line, parsed. */
async function child<T>(target: BenchTarget, dist: string, env: Record<string, string>, args: string[] = []): Promise<T> {
  const proc = spawn(process.execPath, ["--max-old-space-size=1024", "bench/csaf-child.mjs", ...args], {
    env: {
      ...process.env,
      ...env,
      MALLOC_ARENA_MAX: "2",
      CSAF_BENCH_DIST: dist,
      DATABASE_URL: target.databaseUrl ?? "",
      ...(target.dataDir ? { VIGIE_DATA_DIR: target.dataDir } : {}),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  proc.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => proc.once("exit", resolve));
  if (code !== 0) throw new Error(`bench/csaf-child.mjs ${args.join(" ")} exited with ${code}`);
  return JSON.parse(out.trim().split("\n").at(-1)!) as T;
}

/** The database prepared in one process, then the syncs in another started on it (the given build), against a fresh provider. */
async function runChild(target: BenchTarget, dist: string): Promise<ChildOut> {
  const provider = await startProvider();
  try {
    const env = { CSAF_BENCH_PORT: String(provider.port) };
    const setup = await child<object>(target, dist, env, ["prepare"]);
    return await child<ChildOut>(target, dist, { ...env, CSAF_BENCH_SETUP: JSON.stringify(setup) });
  } finally {
    provider.child.kill("SIGTERM");
  }
}

const rows = (label: string, o: ChildOut) => [
  {
    build: label,
    step: `first sync, ${DOCS} advisories`,
    ms: o.first.ms,
    "cpu ms": o.first.cpuMs,
    "rss before MB": o.first.beforeMb,
    "peak rss MB": o.first.peakMb,
    requests: o.first.requests,
    result: o.first.result,
  },
  {
    build: label,
    step: "sync again, nothing changed",
    ms: o.idle.ms,
    "cpu ms": o.idle.cpuMs,
    "rss before MB": o.idle.beforeMb,
    "peak rss MB": o.idle.peakMb,
    requests: o.idle.requests,
    result: o.idle.result,
  },
  {
    build: label,
    step: "revised advisory → alert changed (csaf-sync job)",
    ms: o.revision.alertChangedMs ?? "not changed",
    "cpu ms": "",
    "rss before MB": "",
    "peak rss MB": "",
    requests: "",
    result: `job ${o.revision.jobMs} ms: ${o.revision.result}`,
  },
];

export async function benchCsaf(): Promise<void> {
  const builds: [string, string][] = [
    ...(process.env.CSAF_BENCH_BEFORE ? [["before", process.env.CSAF_BENCH_BEFORE] as [string, string]] : []),
    ["this", "dist"],
  ];
  const results: { driver: string; label: string; o: ChildOut }[] = [];
  for (const [label, dist] of builds) {
    const r = await onEachDriver(`csaf_${label}`, async (target) => ({ label, o: await runChild(target, dist) }));
    results.push(...r);
  }
  for (const driver of ["postgres", "pglite"]) {
    const mine = results.filter((r) => r.driver === driver);
    if (!mine.length) continue;
    console.log(`\nCSAF provider, ${DOCS} advisories — ${driver} (Vigie as npm start runs it: node on dist/, MALLOC_ARENA_MAX=2)`);
    console.table(mine.flatMap((r) => rows(r.label, r.o)));
  }
}

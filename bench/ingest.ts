/**
 * Ingest benchmark on the whole of ../shared/data: time, records per second and peak RSS of each
 * importer (each in its own process), a re-import of an unchanged file, then GET /api/v1/cves
 * latency on the full corpus. On embedded PGlite and on PostgreSQL (BENCH_DATABASE_URL).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { openDatabase } from "../src/platform/db/client.js";
import { createLogger } from "../src/platform/log.js";
import { onEachDriver } from "./drivers.js";

const run = promisify(execFile);
const DATA = process.env.VIGIE_SHARED_DATA ?? "../shared/data";

const STEPS: [string, string, string[]][] = [
  ["cve5", "CVE JSON 5 (44,130)", [`${DATA}/cve-json5`]],
  ["nvd", "NVD 1.1 (147,917)", [`${DATA}/nvd/json-1.1-feeds`]],
  ["epss", "EPSS (360,142)", [`${DATA}/epss/epss_scores-2026-08-16.from-first-api.csv.gz`]],
  ["kev", "KEV (1,404)", [`${DATA}/kev/known_exploited_vulnerabilities.json`]],
  ["poc", "PoC trickest (167,093)", [`${DATA}/poc/trickest/trickest-cve-poc.jsonl.gz`]],
  ["osv", "OSV (8,159)", [`${DATA}/osv/osv-combined.jsonl.gz`]],
  ["certfr", "CERT-FR (16,538)", [`${DATA}/certfr/certfr-all-json.jsonl.gz`]],
  ["rss", "RSS/Atom/JSON Feed (31 feeds)", [`${DATA}/rss`]],
  ["eol", "endoflife.date (464)", [`${DATA}/eol`]],
  ["cve5", "CVE JSON 5, unchanged re-import", [`${DATA}/cve-json5`]],
];

interface Row {
  driver: string;
  step: string;
  read: number;
  inserted: number;
  updated: number;
  unchanged: number;
  skipped: number;
  seconds: number;
  "rec/s": number;
  "peak RSS MB": number;
}

async function importStep(env: Record<string, string>, source: string, paths: string[]) {
  // With the heap ceiling `npm run vigie` gives the CLI (ADR 0016): V8 then grows the heap by at most 1.6x the live data, not 4x.
  const { stdout } = await run(process.execPath, ["--max-old-space-size=1024", "bench/ingest-child.mjs", source, ...paths], {
    env: { ...process.env, ...env },
    maxBuffer: 1 << 24,
  });
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as {
    read: number;
    inserted: number;
    updated: number;
    unchanged: number;
    skipped: number;
    seconds: number;
    peak_rss_mb: number;
  };
}

export async function latency(env: Record<string, string>): Promise<{ query: string; "first ms": number; p50: number; p95: number }[]> {
  const database = await openDatabase({ databaseUrl: env.DATABASE_URL || undefined, dataDir: env.VIGIE_DATA_DIR });
  const config = loadConfig({ ...process.env, ...env, VIGIE_JOBS: "off", LOG_LEVEL: "silent" });
  const { app, services } = await buildApp({ config, database, logger: createLogger("silent") });
  const plan = await services.organizations.upsertPlan({ slug: "bench", name: "Bench", maxApiCallsPerHour: 1_000_000_000 });
  const { org } = await services.organizations.createOrg({ name: "bench", planSlug: plan.slug });
  const { key } = await services.apiKeys.create({ orgId: org.id, scopes: [], projectIds: [] });
  const out = [];
  for (const query of ["vendor=microsoft", "q=remote%20code%20execution", "q=openssh", "is_kev=true&sort=-epss", ""]) {
    const times: number[] = [];
    let first = 0;
    for (let i = 0; i < 120; i++) {
      // Every 10th request on another page: the page query itself, not only a cached total.
      const page = i % 10 === 9 ? "&page=3" : "";
      const t0 = performance.now();
      const res = await app.inject({ method: "GET", url: `/api/v1/cves?${query}${page}`, headers: { authorization: `Bearer ${key}` } });
      if (res.statusCode !== 200) throw new Error(`${query}: ${res.statusCode} ${res.body}`);
      if (i === 0) first = performance.now() - t0; // the total counted (not yet cached)
      if (i >= 20) times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    out.push({
      query: `GET /api/v1/cves?${query}`,
      "first ms": +first.toFixed(1),
      p50: +times[Math.floor(times.length / 2)]!.toFixed(1),
      p95: +times[Math.floor(times.length * 0.95)]!.toFixed(1),
    });
  }
  await app.close();
  await database.close();
  return out;
}

async function benchDriver(driver: string, env: Record<string, string>) {
  const rows: Row[] = [];
  for (const [source, step, paths] of STEPS) {
    const r = await importStep(env, source, paths);
    rows.push({
      driver,
      step,
      read: r.read,
      inserted: r.inserted,
      updated: r.updated,
      unchanged: r.unchanged,
      skipped: r.skipped,
      seconds: +r.seconds.toFixed(1),
      "rec/s": Math.round(r.read / r.seconds),
      "peak RSS MB": r.peak_rss_mb,
    });
    console.log(JSON.stringify(rows.at(-1)));
  }
  return { rows, lat: await latency(env) };
}

export async function benchIngest(): Promise<void> {
  const results = await onEachDriver("ingest", (t) =>
    benchDriver(t.driver, t.driver === "postgres" ? { DATABASE_URL: t.databaseUrl! } : { DATABASE_URL: "", VIGIE_DATA_DIR: t.dataDir! }),
  );
  for (const r of results) {
    console.log(`\nIngest — ${r.driver}`);
    console.table(r.rows);
    console.table(r.lat);
  }
}

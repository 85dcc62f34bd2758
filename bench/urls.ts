/**
 * URL scan benchmark: 500 URLs served locally (half HTTP, half HTTPS; pages of 50 to 500 KB of
 * three real kinds, bench/urls-pages.ts), by a separate process (bench/urls-sites.ts), scanned by
 * one `urls-scan-due` run at the default concurrency (VIGIE_URLS_SCAN_CONCURRENCY, 8), each scan
 * recorded in the database: scans per second, p50/p95 scan time (request to detection done, the
 * `last_duration_ms` each scan records), RSS of this process before the scans and at its peak
 * (with PGlite the database runs in this process too). Then technology detection
 * alone on the same pages with the full fingerprint set: pages per second, MB per second.
 * On PostgreSQL (BENCH_DATABASE_URL) and on embedded PGlite (BENCH_PGLITE=off to skip it).
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { createServices } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { detect } from "../src/modules/urls/urls.detect.js";
import { loadFingerprints } from "../src/modules/urls/urls.fingerprints.js";
import { openDatabase } from "../src/platform/db/client.js";
import { onEachDriver, type BenchTarget } from "./drivers.js";
import { benchPage } from "./urls-pages.js";

const N = Number(process.env.BENCH_URLS ?? 500);

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(s.length * p))]!);
}

async function startSites(): Promise<{ http: string; https: string; stop: () => void }> {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/urls-sites.ts"], {
    env: { ...process.env, BENCH_URLS: String(N) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`urls-sites exited (${code})`)));
  });
  return { ...(JSON.parse(first) as { http: string; https: string }), stop: () => child.kill() };
}

async function scanRun(t: BenchTarget, sites: { http: string; https: string }) {
  const database = await openDatabase({ databaseUrl: t.databaseUrl, dataDir: t.dataDir });
  try {
    await database.migrate();
    const config = loadConfig({
      ...process.env,
      LOG_LEVEL: "warn",
      VIGIE_JOBS: "off",
      VIGIE_ALLOW_PRIVATE_TARGETS: "true",
      VIGIE_SNAPSHOT: "off",
      VIGIE_FEEDS_SYNC: "off",
    });
    const services = createServices(database, config);
    const { org } = await services.organizations.createOrg({ name: "Bench urls" });
    const project = await services.projects.create({ orgId: org.id, name: "Sites" });
    const scope = { id: project.id, orgId: org.id };
    for (let i = 0; i < N; i++) await services.urls.create(scope, { url: `${i % 2 ? sites.https : sites.http}/p/${i}` });
    // The fingerprints are compiled at the first scan of the process (~0.4 s), inside the measured run as in a server.
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const started = performance.now();
    const r = await services.urls.scanDue(new Date(Date.now() + 1000));
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const rows = (
      await database.executeSql("select last_status, last_duration_ms, jsonb_array_length(technologies) as n from monitored_urls", [])
    ).rows as { last_status: string; last_duration_ms: number; n: number }[];
    const durations = rows.map((x) => x.last_duration_ms);
    return {
      scanned: r.scanned,
      statuses: JSON.stringify(r.statuses),
      concurrency: config.urls.concurrency,
      "scans/s": Math.round((r.scanned / seconds) * 10) / 10,
      "p50 ms": pct(durations, 0.5),
      "p95 ms": pct(durations, 0.95),
      "RSS before MB": Math.round(before / 1048576),
      "peak RSS MB": Math.round(peak / 1048576),
      "technologies/page": Math.round((rows.reduce((a, x) => a + Number(x.n), 0) / rows.length) * 10) / 10,
    };
  } finally {
    await database.close();
  }
}

function detectionAlone() {
  const t0 = performance.now();
  const fp = loadFingerprints();
  const loadMs = Math.round(performance.now() - t0);
  const pages = Array.from({ length: N }, (_, i) => benchPage(i));
  const bytes = pages.reduce((a, p) => a + p.html.length, 0);
  const times: number[] = [];
  const started = performance.now();
  for (const [i, p] of pages.entries()) {
    const s = performance.now();
    detect(fp, { url: `https://site.example/p/${i}`, headers: p.headers, html: p.html, certIssuer: null });
    times.push(performance.now() - s);
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    pages: N,
    "MB read": Math.round(bytes / 104857.6) / 10,
    "pages/s": Math.round((N / seconds) * 10) / 10,
    "MB/s": Math.round((bytes / 1048576 / seconds) * 10) / 10,
    "p95 ms": pct(times, 0.95),
    "fingerprints load ms": loadMs,
    technologies: fp.technologies.size,
  };
}

/** Prints the scan figures on each driver, then detection alone. */
export async function benchUrls(): Promise<void> {
  console.log(`\n== URL scans: ${N} local URLs (HTTP and HTTPS, 50–500 KB pages) ==`);
  const sites = await startSites();
  try {
    console.table(await onEachDriver("urls", (t) => scanRun(t, sites)));
  } finally {
    sites.stop();
  }
  console.log("\n== Technology detection alone (full fingerprint set) ==");
  console.table([detectionAlone()]);
}

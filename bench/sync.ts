/**
 * Feed sync benchmark (issue 22) against the whole local mirror of ../shared/data
 * (scripts/mirror.ts, every publisher's layout, served by this process):
 * - first sync of every source, each in its own process (bench/sync-child.mjs, the built code), on
 *   PostgreSQL (BENCH_DATABASE_URL) and PGlite migrated beforehand: time, CPU, records applied,
 *   requests and peak RSS;
 * - steady state: the same again with nothing new: CPU and requests per address;
 * - freshness: the scheduler running in this process as in the server (VIGIE_FEEDS_SYNC=on, the CVE
 *   List every 2 s instead of hourly), a project watching CVEs of the 2024 CVE List file with a
 *   webhook workflow; each CVE in turn published at the mirror as a new delta release: publication →
 *   webhook, and the sync's own share once due (its first request to the publisher → the alert
 *   committed, and → the webhook), p50/p95.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { wholeDataMirrors } from "../scripts/mirror.js";
import { serveMirrors } from "../scripts/mirror/mirror.js";
import { SOURCES } from "../src/feeds/importers/index.js";
import { openDatabase } from "../src/platform/db/client.js";
import { cve5Mirror } from "../scripts/mirror/cve5.js";
import { createServices } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { startJobs } from "../src/jobs.js";
import { createLogger } from "../src/platform/log.js";
import { onEachDriver, type BenchTarget } from "./drivers.js";
import { pct, receiver, records, waitFor, watchingProject } from "./harness.js";

const run = promisify(execFile);
const DATA = process.env.VIGIE_SHARED_DATA ?? "../shared/data";
const FRESH_ROUNDS = Number(process.env.BENCH_SYNC_ROUNDS ?? 10);

interface ChildOut {
  status: string;
  read: number;
  applied: number;
  problems: number;
  errors: number;
  error: string | null;
  seconds: number;
  cpu_seconds: number;
  peak_rss_mb: number;
}

export async function benchSync(): Promise<void> {
  const mirrors = await wholeDataMirrors(DATA);
  const served = await serveMirrors(mirrors);
  const addresses = served.env();
  const only = (process.env.BENCH_SOURCES ?? SOURCES.join(",")).split(",");
  try {
    const rows = await onEachDriver("sync", async (t) => {
      const env = {
        ...process.env,
        ...(t.databaseUrl ? { DATABASE_URL: t.databaseUrl } : { VIGIE_DATA_DIR: t.dataDir!, DATABASE_URL: "" }),
        ...addresses,
        VIGIE_NVD_PAUSE_MS: "0",
        VIGIE_FEEDS_RETRY_BASE_MS: "100",
        VIGIE_FEEDS_CACHE_DIR: join(tmpdir(), `vigie-bench-sync-${process.pid}`),
        LOG_LEVEL: "silent",
      };
      // Migrated beforehand: a fresh PGlite's creation alone peaks at ~900 MB, which is not the sync's.
      const database = await openDatabase({ databaseUrl: t.databaseUrl, dataDir: t.dataDir });
      await database.migrate();
      await database.close();
      const sync = async (source: string) => {
        const from = served.requests.length;
        const { stdout } = await run(process.execPath, ["--max-old-space-size=1024", "bench/sync-child.mjs", source], {
          env,
          maxBuffer: 1 << 24,
        });
        const [outcome, rss] = stdout
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as Partial<ChildOut>);
        return { ...outcome, ...rss, requests: served.requests.length - from } as ChildOut & { requests: number };
      };
      const out = [];
      for (const source of only.filter((s) => addresses[`VIGIE_FEED_URLS_${s.toUpperCase()}`])) {
        const first = await sync(source);
        const again = await sync(source);
        out.push({
          source,
          status: first.error ? `${first.status}: ${first.error.slice(0, 60)}` : first.status,
          "first s": first.seconds,
          "CPU s": first.cpu_seconds,
          applied: first.applied,
          problems: first.problems + first.errors,
          requests: first.requests,
          "peak RSS MB": first.peak_rss_mb,
          "again CPU s": again.cpu_seconds,
          "again requests": again.requests,
          addresses: addresses[`VIGIE_FEED_URLS_${source.toUpperCase()}`]!.split(",").length,
        });
      }
      return { sources: out };
    });
    for (const r of rows) {
      console.log(`\nFirst sync of each source from the whole mirror of ${DATA}, then again with nothing new (${r.driver})`);
      console.table(r.sources);
    }
  } finally {
    await served.close();
  }
  if (process.env.BENCH_SYNC_FRESHNESS === "off") return;
  const fresh = await onEachDriver("sync_fresh", freshness);
  console.log(`\nFreshness: ${FRESH_ROUNDS} CVEs published one by one at the CVE List mirror, synced every 2 s (ms)`);
  console.table(fresh);
}

async function freshness(t: BenchTarget): Promise<Record<string, number>> {
  const all = await records(500 + FRESH_ROUNDS);
  const later = all.slice(500);
  const mirror = cve5Mirror({
    records: all.slice(0, 500).map((r) => r.line),
    cacheDir: mkdtempSync(join(tmpdir(), "vigie-fresh-mirror-")),
  });
  // The instant of each request the publisher answers (the sync's first request once due).
  const seen: number[] = [];
  const served = await serveMirrors([
    {
      source: "probe",
      addresses: () => [],
      handle: () => {
        seen.push(performance.now());
        return false;
      },
    },
    mirror,
  ]);
  const rcv = receiver();
  await new Promise<void>((r) => rcv.server.listen(0, "127.0.0.1", () => r()));
  const dir = mkdtempSync(join(tmpdir(), "vigie-fresh-"));
  const database = await openDatabase({ databaseUrl: t.databaseUrl, dataDir: t.dataDir });
  const off = Object.fromEntries(SOURCES.map((s) => [`VIGIE_FEED_URLS_${s.toUpperCase()}`, ""]));
  const config = loadConfig({
    ...process.env,
    ...off,
    DATABASE_URL: t.databaseUrl ?? "",
    VIGIE_DATA_DIR: t.dataDir ?? join(dir, "data"),
    VIGIE_FEEDS_SYNC: "on",
    VIGIE_FEED_URLS_CVE5: mirror.addresses(served.origin)[0]!,
    VIGIE_FEEDS_EVERY_CVE5: "2s",
    VIGIE_FEEDS_CACHE_DIR: join(dir, "cache"),
    VIGIE_ALLOW_PRIVATE_TARGETS: "true",
    VIGIE_SECRET_KEY: "0".repeat(64),
    LOG_LEVEL: "silent",
  });
  const stops: (() => Promise<void>)[] = [];
  try {
    await database.migrate();
    const services = createServices(database, config);
    stops.push(() => services.cacheFeed.close());
    const { org } = await services.organizations.createOrg({ name: "Bench freshness" });
    await watchingProject(
      services,
      org.id,
      "Production",
      later.map((r) => r.id),
      `http://127.0.0.1:${(rcv.server.address() as AddressInfo).port}/hook`,
    );
    stops.push((await startJobs(database, services, createLogger("silent"), config)).stop);
    // The baseline first (the scheduler's first run).
    await waitFor(
      async () => ((await services.feeds.status()).find((s) => s.source === "cve5")?.last_success_at ?? null) !== null,
      300_000,
    );
    const total: number[] = [];
    const toAlert: number[] = [];
    const toWebhook: number[] = [];
    for (const r of later) {
      const before = rcv.arrivals.size;
      const published = performance.now();
      const publishedWall = Date.now();
      await mirror.publishDelta([r.line]);
      const from = seen.length;
      await waitFor(() => rcv.arrivals.size > before, 120_000);
      const arrived = Math.max(...[...rcv.arrivals.values()].slice(before));
      const due = seen[from]!;
      const [alert] = (
        await database.executeSql("select (extract(epoch from triggered_at) * 1000)::float8 as at from alerts where cve_id = $1", [r.id])
      ).rows as { at: number }[];
      total.push(arrived - published);
      toAlert.push(alert!.at - publishedWall - (due - published));
      toWebhook.push(arrived - due);
    }
    return {
      "publish → webhook p50": pct(total, 0.5),
      "publish → webhook p95": pct(total, 0.95),
      "due → alert p50": pct(toAlert, 0.5),
      "due → alert p95": pct(toAlert, 0.95),
      "due → webhook p50": pct(toWebhook, 0.5),
      "due → webhook p95": pct(toWebhook, 0.95),
    };
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    mirror.stop();
    await served.close();
    await new Promise<void>((r) => rcv.server.close(() => r()));
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * CVE List sync from the whole-data local mirror of the cvelistV5 releases (scripts/mirror/cve5.ts:
 * a baseline of the 44,130 records of ../shared/data less the held-back ones, then deltas): a full
 * first sync (time, peak RSS: target ≤ 400 MB), an hourly sync with nothing new (one listing
 * request; CPU), then one held-back record published as a new delta and synced (the sync's share of
 * the freshness). Each sync in its own process (bench/sync-child.mjs), on PostgreSQL and PGlite.
 *
 * Measured 2026-11-26 on the 2-core machine while other benchmarks ran (times are high): mirror
 * baseline built in 29.9 s the first time (67 MB zip-in-zip, cached), 1.3 s to start after. First
 * sync of 44,122 records: PostgreSQL 255 s (81 s CPU), peak RSS 225 MB; PGlite 180 s (107 s CPU),
 * 903 MB — the same as `feeds import` of the corpus on PGlite (904 MB: the embedded database's own
 * memory, not the sync's). Nothing new: 1 request, 0.09 s CPU (PostgreSQL) / 0.31 s (PGlite). One
 * new delta: 0.7 s / 1.9 s.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { cve5Mirror } from "../scripts/mirror/cve5.js";
import { serveMirrors } from "../scripts/mirror/mirror.js";
import { onEachDriver } from "./drivers.js";

const run = promisify(execFile);
const DATA = process.env.VIGIE_SHARED_DATA ?? "../shared/data";

interface Out {
  status: string;
  applied: number;
  read: number;
  problems: number;
  error: string | null;
  seconds: number;
  cpu_seconds: number;
  peak_rss_mb: number;
}

export async function benchSyncCve5(): Promise<void> {
  const built = performance.now();
  const mirror = cve5Mirror({ dataDir: DATA });
  await mirror.ready();
  console.log(`cve5 mirror ready in ${((performance.now() - built) / 1000).toFixed(1)} s (baseline cached after the first build)`);
  const server = await serveMirrors([mirror]);
  const off = Object.fromEntries(["NVD", "KEV", "EPSS", "POC", "OSV", "CERTFR", "RSS", "EOL"].map((s) => [`VIGIE_FEED_URLS_${s}`, ""]));
  const sync = async (env: Record<string, string>): Promise<Out> => {
    const { stdout } = await run(process.execPath, ["--max-old-space-size=1024", "bench/sync-child.mjs", "cve5"], {
      env: { ...process.env, ...off, ...server.env(), LOG_LEVEL: "silent", VIGIE_FEEDS_RETRY_BASE_MS: "10", ...env },
      maxBuffer: 1 << 24,
    });
    // The child prints its outcome, then its peak RSS once its database is closed.
    const lines = stdout
      .trim()
      .split("\n")
      .filter((l) => l.startsWith("{"));
    return Object.assign({}, ...lines.slice(-2).map((l) => JSON.parse(l))) as Out;
  };
  try {
    const rows = await onEachDriver("synccve5", async (target) => {
      const env: Record<string, string> = target.databaseUrl ? { DATABASE_URL: target.databaseUrl } : { VIGIE_DATA_DIR: target.dataDir! };
      const out: Record<string, Out> = {};
      out["first sync (baseline)"] = await sync(env);
      const before = server.requests.length;
      out["nothing new"] = await sync(env);
      const requests = server.requests.length - before;
      await mirror.publishHeldBack(1);
      out["one new delta"] = await sync(env);
      return { requests_when_nothing_new: requests, ...out };
    });
    for (const r of rows) {
      console.log(`cve5 sync on ${r.driver} (requests when nothing new: ${r.requests_when_nothing_new})`);
      console.table(
        Object.entries(r)
          .filter(([k]) => k !== "driver" && k !== "requests_when_nothing_new")
          .map(([step, o]) => ({ step, ...(o as unknown as Out) })),
      );
    }
  } finally {
    mirror.stop();
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchSyncCve5(); // tsx bench/sync-cve5.ts alone

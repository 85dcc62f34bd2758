/**
 * OSV sync benchmark: a first sync of the three ecosystems of ../shared/data (PyPI, Go, crates.io:
 * 8,158 advisories) from the local bucket (scripts/mirror/osv.ts, archives built before timing),
 * then a sync with nothing new; in its own process (bench/sync-child.mjs, the built code), on
 * PostgreSQL (BENCH_DATABASE_URL) and PGlite, migrated beforehand. Prints time, CPU, requests and
 * peak RSS.
 */
import { execFile } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { serveMirrors } from "../scripts/mirror/mirror.js";
import { osvMirror } from "../scripts/mirror/osv.js";
import { openDatabase } from "../src/platform/db/client.js";
import { onEachDriver } from "./drivers.js";

const run = promisify(execFile);
const DATA = process.env.VIGIE_SHARED_DATA ?? "../shared/data";

export async function benchSyncOsv(): Promise<void> {
  const mirror = osvMirror({ data: DATA, ecosystems: ["PyPI", "Go", "crates.io"] });
  const served = await serveMirrors([mirror]);
  try {
    // The mirror builds its archives on first request: built here, outside the timing.
    for (const e of ["PyPI", "Go", "crates.io"]) await (await fetch(`${mirror.addresses(served.origin)[0]}/${e}/all.zip`)).arrayBuffer();
    const rows = await onEachDriver("sync_osv", async (t) => {
      const env = {
        ...process.env,
        ...(t.databaseUrl ? { DATABASE_URL: t.databaseUrl } : { VIGIE_DATA_DIR: t.dataDir! }),
        VIGIE_FEED_URLS_OSV: mirror.addresses(served.origin)[0]!,
        VIGIE_OSV_ECOSYSTEMS: "PyPI,Go,crates.io",
        VIGIE_FEEDS_CACHE_DIR: join(tmpdir(), `vigie-bench-osv-${process.pid}`),
        LOG_LEVEL: "silent",
      };
      // Migrated beforehand: a fresh PGlite's migration alone peaks at ~860 MB, which is not the sync's.
      const database = await openDatabase({ databaseUrl: t.databaseUrl, dataDir: t.dataDir });
      await database.migrate();
      await database.close();
      const sync = async () => {
        const from = served.requests.length;
        const { stdout } = await run(process.execPath, ["--max-old-space-size=1024", "bench/sync-child.mjs", "osv"], {
          env,
          maxBuffer: 1 << 24,
        });
        const [outcome, rss] = stdout
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l));
        return { ...outcome, ...rss, requests: served.requests.length - from };
      };
      const first = await sync();
      const again = await sync();
      return {
        "first s": first.seconds,
        "first CPU s": first.cpu_seconds,
        read: first.read,
        applied: first.applied,
        problems: first.problems,
        status: first.status,
        requests: first.requests,
        "peak RSS MB": first.peak_rss_mb,
        "again s": again.seconds,
        "again CPU s": again.cpu_seconds,
        "again requests": again.requests,
      };
    });
    console.log("\nOSV sync, whole ../shared/data (PyPI, Go, crates.io), first sync then nothing new");
    console.table(rows);
  } finally {
    await served.close();
  }
}

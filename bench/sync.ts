/**
 * Feed sync benchmark (issue 22) against the whole local mirror of ../shared/data
 * (scripts/mirror.ts, every publisher's layout, served by this process):
 * - first sync of every source, each in its own process (bench/sync-child.mjs, the built code), on
 *   PostgreSQL (BENCH_DATABASE_URL) and PGlite migrated beforehand: time, CPU, records applied,
 *   requests and peak RSS;
 * - steady state: the same again with nothing new: CPU and requests per address;
 * - freshness (BENCH=sync, bench/sync-freshness.ts): a record published at the mirror → its alert and webhook.
 */
import { execFile } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { wholeDataMirrors } from "../scripts/mirror.js";
import { serveMirrors } from "../scripts/mirror/mirror.js";
import { SOURCES } from "../src/feeds/importers/index.js";
import { openDatabase } from "../src/platform/db/client.js";
import { onEachDriver } from "./drivers.js";

const run = promisify(execFile);
const DATA = process.env.VIGIE_SHARED_DATA ?? "../shared/data";

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
}

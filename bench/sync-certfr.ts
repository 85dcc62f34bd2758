/**
 * CERT-FR sync benchmark, from the local site over ../shared/data (scripts/mirror/certfr.ts: the
 * 16,538 official avis documents, the feed derived): a first sync of a feed listing CERTFR_COUNT
 * avis (default 40, about what the site lists; CERTFR_COUNT=16538 lists every avis), then a sync
 * with nothing new (one conditional request). In its own process (bench/sync-child.mjs, the built
 * code), on PostgreSQL (BENCH_DATABASE_URL) and PGlite, migrated beforehand. Prints time, CPU,
 * requests and peak RSS.
 */
import { execFile } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { certfrMirror } from "../scripts/mirror/certfr.js";
import { serveMirrors } from "../scripts/mirror/mirror.js";
import { openDatabase } from "../src/platform/db/client.js";
import { onEachDriver } from "./drivers.js";

const run = promisify(execFile);
const DATA = process.env.VIGIE_SHARED_DATA ?? "../shared/data";

export async function benchSyncCertfr(): Promise<void> {
  const count = Number(process.env.CERTFR_COUNT ?? 40);
  const mirror = certfrMirror({ data: DATA, count });
  await mirror.ready();
  const served = await serveMirrors([mirror]);
  try {
    const rows = await onEachDriver("sync_certfr", async (t) => {
      const env = {
        ...process.env,
        ...(t.databaseUrl ? { DATABASE_URL: t.databaseUrl } : { VIGIE_DATA_DIR: t.dataDir! }),
        VIGIE_FEED_URLS_CERTFR: mirror.addresses(served.origin)[0]!,
        VIGIE_FEEDS_CACHE_DIR: join(tmpdir(), `vigie-bench-certfr-${process.pid}`),
        LOG_LEVEL: "silent",
      };
      // Migrated beforehand: a fresh PGlite's migration alone peaks at ~900 MB, which is not the sync's.
      const database = await openDatabase({ databaseUrl: t.databaseUrl, dataDir: t.dataDir });
      await database.migrate();
      await database.close();
      const sync = async () => {
        const from = served.requests.length;
        const { stdout } = await run(process.execPath, ["--max-old-space-size=1024", "bench/sync-child.mjs", "certfr"], {
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
    console.log(`\nCERT-FR sync, whole ../shared/data (the feed lists ${count} avis), first sync then nothing new`);
    console.table(rows);
  } finally {
    await served.close();
  }
}

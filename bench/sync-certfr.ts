/**
 * CERT-FR sync from the whole-data mirror (scripts/mirror/certfr.ts over ../shared/data: 16,538
 * official avis documents, the feed derived): a first sync of a feed listing CERTFR_COUNT avis
 * (default 40, about what the site lists; 16538 for every avis), then a sync with nothing new (one
 * conditional request). The mirror and the migration of the fresh database run in child processes,
 * so the peak RSS is the sync's alone (with the database's own, in-process for PGlite).
 * On PGlite (a temporary data directory) by default, on PostgreSQL when BENCH_DATABASE_URL is set.
 *
 *   npx tsx bench/sync-certfr.ts            # prints one JSON line
 */
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { certfrMirror } from "../scripts/mirror/certfr.js";
import { serveMirrors } from "../scripts/mirror/mirror.js";
import { loadConfig } from "../src/config.js";
import { FeedsService } from "../src/feeds/feeds.service.js";
import { openDatabase } from "../src/platform/db/client.js";

const DATA = process.env.VIGIE_SHARED_DATA ?? "../shared/data";
const COUNT = Number(process.env.CERTFR_COUNT ?? 40);

if (process.argv[2] === "migrate") {
  // A fresh database's migration peaks far above a sync on PGlite (~920 MB): done in its own process.
  const database = await openDatabase(process.argv[3]!.startsWith("postgres") ? { databaseUrl: process.argv[3]! } : { dataDir: process.argv[3]! });
  await database.migrate();
  await database.close();
} else if (process.argv[2] === "serve") {
  const started = Date.now();
  const mirror = await certfrMirror({ data: DATA, count: COUNT });
  const served = await serveMirrors([mirror]);
  process.send!({ address: mirror.addresses(served.origin)[0], startMs: Date.now() - started });
  process.on("message", (m) => {
    if (m === "requests") process.send!({ requests: served.requests.length });
  });
} else {
  const child = fork(new URL(import.meta.url).pathname, ["serve"], { execArgv: process.execArgv });
  const ask = <T>(msg?: string) =>
    new Promise<T>((resolve) => {
      child.once("message", (m) => resolve(m as T));
      if (msg) child.send(msg);
    });
  const { address, startMs } = await ask<{ address: string; startMs: number }>();
  const dir = mkdtempSync(join(tmpdir(), "vigie-bench-certfr-"));
  const url = process.env.BENCH_DATABASE_URL;
  const target = url ?? join(dir, "pg");
  await new Promise((resolve) => fork(new URL(import.meta.url).pathname, ["migrate", target], { execArgv: process.execArgv }).on("exit", resolve));
  const database = url ? await openDatabase({ databaseUrl: url, poolSize: 5 }) : await openDatabase({ dataDir: target });
  const feeds = new FeedsService(database.db, {
    ...loadConfig({}).feeds,
    cacheDir: join(dir, "cache"),
    urls: { cve5: [], nvd: [], kev: [], epss: [], poc: [], osv: [], rss: [], eol: [], certfr: [address] },
  });
  const run = async () => {
    const before = (await ask<{ requests: number }>("requests")).requests;
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    const [out] = await feeds.sync(["certfr"]);
    const seconds = +((performance.now() - t0) / 1000).toFixed(2);
    const used = process.cpuUsage(cpu);
    const requests = (await ask<{ requests: number }>("requests")).requests - before;
    return {
      status: out!.status,
      applied: out!.applied,
      problems: out!.addresses[0]?.problems.length ?? 0,
      seconds,
      cpu_s: +((used.user + used.system) / 1e6).toFixed(2),
      requests,
    };
  };
  const first = await run();
  const steady = await run();
  console.log(
    JSON.stringify({
      driver: url ? "postgres" : "pglite",
      listed: COUNT,
      mirror_start_ms: startMs,
      first,
      steady,
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    }),
  );
  await database.close();
  child.kill();
  rmSync(dir, { recursive: true, force: true });
}

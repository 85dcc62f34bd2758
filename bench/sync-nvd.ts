/**
 * NVD's first sync from the local NVD API over the whole of ../shared/data (the 1.1 feeds' 147,917
 * items served as API 2.0 objects, scripts/mirror/nvd.ts): time, records and the peak RSS of the
 * syncing process (the mirror runs in a child process, so its memory is not counted). Embedded
 * PGlite in a fresh directory by default; PostgreSQL when DATABASE_URL names a (fresh) database.
 * Run: `npx tsx bench/sync-nvd.ts` (the mirror's converted cache is built on its first start).
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { serveMirrors } from "../scripts/mirror/mirror.js";
import { nvdMirror } from "../scripts/mirror/nvd.js";
import { loadConfig } from "../src/config.js";
import { FeedsService } from "../src/feeds/feeds.service.js";
import { openDatabase } from "../src/platform/db/client.js";
import { createLogger } from "../src/platform/log.js";

const DATA = process.env.VIGIE_SHARED_DATA ?? "../shared/data";

if (process.argv[2] === "--init") {
  // A fresh PGlite's initdb leaves ~800 MB in its process: the database is created and migrated in
  // a process of its own, and the sync measured in a process that opens it, as a restarted server would.
  const database = await openDatabase({ dataDir: process.argv[3]! });
  await database.migrate();
  await database.close();
} else if (process.argv[2] === "--mirror") {
  const started = Date.now();
  const mirror = await nvdMirror({ data: DATA });
  const served = await serveMirrors([mirror]);
  const rss = Math.round(process.resourceUsage().maxRSS / 1024);
  process.stdout.write(
    `${JSON.stringify({ address: mirror.addresses(served.origin)[0], size: mirror.size, start_s: (Date.now() - started) / 1000, rss })}\n`,
  );
} else {
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, "--mirror"], { stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once("line", resolve));
  const mirror = JSON.parse(line) as { address: string; size: number; start_s: number; rss: number };
  try {
    const databaseUrl = process.env.DATABASE_URL || undefined;
    const dataDir = databaseUrl ? undefined : mkdtempSync(join(tmpdir(), "vigie-bench-nvd-"));
    if (dataDir) execFileSync(process.execPath, [...process.execArgv, process.argv[1]!, "--init", dataDir], { stdio: "inherit" });
    const database = await openDatabase({ databaseUrl, dataDir });
    await database.migrate();
    const openedRss = Math.round(process.resourceUsage().maxRSS / 1024);
    const off = { cve5: [], kev: [], epss: [], poc: [], osv: [], certfr: [], rss: [], eol: [] };
    const settings = {
      ...loadConfig({}).feeds,
      cacheDir: mkdtempSync(join(tmpdir(), "vigie-bench-nvd-cache-")),
      nvdPauseMs: 0,
      urls: { ...off, nvd: [mirror.address] },
    };
    const feeds = new FeedsService(database.db, settings, createLogger("warn"));
    const started = Date.now();
    const [out] = await feeds.sync(["nvd"]);
    const seconds = (Date.now() - started) / 1000;
    const a = out!.addresses[0]!;
    await database.close();
    console.table([
      {
        driver: databaseUrl ? "postgres" : "pglite",
        mirror_records: mirror.size,
        mirror_start_s: mirror.start_s,
        mirror_rss_mb: mirror.rss,
        status: out!.status,
        read: a.read,
        applied: a.applied,
        errors: a.errors.length,
        problems: a.problems.length,
        seconds,
        "rec/s": Math.round(a.read / seconds),
        "peak RSS MB": Math.round(process.resourceUsage().maxRSS / 1024),
        "RSS MB once the database is open": openedRss,
      },
    ]);
    if (out!.status !== "synced") console.error(a.error, a.problems);
  } finally {
    child.kill();
  }
}

// One sync of a source in its own process, through the built code that `vigie feeds sync` runs (so
// that its peak RSS and CPU are the sync's own): prints its outcome, time, CPU and peak RSS.
import { readFileSync } from "node:fs";
import { loadConfig } from "../dist/config.js";
import { FeedsService } from "../dist/feeds/feeds.service.js";
import { openDatabase } from "../dist/platform/db/client.js";

const [source] = process.argv.slice(2);
const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL || undefined, dataDir: process.env.VIGIE_DATA_DIR });
await database.migrate();
const feeds = new FeedsService(database.db, loadConfig(process.env).feeds);
const cpu = process.cpuUsage();
const t0 = performance.now();
const [o] = await feeds.sync([source]);
const used = process.cpuUsage(cpu);
const sum = (f) => o.addresses.reduce((n, a) => n + f(a), 0);
process.stdout.write(
  `${JSON.stringify({
    status: o.status,
    read: sum((a) => a.read),
    applied: o.applied,
    problems: sum((a) => a.problems.length),
    errors: sum((a) => a.errors.length),
    error:
      o.addresses
        .map((a) => a.error)
        .filter(Boolean)
        .join(" ; ") || null,
    seconds: Math.round(performance.now() - t0) / 1000,
    cpu_seconds: Math.round((used.user + used.system) / 1000) / 1000,
  })}\n`,
);
await database.close();
process.stdout.write(`${JSON.stringify({ peak_rss_mb: peakRssMb() })}\n`);

/**
 * This process's own peak RSS: VmHWM, the high-water mark of its memory since exec. Linux keeps
 * ru_maxrss across execve, so a child of a big parent (a bench holding a whole-data mirror) would
 * report at least the parent's size at fork (measured: 515 MB for a sync that used 104).
 */
function peakRssMb() {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    if (kb) return Math.round(Number(kb) / 1024);
  } catch {}
  return Math.round(process.resourceUsage().maxRSS / 1024);
}

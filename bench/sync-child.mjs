// One sync of one source in its own process, through the built code the server runs (so that its
// peak RSS is the sync's own), against the addresses of VIGIE_FEED_URLS_<SOURCE>: prints the outcome,
// the seconds, the CPU seconds and the peak RSS.
import { readFileSync } from "node:fs";
import { loadConfig } from "../dist/config.js";
import { FeedsService } from "../dist/feeds/feeds.service.js";
import { openDatabase } from "../dist/platform/db/client.js";

const [source] = process.argv.slice(2);
const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL || undefined, dataDir: process.env.VIGIE_DATA_DIR });
await database.migrate();
const config = loadConfig(process.env);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const [out] = await new FeedsService(database.db, config.feeds).sync([source]);
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
await database.close();
process.stdout.write(
  `${JSON.stringify({
    status: out?.status,
    applied: out?.applied ?? 0,
    read: out?.addresses.reduce((n, a) => n + a.read, 0) ?? 0,
    problems: out?.addresses.flatMap((a) => a.problems).length ?? 0,
    error: out?.addresses.find((a) => a.error)?.error ?? null,
    seconds: Math.round(seconds * 10) / 10,
    cpu_seconds: Math.round(((cpu.user + cpu.system) / 1e6) * 100) / 100,
    peak_rss_mb: peakRssMb(),
  })}\n`,
);

/**
 * This process's own peak RSS: VmHWM (the high-water mark of its memory since exec). Linux keeps
 * ru_maxrss across execve, so a child of a big parent (the bench holds the mirror) would report
 * at least the parent's size at fork.
 */
function peakRssMb() {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    if (kb) return Math.round(Number(kb) / 1024);
  } catch {}
  return Math.round(process.resourceUsage().maxRSS / 1024);
}

/**
 * PoC sync from the whole-data mirror (scripts/mirror/poc.ts over ../shared/data): a first sync
 * (head SHA + the archive of 31,660 derived CVE files), an hourly sync with nothing new, then one
 * with a new PoC published at the mirror; time, CPU, peak RSS of the syncing process (a child of
 * this one, the mirror staying here), requests and bytes served. On PostgreSQL and PGlite.
 *
 *   npx tsx bench/sync-poc.ts
 */
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { serveMirrors } from "../scripts/mirror/mirror.js";
import { pocMirror } from "../scripts/mirror/poc.js";
import { loadConfig } from "../src/config.js";
import { FeedsService } from "../src/feeds/feeds.service.js";
import { pocTuning } from "../src/feeds/publishers/poc.js";
import { openDatabase } from "../src/platform/db/client.js";
import { onEachDriver, type BenchTarget } from "./drivers.js";

const DATA = process.env.VIGIE_SHARED_DATA ?? "../shared/data";
const run = promisify(execFile);

interface Phase {
  phase: string;
  seconds: number;
  "cpu s": number;
  applied: number;
  requests: number;
  "bytes served": number;
  "peak RSS MB": number;
}

async function child(target: BenchTarget, origin: string, address: string): Promise<void> {
  if (process.env.BENCH_POC_BATCH) pocTuning.batch = Number(process.env.BENCH_POC_BATCH);
  const database = await openDatabase(target.databaseUrl ? { databaseUrl: target.databaseUrl } : { dataDir: target.dataDir! });
  await database.migrate();
  const off = { cve5: [], nvd: [], kev: [], epss: [], poc: [], osv: [], certfr: [], rss: [], eol: [] };
  const feeds = new FeedsService(database.db, {
    ...loadConfig({}).feeds,
    cacheDir: mkdtempSync(join(tmpdir(), "vigie-bench-poc-")),
    urls: { ...off, poc: [address] },
  });
  const counters = async () => (await (await fetch(`${origin}/__counters`)).json()) as { requests: number; bytes: number };
  const phases: Phase[] = [];
  const phase = async (name: string) => {
    const c0 = await counters();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const [out] = await feeds.sync(["poc"]);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const c1 = await counters();
    if (out?.status !== "synced") throw new Error(`${name}: ${JSON.stringify(out)}`);
    phases.push({
      phase: name,
      seconds: Math.round(seconds * 100) / 100,
      "cpu s": Math.round(((cpu.user + cpu.system) / 1e6) * 100) / 100,
      applied: out.applied,
      requests: c1.requests - c0.requests - 1,
      "bytes served": c1.bytes - c0.bytes,
      "peak RSS MB": Math.round(process.resourceUsage().maxRSS / 1024),
    });
  };
  await phase("first sync (archive)");
  await phase("nothing new (304)");
  await fetch(`${origin}/__publish`, { method: "POST" });
  await phase("one new PoC (compare + 1 raw file)");
  await database.close();
  console.log(JSON.stringify(phases));
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const mirror = await pocMirror({ dataDir: DATA, cacheDir: join(tmpdir(), "vigie-mirror-poc") });
  console.log(`mirror: ${mirror.size()} CVE files, ready in ${Math.round(performance.now() - t0)} ms`);
  let requests = 0;
  let bytes = 0;
  let published = 0;
  const control = {
    source: "bench",
    addresses: () => [],
    handle(req: { url?: string; method?: string }, res: ServerResponse) {
      if (req.url === "/__counters") {
        res.end(JSON.stringify({ requests, bytes }));
        return true;
      }
      if (req.url === "/__publish") {
        // A new PoC for a new CVE: one small file in the next commit.
        published++;
        mirror.publish({
          [`2026/CVE-2026-9${String(published).padStart(4, "0")}.json`]: [
            { html_url: `https://github.com/bench/CVE-2026-9${published}`, fork: false },
          ],
        });
        res.end("ok");
        return true;
      }
      return false;
    },
  };
  const served = await serveMirrors([control, mirror]);
  served.server.on("request", (_req, res: ServerResponse) => {
    requests++;
    const write = res.write.bind(res);
    const end = res.end.bind(res);
    res.write = ((chunk: unknown, ...rest: never[]) => {
      if (chunk && typeof chunk !== "function") bytes += Buffer.byteLength(chunk as string);
      return write(chunk as string, ...rest);
    }) as typeof res.write;
    res.end = ((chunk?: unknown, ...rest: never[]) => {
      if (chunk && typeof chunk !== "function") bytes += Buffer.byteLength(chunk as string);
      return end(chunk as string, ...rest);
    }) as typeof res.end;
  });
  const address = mirror.addresses(served.origin)[0]!;
  try {
    const rows = await onEachDriver("syncpoc", async (target) => {
      const { stdout } = await run(
        process.execPath,
        ["--max-old-space-size=1024", "--import", "tsx", "bench/sync-poc.ts", "child", JSON.stringify(target), served.origin, address],
        { env: process.env, maxBuffer: 1 << 24 },
      );
      return { phases: JSON.parse(stdout.trim().split("\n").at(-1)!) as Phase[] };
    });
    for (const r of rows) {
      console.log(`\n${r.driver}`);
      console.table(r.phases);
    }
  } finally {
    await served.close();
  }
}

if (process.argv[2] === "child") await child(JSON.parse(process.argv[3]!), process.argv[4]!, process.argv[5]!);
else await main();

/**
 * EOL sync from the whole-data mirror (scripts/mirror/eol.ts over ../shared/data/eol: 464 products):
 * a first sync (every product document fetched and applied), then a second one a day later (every
 * request conditional: the list and each product answer 304). Prints time, CPU and requests per
 * sync; run it under `/usr/bin/time -v` for the peak RSS. The mirror runs in this process only when
 * EOL_MIRROR is not given (then its memory counts too): give EOL_MIRROR=<address> of a mirror
 * started apart (`tsx bench/sync-eol.ts --serve`) to measure Vigie alone.
 * On PostgreSQL with DATABASE_URL, else embedded PGlite (in a temporary directory). BASELINE=1:
 * open, migrate and build the services only (the process's own peak without any sync).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eolMirror } from "../scripts/mirror/eol.js";
import { serveMirrors } from "../scripts/mirror/mirror.js";
import { createServices } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { REST_EVERY_MS } from "../src/feeds/publishers/eol.js";
import { openDatabase } from "../src/platform/db/client.js";

const DATA = process.env.VIGIE_SHARED_DATA ?? "../shared/data";

if (process.argv.includes("--serve")) {
  const server = await serveMirrors([eolMirror({ data: DATA })], Number(process.env.PORT ?? 0));
  server.server.on("request", () => undefined);
  console.log(server.env().VIGIE_FEED_URLS_EOL);
  process.on("SIGTERM", () => {
    console.log(`requests ${server.requests.length}`);
    process.exit(0);
  });
} else {
  const local = process.env.EOL_MIRROR ? null : await serveMirrors([eolMirror({ data: DATA })]);
  const address = process.env.EOL_MIRROR ?? local!.env().VIGIE_FEED_URLS_EOL!;
  const dataDir = process.env.PGLITE_DIR ?? mkdtempSync(join(tmpdir(), "eol-bench-db-"));
  const database = await openDatabase(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : { dataDir });
  await database.migrate();
  const config = loadConfig({ ...process.env, VIGIE_JOBS: "off", LOG_LEVEL: "silent", VIGIE_FEED_URLS_EOL: address });
  const services = createServices(database, { ...config, feeds: { ...config.feeds, cacheDir: mkdtempSync(join(tmpdir(), "eol-bench-")) } });
  const run = async (label: string) => {
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    const [out] = await services.feeds.sync(["eol"]);
    const c = process.cpuUsage(cpu);
    const a = out!.addresses[0]!;
    console.log(
      `${label}: ${out!.status} read ${a.read} applied ${a.applied} problems ${a.problems.length} in ${((performance.now() - t0) / 1000).toFixed(2)} s, CPU ${((c.user + c.system) / 1e6).toFixed(2)} s, RSS now ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB`,
    );
  };
  if (process.env.BASELINE) {
    console.log(`baseline: RSS now ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB`);
    await database.close();
    process.exit(0);
  }
  await run("first sync");
  // A day later: the rest is due again; every document unchanged.
  await database.executeSql(
    `update feed_checkpoints set checkpoint = jsonb_set(checkpoint, '{products}', (select jsonb_object_agg(k, jsonb_set(v, '{checked}', to_jsonb($1::text))) from jsonb_each(checkpoint->'products') as e(k, v))) where source = 'eol'`,
    [new Date(Date.now() - REST_EVERY_MS - 60_000).toISOString()],
  );
  const before = local?.requests.length ?? 0;
  await run("second sync (a day later)");
  if (local) console.log(`second sync requests: ${local.requests.length - before}`);
  const counts = (await database.executeSql("select (select count(*) from eol_products) p, (select count(*) from eol_cycles) c", [])).rows;
  console.log("rows", JSON.stringify(counts));
  await database.close();
  await local?.close();
}

/**
 * End-of-life benchmark, on the whole endoflife.date set of ../shared/data/eol (464 products,
 * 8,351 cycles):
 * 1. import of the data directory, then its re-import (nothing changes);
 * 2. a stack of 1,000 real items — each a product's purl or CPE identifier at the `latest` version
 *    of one of its cycles — listed with their EOL facts (GET stacks p50/p95), and the EOL lookup
 *    alone;
 * 3. from-stack (a subscription per cycle the items run), then the eol-notices job on them: when
 *    nothing is due, on a day when many are, and again (idempotent).
 * On PostgreSQL (BENCH_DATABASE_URL) and on embedded PGlite (BENCH_PGLITE=off to skip it).
 */
import { join } from "node:path";
import { buildApp, createServices } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { importFeed } from "../src/feeds/import.js";
import { cyclesOfItems } from "../src/modules/eol/eol.stack.js";
import type { Database } from "../src/platform/db/client.js";
import { createLogger } from "../src/platform/log.js";
import { benchTables } from "./drivers.js";

const DATA = process.env.VIGIE_SHARED_DATA ?? "../shared/data";
const ITEMS = 1000;
const PURL_TYPES = new Set(["pypi", "npm", "maven", "golang", "cargo", "gem", "nuget", "composer", "deb", "apk", "rpm"]);

type Row = Record<string, string | number>;

async function sql<T>(database: Database, text: string, values: unknown[] = []): Promise<T[]> {
  return (await database.executeSql(text, values)).rows as T[];
}

function percentiles(times: number[]): { p50: number; p95: number } {
  times.sort((a, b) => a - b);
  return { p50: +times[Math.floor(times.length / 2)]!.toFixed(1), p95: +times[Math.floor(times.length * 0.95)]!.toFixed(1) };
}

/** Up to ITEMS stack items from the imported data: a purl (or CPE) identifier of a product at a cycle's latest version. */
async function realItems(database: Database): Promise<{ item_type: string; value: string }[]> {
  const rows = await sql<{ identifiers: Record<string, string>[]; latest: string }>(
    database,
    `select p.identifiers, c.latest from eol_cycles c join eol_products p on p.id = c.product_id
     where c.latest is not null order by p.id, c.position`,
  );
  const out: { item_type: string; value: string }[] = [];
  for (const r of rows) {
    const purl = r.identifiers.find((i) => i.purl && PURL_TYPES.has(/^pkg:([^/]+)/.exec(i.purl)?.[1] ?? "") && !i.purl.includes("?"))?.purl;
    const cpe = r.identifiers.find((i) => i.cpe?.startsWith("cpe:2.3:") && i.cpe.split(":").length === 5)?.cpe;
    if (purl) out.push({ item_type: "purl", value: `${purl}@${r.latest}` });
    else if (cpe) out.push({ item_type: "cpe", value: `${cpe}:${r.latest.replace(/[:*?\\]/g, "\\$&")}${":*".repeat(7)}` });
    if (out.length === ITEMS) break;
  }
  return out;
}

async function benchDriver(database: Database): Promise<{ steps: Row[] }> {
  await database.migrate();
  const config = loadConfig({ ...process.env, VIGIE_JOBS: "off", LOG_LEVEL: "silent" });
  const services = createServices(database, config);
  const { app } = await buildApp({ config, database, logger: createLogger("silent"), services });
  const steps: Row[] = [];
  let t0 = performance.now();
  const first = await importFeed(database.db, "eol", [join(DATA, "eol")]);
  steps.push({ step: `import ${DATA}/eol`, ms: Math.round(performance.now() - t0), result: `${first.inserted} inserted` });
  t0 = performance.now();
  const again = await importFeed(database.db, "eol", [join(DATA, "eol")]);
  steps.push({ step: "re-import (unchanged)", ms: Math.round(performance.now() - t0), result: `${again.unchanged} unchanged` });

  const { org } = await services.organizations.createOrg({ name: "Bench EOL" });
  const project = await services.projects.create({ orgId: org.id, name: "Production" });
  const { key } = await services.apiKeys.create({ orgId: org.id, scopes: ["stacks-write", "eol-write"], projectIds: [] });
  const base = `/api/v1/organizations/${org.id}/projects/${project.id}`;
  const headers = { authorization: `Bearer ${key}` };
  const items = await realItems(database);
  const created = await app.inject({ method: "POST", url: `${base}/stacks`, headers, payload: { name: "Bench", items } });
  if (created.statusCode !== 201) throw new Error(`stack: ${created.statusCode} ${created.body.slice(0, 500)}`);

  const times: number[] = [];
  let withEol = 0;
  for (let i = 0; i < 60; i++) {
    t0 = performance.now();
    const res = await app.inject({ method: "GET", url: `${base}/stacks`, headers });
    if (res.statusCode !== 200) throw new Error(`GET stacks: ${res.statusCode}`);
    if (i >= 10) times.push(performance.now() - t0);
    if (i === 0) withEol = (res.json()[0].items as { eol: unknown }[]).filter((x) => x.eol).length;
  }
  steps.push({ step: `GET stacks, ${items.length} items (${withEol} with EOL facts)`, ...percentiles(times) });
  const rows = await sql<{ id: string; itemType: string; value: string }>(
    database,
    `select id, item_type as "itemType", value from stack_items where project_id = $1`,
    [project.id],
  );
  const lookup: number[] = [];
  for (let i = 0; i < 30; i++) {
    t0 = performance.now();
    await cyclesOfItems(database.db, rows);
    if (i >= 5) lookup.push(performance.now() - t0);
  }
  steps.push({ step: `EOL lookup alone, ${rows.length} items`, ...percentiles(lookup) });

  t0 = performance.now();
  const fromStack = await app.inject({ method: "POST", url: `${base}/eol-subscriptions/from-stack`, headers });
  const subs = fromStack.json().created.length as number;
  steps.push({ step: "POST eol-subscriptions/from-stack", ms: Math.round(performance.now() - t0), result: `${subs} created` });
  // Subscriptions as if made on 2020-01-01: the job then has every date since to announce.
  await sql(database, `update eol_subscriptions set notify_from = '2020-01-01' where project_id = $1`, [project.id]);
  t0 = performance.now();
  const none = await services.eolNotices.run(new Date("2019-06-01T12:00:00Z"));
  steps.push({ step: "eol-notices, nothing due", ms: Math.round(performance.now() - t0), result: JSON.stringify(none) });
  t0 = performance.now();
  const many = await services.eolNotices.run(new Date("2026-08-22T12:00:00Z"));
  steps.push({ step: "eol-notices, 2020 → 2026-08-22 due", ms: Math.round(performance.now() - t0), result: JSON.stringify(many) });
  t0 = performance.now();
  const twice = await services.eolNotices.run(new Date("2026-08-22T12:00:00Z"));
  steps.push({ step: "eol-notices again (idempotent)", ms: Math.round(performance.now() - t0), result: JSON.stringify(twice) });
  await app.close();
  return { steps };
}

export async function benchEol(): Promise<void> {
  await benchTables("eol", "End of life", benchDriver);
}

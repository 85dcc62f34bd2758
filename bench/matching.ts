/**
 * Matching benchmark on the whole CVE corpus of ../shared/data (CVE JSON 5 + NVD 1.1), with 10,000
 * projects × 20 stack items built from real vendor/product/version values of that corpus:
 * 1. full matching of every item against the stored corpus (an item naming a version: every CVE;
 *    the others as the project setting says: CVEs of the last BENCH_BACKFILL_DAYS days before the
 *    corpus's newest one, plus every KEV);
 * 2. importing 1,000 new CVEs (held out of the first import) and raising their alerts;
 * 3. GET alerts of a project holding 50,000 alerts (p50, p95).
 * On PostgreSQL (BENCH_DATABASE_URL) and on embedded PGlite (BENCH_PGLITE=off to skip it).
 */
import { createReadStream, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createGunzip } from "node:zlib";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { importFeed } from "../src/feeds/import.js";
import { matchNewItems } from "../src/matching/matcher.js";
import { openDatabase, type Database } from "../src/platform/db/client.js";
import { createLogger } from "../src/platform/log.js";
import { onEachDriver } from "./drivers.js";

const DATA = process.env.VIGIE_SHARED_DATA ?? "../shared/data";
const PROJECTS = Number(process.env.BENCH_PROJECTS ?? 10_000);
const ITEMS_PER_PROJECT = 20;
const HELD_OUT = 1_000;
const ALERTS = 50_000;
const BACKFILL_DAYS = Number(process.env.BENCH_BACKFILL_DAYS ?? 365);

type Row = Record<string, string | number>;

async function sql<T>(database: Database, text: string, values: unknown[] = []): Promise<T[]> {
  return (await database.executeSql(text, values)).rows as T[];
}

/** The 2024 CVE 5 file minus its last 1,000 records, and those 1,000 apart (imported later as "new"). */
async function splitNewest(dir: string): Promise<{ firstImport: string[]; newOnes: string }> {
  const cve5 = join(DATA, "cve-json5");
  const files = readdirSync(cve5)
    .filter((f) => /^vulnrichment-\d{4}\.jsonl\.gz$/.test(f))
    .sort();
  const last = files.pop()!;
  const lines: string[] = [];
  for await (const line of createInterface({ input: createReadStream(join(cve5, last)).pipe(createGunzip()) }))
    if (line.trim()) lines.push(line);
  const head = join(dir, "head.jsonl");
  const tail = join(dir, "new.jsonl");
  writeFileSync(head, lines.slice(0, -HELD_OUT).join("\n") + "\n");
  writeFileSync(tail, lines.slice(-HELD_OUT).join("\n") + "\n");
  return { firstImport: [...files.map((f) => join(cve5, f)), head], newOnes: tail };
}

/** 10,000 projects of one organization, each with one stack of 20 items drawn from real corpus values. */
async function buildStacks(database: Database, orgId: string): Promise<void> {
  await sql(database, `update projects set alert_backfill_days = $1 where org_id = $2`, [BACKFILL_DAYS, orgId]);
  await sql(
    database,
    `
    insert into projects (org_id, name, alert_backfill, alert_backfill_days)
    select $1, 'bench ' || g, 'recent', $2 from generate_series(1, $3) g`,
    [orgId, BACKFILL_DAYS, PROJECTS],
  );
  await sql(database, `insert into stacks (org_id, project_id, name) select org_id, id, 'stack' from projects where org_id = $1`, [orgId]);
  // Real (vendor, product, version) triples: exact versions NVD and CNAs list, most named products first.
  await sql(
    database,
    `
    create temp table bench_values as
    select row_number() over (order by n desc, vendor_norm, product_norm) - 1 as k, vendor_norm, product_norm, version
    from (select vendor_norm, product_norm, max(version_from) as version, count(*) as n from cve_affected
          where vendor_norm is not null and product_norm is not null and version_from is not null and version_from = version_to
            and vendor_norm <> 'n/a' and product_norm <> 'n/a'
          group by 1, 2) v
    limit 20000`,
  );
  const n = (await sql<{ n: number }>(database, `select count(*)::int as n from bench_values`))[0]!.n;
  // Per project: 16 product items with a version, 2 CPEs, 1 whole product, 1 keyword (a product name).
  await sql(
    database,
    `
    insert into stack_items (stack_id, project_id, item_type, value, match_vendor, match_product, match_version, match_words, match_anchor)
    select s.id, s.project_id,
      case when j < 16 then 'product' when j < 18 then 'cpe' when j < 19 then 'product' else 'keyword' end,
      case when j < 16 then v.vendor_norm || ':' || v.product_norm || '@' || v.version
           when j < 18 then 'cpe:2.3:a:' || v.vendor_norm || ':' || v.product_norm || ':' || v.version || ':*:*:*:*:*:*:*'
           when j < 19 then v.vendor_norm || ':' || v.product_norm else v.product_norm end,
      case when j < 19 then v.vendor_norm end,
      case when j < 19 then v.product_norm end,
      case when j < 18 then v.version end,
      case when j = 19 then tsvector_to_array(to_tsvector('simple', v.product_norm)) end,
      case when j = 19 then (select w from unnest(tsvector_to_array(to_tsvector('simple', v.product_norm))) w order by length(w) desc, w limit 1) end
    from (select id, project_id, row_number() over (order by id) as p from stacks where org_id = $1) s
    cross join generate_series(0, ${ITEMS_PER_PROJECT - 1}) j
    join bench_values v on v.k = ((s.p * ${ITEMS_PER_PROJECT} + j) * 7919) % $2`,
    [orgId, n],
  );
  await sql(database, `analyze stack_items`);
}

async function latency(database: Database, key: string, base: string): Promise<Row[]> {
  const config = loadConfig({ ...process.env, VIGIE_JOBS: "off", LOG_LEVEL: "silent" });
  const { app } = await buildApp({ config, database, logger: createLogger("silent") });
  const out: Row[] = [];
  for (const query of ["", "is_read=false", "severity=critical", "is_kev=true", "sort=-cvss", "q=linux", "page=50"]) {
    const times: number[] = [];
    for (let i = 0; i < 60; i++) {
      const t0 = performance.now();
      const res = await app.inject({ method: "GET", url: `${base}/alerts?${query}`, headers: { authorization: `Bearer ${key}` } });
      if (res.statusCode !== 200) throw new Error(`${query}: ${res.statusCode} ${res.body}`);
      if (i >= 10) times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    out.push({
      query: `GET alerts?${query}`,
      p50: +times[Math.floor(times.length / 2)]!.toFixed(1),
      p95: +times[Math.floor(times.length * 0.95)]!.toFixed(1),
    });
    console.log(JSON.stringify(out.at(-1)));
  }
  await app.close();
  return out;
}

async function benchDriver(driver: string, database: Database): Promise<{ steps: Row[]; lat: Row[] }> {
  await database.migrate();
  const dir = mkdtempSync(join(tmpdir(), "vigie-match-"));
  const steps: Row[] = [];
  const step = async (name: string, run: () => Promise<Row>) => {
    const t0 = performance.now();
    const extra = await run();
    steps.push({ driver, step: name, seconds: +((performance.now() - t0) / 1000).toFixed(2), ...extra });
    console.log(JSON.stringify(steps.at(-1)));
  };
  try {
    const { firstImport, newOnes } = await splitNewest(dir);
    await step("import CVE 5 (all but 1,000) + NVD", async () => {
      const a = await importFeed(database.db, "cve5", firstImport);
      const b = await importFeed(database.db, "nvd", [join(DATA, "nvd/json-1.1-feeds")]);
      // Learned in the same batches (src/matching/equivalences.ts): pairs in force, each stored both ways.
      const eq = (await sql<{ n: number }>(database, `select (count(*) / 2)::int as n from name_equivalences`))[0]!.n;
      return { records: a.read + b.read, equivalences: eq };
    });
    const config = loadConfig({ ...process.env, VIGIE_JOBS: "off", LOG_LEVEL: "silent" });
    const { app, services } = await buildApp({ config, database, logger: createLogger("silent") });
    const plan = await services.organizations.upsertPlan({ slug: "bench", name: "Bench", maxApiCallsPerHour: 1_000_000_000 });
    const { org } = await services.organizations.createOrg({ name: "bench", planSlug: plan.slug });
    const { key } = await services.apiKeys.create({ orgId: org.id, scopes: [], projectIds: [] });
    await app.close();
    await step(`build ${PROJECTS} projects × ${ITEMS_PER_PROJECT} items`, async () => {
      await buildStacks(database, org.id);
      return { items: (await sql<{ n: number }>(database, `select count(*)::int as n from stack_items`))[0]!.n };
    });
    // "Recent" is counted from the corpus's newest CVE (the data ends in 2024; the clock says later).
    const days = (
      await sql<{ days: number }>(
        database,
        `select (extract(day from now() - max(date_published)) + ${BACKFILL_DAYS})::int as days from cves`,
      )
    )[0]!.days;
    await sql(database, `update projects set alert_backfill_days = $1 where org_id = $2`, [days, org.id]);
    await step(`full matching (with a version: every CVE; without: last ${BACKFILL_DAYS} days of the corpus + KEV)`, async () => {
      const t0 = performance.now();
      const ids = (await sql<{ id: string }>(database, `select id from stack_items order by id`)).map((r) => r.id);
      let alerts = 0;
      for (let i = 0; i < ids.length; i += 2000) alerts += await database.db.transaction((tx) => matchNewItems(tx, ids.slice(i, i + 2000)));
      return { items: ids.length, alerts, "items/s": Math.round(ids.length / ((performance.now() - t0) / 1000)) };
    });
    const before = (await sql<{ n: number }>(database, `select count(*)::int as n from alerts`))[0]!.n;
    await step("import 1,000 new CVEs and raise their alerts", async () => {
      const r = await importFeed(database.db, "cve5", [newOnes]);
      const after = (await sql<{ n: number }>(database, `select count(*)::int as n from alerts`))[0]!.n;
      return { records: r.read, alerts: after - before };
    });
    const [p0] = await sql<{ id: string }>(database, `select id from projects where org_id = $1 order by created_at, id limit 1`, [org.id]);
    await step(`fill one project to ${ALERTS} alerts`, async () => {
      await sql(
        database,
        `
        insert into alerts (org_id, project_id, cve_id, severity, cvss_score, is_kev, has_poc, epss, palier, source, match, is_read, triggered_at)
        select $1, $2, c.cve_id, c.severity, c.cvss_score, c.is_kev, c.has_poc, e.epss, 'P4', 'bench', '{}'::jsonb, random() < 0.7,
          now() - random() * interval '365 days'
        from cves c left join epss_current e on e.cve_id = c.cve_id where not exists (select 1 from alerts a where a.project_id = $2 and a.cve_id = c.cve_id)
        order by c.cve_id limit $3 - (select count(*) from alerts where project_id = $2)`,
        [org.id, p0!.id, ALERTS],
      );
      await sql(database, `analyze alerts`);
      return {
        alerts: (await sql<{ n: number }>(database, `select count(*)::int as n from alerts where project_id = $1`, [p0!.id]))[0]!.n,
      };
    });
    return { steps, lat: await latency(database, key, `/api/v1/organizations/${org.id}/projects/${p0!.id}`) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchMatching(): Promise<void> {
  const results = await onEachDriver("matching", async (t) => {
    const database = await openDatabase({ databaseUrl: t.databaseUrl, dataDir: t.dataDir });
    try {
      return await benchDriver(t.driver, database);
    } finally {
      await database.close();
    }
  });
  for (const r of results) {
    console.log(`\nMatching — ${r.driver}`);
    console.table(r.steps);
    console.table(r.lat);
  }
}

/**
 * Statistics benchmark on the whole corpus of ../shared/data (CVE JSON 5 + NVD, ~190,000 CVEs, with
 * three EPSS files, KEV and PoC), over HTTP (app.inject, API key): every endpoint with its default
 * parameters and with a 5-year range (period=5y), over the corpus and over one project (a stack of
 * widely used vendors' products: thousands of alerts). Per request kind: the first request (cold:
 * nothing cached), then p50 and p95 of 30 more (the answer cache, valid until the data changes), and
 * the computation alone (the service without its cache: p50 of 5).
 * The corpus is imported first (each importer in its own process, as `vigie feeds import` does), or
 * read from BENCH_STATS_DATABASE_URL / BENCH_STATS_DATA_DIR when they name an already loaded one.
 * On PostgreSQL (BENCH_DATABASE_URL) and on embedded PGlite (BENCH_PGLITE=off to skip it).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { StatsService } from "../src/modules/stats/stats.service.js";
import { openDatabase } from "../src/platform/db/client.js";
import { createLogger } from "../src/platform/log.js";
import { onEachDriver } from "./drivers.js";

const run = promisify(execFile);
const DATA = process.env.VIGIE_SHARED_DATA ?? "../shared/data";
const CORPUS: [string, string][] = [
  ["cve5", `${DATA}/cve-json5`],
  ["nvd", `${DATA}/nvd/json-1.1-feeds`],
  ["epss", `${DATA}/epss/epss_scores-2025-03-09.from-first-api.csv.gz`],
  ["epss", `${DATA}/epss/epss_scores-2026-08-09.from-first-api.csv.gz`],
  ["epss", `${DATA}/epss/epss_scores-2026-08-16.from-first-api.csv.gz`],
  ["kev", `${DATA}/kev/known_exploited_vulnerabilities.json`],
  ["poc", `${DATA}/poc/trickest/trickest-cve-poc.jsonl.gz`],
];
/** The project's stack: products of large vendors, so that its alerts span years and vendors. */
const STACK = [
  { item_type: "vendor", value: "microsoft" },
  { item_type: "product", value: "linux:linux_kernel" },
  { item_type: "vendor", value: "apache" },
  { item_type: "product", value: "google:chrome" },
  { item_type: "vendor", value: "cisco" },
];
const ENDPOINTS: [string, keyof StatsService, Record<string, string>][] = [
  ["totals", "totals", {}],
  ["top", "top", { dimension: "vendor" }],
  ["top?dimension=cwe&sort=kev", "top", { dimension: "cwe", sort: "kev" }],
  ["top/trend", "trend", { dimension: "vendor", granularity: "month" }],
  ["timeseries", "timeseries", { axis: "published", granularity: "month" }],
  ["timeseries?axis=epss_published&granularity=day", "timeseries", { axis: "epss_published", granularity: "day" }],
  ["distribution", "distribution", { metric: "cvss" }],
  ["distribution?metric=cwe", "distribution", { metric: "cwe" }],
  ["delays", "delays", { metric: "publication_to_kev", granularity: "month" }],
  ["delays?metric=reservation_to_publication", "delays", { metric: "reservation_to_publication" }],
];
const SERVICE_DEFAULTS: Record<string, Record<string, unknown>> = {
  top: { dimension: "vendor", kev_only: false, sort: "total", limit: 10 },
  trend: { dimension: "vendor", granularity: "month", limit: 5 },
  timeseries: { axis: "published", granularity: "month" },
  distribution: { metric: "cvss", scale: "linear" },
  delays: { metric: "publication_to_kev" },
  totals: {},
};

type Row = Record<string, string | number>;

function percentile(sorted: number[], p: number): number {
  return +sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!.toFixed(1);
}

async function loadCorpus(env: Record<string, string>): Promise<void> {
  for (const [source, path] of CORPUS) {
    const t0 = performance.now();
    const { stdout } = await run(process.execPath, ["bench/ingest-child.mjs", source, path], {
      env: { ...process.env, ...env },
      maxBuffer: 1 << 24,
    });
    const r = JSON.parse(stdout.trim().split("\n").at(-1)!) as { read: number };
    console.log(`  ${source} ${path.split("/").at(-1)}: ${r.read} records, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
}

async function measure(env: Record<string, string>, driver: string): Promise<Row[]> {
  const database = await openDatabase({ databaseUrl: env.DATABASE_URL || undefined, dataDir: env.VIGIE_DATA_DIR });
  await database.migrate();
  const config = loadConfig({ ...process.env, ...env, VIGIE_JOBS: "off", LOG_LEVEL: "silent" });
  const { app, services } = await buildApp({ config, database, logger: createLogger("silent") });
  const plan = await services.organizations.upsertPlan({ slug: "bench", name: "Bench", maxApiCallsPerHour: 1_000_000_000 });
  const { org } = await services.organizations.createOrg({ name: `bench-${Date.now()}`, planSlug: plan.slug });
  const project = await services.projects.create({ orgId: org.id, name: "Production" });
  const { key } = await services.apiKeys.create({ orgId: org.id, scopes: ["stacks-write", "alerts-write"], projectIds: [] });
  const headers = { authorization: `Bearer ${key}` };
  // Every CVE of the watched products, whenever published (not only the last 90 days).
  const settings = await app.inject({
    method: "PATCH",
    url: `/api/v1/organizations/${org.id}/projects/${project.id}/alert-settings`,
    headers,
    payload: { alert_backfill: "all" },
  });
  if (settings.statusCode !== 200) throw new Error(`alert-settings: ${settings.statusCode} ${settings.body}`);
  const stack = await app.inject({
    method: "POST",
    url: `/api/v1/organizations/${org.id}/projects/${project.id}/stacks`,
    headers,
    payload: { name: "bench", items: STACK },
  });
  if (stack.statusCode !== 201) throw new Error(`stack: ${stack.statusCode} ${stack.body}`);
  const alerts = (await database.executeSql("select count(*)::int as n from alerts where project_id = $1", [project.id])).rows[0] as {
    n: number;
  };
  const closed = await database.executeSql(
    `with picked as (select cve_id, triggered_at from alerts where project_id = $1 order by cve_id limit 2000)
     insert into cases (org_id, project_id, cve_id, status, created_at, updated_at)
     select $2, $1, cve_id, 'corrige', triggered_at, triggered_at + interval '9 days' from picked returning id`,
    [project.id, org.id],
  );
  await database.executeSql(
    `insert into case_history (case_id, event, from_status, to_status, actor_type, created_at)
     select c.id, 'status', 'nouveau', 'corrige', 'job', c.updated_at from cases c where c.project_id = $1`,
    [project.id],
  );
  // As autovacuum would after such a bulk insert (PGlite has none): the planner's row estimates.
  await database.executeSql("analyze alerts, cases, case_history");
  console.log(`  ${driver}: project with ${alerts.n} alerts, ${closed.rows.length} closed cases`);

  const rows: Row[] = [];
  for (const scope of ["corpus", "project"] as const) {
    for (const range of ["default", "5y"] as const) {
      for (const [label, method, params] of ENDPOINTS) {
        const query = new URLSearchParams({
          ...params,
          ...(range === "5y" ? { period: "5y" } : {}),
          ...(scope === "project" ? { project_id: project.id } : {}),
        });
        const url = `/api/v1/stats/${label.split("?")[0]}?${query}`;
        const times: number[] = [];
        let first = 0;
        for (let i = 0; i <= 30; i++) {
          const t0 = performance.now();
          const res = await app.inject({ method: "GET", url, headers });
          if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
          if (i === 0) first = performance.now() - t0;
          else times.push(performance.now() - t0);
        }
        times.sort((a, b) => a - b);
        // The computation alone: a service without the answer cache, five times.
        const computed: number[] = [];
        const serviceQuery = { ...SERVICE_DEFAULTS[method], ...params, ...(range === "5y" ? { period: "5y" } : {}) };
        const projectScope = scope === "project" ? { id: project.id, orgId: org.id } : undefined;
        for (let i = 0; i < 5; i++) {
          const fresh = new StatsService(database.db);
          const t0 = performance.now();
          await (fresh[method] as (q: unknown, p?: unknown) => Promise<unknown>)(serviceQuery, projectScope);
          computed.push(performance.now() - t0);
        }
        computed.sort((a, b) => a - b);
        rows.push({
          driver,
          scope,
          range,
          endpoint: label,
          "cold ms": +first.toFixed(1),
          p50: percentile(times, 0.5),
          p95: percentile(times, 0.95),
          "computed p50": percentile(computed, 0.5),
        });
      }
    }
  }
  await app.close();
  await database.close();
  return rows;
}

export async function benchStats(): Promise<void> {
  const given = { postgres: process.env.BENCH_STATS_DATABASE_URL, pglite: process.env.BENCH_STATS_DATA_DIR };
  const results = await onEachDriver("stats", async (t) => {
    const env: Record<string, string> =
      t.driver === "postgres"
        ? { DATABASE_URL: given.postgres ?? t.databaseUrl! }
        : { DATABASE_URL: "", VIGIE_DATA_DIR: given.pglite ?? t.dataDir! };
    if (!(t.driver === "postgres" ? given.postgres : given.pglite)) {
      console.log(`Statistics — loading the corpus on ${t.driver}`);
      await loadCorpus(env);
    }
    return { rows: await measure(env, t.driver) };
  });
  for (const r of results) {
    console.log(`\nStatistics — ${r.driver} (first request cold, then p50/p95 of 30 answered from the cache; computed: without the cache)`);
    console.table(r.rows.map(({ driver: _d, ...row }) => row));
  }
}

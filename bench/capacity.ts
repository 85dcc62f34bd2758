/**
 * The measurements behind docs/capacity.md: `DATABASE_URL=postgres://… npx tsx bench/capacity.ts`
 * (PostgreSQL only; not in `npm run bench`). On a scratch database of that server, created,
 * migrated and dropped after (CAPACITY_KEEP=1 keeps it):
 * 1. seed: rows the application writes itself — 300 real CVEs of the 2024 CVE List file imported
 *    in three batches into a project watching them (default workflow: a case each; a webhook
 *    workflow to a local receiver) and a project whose 50 product items come from those CVEs'
 *    affected products: alerts, outbox events, runs with their reports, cases and their history,
 *    stack items, pg-boss jobs; the WAL each batch wrote;
 * 2. clone: those rows multiplied with generate_series to CAPACITY_SCALE (default 0.1) of the
 *    target — 100,000 projects, 10 million alerts (and a case each), 1 million runs a month kept
 *    for the default retention — real CVE ids (the EPSS score set), one project of 50,000 alerts;
 * 3. sizes: heap, TOAST and indexes of each table, bytes per row, extrapolated to the target;
 * 4. plans: EXPLAIN (ANALYZE, BUFFERS) of the hot queries, the statements captured from the
 *    repositories themselves (a capturing driver), each in a transaction rolled back.
 */
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { createServices } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { startJobs } from "../src/jobs.js";
import { alertsRepository } from "../src/modules/alerts/alerts.repository.js";
import { AlertListQuery } from "../src/modules/alerts/alerts.schemas.js";
import { casesRepository } from "../src/modules/cases/cases.repository.js";
import { CaseListQuery } from "../src/modules/cases/cases.schemas.js";
import { runsRepository } from "../src/modules/runs/runs.repository.js";
import { workflowsRepository } from "../src/modules/workflows/workflows.repository.js";
import { RateLimiter } from "../src/platform/auth/rate-limiter.js";
import { openDatabase, type Database, type Db } from "../src/platform/db/client.js";
import * as schema from "../src/platform/db/schema/index.js";
import { createLogger } from "../src/platform/log.js";
import { sql, realCveIds } from "./cases.js";
import { receiver, records, waitFor, watchingProject } from "./harness.js";

const SCALE = Number(process.env.CAPACITY_SCALE ?? 0.1);
const SEED_BATCHES = 3;
const SEED_PER_BATCH = 100;
const INVENTORY_ITEMS = 50;
/** The project the inbox benchmark measures (BENCH=web-inbox): the list's worst case. */
const BIG_PROJECT_ALERTS = 50_000;
/** Runs of one workflow, for its run list. */
const BUSY_WORKFLOW_RUNS = 20_000;
const PENDING_EVENTS = 100;
const UNFINISHED_RUNS = 50;
const CVE_POOL = 200_000;
/** Scores in one daily EPSS file (the 2026-08-16 file of ../shared/data). */
const EPSS_SCORES_PER_FILE = 360_142;
const EPSS_SAMPLE_DAYS = 5;

const defaults = loadConfig({});
/** The model's target, and how each table's kept rows follow from it. */
const TARGET = {
  projects: 100_000,
  /** Five projects per organization. */
  organizations: 20_000,
  alerts: 10_000_000,
  runsPerMonth: 1_000_000,
  runsRetentionDays: defaults.runs.retentionDays,
  eventsRetentionDays: defaults.runs.eventsRetentionDays,
  stackItemsPerProject: 50,
  /** The default workflow in every project, a second one in every other project. */
  workflowsPerProject: 1.5,
  /** Every api_usage row of a year, one per organization and hour (nothing purges the table). */
  apiUsageHours: 24 * 365,
};
const RUNS_KEPT = Math.round((TARGET.runsPerMonth * TARGET.runsRetentionDays) / 30);
/** Rows each table holds at the target: a case per alert (the default workflow opens one), two history entries per case, one event per run (the worst case: a kept run keeps its event). */
const TARGET_ROWS: Record<string, number> = {
  organizations: TARGET.organizations,
  projects: TARGET.projects,
  workflows: TARGET.projects * TARGET.workflowsPerProject,
  stacks: TARGET.projects,
  stack_items: TARGET.projects * TARGET.stackItemsPerProject,
  alerts: TARGET.alerts,
  cases: TARGET.alerts,
  case_history: TARGET.alerts * 2,
  outbox_events: RUNS_KEPT,
  workflow_runs: RUNS_KEPT,
  api_usage: TARGET.organizations * TARGET.apiUsageHours,
  // Not the tenants': every score of every daily EPSS file is kept (feedStore.upsertEpss), a year of them.
  epss_scores: EPSS_SCORES_PER_FILE * 365,
};

const scaled = (n: number) => Math.max(1, Math.round(n * SCALE));

type Row = Record<string, string | number>;

/** A scratch database on DATABASE_URL's server; dropped by the returned function. */
async function scratchDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = process.env.DATABASE_URL;
  if (!admin?.startsWith("postgres")) throw new Error("DATABASE_URL=postgres://… is required (the capacity model is PostgreSQL's)");
  const name = `vigie_capacity_${process.pid}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  const u = new URL(admin);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

const timed = async (label: string, steps: Row[], run: () => Promise<unknown>) => {
  const t0 = performance.now();
  await run();
  steps.push({ step: label, s: +((performance.now() - t0) / 1000).toFixed(1) });
  console.error(`  ${label}: ${steps.at(-1)!.s} s`);
};

/** 1. Real rows written by the application; the WAL of each import batch, per alert (with its event, two runs and a case). */
async function seed(database: Database, url: string): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "vigie-capacity-"));
  const rcv = receiver();
  await new Promise<void>((r) => rcv.server.listen(0, "127.0.0.1", () => r()));
  const config = loadConfig({
    DATABASE_URL: url,
    VIGIE_DATA_DIR: join(dir, "data"),
    VIGIE_ALLOW_PRIVATE_TARGETS: "true",
    VIGIE_SECRET_KEY: "0".repeat(64),
    VIGIE_FEEDS_SYNC: "off",
    LOG_LEVEL: "silent",
  });
  const services = createServices(database, config);
  const jobs = await startJobs(database, services, createLogger("silent"), config);
  const wal: Row[] = [];
  try {
    const { org } = await services.organizations.createOrg({ name: "Capacité" });
    // The first batch no project watches: the WAL of the import alone, taken off the others'.
    const cves = await records((SEED_BATCHES + 1) * SEED_PER_BATCH);
    const watched = cves.slice(SEED_PER_BATCH);
    const hook = `http://127.0.0.1:${(rcv.server.address() as AddressInfo).port}/hook`;
    const watching = await watchingProject(
      services,
      org.id,
      "Veille",
      watched.map((r) => r.id),
      hook,
    );
    await sql(database, "update workflows set max_runs_per_hour = 1000000 where project_id = $1", [watching]);
    const finished = async () =>
      (await sql<{ n: number }>(database, "select count(*)::int as n from workflow_runs where finished_at is not null"))[0]!.n;
    const others = "(select count(*)::int from pg_stat_activity where state = 'active' and datname <> current_database()) as others";
    let importOnly = 0;
    for (let b = 0; b <= SEED_BATCHES; b++) {
      const batch = cves.slice(b * SEED_PER_BATCH, (b + 1) * SEED_PER_BATCH);
      const file = join(dir, `batch-${b}.jsonl`);
      writeFileSync(file, `${batch.map((r) => r.line).join("\n")}\n`);
      const before = await finished();
      const alertsBefore = (await sql<{ n: number }>(database, "select count(*)::int as n from alerts"))[0]!.n;
      const [start] = await sql<{ lsn: string; others: number }>(database, `select pg_current_wal_lsn()::text as lsn, ${others}`);
      await services.feeds.import("cve5", [file]);
      const alerts = (await sql<{ n: number }>(database, "select count(*)::int as n from alerts"))[0]!.n - alertsBefore;
      await waitFor(async () => (await finished()) >= before + 2 * alerts, 120_000);
      const [end] = await sql<{ bytes: number; others: number }>(
        database,
        `select pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint as bytes, ${others}`,
        [start!.lsn],
      );
      if (b === 0) importOnly = end!.bytes;
      wal.push({
        batch: b === 0 ? "import alone (no project watches)" : `import, watched (${b})`,
        "CVEs imported": batch.length,
        "alerts raised": alerts,
        "WAL MB": +(end!.bytes / 1e6).toFixed(2),
        "WAL kB per alert (its event, 2 runs, case), import taken off": alerts ? Math.round((end!.bytes - importOnly) / alerts / 1000) : "",
        "other databases' active backends (start/end)": `${start!.others}/${end!.others}`,
      });
    }
    // The inventory: product items from the imported CVEs' affected products, alerts raised on what is stored.
    const inventory = await services.projects.create({ orgId: org.id, name: "Inventaire" });
    const scope = { id: inventory.id, orgId: org.id };
    await services.alerts.updateSettings(scope, { alert_backfill: "all" });
    const products = await sql<{ value: string }>(
      database,
      `select distinct on (vendor_norm, product_norm) vendor_norm || ':' || product_norm || '@' || version_from as value
       from cve_affected where vendor_norm ~ '^[a-z0-9_.-]+$' and product_norm ~ '^[a-z0-9_.-]+$' and version_from ~ '^[0-9][0-9.]*$'
       order by vendor_norm, product_norm, version_from limit $1`,
      [INVENTORY_ITEMS],
    );
    const before = await finished();
    const stack = await services.stacks.create(scope, {
      name: "Production",
      items: products.map((p) => ({ item_type: "product" as const, value: p.value, min_severity: null, tag_ids: [] })),
    } as never);
    await waitFor(async () => (await finished()) >= before + stack.raised, 120_000);
    console.error(`  seed: ${cves.length} CVEs, inventory of ${products.length} items raised ${stack.raised} alerts`);
    return wal;
  } finally {
    await jobs.stop();
    await services.cacheFeed.close();
    rcv.server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** 2. The seed's rows multiplied to SCALE of the target (ids as the application makes them: random UUIDs, bigserials). */
async function clone(database: Database): Promise<{ steps: Row[]; big: string; busy: string }> {
  const steps: Row[] = [];
  const q = (text: string, values: unknown[] = []) => sql(database, text, values);
  const P = scaled(TARGET.projects);
  const O = scaled(TARGET.organizations);
  const A = scaled(TARGET.alerts);
  const R = scaled(RUNS_KEPT);
  const perProject = Math.floor((A - BIG_PROJECT_ALERTS) / (P - 1));
  const ids = await realCveIds(CVE_POOL);
  await q("create unlogged table cap_ids as select n::int, id as cve_id from unnest($1::text[]) with ordinality as u(id, n)", [ids]);
  await q("create unique index on cap_ids (n)");
  // The seed's rows, numbered from 0, as the pools the clones cycle through.
  await q(`create unlogged table cap_alert as select (row_number() over (order by id) - 1)::int as k, * from alerts`);
  await q(`create unlogged table cap_event as select (row_number() over (order by id) - 1)::int as k, event, payload from outbox_events`);
  await q(`create unlogged table cap_run as select (row_number() over (order by id) - 1)::int as k, trigger_event, status, report, attempts
    from workflow_runs where finished_at is not null`);
  await q(`create unlogged table cap_case as select (row_number() over (order by id) - 1)::int as k, severity from cases`);
  await q(`create unlogged table cap_history as select (row_number() over (order by id) - 1)::int as k, event, from_status, to_status,
    comment, actor_type, actor_id, actor_label, details from case_history`);
  await q(
    `create unlogged table cap_item as select (row_number() over (order by id) - 1)::int as k, * from stack_items where item_type = 'product'`,
  );
  await q(`create unlogged table cap_workflow as select (row_number() over (order by is_default desc, id) - 1)::int as k, name, family, graph,
    is_default, max_runs_per_hour from workflows where project_id = (select project_id from workflows where name = 'Webhook' limit 1)`);
  const count = async (t: string) => (await sql<{ n: number }>(database, `select count(*)::int as n from ${t}`))[0]!.n;
  const pools = Object.fromEntries(
    await Promise.all(
      ["cap_alert", "cap_event", "cap_run", "cap_case", "cap_history", "cap_item", "cap_workflow"].map(async (t) => [t, await count(t)]),
    ),
  ) as Record<string, number>;
  console.error(`  pools: ${JSON.stringify(pools)}`);

  await timed(`organizations (${O})`, steps, () =>
    q(`insert into organizations (id, name) select md5('org' || o)::uuid, 'Organisation ' || o from generate_series(1, $1::int) o`, [O]),
  );
  await timed(`projects (${P})`, steps, () =>
    q(
      `insert into projects (id, org_id, name, created_at)
       select md5('project' || p)::uuid, md5('org' || ((p - 1) % $2::int + 1))::uuid, 'Projet ' || p, now() - make_interval(mins => p)
       from generate_series(1, $1::int) p`,
      [P, O],
    ),
  );
  await timed(`workflows (${Math.round(P * TARGET.workflowsPerProject)})`, steps, () =>
    q(
      `insert into workflows (id, org_id, project_id, name, is_default, family, graph, max_runs_per_hour)
       select md5('wf' || p || ':' || w.k)::uuid, md5('org' || ((p - 1) % $2::int + 1))::uuid, md5('project' || p)::uuid,
         w.name, w.is_default, w.family, w.graph, w.max_runs_per_hour
       from generate_series(1, $1::int) p join cap_workflow w on w.k = 0 or (w.k = 1 and p % 2 = 0)`,
      [P, O],
    ),
  );
  await timed(`stacks (${P}) and stack items (${P * TARGET.stackItemsPerProject})`, steps, async () => {
    await q(
      `insert into stacks (id, org_id, project_id, name) select md5('stack' || p)::uuid, md5('org' || ((p - 1) % $2::int + 1))::uuid,
         md5('project' || p)::uuid, 'Production' from generate_series(1, $1::int) p`,
      [P, O],
    );
    await q(
      `insert into stack_items (id, stack_id, project_id, item_type, value, min_severity, match_vendor, match_product, match_version,
         match_ecosystem, match_cpe_product, match_words, match_anchor, match_cve)
       select md5('item' || p || ':' || i)::uuid, md5('stack' || p)::uuid, md5('project' || p)::uuid, s.item_type, s.value, s.min_severity,
         s.match_vendor, s.match_product, s.match_version, s.match_ecosystem, s.match_cpe_product, s.match_words, s.match_anchor, s.match_cve
       from generate_series(1, $1::int) p cross join generate_series(0, $2::int - 1) i join cap_item s on s.k = (p * 13 + i) % $3::int`,
      [P, TARGET.stackItemsPerProject, pools.cap_item],
    );
  });
  // Project 1 holds BIG_PROJECT_ALERTS alerts, the others `perProject` each; triggered over two years, 70 % read.
  await timed(`alerts (${BIG_PROJECT_ALERTS + perProject * (P - 1)})`, steps, () =>
    q(
      `insert into alerts (org_id, project_id, cve_id, triggered_at, is_read, severity, cvss_score, is_kev, has_poc, epss, palier, vendor,
         product, source, match, item_id, updated_at, matching)
       select md5('org' || ((x.p - 1) % $1::int + 1))::uuid, md5('project' || x.p)::uuid, i.cve_id, x.at, x.j % 10 < 7, s.severity, s.cvss_score,
         s.is_kev, s.has_poc, s.epss, s.palier, s.vendor, s.product, s.source, s.match,
         md5('item' || x.p || ':' || x.j % $5::int)::uuid, x.at, s.matching
       from (select 1 as p, j, now() - random() * interval '730 days' as at from generate_series(0, $2::int - 1) j
             union all
             select p, j, now() - random() * interval '730 days' from generate_series(2, $3::int) p cross join generate_series(0, $4::int - 1) j) x
       join cap_ids i on i.n = (x.p::bigint * 7919 + x.j) % $6::int + 1
       join cap_alert s on s.k = (x.p + x.j) % $7::int`,
      [O, BIG_PROJECT_ALERTS, P, perProject, TARGET.stackItemsPerProject, CVE_POOL, pools.cap_alert],
    ),
  );
  // A case per alert (the default workflow opens one), statuses mixed, and two history entries each.
  await timed("cases (one per alert)", steps, () =>
    q(
      `insert into cases (org_id, project_id, cve_id, status, severity, notes, created_at, updated_at)
       select a.org_id, a.project_id, a.cve_id,
         (array['nouveau','en_analyse','en_remediation','corrige','non_concerne'])[1 + (hashtext(a.cve_id) & 65535) % 5],
         c.severity, case when hashtext(a.cve_id) % 10 = 0 then 'Version exposée confirmée sur le périmètre' end,
         a.triggered_at, a.triggered_at + random() * interval '30 days'
       from alerts a join cap_case c on c.k = (hashtext(a.cve_id) & 65535) % $1::int
       where a.project_id in (select id from projects where name like 'Projet %')`,
      [pools.cap_case],
    ),
  );
  await timed("case history (two entries per case)", steps, () =>
    q(
      `insert into case_history (case_id, event, from_status, to_status, comment, actor_type, actor_id, actor_label, details, created_at)
       select c.id, h.event, h.from_status, h.to_status, h.comment, h.actor_type, h.actor_id, h.actor_label, h.details, c.created_at
       from cases c join cap_history h on h.k = (hashtext(c.cve_id) & 65535) % $1::int
       where c.project_id in (select id from projects where name like 'Projet %')
       union all
       select c.id, 'status', 'nouveau', c.status, 'Analyse : version exposée confirmée', 'user', md5(c.project_id::text), 'soc@acme.example', null, c.updated_at
       from cases c where c.project_id in (select id from projects where name like 'Projet %')`,
      [pools.cap_history],
    ),
  );
  // One event per kept run, created over the runs' retention; the last PENDING_EVENTS not yet dispatched.
  // Runs: BUSY_WORKFLOW_RUNS of project 1's default workflow, the others spread over the projects' default workflows.
  await timed(`outbox events (${R})`, steps, () =>
    q(
      `insert into outbox_events (org_id, project_id, event, cve_id, alert_id, payload, created_at, processed_at)
       select md5('org' || ((x.p - 1) % $4::int + 1))::uuid, md5('project' || x.p)::uuid, e.event, i.cve_id, gen_random_uuid(), e.payload, x.at,
         case when x.n <= $1::int - $2::int then x.at + interval '200 milliseconds' end
       from (select n, case when n <= $5::int then 1 else n::bigint * 7919 % $3::int + 1 end as p,
               now() - ($1::int - n)::float8 / $1::int * make_interval(days => $6::int) as at
             from generate_series(1, $1::int) n) x
       join cap_ids i on i.n = x.n % $7::int + 1
       join cap_event e on e.k = x.n % $8::int
       order by x.n`,
      [R, PENDING_EVENTS, P, O, BUSY_WORKFLOW_RUNS, TARGET.runsRetentionDays, CVE_POOL, pools.cap_event],
    ),
  );
  await timed(`workflow runs (${R - PENDING_EVENTS})`, steps, () =>
    q(
      `insert into workflow_runs (workflow_id, event_id, project_id, trigger_event, cve_id, status, started_at, finished_at, report, attempts,
         lease_until, lease_token)
       select md5('wf' || ev.p || ':0')::uuid, ev.id, ev.project_id, s.trigger_event, ev.cve_id, s.status, ev.created_at + interval '300 milliseconds',
         case when ev.rank > $2::int then ev.created_at + interval '1300 milliseconds' end, s.report, s.attempts,
         case when ev.rank <= $2::int then now() + interval '2 minutes' end, case when ev.rank <= $2::int then gen_random_uuid() end
       from (select e.id, e.project_id, e.cve_id, e.created_at, p.p, row_number() over (order by e.id desc) as rank
             from outbox_events e join (select md5('project' || p)::uuid as id, p from generate_series(1, $1::int) p) p on p.id = e.project_id
             where e.processed_at is not null) ev
       join cap_run s on s.k = ev.id % $3::int`,
      [P, UNFINISHED_RUNS, pools.cap_run],
    ),
  );
  await timed(`api_usage (${O * 100}: 100 hourly windows per organization)`, steps, () =>
    q(
      `insert into api_usage (org_id, window_start, count)
       select md5('org' || o)::uuid, date_trunc('hour', now()) - make_interval(hours => h), 1 + (o * h) % 900
       from generate_series(1, $1::int) o cross join generate_series(0, 99) h`,
      [O],
    ),
  );
  await timed(`epss_scores (${CVE_POOL * EPSS_SAMPLE_DAYS}: ${EPSS_SAMPLE_DAYS} daily files of the CVE pool)`, steps, () =>
    q(
      `insert into epss_scores (cve_id, score_date, epss, percentile)
       select i.cve_id, current_date - d, random(), random() from cap_ids i cross join generate_series(1, $1::int) d`,
      [EPSS_SAMPLE_DAYS],
    ),
  );
  for (const t of ["cap_ids", "cap_alert", "cap_event", "cap_run", "cap_case", "cap_history", "cap_item", "cap_workflow"])
    await q(`drop table ${t}`);
  await timed("vacuum analyze", steps, () => q("vacuum analyze"));
  const [made] = await sql<{ big: string; busy: string }>(
    database,
    "select md5('project1')::uuid::text as big, md5('wf1:0')::uuid::text as busy",
  );
  return { steps, big: made!.big, busy: made!.busy };
}

/** 3. Each table's size, bytes per row and the size at the target; pg-boss's tables together. */
async function sizes(database: Database): Promise<{ tables: Row[]; indexes: Row[] }> {
  const tables: Row[] = [];
  let total = 0;
  for (const [table, target] of Object.entries(TARGET_ROWS)) {
    const [r] = await sql<{ rows: number; heap: number; toast: number; indexes: number; total: number }>(
      database,
      `select (select count(*) from ${table})::bigint as rows, pg_relation_size($1) as heap, pg_table_size($1) - pg_relation_size($1) as toast,
         pg_indexes_size($1) as indexes, pg_total_relation_size($1) as total`,
      [table],
    );
    const perRow = r!.total / Math.max(1, r!.rows);
    total += perRow * target;
    tables.push({
      table,
      rows: r!.rows,
      "heap MB": mb(r!.heap),
      "TOAST MB": mb(r!.toast),
      "indexes MB": mb(r!.indexes),
      "bytes/row (all)": Math.round(perRow),
      "target rows": target,
      "target GB": +((perRow * target) / 1e9).toFixed(2),
    });
  }
  // pg-boss's jobs of the seed: too few for bytes per row from the table sizes; their width, and jobs per run.
  const [boss] = await sql<{ rows: number; width: number; execute: number; runs: number }>(
    database,
    `select count(*)::int as rows, avg(j.width)::int as width, (count(*) filter (where j.name = 'runs-execute'))::int as execute,
       (select count(*)::int from workflow_runs where project_id in (select id from projects where name not like 'Projet %')) as runs
     from (select name, pg_column_size(j.*) from pgboss.job j union all select name, pg_column_size(a.*) from pgboss.archive a) as j(name, width)`,
  );
  tables.push({
    table: "pgboss.job + archive (seed)",
    rows: boss!.rows,
    "bytes/row (all)": `${boss!.width} (row width)`,
    "target rows": `${boss!.execute} runs-execute jobs for ${boss!.runs} runs`,
  });
  tables.push({ table: "total of the tables above at the target", "target GB": +(total / 1e9).toFixed(1) });
  const indexes = await sql<Row>(
    database,
    `select t.relname as "table", i.relname as "index", round(pg_relation_size(i.oid) / 1e6, 1)::float8 as "MB"
     from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
     where t.relname = any($1::text[]) order by t.relname, pg_relation_size(i.oid) desc`,
    [["alerts", "cases", "case_history", "workflow_runs", "outbox_events", "stack_items", "api_usage"]],
  );
  return { tables, indexes };
}

const mb = (bytes: number) => +(bytes / 1e6).toFixed(1);

interface Statement {
  text: string;
  params: unknown[];
}

/**
 * The statements a repository call sends, captured: drizzle's through its query logger on a driver
 * that sends nothing (a call that then fails on its empty answer has already said what it sends);
 * the prepared hot-path statements (`raw`) run for real as well, their callers need the answer.
 */
async function statementsOf(real: Database, call: (db: Db, database: Database) => Promise<unknown>): Promise<Statement[]> {
  const out: Statement[] = [];
  const empty = { query: async () => ({ rows: [], fields: [], rowCount: 0 }) };
  const db = drizzle(empty as never, { schema, logger: { logQuery: (text, params) => out.push({ text, params }) } }) as unknown as Db;
  const database = {
    db,
    driver: "postgres",
    raw: (name: string, text: string, params: unknown[]) => {
      out.push({ text, params });
      return real.raw(name, text, params);
    },
  } as unknown as Database;
  await call(db, database).catch(() => undefined);
  return out;
}

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Conflict Arbiter Indexes"?: string[];
  Plans?: PlanNode[];
}

/** The scans of a plan: `Index Scan alerts_project_triggered_idx`, `Seq Scan on alerts`… */
function scans(node: PlanNode, out: string[] = []): string[] {
  if (node["Index Name"]) out.push(`${node["Node Type"]} ${node["Index Name"]}`);
  else if (node["Node Type"].includes("Scan") && node["Relation Name"]) out.push(`${node["Node Type"]} on ${node["Relation Name"]}`);
  for (const arbiter of node["Conflict Arbiter Indexes"] ?? []) out.push(`ON CONFLICT ${arbiter}`);
  for (const child of node.Plans ?? []) scans(child, out);
  return out;
}

/** 4. EXPLAIN (ANALYZE, BUFFERS) of a captured statement, twice in a transaction rolled back: the second (warm) is reported. */
async function explain(pool: pg.Pool, label: string, statement: Statement | undefined): Promise<Row> {
  if (!statement) throw new Error(`${label}: nothing captured`);
  const client = await pool.connect();
  try {
    await client.query("begin");
    let plan: { Plan: PlanNode & { "Shared Hit Blocks": number; "Shared Read Blocks": number }; "Execution Time": number } | undefined;
    for (let i = 0; i < 2; i++) {
      const { rows } = await client.query(`explain (analyze, buffers, format json) ${statement.text}`, statement.params);
      plan = (rows[0] as { "QUERY PLAN": NonNullable<typeof plan>[] })["QUERY PLAN"][0];
    }
    await client.query("rollback");
    return {
      query: label,
      ms: +plan!["Execution Time"].toFixed(2),
      "shared hit/read": `${plan!.Plan["Shared Hit Blocks"]}/${plan!.Plan["Shared Read Blocks"]}`,
      scans: [...new Set(scans(plan!.Plan))].join(", "),
    };
  } finally {
    client.release();
  }
}

async function plans(database: Database, big: string, busy: string): Promise<Row[]> {
  const pool = database.pool!;
  const [avg] = await sql<{ id: string; org: string }>(
    database,
    "select id::text, org_id::text as org from projects where name = 'Projet 2'",
  );
  const [unfinished] = await sql<{ id: string }>(database, "select id::text from workflow_runs where finished_at is null limit 1");
  const pending = await sql<{ project_id: string; org_id: string }>(
    database,
    "select distinct project_id::text, org_id::text from outbox_events where processed_at is null",
  );
  const [org] = await sql<{ id: string }>(database, "select id::text from organizations where name = 'Organisation 1'");
  const today = new Date().toISOString().slice(0, 10);
  const day = 86_400_000;
  const alertsDefault = AlertListQuery.parse({});
  const rows: Row[] = [];
  const run = async (label: string, call: (db: Db, database: Database) => Promise<unknown>) =>
    rows.push(await explain(pool, label, (await statementsOf(database, call))[0]));
  await run("alert list, page 1 (50,000 alerts)", (db) => alertsRepository.page(db, big, alertsDefault));
  await run("alert list, counts (50,000 alerts)", (db) => alertsRepository.counts(db, big, alertsDefault));
  await run("alert list, unread page (50,000 alerts)", (db) => alertsRepository.page(db, big, AlertListQuery.parse({ is_read: false })));
  await run("alert list, KEV page (50,000 alerts)", (db) => alertsRepository.page(db, big, AlertListQuery.parse({ is_kev: true })));
  await run("alert list, page 1 (average project)", (db) => alertsRepository.page(db, avg!.id, alertsDefault));
  await run("alert list, counts (average project)", (db) => alertsRepository.counts(db, avg!.id, alertsDefault));
  await run("project statistics, alerts (50,000)", (db) => alertsRepository.stats(db, big));
  await run("case list, page 1 (50,000 cases)", (db) => casesRepository.page(db, big, CaseListQuery.parse({})));
  await run("case list, count (50,000 cases)", (db) => casesRepository.count(db, big, CaseListQuery.parse({})));
  await run("case statistics (50,000 cases)", (db) => casesRepository.stats(db, big, today));
  await run("workflow list (cache miss)", (_db, d) => workflowsRepository.listForProject(d, avg!.id));
  await run(`run list of a workflow (${BUSY_WORKFLOW_RUNS} runs)`, (db) => runsRepository.list(db, busy, 20));
  await run("dispatch: claim 200 pending events (SKIP LOCKED)", (db) => runsRepository.claimEvents(db, 200));
  await run("dispatch: candidate workflows and their hourly runs", (db) =>
    runsRepository.candidates(
      db,
      pending.map((p) => p.project_id),
      [...new Set(pending.map((p) => p.org_id))],
    ),
  );
  await run("run claim (lease)", (db) => runsRepository.claimRun(db, unfinished!.id, 120));
  await run("runs-recover: abandoned runs", (db) => runsRepository.abandoned(db, 60, 100));
  await run(`purge: finished runs older than ${TARGET.runsRetentionDays} days (one batch)`, (db) =>
    runsRepository.purgeFinished(db, new Date(Date.now() - TARGET.runsRetentionDays * day), 5000),
  );
  await run(`purge: processed events older than ${TARGET.eventsRetentionDays} days (one batch)`, (db) =>
    runsRepository.purgeProcessedEvents(db, new Date(Date.now() - TARGET.eventsRetentionDays * day), 5000),
  );
  await run("hourly limit: a reservation (api_usage upsert)", (_db, d) => new RateLimiter(d).hit(org!.id, org!.id, 1000));
  return rows;
}

const scratch = await scratchDatabase();
const database = await openDatabase({ databaseUrl: scratch.url });
try {
  const [server] = await sql<{ version: string; shared_buffers: string }>(
    database,
    "select version(), current_setting('shared_buffers') as shared_buffers",
  );
  console.log(`Capacity model, ${new Date().toISOString()}, scale ${SCALE}, ${server!.version}, shared_buffers ${server!.shared_buffers}`);
  await database.migrate();
  console.error("seed…");
  const wal = await seed(database, scratch.url);
  console.log("\nSeed: WAL per import batch");
  console.table(wal);
  console.error("clone…");
  const { steps, big, busy } = await clone(database);
  console.log(`\nClone to scale ${SCALE}`);
  console.table(steps);
  const { tables, indexes } = await sizes(database);
  console.log("\nTables: measured, and extrapolated to the target by bytes per row");
  console.table(tables);
  console.log("\nIndexes of the large tables (measured)");
  console.table(indexes);
  console.log("\nHot queries: EXPLAIN (ANALYZE, BUFFERS), second run");
  console.table(await plans(database, big, busy));
} finally {
  await database.close();
  if (process.env.CAPACITY_KEEP === "1") console.log(`kept: ${scratch.url}`);
  else await scratch.drop();
}

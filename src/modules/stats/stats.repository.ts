import { type SQL, sql } from "drizzle-orm";
import type { Executor } from "../../platform/db/client.js";
import { pgArray, rowsOf } from "../../platform/db/sql.js";
import { RECORD_SOURCES } from "../../feeds/merge.js";
import { OPEN_STATUSES } from "../cases/cases.states.js";
import type { Granularity } from "./stats.periods.js";
import type { Axis, DelayMetric, Dimension, DistributionMetric, TopSort } from "./stats.schemas.js";

/**
 * The statistics' SQL, over `cve_facts` (migration 0020: one narrow row per CVE, every date a Paris
 * day, kept by triggers in the transaction that writes the CVEs) and, for the EPSS figures only,
 * `epss_current` joined (the newest score, and the first score date: migration 0029). Each figure
 * is one aggregate statement over a day range read off an index; nothing is computed row by row here.
 */

/*
 * Means, medians and p90 are rounded here, half up in numeric (cvss is a `real`: summed as such,
 * 6.3 + 5.3 + 4.4 + 6.1 fell just under 22.1 and its mean 5.525 rounded to 5.52): the figure shown
 * is the exact one.
 */

/**
 * Who is counted: a period of Paris days, optionally the CVEs alerted in one project, and whether
 * the reference-only CVEs (cited by an advisory, described by no record: no product, no score)
 * join the published ones.
 */
export interface Scope {
  from: string;
  to: string;
  projectId?: string;
  withReferenceOnly?: boolean;
}

/** Whether the facts `f` are of a CVE with a record of its own (a source of RECORD_SOURCES). */
const HAS_RECORD = sql.raw(`f.sources && '{${RECORD_SOURCES.join(",")}}'::text[]`);
/** The CVEs every figure counts: the published ones with a record; with withReferenceOnly, the reference-only ones too (stored as PUBLISHED). */
const counted = (s: Pick<Scope, "withReferenceOnly">) =>
  s.withReferenceOnly ? sql`f.state = 'PUBLISHED'` : sql`f.state = 'PUBLISHED' and ${HAS_RECORD}`;

/** The column of the population (see `published`) each time-series axis counts CVEs at. */
const AXIS_COLUMN: Record<Axis, string> = {
  published: "day",
  updated: "updated",
  kev_added: "kev_added",
  poc_published: "poc_first",
  epss_published: "epss_first",
};

const inProject = (s: Pick<Scope, "projectId">) =>
  s.projectId ? sql`and f.cve_id in (select a.cve_id from alerts a where a.project_id = ${s.projectId}::uuid)` : sql``;

/** The EPSS of the facts `f`, joined only by the figures that read it: the newest score and the first score date. */
const EPSS_JOIN = sql`left join epss_current e on e.cve_id = f.cve_id`;
/** A column of the facts, or `epss_first`: the first score date, in epss_current. */
const column = (name: string) => sql.raw(name === "epss_first" ? "e.first_date" : `f.${name}`);

/**
 * The published CVEs whose `day` column is in the period (of the project, if any); with `withEpss`
 * (implied by `epss_first`), their EPSS score (`epss`, null while FIRST has not scored the CVE) and
 * first score date (`epss_first`) too.
 */
function published(s: Scope, day = "day", extra: SQL = sql``, withEpss = day === "epss_first"): SQL {
  return sql`select f.*${withEpss ? sql`, e.epss, e.first_date as epss_first` : sql``} from cve_facts f ${withEpss ? EPSS_JOIN : sql``}
    where ${column(day)} between ${s.from}::date and ${s.to}::date and ${counted(s)} ${inProject(s)} ${extra}`;
}

const SPLIT = sql`count(*)::int as count,
  (count(*) filter (where f.severity = 'critical'))::int as critical,
  (count(*) filter (where f.severity = 'high'))::int as high,
  (count(*) filter (where f.is_kev))::int as kev,
  (count(*) filter (where f.has_poc))::int as poc`;

const trunc = (g: Granularity, column: SQL) => sql`date_trunc(${g}, ${column}::timestamp)::date::text`;

export interface TotalsRow {
  published: number;
  rejected: number;
  reserved: number;
  reference_only: number;
  kev: number;
  poc: number;
  triple_threat: number;
  avg_cvss: number | null;
  avg_epss: number | null;
  without_date: number;
}

/**
 * One dimension: the expression CVEs are grouped by (null: no value), the spelling shown (the most
 * frequent one of the value's CVEs), and the join that yields one row per value of a multi-valued
 * dimension (a CVE without any value keeps one row, with a null value).
 */
interface DimensionSql {
  key: SQL;
  display: SQL;
  join: SQL;
}

const SOURCE_LABELS: Record<string, string> = {
  cve5: "CVE List (CVE JSON 5)",
  nvd: "NVD",
  kev: "CISA KEV",
  "poc:trickest": "PoC trickest/cve",
  "poc:nomi-sec": "PoC nomi-sec/PoC-in-GitHub",
  ghsa: "GitHub Security Advisories",
  go: "Go vulnerability database",
  pysec: "PyPI advisory database",
  rustsec: "RustSec",
  osv: "OSV",
  certfr: "CERT-FR",
};

const unnested = (column: string) => sql`left join lateral unnest(f.${sql.raw(column)}) as v(value) on true`;
const DIMENSION_SQL: Record<Dimension, DimensionSql> = {
  vendor: { key: sql`nullif(f.vendor_key, '')`, display: sql`f.vendor`, join: sql`` },
  product: { key: sql`f.product_key`, display: sql`f.product`, join: sql`` },
  cwe: { key: sql`v.value`, display: sql`null::text`, join: unnested("cwe_ids") },
  severity: { key: sql`f.severity`, display: sql`null::text`, join: sql`` },
  assigner: { key: sql`f.assigner`, display: sql`null::text`, join: sql`` },
  source: { key: sql`v.value`, display: sql`null::text`, join: unnested("sources") },
};

/**
 * Counts per value of a dimension over the population, in two steps: per (value, spelling), then
 * per value with its most frequent spelling as label (cheaper than mode(): one hash aggregate over
 * the rows, a small second one over the groups). The null value holds the CVEs without any.
 * `withEpss`: the population carries `epss` (published(…, true)), averaged as avg_epss.
 */
function grouped(d: DimensionSql, population: SQL, withEpss: boolean): SQL {
  const epss = withEpss ? sql`sum(f.epss::numeric) as epss_sum, count(f.epss) as epss_n` : sql`null::numeric as epss_sum, 0 as epss_n`;
  return sql`select value, (array_agg(display order by count desc, display))[1] as label,
      sum(count)::int as count, sum(critical)::int as critical, sum(high)::int as high, sum(kev)::int as kev, sum(poc)::int as poc,
      round(sum(cvss_sum) / nullif(sum(cvss_n), 0), 2)::float8 as avg_cvss, round(sum(epss_sum) / nullif(sum(epss_n), 0), 5)::float8 as avg_epss
    from (
      select ${d.key} as value, ${d.display} as display, ${SPLIT},
        sum(f.cvss::numeric) as cvss_sum, count(f.cvss) as cvss_n, ${epss}
      from (${population}) f ${d.join} group by 1, 2) x
    group by value`;
}

/** The display label of a value when SQL gives none (sources have names; the others show their value). */
export function labelOf(dimension: Dimension, value: string, label: string | null): string {
  return label ?? (dimension === "source" ? (SOURCE_LABELS[value] ?? value) : value);
}

/** Descending on the sort column, ties by total (`count` in the grouped rows), then by value. */
const TOP_ORDER: Record<TopSort, string> = {
  total: "count desc",
  critical: "critical desc, count desc",
  high: "high desc, count desc",
  kev: "kev desc, count desc",
  poc: "poc desc, count desc",
  avg_cvss: "avg_cvss desc nulls last, count desc",
  avg_epss: "avg_epss desc nulls last, count desc",
};

export interface TopItemRow {
  value: string;
  label: string | null;
  total: number;
  critical: number;
  high: number;
  kev: number;
  poc: number;
  avg_cvss: number | null;
  avg_epss: number | null;
}

export interface DelayFiguresRow {
  start: string | null;
  count: number;
  mean: number | null;
  median: number | null;
  p90: number | null;
  min: number | null;
  max: number | null;
}

/** A delay metric as (end day, days) pairs: the end day selects the period. */
function delayPairs(metric: DelayMetric, s: Scope): SQL {
  const facts = (end: string, start: string) =>
    sql`select ${column(end)} as end_day, (${column(end)} - ${column(start)}) as days
      from cve_facts f ${end === "epss_first" ? EPSS_JOIN : sql``}
      where ${column(end)} between ${s.from}::date and ${s.to}::date and ${column(start)} is not null
        and ${counted(s)} ${inProject(s)}`;
  switch (metric) {
    case "publication_to_kev":
      return facts("kev_added", "published");
    case "publication_to_poc":
      return facts("poc_first", "published");
    case "publication_to_epss":
      return facts("epss_first", "published");
    case "reservation_to_publication":
      return facts("day", "reserved"); // day: the publication day of a PUBLISHED CVE (indexed)
    case "publication_to_alert":
      return sql`select x.end_day, (x.end_day - f.published) as days
        from alerts a cross join lateral (select (a.triggered_at at time zone 'Europe/Paris')::date as end_day) x
        join cve_facts f on f.cve_id = a.cve_id
        where a.project_id = ${s.projectId}::uuid and f.published is not null and ${counted(s)}
          and x.end_day between ${s.from}::date and ${s.to}::date`;
    case "alert_to_case_closed": {
      const open = sql`${pgArray([...OPEN_STATUSES])}::text[]`;
      // A closed case's closing: its last move from an open status (or its creation) to a closed one.
      return sql`select x.end_day, (x.end_day - (a.triggered_at at time zone 'Europe/Paris')::date) as days
        from cases c
        join alerts a on a.project_id = c.project_id and a.cve_id = c.cve_id
        cross join lateral (
          select (max(h.created_at) at time zone 'Europe/Paris')::date as end_day from case_history h
          where h.case_id = c.id and not (h.to_status = any(${open})) and (h.from_status is null or h.from_status = any(${open}))) x
        where c.project_id = ${s.projectId}::uuid and not (c.status = any(${open}))
          and x.end_day between ${s.from}::date and ${s.to}::date`;
    }
  }
}

export const statsRepository = {
  async totals(ex: Executor, s: Scope): Promise<TotalsRow> {
    const [row] = await rowsOf<TotalsRow>(
      ex,
      sql`
      with f as (select f.state, f.is_kev, f.has_poc, f.cvss, e.epss, ${HAS_RECORD} as rec, ${counted(s)} as counted
                 from cve_facts f ${EPSS_JOIN}
                 where f.day between ${s.from}::date and ${s.to}::date ${inProject(s)})
      select
        (count(*) filter (where state = 'PUBLISHED' and rec))::int as published,
        (count(*) filter (where state = 'REJECTED'))::int as rejected,
        (count(*) filter (where state = 'RESERVED'))::int as reserved,
        (count(*) filter (where state = 'PUBLISHED' and not rec))::int as reference_only,
        (count(*) filter (where counted and is_kev))::int as kev,
        (count(*) filter (where counted and has_poc))::int as poc,
        (count(*) filter (where counted and is_kev and has_poc and epss >= 0.5))::int as triple_threat,
        round(avg(cvss::numeric) filter (where counted), 2)::float8 as avg_cvss,
        round(avg(epss::numeric) filter (where counted), 5)::float8 as avg_epss,
        (select count(*) from cve_facts f where f.day is null and ${counted(s)} ${inProject(s)})::int as without_date
      from f`,
    );
    return row!;
  },

  /** The newest publication day of the population, whatever the period (null: none): where the data ends. */
  async newestDay(ex: Executor, s: Omit<Scope, "from" | "to">): Promise<string | null> {
    const [row] = await rowsOf<{ day: string | null }>(
      ex,
      sql`select max(f.day)::text as day from cve_facts f where ${counted(s)} ${inProject(s)}`,
    );
    return row?.day ?? null;
  },

  async top(
    ex: Executor,
    s: Scope,
    q: { dimension: Dimension; kevOnly: boolean; sort: TopSort; limit: number },
  ): Promise<{ grand_total: number; distinct_values: number; without_value: number; items: TopItemRow[] }> {
    const population = published(s, "day", q.kevOnly ? sql`and f.is_kev` : sql``, true);
    const [row] = await rowsOf<{
      grand_total: number;
      distinct_values: number;
      without_value: number;
      items: (TopItemRow & { rank: number })[];
    }>(
      ex,
      sql`
      with g as (${grouped(DIMENSION_SQL[q.dimension], population, true)})
      select (select count(*) from (${population}) f)::int as grand_total,
        (select count(*) from g where value is not null)::int as distinct_values,
        coalesce((select count from g where value is null), 0)::int as without_value,
        coalesce((select json_agg(t order by rank) from (
          select value, label, count as total, critical, high, kev, poc, avg_cvss, avg_epss,
            row_number() over (order by ${sql.raw(TOP_ORDER[q.sort])}, value) as rank
          from g where value is not null order by rank limit ${q.limit}) t), '[]'::json) as items`,
    );
    return row!;
  },

  async trend(
    ex: Executor,
    s: Scope,
    q: { dimension: Dimension; granularity: Granularity; limit: number },
  ): Promise<{ series: { value: string; label: string | null; total: number }[]; cells: { start: string; value: string; n: number }[] }> {
    const d = DIMENSION_SQL[q.dimension];
    const population = published(s);
    const [row] = await rowsOf<{
      series: { value: string; label: string | null; total: number }[] | null;
      cells: { start: string; value: string; n: number }[] | null;
    }>(
      ex,
      sql`
      with top as (select value, label, count as total from (${grouped(d, population, false)}) g
                   where value is not null order by count desc, value limit ${q.limit}),
      cells as (select ${trunc(q.granularity, sql`f.day`)} as start, ${d.key} as value, count(*)::int as n
                from (${population}) f ${d.join} where ${d.key} in (select value from top) group by 1, 2)
      select (select json_agg(top order by total desc, value) from top) as series, (select json_agg(cells) from cells) as cells`,
    );
    return { series: row?.series ?? [], cells: row?.cells ?? [] };
  },

  async timeseries(
    ex: Executor,
    s: Scope,
    q: { axis: Axis; granularity: Granularity },
  ): Promise<{ start: string; count: number; critical: number; high: number; kev: number; poc: number }[]> {
    const day = AXIS_COLUMN[q.axis];
    return rowsOf(
      ex,
      sql`select ${trunc(q.granularity, sql.raw(`f.${day}`))} as start, ${SPLIT}
          from (${published(s, day)}) f group by 1`,
    );
  },

  /** Counts per bucket key (see DISTRIBUTION_BUCKETS in the service for the keys and their order). */
  async distribution(
    ex: Executor,
    s: Scope,
    q: { metric: DistributionMetric; scale: "linear" | "log" },
  ): Promise<{ bucket: string; total: number; with_poc: number; kev: number }[]> {
    const bucket: Record<DistributionMetric, SQL> = {
      cvss: sql`case when f.cvss is null then 'none' else least(floor(f.cvss), 9)::int::text end`,
      epss:
        q.scale === "log"
          ? sql`case when f.epss is null then 'none' when f.epss < 0.0001 then '0' when f.epss < 0.001 then '1'
                     when f.epss < 0.01 then '2' when f.epss < 0.1 then '3' else '4' end`
          : sql`case when f.epss is null then 'none' else least(floor(f.epss * 10), 9)::int::text end`,
      severity: sql`f.severity`,
      cwe: sql`coalesce(v.value, 'none')`,
      maturite_exploit: sql`coalesce(f.maturite, 'none')`,
      age: sql`case when ${s.to}::date - f.day < 7 then '0' when ${s.to}::date - f.day < 30 then '1'
                    when ${s.to}::date - f.day < 90 then '2' when ${s.to}::date - f.day < 365 then '3'
                    when ${s.to}::date - f.day < 730 then '4' when ${s.to}::date - f.day < 1825 then '5' else '6' end`,
    };
    const join = q.metric === "cwe" ? sql`left join lateral unnest(f.cwe_ids) as v(value) on true` : sql``;
    return rowsOf(
      ex,
      sql`select ${bucket[q.metric]} as bucket, count(*)::int as total,
            (count(*) filter (where f.has_poc))::int as with_poc, (count(*) filter (where f.is_kev))::int as kev
          from (${published(s, "day", sql``, q.metric === "epss")}) f ${join} group by 1`,
    );
  },

  /** The population's size (distinct CVEs), for the cwe distribution whose buckets count pairs. */
  async populationSize(ex: Executor, s: Scope): Promise<number> {
    const [row] = await rowsOf<{ n: number }>(ex, sql`select count(*)::int as n from (${published(s)}) f`);
    return row?.n ?? 0;
  },

  /** Overall figures (start null) and, with a granularity, one row per period of the end day. */
  async delays(ex: Executor, s: Scope, metric: DelayMetric, granularity: Granularity | undefined): Promise<DelayFiguresRow[]> {
    const figures = sql`count(*)::int as count, round(avg(days), 1)::float8 as mean,
      round(percentile_cont(0.5) within group (order by days)::numeric, 1)::float8 as median,
      round(percentile_cont(0.9) within group (order by days)::numeric, 1)::float8 as p90, min(days)::int as min, max(days)::int as max`;
    return rowsOf(
      ex,
      granularity
        ? sql`select start, ${figures}
            from (select d.*, ${trunc(granularity, sql`d.end_day`)} as start from (${delayPairs(metric, s)}) d) d group by rollup (start)`
        : sql`select null::text as start, ${figures} from (${delayPairs(metric, s)}) d`,
    );
  },
};

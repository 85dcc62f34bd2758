import type { z } from "zod";
import type { ProjectScope } from "../../platform/auth/context.js";
import type { Db } from "../../platform/db/client.js";
import { alertsVersion, casesVersion, readVersionSum, VersionedCache } from "../../platform/db/versions.js";
import { invalid } from "../../platform/errors.js";
import { INVALID } from "../../platform/messages.js";
import { type Granularity, pct, periodsOf, resolvePeriod, sharesOf, type Period } from "./stats.periods.js";
import { labelOf, type Scope, statsRepository as repo } from "./stats.repository.js";
import {
  type DelaysOut,
  type DelaysQuery,
  type Dimension,
  type DistributionMetric,
  type DistributionOut,
  type DistributionQuery,
  PROJECT_DELAY_METRICS,
  type StatsQuery,
  type StatsTotalsOut,
  type TimeseriesOut,
  type TimeseriesQuery,
  type TopOut,
  type TopQuery,
  type TopTrendOut,
  type TopTrendQuery,
} from "./stats.schemas.js";

const DIMENSION_LABELS: Record<Dimension, string> = {
  vendor: "Éditeur",
  product: "Produit",
  cwe: "Faiblesse (CWE)",
  severity: "Sévérité",
  assigner: "Attributaire (CNA)",
  source: "Source",
};

/**
 * Buckets of each distribution in their natural order: the SQL key (stats.repository.ts) and the
 * label shown. Bounds: lower included, upper excluded, the last numeric bucket includes its upper bound.
 */
const DISTRIBUTION_BUCKETS: Record<Exclude<DistributionMetric, "cwe" | "epss">, [string, string][]> & {
  epss: Record<"linear" | "log", [string, string][]>;
} = {
  cvss: [
    ...Array.from({ length: 10 }, (_, i): [string, string] => [String(i), i === 9 ? "9.0-10.0" : `${i}.0-${i}.9`]),
    ["none", "sans_score"],
  ],
  epss: {
    linear: [
      ...Array.from({ length: 10 }, (_, i): [string, string] => [String(i), `${(i / 10).toFixed(1)}-${((i + 1) / 10).toFixed(1)}`]),
      ["none", "sans_score"],
    ],
    log: [
      ["0", "<0.0001"],
      ["1", "0.0001-0.001"],
      ["2", "0.001-0.01"],
      ["3", "0.01-0.1"],
      ["4", "0.1-1.0"],
      ["none", "sans_score"],
    ],
  },
  severity: ["none", "low", "medium", "high", "critical", "unknown"].map((s) => [s, s]),
  maturite_exploit: ["none", "poc", "functional", "in_the_wild"].map((s) => [s, s]),
  age: [
    ["0", "0-6j"],
    ["1", "7-29j"],
    ["2", "30-89j"],
    ["3", "90-364j"],
    ["4", "1-2ans"],
    ["5", "2-5ans"],
    ["6", "5ans+"],
  ],
};
const DISTRIBUTION_LABELS: Record<DistributionMetric, string> = {
  cvss: "Score CVSS de base (par point entier)",
  epss: "Score EPSS",
  severity: "Sévérité",
  cwe: "Faiblesse (CWE)",
  maturite_exploit: "Maturité de l'exploitation",
  age: "Âge à la fin de la période",
};
/** The cwe distribution lists this many CWEs by count, then `autres`, then `sans_cwe`. */
const CWE_BUCKETS = 20;

/** A parsed query; include_reference_only may be left out by direct callers (MCP, tests): false. */
type Out<S extends z.ZodType> = Omit<z.output<S>, "include_reference_only"> & { include_reference_only?: boolean };

/**
 * Statistics over the CVE corpus, or over the CVEs alerted in one project. Each answer is cached
 * under the sum of the data versions it reads (`cves`, and `alerts:<project>` + `cases:<project>`
 * for a project): every counter only grows and each is bumped in the transaction that changes its
 * data, so the sum changes with any of them (ADR 0003). The period is part of the key, so a new
 * Paris day (the default `to`) is a new key.
 */
export class StatsService {
  /** 256 answers: the largest (3,660 daily points) weighs ~0.5 MB, so the cache stays under ~130 MB at worst. */
  private readonly cache = new VersionedCache<unknown>(256);

  constructor(
    private readonly db: Db,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private async through<T>(
    name: string,
    period: Period,
    q: object,
    ctx: { project?: ProjectScope; withReferenceOnly: boolean; version: number },
    compute: (s: Scope) => Promise<T>,
  ) {
    const scope: Scope = { from: period.from, to: period.to, projectId: ctx.project?.id, withReferenceOnly: ctx.withReferenceOnly };
    const key = JSON.stringify([name, scope, q]);
    return (await this.cache.through(key, ctx.version, () => compute(scope))) as T;
  }

  /**
   * What every answer starts from: the data versions it reads, the newest publication day of its
   * population (cached under the same versions) and the period (resolvePeriod: with no period
   * asked for, the last year of the data held).
   */
  private async start(q: Out<typeof StatsQuery>, project: ProjectScope | undefined) {
    const names = project ? ["cves", alertsVersion(project.id), casesVersion(project.id)] : ["cves"];
    const version = await readVersionSum(this.db, names);
    const withReferenceOnly = q.include_reference_only ?? false;
    const who = { projectId: project?.id, withReferenceOnly };
    const newest = (await this.cache.through(JSON.stringify(["newest", who]), version, () => repo.newestDay(this.db, who))) as
      | string
      | null;
    const period = resolvePeriod(q, this.now(), newest);
    return { period, newest, ctx: { project, withReferenceOnly, version } };
  }

  async totals(q: Out<typeof StatsQuery>, project?: ProjectScope): Promise<StatsTotalsOut> {
    const { period, newest, ctx } = await this.start(q, project);
    return this.through("totals", period, {}, ctx, async (s) => {
      const r = await repo.totals(this.db, s);
      return {
        from: period.from,
        to: period.to,
        total: r.published + r.rejected + r.reserved + (s.withReferenceOnly ? r.reference_only : 0),
        ...r,
        newest_published: newest,
      };
    });
  }

  async top(q: Out<typeof TopQuery>, project?: ProjectScope): Promise<TopOut> {
    const { period, ctx } = await this.start(q, project);
    const params = { dimension: q.dimension, kevOnly: q.kev_only, sort: q.sort, limit: q.limit };
    return this.through("top", period, params, ctx, async (s) => {
      const r = await repo.top(this.db, s, params);
      return {
        from: period.from,
        to: period.to,
        period: period.period,
        dimension: q.dimension,
        label: DIMENSION_LABELS[q.dimension],
        kev_only: q.kev_only,
        sort: q.sort,
        grand_total: r.grand_total,
        distinct_values: r.distinct_values,
        without_value: r.without_value,
        items: r.items.map((i, n) => ({
          rank: n + 1,
          value: i.value,
          label: labelOf(q.dimension, i.value, i.label),
          total: i.total,
          critical: i.critical,
          high: i.high,
          kev: i.kev,
          poc: i.poc,
          share_pct: pct(i.total, r.grand_total),
          avg_cvss: i.avg_cvss,
          avg_epss: i.avg_epss,
        })),
      };
    });
  }

  async trend(q: Out<typeof TopTrendQuery>, project?: ProjectScope): Promise<TopTrendOut> {
    const { period, ctx } = await this.start(q, project);
    const periods = periodsOf(period, q.granularity);
    const params = { dimension: q.dimension, granularity: q.granularity, limit: q.limit };
    return this.through("trend", period, params, ctx, async (s) => {
      const { series, cells } = await repo.trend(this.db, s, params);
      const byStart = new Map<string, Map<string, number>>();
      for (const c of cells) {
        const m = byStart.get(c.start) ?? new Map<string, number>();
        m.set(c.value, c.n);
        byStart.set(c.start, m);
      }
      return {
        from: period.from,
        to: period.to,
        dimension: q.dimension,
        granularity: q.granularity,
        series: series.map((x) => ({ value: x.value, label: labelOf(q.dimension, x.value, x.label), total: x.total })),
        points: periods.map((p) => ({
          period: p.period,
          ...Object.fromEntries(series.map((x) => [x.value, byStart.get(p.start)?.get(x.value) ?? 0])),
        })),
      };
    });
  }

  async timeseries(q: Out<typeof TimeseriesQuery>, project?: ProjectScope): Promise<TimeseriesOut> {
    const { period, ctx } = await this.start(q, project);
    const periods = periodsOf(period, q.granularity);
    return this.through("timeseries", period, { axis: q.axis, granularity: q.granularity }, ctx, async (s) => {
      const rows = new Map((await repo.timeseries(this.db, s, q)).map((r) => [r.start, r]));
      const points = periods.map((p) => {
        const r = rows.get(p.start);
        return { ...p, count: r?.count ?? 0, critical: r?.critical ?? 0, high: r?.high ?? 0, kev: r?.kev ?? 0, poc: r?.poc ?? 0 };
      });
      return {
        from: period.from,
        to: period.to,
        axis: q.axis,
        granularity: q.granularity,
        count: points.length,
        total: points.reduce((a, p) => a + p.count, 0),
        points,
      };
    });
  }

  async distribution(q: Out<typeof DistributionQuery>, project?: ProjectScope): Promise<DistributionOut> {
    const { period, ctx } = await this.start(q, project);
    const scale = q.metric === "epss" ? q.scale : "linear";
    return this.through("distribution", period, { metric: q.metric, scale }, ctx, async (s) => {
      const counts = new Map((await repo.distribution(this.db, s, { metric: q.metric, scale })).map((r) => [r.bucket, r]));
      let order: [string, string][];
      let grandTotal: number;
      if (q.metric === "cwe") {
        const named = [...counts.values()]
          .filter((r) => r.bucket !== "none")
          .sort((a, b) => b.total - a.total || (a.bucket < b.bucket ? -1 : 1));
        const rest = named.slice(CWE_BUCKETS);
        counts.set("others", {
          bucket: "others",
          total: rest.reduce((a, r) => a + r.total, 0),
          with_poc: rest.reduce((a, r) => a + r.with_poc, 0),
          kev: rest.reduce((a, r) => a + r.kev, 0),
        });
        order = [
          ...named.slice(0, CWE_BUCKETS).map((r): [string, string] => [r.bucket, r.bucket]),
          ["others", "autres"],
          ["none", "sans_cwe"],
        ];
        grandTotal = await repo.populationSize(this.db, s);
      } else {
        order = q.metric === "epss" ? DISTRIBUTION_BUCKETS.epss[scale] : DISTRIBUTION_BUCKETS[q.metric];
        grandTotal = [...counts.values()].reduce((a, r) => a + r.total, 0);
      }
      const rows = order.map(([key, label]) => ({ label, ...(counts.get(key) ?? { total: 0, with_poc: 0, kev: 0 }) }));
      const shares = sharesOf(rows.map((r) => r.total));
      return {
        from: period.from,
        to: period.to,
        metric: q.metric,
        label: DISTRIBUTION_LABELS[q.metric],
        grand_total: grandTotal,
        buckets: rows.map((r, i) => ({
          bucket: r.label,
          total: r.total,
          with_poc: r.with_poc,
          kev: r.kev,
          share_pct: shares[i]!,
          poc_pct: pct(r.with_poc, r.total),
        })),
      };
    });
  }

  async delays(q: Out<typeof DelaysQuery>, project?: ProjectScope): Promise<DelaysOut> {
    const { period, ctx } = await this.start(q, project);
    if (PROJECT_DELAY_METRICS.includes(q.metric) && !project) throw invalid(["query", "project_id"], INVALID.projectMetric(q.metric), null);
    const periods = q.granularity ? periodsOf(period, q.granularity) : null;
    return this.through("delays", period, { metric: q.metric, granularity: q.granularity ?? null }, ctx, async (s) => {
      const rows = await repo.delays(this.db, s, q.metric, q.granularity as Granularity | undefined);
      const figures = (r: (typeof rows)[number] | undefined) => ({
        count: r?.count ?? 0,
        mean: r?.mean ?? null,
        median: r?.median ?? null,
        p90: r?.p90 ?? null,
        min: r?.min ?? null,
        max: r?.max ?? null,
      });
      const byStart = new Map(rows.filter((r) => r.start !== null).map((r) => [r.start!, r]));
      return {
        from: period.from,
        to: period.to,
        metric: q.metric,
        unit: "days" as const,
        granularity: q.granularity ?? null,
        overall: figures(rows.find((r) => r.start === null)),
        points: periods ? periods.map((p) => ({ ...p, ...figures(byStart.get(p.start)) })) : null,
      };
    });
  }
}

import { z } from "zod";
import { GRANULARITIES, PERIOD_SHORTCUTS } from "./stats.periods.js";

/** Dimensions of the top-N and trends: what a CVE is counted under (DIMENSIONS in stats.repository.ts). */
export const DIMENSIONS = ["vendor", "product", "cwe", "severity", "assigner", "source"] as const;
export type Dimension = (typeof DIMENSIONS)[number];
export const TOP_SORTS = ["total", "critical", "high", "kev", "poc", "avg_cvss", "avg_epss"] as const;
export type TopSort = (typeof TOP_SORTS)[number];
/** Dates a time series counts CVEs by. */
export const AXES = ["published", "updated", "kev_added", "poc_published", "epss_published"] as const;
export type Axis = (typeof AXES)[number];
export const DISTRIBUTION_METRICS = ["cvss", "epss", "severity", "cwe", "maturite_exploit", "age"] as const;
export type DistributionMetric = (typeof DISTRIBUTION_METRICS)[number];
export const DELAY_METRICS = [
  "publication_to_kev",
  "publication_to_poc",
  "publication_to_epss",
  "reservation_to_publication",
  "publication_to_alert",
  "alert_to_case_closed",
] as const;
export type DelayMetric = (typeof DELAY_METRICS)[number];
/** Delay metrics that need a project (they read its alerts and cases). */
export const PROJECT_DELAY_METRICS: readonly DelayMetric[] = ["publication_to_alert", "alert_to_case_closed"];

/** Parameters every statistics endpoint takes. */
export const StatsQuery = z.object({
  from: z.iso.date().optional().describe("First day, Europe/Paris calendar (included). Default: 364 days before `to` (365 days in all)"),
  to: z.iso
    .date()
    .optional()
    .describe(
      "Last day, Europe/Paris calendar (included). Default: today in Paris; when neither from nor to is given, the newest publication day held (of the corpus, or of the project's CVEs) if that is before today",
    ),
  period: z
    .enum(PERIOD_SHORTCUTS)
    .optional()
    .describe(
      "Shortcut instead of from/to, ending today in Paris: the last 7, 30, 90 or 365 days, since 1 January (ytd), or 5 years (5y); echoed in `period`",
    ),
  project_id: z
    .uuid()
    .optional()
    .describe("Narrow the population to the CVEs alerted in this project (404 « Projet introuvable » outside the API key's reach)"),
  include_reference_only: z
    .boolean()
    .default(false)
    .describe(
      "Count the REFERENCE_ONLY CVEs too (only an advisory cites them, no record describes them: no product, no score), by the day of their first citation; left out by default",
    ),
});
export type StatsQuery = z.infer<typeof StatsQuery>;

export const TopQuery = StatsQuery.extend({
  dimension: z.enum(DIMENSIONS).default("vendor").describe("What CVEs are grouped by (docs/statistics.md)"),
  kev_only: z.boolean().default(false).describe("Only CVEs in the KEV catalog"),
  sort: z.enum(TOP_SORTS).default("total").describe("Descending; ties by total, then value"),
  limit: z.int().min(1).max(100).default(10),
});
export const TopTrendQuery = StatsQuery.extend({
  dimension: z.enum(DIMENSIONS).default("vendor"),
  granularity: z.enum(GRANULARITIES).default("month"),
  limit: z.int().min(1).max(20).default(5).describe("How many top values (by total over the period) get a series"),
});
export const TimeseriesQuery = StatsQuery.extend({
  axis: z.enum(AXES).default("published").describe("The date a CVE is counted at"),
  granularity: z.enum(GRANULARITIES).default("month"),
});
export const DistributionQuery = StatsQuery.extend({
  metric: z.enum(DISTRIBUTION_METRICS).default("cvss"),
  scale: z
    .enum(["linear", "log"])
    .default("linear")
    .describe("epss only: linear deciles, or log buckets (<0.0001, 0.0001–0.001, 0.001–0.01, 0.01–0.1, 0.1–1)"),
});
export const DelaysQuery = StatsQuery.extend({
  metric: z.enum(DELAY_METRICS).default("publication_to_kev"),
  granularity: z.enum(GRANULARITIES).optional().describe("Also give the figures per period (of the delay's end date)"),
});

export const StatsTotalsOut = z
  .object({
    from: z.iso.date(),
    to: z.iso.date(),
    total: z.int().describe("published + rejected + reserved (+ reference_only with include_reference_only)"),
    published: z
      .int()
      .describe(
        "PUBLISHED CVEs (with a record of their own) whose publication day is in the period: the population of the other figures (with the reference_only ones when include_reference_only)",
      ),
    rejected: z.int().describe("REJECTED CVEs whose publication day (else last update) is in the period"),
    reserved: z.int().describe("RESERVED CVE ids whose reservation day is in the period"),
    kev: z.int().describe("Published CVEs in CISA's KEV catalog"),
    poc: z.int().describe("Published CVEs with at least one public proof of concept"),
    triple_threat: z.int().describe("Published CVEs in KEV, with a public PoC, and an EPSS score ≥ 0.5"),
    avg_cvss: z.number().nullable().describe("Mean base score of the scored CVEs (2 decimals); null when none is scored"),
    avg_epss: z
      .number()
      .nullable()
      .describe("Mean current EPSS of the CVEs FIRST scores (5 decimals); a CVE without a score is left out, never counted as 0"),
    without_date: z.int().describe("CVEs (of the project, when one is given) with no publication date: outside every period"),
    // Beyond the specification.
    reference_only: z
      .int()
      .optional()
      .describe(
        "REFERENCE_ONLY CVEs (only an advisory cites them) first cited in the period: counted apart and in no other figure, unless include_reference_only",
      ),
    newest_published: z.iso
      .date()
      .nullable()
      .optional()
      .describe("The newest publication day held in the population, whatever the period (null: none): where the data ends"),
  })
  .meta({ id: "StatsTotalsOut" });

export const TopItemOut = z
  .object({
    rank: z.int(),
    value: z.string(),
    label: z.string().nullable(),
    total: z.int(),
    critical: z.int(),
    high: z.int(),
    kev: z.int(),
    poc: z.int(),
    share_pct: z.number().describe("total / grand_total × 100 (2 decimals)"),
    avg_cvss: z.number().nullable(),
    avg_epss: z.number().nullable(),
  })
  .meta({ id: "TopItemOut" });

export const TopOut = z
  .object({
    from: z.iso.date(),
    to: z.iso.date(),
    period: z.string().nullable(),
    dimension: z.string(),
    label: z.string().describe("The dimension's display name"),
    kev_only: z.boolean(),
    sort: z.string(),
    grand_total: z.int().describe("CVEs in the population (with or without a value of the dimension)"),
    distinct_values: z.int(),
    without_value: z.int().describe("CVEs of the population with no value of the dimension (no vendor, no CWE…)"),
    items: z.array(TopItemOut),
  })
  .meta({ id: "TopOut" });

export const TrendSeries = z.object({ value: z.string(), label: z.string().nullable(), total: z.int() }).meta({ id: "TrendSeries" });
export const TopTrendOut = z
  .object({
    from: z.iso.date(),
    to: z.iso.date(),
    dimension: z.string(),
    granularity: z.string(),
    series: z.array(TrendSeries).describe("The top values over the whole period, by total"),
    points: z
      .array(z.record(z.string(), z.union([z.string(), z.int()])))
      .describe(
        "One object per period, in order, empty periods included: `period` (its label), then the count of each series value, keyed by the value",
      ),
  })
  .meta({ id: "TopTrendOut" });

export const TimeseriesPoint = z
  .object({
    period: z.string().describe("2024-03-05, 2024-W10 (ISO week), 2024-03, 2024-Q1 or 2024"),
    start: z.iso.date().describe("The period's first day (it may precede `from`: counts stay within from–to)"),
    count: z.int(),
    critical: z.int(),
    high: z.int(),
    kev: z.int(),
    poc: z.int(),
  })
  .meta({ id: "TimeseriesPoint" });
export const TimeseriesOut = z
  .object({
    from: z.iso.date(),
    to: z.iso.date(),
    axis: z.string(),
    granularity: z.string(),
    count: z.int().describe("The number of points"),
    total: z.int().describe("The sum of the points' counts"),
    points: z.array(TimeseriesPoint),
  })
  .meta({ id: "TimeseriesOut" });

export const DistributionBucket = z
  .object({
    bucket: z.string(),
    total: z.int(),
    with_poc: z.int(),
    kev: z.int(),
    share_pct: z.number().describe("Of the buckets' sum; the buckets' shares add up to exactly 100 (largest remainder, 2 decimals)"),
    poc_pct: z.number().describe("with_poc / total × 100 (2 decimals)"),
  })
  .meta({ id: "DistributionBucket" });
export const DistributionOut = z
  .object({
    from: z.iso.date(),
    to: z.iso.date(),
    metric: z.string(),
    label: z.string(),
    grand_total: z.int().describe("CVEs in the population; for cwe the buckets count (CVE, CWE) pairs instead"),
    buckets: z.array(DistributionBucket),
  })
  .meta({ id: "DistributionOut" });

const DelayFigures = {
  count: z.int(),
  mean: z.number().nullable(),
  median: z.number().nullable(),
  p90: z.number().nullable(),
  min: z.int().nullable(),
  max: z.int().nullable(),
};
export const DelayOverall = z.object(DelayFigures).meta({
  id: "DelayOverall",
  description: "Days; mean, median and p90 with one decimal (median and p90 interpolated), null when count is 0",
});
export const DelayPoint = z.object({ period: z.string(), start: z.iso.date(), ...DelayFigures }).meta({ id: "DelayPoint" });
export const DelaysOut = z
  .object({
    from: z.iso.date(),
    to: z.iso.date(),
    metric: z.string(),
    unit: z.literal("days"),
    granularity: z.string().nullable(),
    overall: DelayOverall.nullable(),
    points: z.array(DelayPoint).nullable().describe("Per period of the delay's end date, when granularity is given"),
  })
  .meta({ id: "DelaysOut" });

export type StatsTotalsOut = z.infer<typeof StatsTotalsOut>;
export type TopOut = z.infer<typeof TopOut>;
export type TopTrendOut = z.infer<typeof TopTrendOut>;
export type TimeseriesOut = z.infer<typeof TimeseriesOut>;
export type DistributionOut = z.infer<typeof DistributionOut>;
export type DelaysOut = z.infer<typeof DelaysOut>;

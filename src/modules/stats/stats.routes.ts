import { route, type RouteDef } from "../../platform/http/route.js";
import {
  DelaysOut, DelaysQuery, DistributionOut, DistributionQuery, StatsQuery, StatsTotalsOut, TimeseriesOut, TimeseriesQuery, TopOut, TopQuery, TopTrendOut, TopTrendQuery,
} from "./stats.schemas.js";
import type { StatsService } from "./stats.service.js";

const BASE = "/api/v1/stats";
const TAGS = ["stats"];
const POPULATION =
  "Population: the PUBLISHED CVEs whose publication day (Europe/Paris) is within from–to, both included (a CVE with no publication date is in no period); with project_id, only the CVEs alerted in that project. Definitions: docs/statistics.md.";

/** Statistics over the corpus or one project's CVEs: reads, any API key (no scope). */
export function statsRoutes(service: StatsService): RouteDef[] {
  return [
    route({
      operationId: "getStatsTotals",
      method: "GET", url: `${BASE}/totals`, auth: "both", project: "query", tags: TAGS, summary: "Totals of the period: published, rejected and reserved CVEs, KEV, PoC, triple threat, mean CVSS and EPSS",
      description: `${POPULATION} Rejected and reserved CVE ids are counted apart (rejected: by publication day, else last update; reserved: by reservation day) and never in the other figures. triple_threat: in KEV, with a public PoC, and EPSS ≥ 0.5.`,
      query: StatsQuery,
      responses: { 200: StatsTotalsOut },
      handler: async ({ query, project }) => service.totals(query, project),
    }),
    route({
      operationId: "getStatsTop",
      method: "GET", url: `${BASE}/top`, auth: "both", project: "query", tags: TAGS, summary: "Top values of a dimension (vendor, product, cwe, severity, assigner, source)",
      description: `${POPULATION} vendor: by vendor key (spellings of one vendor together), labelled with its most frequent spelling; product: by normalised product; cwe and source: a CVE counts under each of its CWEs / feeds, so shares may add up to more than 100; assigner: the CNA (CVE List short name, else NVD's assigner e-mail). share_pct = total / grand_total × 100.`,
      query: TopQuery,
      responses: { 200: TopOut },
      handler: async ({ query, project }) => service.top(query, project),
    }),
    route({
      operationId: "getStatsTopTrend",
      method: "GET", url: `${BASE}/top/trend`, auth: "both", project: "query", tags: TAGS, summary: "The top values of a dimension, counted per period",
      description: `${POPULATION} The series are the \`limit\` values with the most CVEs over the whole period; each point is one period (by publication day), with the count of each series value.`,
      query: TopTrendQuery,
      responses: { 200: TopTrendOut },
      handler: async ({ query, project }) => service.trend(query, project),
    }),
    route({
      operationId: "getStatsTimeseries",
      method: "GET", url: `${BASE}/timeseries`, auth: "both", project: "query", tags: TAGS, summary: "CVEs per period along a date axis, with the critical, high, KEV and PoC split",
      description:
        "Counts the PUBLISHED CVEs (with project_id, those alerted in the project) by the axis date within from–to: published (publication day), updated (last modification), kev_added (CISA's dateAdded), poc_published (first PoC date known: nomi-sec repositories' creation; trickest gives none), epss_published (the first EPSS score Vigie imported). A CVE without that date is not counted. Every period meeting from–to is present, with 0 when empty; weeks are ISO weeks (Monday).",
      query: TimeseriesQuery,
      responses: { 200: TimeseriesOut },
      handler: async ({ query, project }) => service.timeseries(query, project),
    }),
    route({
      operationId: "getStatsDistribution",
      method: "GET", url: `${BASE}/distribution`, auth: "both", project: "query", tags: TAGS, summary: "Distribution of a metric (cvss, epss, severity, cwe, maturite_exploit, age) in buckets, natural order",
      description: `${POPULATION} cvss: one bucket per whole point (0.0-0.9 … 9.0-10.0), then sans_score; epss: deciles (scale=linear) or powers of ten (scale=log), then sans_score (never counted as 0); severity: none, low, medium, high, critical, unknown; maturite_exploit: none, poc, functional, in_the_wild; age: days from publication to \`to\` (0-6j, 7-29j, 30-89j, 90-364j, 1-2ans, 2-5ans, 5ans+); cwe: the 20 most frequent CWEs, autres, sans_cwe, counting (CVE, CWE) pairs. share_pct adds up to exactly 100.`,
      query: DistributionQuery,
      responses: { 200: DistributionOut },
      handler: async ({ query, project }) => service.distribution(query, project),
    }),
    route({
      operationId: "getStatsDelays",
      method: "GET", url: `${BASE}/delays`, auth: "both", project: "query", tags: TAGS, summary: "Delays in days between two dates of a CVE's life: count, mean, median, p90, min, max",
      description:
        "A delay is the number of Europe/Paris calendar days from its start to its end, and is counted in the period of its END day (a delay is known once it ends). publication_to_kev / _poc / _epss: from publication to the KEV dateAdded, the first PoC date, the first EPSS score; reservation_to_publication: from the CVE id's reservation; publication_to_alert (needs project_id): to the project's alert; alert_to_case_closed (needs project_id): from the alert to the case's last move from an open status to a closed one (corrige, non_concerne, attenue, risque_accepte), for cases closed now. Negative delays are kept (a KEV entry dated before the publication). median and p90 are interpolated (percentile_cont). Without project_id, the two project metrics are a 422.",
      query: DelaysQuery,
      responses: { 200: DelaysOut },
      handler: async ({ query, project }) => service.delays(query, project),
    }),
  ];
}

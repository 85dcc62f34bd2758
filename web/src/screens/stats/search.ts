// The statistics wall's URL parameters: the router validates them (a small module, outside the
// screen's chunk, which carries ECharts).

export const GRANULARITIES = ["day", "week", "month", "quarter", "year"] as const;
export type Granularity = (typeof GRANULARITIES)[number];

/**
 * The wall's URL: `/stats?project_id=…&from=…&to=…&granularity=…&include_reference_only=true` (no
 * project: the whole corpus; no period: the server's default, the last year of the data held).
 */
export interface StatsSearch {
  project_id?: string;
  from?: string;
  to?: string;
  granularity?: Granularity;
  include_reference_only?: boolean;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export function validateStatsSearch(s: Record<string, unknown>): StatsSearch {
  const day = (v: unknown) => (typeof v === "string" && DAY.test(v) ? v : undefined);
  const out: StatsSearch = {};
  if (typeof s.project_id === "string" && /^[0-9a-f-]{36}$/i.test(s.project_id)) out.project_id = s.project_id;
  if (day(s.from)) out.from = day(s.from);
  if (day(s.to)) out.to = day(s.to);
  if ((GRANULARITIES as readonly unknown[]).includes(s.granularity)) out.granularity = s.granularity as Granularity;
  if (s.include_reference_only === true || s.include_reference_only === "true") out.include_reference_only = true;
  return out;
}

/** Today in Paris (the API's days are Paris calendar days). */
export function parisToday(now = new Date()): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Paris", year: "numeric", month: "2-digit", day: "2-digit" }).format(now);
}

/** The API's default period: 365 days ending `to`. */
export function yearBefore(to: string): string {
  return new Date(Date.parse(`${to}T00:00:00Z`) - 364 * 86_400_000).toISOString().slice(0, 10);
}

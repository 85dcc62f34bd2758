import { invalid } from "../../platform/errors.js";
import { addDays, parisDate } from "../../platform/paris.js";
import { INVALID } from "../../platform/messages.js";

/** Calendar granularities of the time series, trends and delays (weeks are ISO: Monday to Sunday). */
export const GRANULARITIES = ["day", "week", "month", "quarter", "year"] as const;
export type Granularity = (typeof GRANULARITIES)[number];

/** Shortcuts for the period (the `period` query parameter): the last N days up to today, or since 1 January. */
export const PERIOD_SHORTCUTS = ["7d", "30d", "90d", "365d", "ytd", "5y"] as const;
export type PeriodShortcut = (typeof PERIOD_SHORTCUTS)[number];

/** At most this many periods in one answer (10 years of days): a longer series is refused (422). */
export const MAX_PERIODS = 3660;

export interface Period {
  from: string;
  to: string;
  /** The shortcut that gave the period, or null. */
  period: PeriodShortcut | null;
}

const DAY_MS = 86_400_000;
const utc = (day: string) => Date.parse(`${day}T00:00:00Z`);
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The period asked for, in Europe/Paris calendar days, both ends included: `from`/`to` as given;
 * a missing `to` is today in Paris; a missing `from` is 364 days before `to` (365 days in all);
 * `period` (a shortcut) sets both and may not be combined with them. Nothing given at all: the 365
 * days up to `newest` (the newest publication day held) when it is before today — a corpus that
 * stopped (a snapshot, a paused sync) shows its last year, not an empty one.
 */
export function resolvePeriod(q: { from?: string; to?: string; period?: PeriodShortcut }, now: Date, newest?: string | null): Period {
  const today = parisDate(now);
  if (q.period) {
    if (q.from !== undefined || q.to !== undefined) throw invalid(["query", "period"], INVALID.periodWithDates, q.period);
    const [y, m, d] = today.split("-").map(Number) as [number, number, number];
    const from =
      q.period === "ytd"
        ? `${y}-01-01`
        : q.period === "5y"
          ? addDays(iso(Date.UTC(y - 5, m - 1, d)), 1) // the day after the same date 5 years back (29 Feb: 1 March + 1)
          : addDays(today, 1 - Number(q.period.slice(0, -1)));
    return { from, to: today, period: q.period };
  }
  const followsData = q.from === undefined && q.to === undefined && !!newest && newest < today;
  const to = q.to ?? (followsData ? newest! : today);
  const from = q.from ?? addDays(to, -364);
  if (from > to) throw invalid(["query", "from"], INVALID.fromAfterTo, from);
  return { from, to, period: null };
}

/** The first day of the period of `day` (ISO week: its Monday). */
export function periodStart(day: string, g: Granularity): string {
  const [y, m] = [Number(day.slice(0, 4)), Number(day.slice(5, 7))];
  switch (g) {
    case "day":
      return day;
    case "week": {
      const weekday = (new Date(utc(day)).getUTCDay() + 6) % 7; // Monday 0
      return iso(utc(day) - weekday * DAY_MS);
    }
    case "month":
      return `${day.slice(0, 7)}-01`;
    case "quarter":
      return `${y}-${String(m - ((m - 1) % 3)).padStart(2, "0")}-01`;
    case "year":
      return `${y}-01-01`;
  }
}

/** The label of the period starting on `start`: 2024-03-05, 2024-W10 (ISO week-year), 2024-03, 2024-Q1, 2024. */
export function periodLabel(start: string, g: Granularity): string {
  switch (g) {
    case "day":
      return start;
    case "week": {
      // The ISO week-year is the year of the week's Thursday; week 1 holds the year's first Thursday.
      const thursday = utc(start) + 3 * DAY_MS;
      const year = new Date(thursday).getUTCFullYear();
      const week = Math.floor((thursday - Date.UTC(year, 0, 1)) / (7 * DAY_MS)) + 1;
      return `${year}-W${String(week).padStart(2, "0")}`;
    }
    case "month":
      return start.slice(0, 7);
    case "quarter":
      return `${start.slice(0, 4)}-Q${(Number(start.slice(5, 7)) + 2) / 3}`;
    case "year":
      return start.slice(0, 4);
  }
}

function nextStart(start: string, g: Granularity): string {
  if (g === "day") return addDays(start, 1);
  if (g === "week") return addDays(start, 7);
  const months = g === "month" ? 1 : g === "quarter" ? 3 : 12;
  const d = new Date(utc(start));
  d.setUTCMonth(d.getUTCMonth() + months);
  return iso(d.getTime());
}

/** The periods meeting [from, to], in order (the first and last may extend beyond it); 422 past MAX_PERIODS. */
export function periodsOf(p: Period, g: Granularity): { period: string; start: string }[] {
  const out: { period: string; start: string }[] = [];
  for (let s = periodStart(p.from, g); s <= p.to; s = nextStart(s, g)) {
    if (out.length === MAX_PERIODS) throw invalid(["query", "granularity"], INVALID.tooManyPeriods(MAX_PERIODS), g);
    out.push({ period: periodLabel(s, g), start: s });
  }
  return out;
}

/**
 * Percentages of the counts' sum with two decimals that add up to exactly 100 (largest remainder):
 * the hundredths left over by rounding down go to the largest remainders. All 0 when the sum is 0.
 */
export function sharesOf(counts: number[]): number[] {
  const total = counts.reduce((a, b) => a + b, 0);
  if (total <= 0) return counts.map(() => 0);
  const exact = counts.map((c) => (c * 10_000) / total);
  const floors = exact.map(Math.floor);
  let left = 10_000 - floors.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => [e - floors[i]!, i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const [, i] of order) {
    if (left <= 0) break;
    floors[i]! += 1;
    left -= 1;
  }
  return floors.map((f) => f / 100);
}

/** A percentage with two decimals (not forced to add up: shares of a total some items share). */
export const pct = (part: number, whole: number): number => (whole > 0 ? Math.round((part * 10_000) / whole) / 100 : 0);

import { z } from "zod";

/**
 * How a notify node delivers (issue 37): at once (the default, and what a node without `delivery`
 * does), or gathered in a digest closed on a schedule in Europe/Paris time — every hour, every day
 * at `hour`, or every week on `weekday` (1 Monday … 7 Sunday, ISO) at `hour`. `empty`: what a
 * period without any event sends (nothing, or a « rien à signaler » message).
 */
export const Delivery = z
  .object({
    mode: z.enum(["immediate", "digest"]).default("immediate"),
    every: z.enum(["hourly", "daily", "weekly"]).default("daily").describe("Digest only: when it is sent"),
    hour: z.int().min(0).max(23).default(8).describe("Digest only (daily, weekly): the hour, Europe/Paris time"),
    weekday: z.int().min(1).max(7).default(1).describe("Digest only (weekly): 1 Monday … 7 Sunday"),
    empty: z
      .enum(["skip", "rien_a_signaler"])
      .default("skip")
      .describe("Digest only: a period without events sends nothing (skip) or « rien à signaler »"),
  })
  .meta({ id: "NotifyDelivery" });

export type Delivery = z.output<typeof Delivery>;

/** The schedule of a digest made for throttled runs when the workflow's notify node sends at once. */
export const OVERFLOW_DELIVERY: Delivery = { mode: "digest", every: "hourly", hour: 8, weekday: 1, empty: "skip" };

/** A node's delivery from its stored params; null when it sends at once. */
export function digestDelivery(params: Record<string, unknown> | null | undefined): Delivery | null {
  const raw = params?.delivery;
  if (!raw || typeof raw !== "object") return null;
  const parsed = Delivery.safeParse(raw);
  return parsed.success && parsed.data.mode === "digest" ? parsed.data : null;
}

const HOUR_MS = 3_600_000;
const PARTS = new Intl.DateTimeFormat("en-GB", {
  timeZone: "Europe/Paris",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  weekday: "short",
  hourCycle: "h23",
});
const WEEKDAYS: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };

/** The Paris wall clock of an instant. */
function paris(t: number): { day: string; hour: number; minute: number; weekday: number } {
  const p = Object.fromEntries(PARTS.formatToParts(new Date(t)).map((x) => [x.type, x.value]));
  return { day: `${p.year}-${p.month}-${p.day}`, hour: Number(p.hour), minute: Number(p.minute), weekday: WEEKDAYS[p.weekday!]! };
}

/**
 * The first instant of Paris day `day` (YYYY-MM-DD) whose wall clock reads `hour`:00 or later: the
 * hour itself, or — on the spring-forward night, when 02:00 does not exist — 03:00. Paris offsets
 * are whole hours, so the candidates are whole UTC hours.
 */
export function parisHour(day: string, hour: number): number {
  const base = Date.parse(`${day}T00:00:00Z`) + hour * HOUR_MS;
  for (const back of [2, 1, 0, -1]) {
    const t = base - back * HOUR_MS;
    const p = paris(t);
    if (p.day === day && p.hour >= hour) return t;
  }
  return base; // unreachable for Europe/Paris
}

function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/**
 * The latest schedule instant at or before `now` (the digest that instant closes): the whole hour
 * for hourly; the day's `hour` in Paris for daily (yesterday's when today's is still ahead); the
 * last `weekday` at `hour` for weekly. In autumn, when 02:00 Paris happens twice, the first one
 * counts (one digest for that day).
 */
export function lastSlot(d: Delivery, now: Date): Date {
  const t = now.getTime();
  if (d.every === "hourly") return new Date(Math.floor(t / HOUR_MS) * HOUR_MS);
  const today = paris(t).day;
  for (let back = 0; back <= 7; back++) {
    const day = addDays(today, -back);
    if (d.every === "weekly" && paris(Date.parse(`${day}T12:00:00Z`)).weekday !== d.weekday) continue;
    const at = parisHour(day, d.hour);
    if (at <= t) return new Date(at);
  }
  throw new Error("no schedule instant found in the last 8 days");
}

/** The next schedule instant after `now` (when the next digest is due). */
export function nextSlot(d: Delivery, now: Date): Date {
  const t = now.getTime();
  if (d.every === "hourly") return new Date((Math.floor(t / HOUR_MS) + 1) * HOUR_MS);
  const today = paris(t).day;
  for (let ahead = 0; ahead <= 8; ahead++) {
    const day = addDays(today, ahead);
    if (d.every === "weekly" && paris(Date.parse(`${day}T12:00:00Z`)).weekday !== d.weekday) continue;
    const at = parisHour(day, d.hour);
    if (at > t) return new Date(at);
  }
  throw new Error("no schedule instant found in the next 9 days");
}

import { addMonths } from "./dates";
import { dateOf } from "./status";

type DateOrBool = string | boolean | null;

/** A date of a subscribed cycle placed on the calendar. */
export interface CalendarEvent {
  day: string;
  kind: "support" | "eol";
  productId: string;
  productName: string;
  cycle: string;
}

/**
 * The end-of-support and end-of-life dates of the subscribed cycles that fall in the `count`
 * months from `start` (YYYY-MM), by month, each month's in date order. A subscription to every
 * cycle (cycle null) places each of the product's cycles.
 */
export function calendarMonths(
  subs: { product_id: string; cycle: string | null }[],
  products: Map<string, { name: string; cycles: { cycle: string; eol: DateOrBool; support: DateOrBool }[] }>,
  start: string,
  count = 12,
): { month: string; events: CalendarEvent[] }[] {
  const months = Array.from({ length: count }, (_, i) => ({ month: addMonths(start, i), events: [] as CalendarEvent[] }));
  const byMonth = new Map(months.map((m) => [m.month, m.events]));
  const placed = new Set<string>();
  for (const sub of subs) {
    const product = products.get(sub.product_id);
    if (!product) continue;
    for (const c of product.cycles) {
      if (sub.cycle !== null && c.cycle !== sub.cycle) continue;
      for (const kind of ["support", "eol"] as const) {
        const day = dateOf(c[kind]);
        const key = `${sub.product_id} ${c.cycle} ${kind}`;
        if (!day || placed.has(key)) continue;
        const events = byMonth.get(day.slice(0, 7));
        if (!events) continue;
        placed.add(key);
        events.push({ day, kind, productId: sub.product_id, productName: product.name, cycle: c.cycle });
      }
    }
  }
  for (const m of months) m.events.sort((a, b) => a.day.localeCompare(b.day) || a.productName.localeCompare(b.productName));
  return months;
}

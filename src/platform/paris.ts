/**
 * Calendar days in Europe/Paris, whatever the server's own time zone: exceptions and register
 * entries are valid through their `expires_on` day in Paris and end at the next 00:00 Paris.
 */
const PARIS = new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Paris", year: "numeric", month: "2-digit", day: "2-digit" });

/** The Paris calendar day (YYYY-MM-DD) of an instant. */
export function parisDate(instant: Date): string {
  return PARIS.format(instant);
}

/** YYYY-MM-DD plus `days` calendar days (negative: before). */
export function addDays(day: string, days: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** The instant 00:00 Europe/Paris begins the day `day` (YYYY-MM-DD): 23:00 or 22:00 UTC the day before. */
export function parisMidnight(day: string): Date {
  const utcMidnight = Date.parse(`${day}T00:00:00Z`);
  for (const hours of [2, 1, 0]) {
    const t = utcMidnight - hours * 3600_000;
    if (parisDate(new Date(t)) === day && parisDate(new Date(t - 1)) !== day) return new Date(t);
  }
  throw new Error(`no Paris midnight found for ${day}`);
}

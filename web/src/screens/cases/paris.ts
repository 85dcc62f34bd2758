import { addDays, parisDate } from "../../../../src/platform/paris.js";

// Exception expiry counted in Paris calendar days (README, "Expiry, in Paris time"): an exception
// is valid through its `expires_on` day in Europe/Paris and ends at the next 00:00 Paris, whatever
// the user's own time zone. The day arithmetic is the server's own (src/platform/paris.ts).

export { addDays, parisDate };

/** Today in Paris (YYYY-MM-DD). */
export function parisToday(now: Date = new Date()): string {
  return parisDate(now);
}

/**
 * Paris calendar days from today to `expiresOn` (0: it ends tonight at 00:00 Paris; negative: past,
 * the expiry job has not run yet). Counted on dates, so a DST change in between changes nothing.
 */
export function parisDaysLeft(expiresOn: string, now: Date = new Date()): number {
  return Math.round((Date.parse(`${expiresOn}T00:00:00Z`) - Date.parse(`${parisToday(now)}T00:00:00Z`)) / 86_400_000);
}

/** The expiry date that applies to a case: its own exception's, else the covering register entry's. */
export function effectiveExpiry(c: { exception?: { expires_on: string } | null; risque?: { expires_on: string } | null }): string | null {
  return c.exception?.expires_on ?? c.risque?.expires_on ?? null;
}

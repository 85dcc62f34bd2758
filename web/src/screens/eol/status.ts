import type { components } from "../../api/schema";

type DateOrBool = string | boolean | null | undefined;

/** Where a cycle stands on a day: supported, active support ended, end of life reached, or unknown. */
export type EolStatus = "supported" | "support_ended" | "eol" | "unknown";

/** Today's date (YYYY-MM-DD) in Paris, the day the EOL notices count in. */
export function parisToday(now = new Date()): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Paris", year: "numeric", month: "2-digit", day: "2-digit" }).format(now);
}

/** Upstream's date (YYYY-MM-DD) when it gives one, else null (true, false, nothing). */
export function dateOf(v: DateOrBool): string | null {
  return typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : null;
}

/** A date or `true` that has come by `today`: reached. */
const reached = (v: DateOrBool, today: string) => v === true || (dateOf(v) !== null && dateOf(v)! <= today);

/**
 * A cycle's status on `today` from its end-of-life and end-of-active-support dates (a date, `true`:
 * reached on an unknown day, `false`: not planned): EOL first, then support ended; supported when
 * either date says it is still to come (or not planned); unknown when upstream says nothing.
 */
export function eolStatus(c: { eol: DateOrBool; support: DateOrBool }, today: string): EolStatus {
  if (reached(c.eol, today)) return "eol";
  if (reached(c.support, today)) return "support_ended";
  const known = (v: DateOrBool) => v === false || dateOf(v) !== null;
  return known(c.eol) || known(c.support) ? "supported" : "unknown";
}

export const EOL_TONE: Record<EolStatus, "ok" | "warn" | "bad" | "idle"> = {
  supported: "ok",
  support_ended: "warn",
  eol: "bad",
  unknown: "idle",
};

export type StackItemEol = components["schemas"]["StackItemEolOut"];

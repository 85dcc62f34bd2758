/**
 * The soak's verdicts, pure: what a request's answer, a webhook received twice or a run of
 * X-RateLimit-Remaining values means given when processes were killed and when the database
 * connections were dropped. The driver (main.ts) gathers the facts; test/soak-checks.test.ts checks
 * these rules.
 */

/** A span (ms since the epoch) in which some failures are expected. */
export interface Window {
  /**
   * kill: one process killed with SIGKILL until it answers /readyz again; crash: one that exited on
   * its own, until it is ready again; drop: every database connection terminated, until every
   * process is ready again (and a grace after).
   */
  kind: "kill" | "crash" | "drop";
  /** The process killed ("api-1", "worker-2"); every process for a drop. */
  process: string;
  start: number;
  end: number;
}

/** One HTTP attempt of the traffic client. */
export interface Attempt {
  op: string;
  api: string;
  start: number;
  end: number;
  /** null: no answer (connection refused or reset, timeout). */
  status: number | null;
  /** The status is one the operation expects (2xx, or the 4xx it provokes on purpose). */
  expected: boolean;
  error?: string;
}

export type Verdict = "ok" | "503 during the drop" | "cut by a kill" | "failure";

const overlaps = (a: { start: number; end: number }, w: Window) => a.start <= w.end && a.end >= w.start;

/**
 * A 503 is allowed while the database connections are down; an attempt left unanswered only if it
 * went to a process killed meanwhile. Any other 5xx, a 503 outside the drop, no answer from a live
 * (or crashed) process, or a status the operation does not expect is a failure.
 */
export function classify(a: Attempt, windows: Window[]): Verdict {
  if (a.status === null)
    return windows.some((w) => w.kind === "kill" && w.process === a.api && overlaps(a, w)) ? "cut by a kill" : "failure";
  if (a.status === 503) return windows.some((w) => w.kind === "drop" && overlaps(a, w)) ? "503 during the drop" : "failure";
  if (a.status >= 500 || !a.expected) return "failure";
  return "ok";
}

/** One webhook request the receiver got. */
export interface Receipt {
  delivery: string;
  runId: string;
  at: number;
  signed: boolean;
}

export interface Duplicate {
  delivery: string;
  runId: string;
  count: number;
  first: number;
  last: number;
  /** How many times a worker took the run. */
  attempts: number;
  /** The end of a worker (killed or dead), or the drop, between the first and the last receipt, that explains the resend. */
  cause: Window | null;
}

/**
 * Delivery ids received more than once. The engine delivers at least once: a worker killed or dead
 * (or its connection cut) after the receiver's 2xx and before the step is recorded sends it again,
 * with the same id, once the run is resumed. Such a resend is explained when the run was taken again
 * (attempts ≥ 2) and a worker's end or the drop happened between the two receipts; any other is not
 * (a worker that died on its own fails the processes' check anyway).
 */
export function duplicates(receipts: Receipt[], attemptsOf: (runId: string) => number, windows: Window[]): Duplicate[] {
  const byId = new Map<string, Receipt[]>();
  for (const r of receipts) byId.set(r.delivery, [...(byId.get(r.delivery) ?? []), r]);
  const out: Duplicate[] = [];
  for (const [delivery, rs] of byId) {
    if (rs.length < 2) continue;
    const first = Math.min(...rs.map((r) => r.at));
    const last = Math.max(...rs.map((r) => r.at));
    const attempts = attemptsOf(rs[0]!.runId);
    const cause =
      attempts >= 2
        ? (windows.find((w) => (w.kind === "drop" || w.process.startsWith("worker")) && w.start >= first && w.start <= last) ?? null)
        : null;
    out.push({ delivery, runId: rs[0]!.runId, count: rs.length, first, last, attempts, cause });
  }
  return out;
}

/** Rises of X-RateLimit-Remaining between consecutive answers (in the order they left the servers). */
export function remainingRises(values: number[]): { from: number; to: number; index: number }[] {
  const rises: { from: number; to: number; index: number }[] = [];
  for (let i = 1; i < values.length; i++) if (values[i]! > values[i - 1]!) rises.push({ from: values[i - 1]!, to: values[i]!, index: i });
  return rises;
}

/**
 * What the call counter says was granted in a window: `api_usage.count` only grows by what was
 * asked (src/platform/auth/rate-limiter.ts), so the grants are the part of it below the limit.
 */
export const granted = (count: number, limit: number) => Math.min(count, limit);

/** Value at quantile q (0..1) of xs, nearest rank; NaN when empty. */
export function quantile(xs: number[], q: number): number {
  if (!xs.length) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

/** "1.9–3.2 s (median 2.4)" from milliseconds, or "3–41 ms (median 7)". */
export function spread(ms: number[], unit: "s" | "ms" = "s"): string {
  if (!ms.length) return "none";
  const s = (x: number) => (unit === "s" ? (x / 1000).toFixed(1) : String(Math.round(x)));
  return `${s(Math.min(...ms))}–${s(Math.max(...ms))} ${unit} (median ${s(quantile(ms, 0.5))})`;
}

/** One line of the summary. */
export interface Check {
  name: string;
  pass: boolean;
  figures: string;
  /** What failed, a few lines at most. */
  details?: string[];
}

/** The summary table, every check with its figures; failed checks list their details under them. */
export function summary(checks: Check[]): string {
  const width = Math.max(...checks.map((c) => c.name.length));
  const lines = [`${"check".padEnd(width)}  result  figures`];
  for (const c of checks) {
    lines.push(`${c.name.padEnd(width)}  ${c.pass ? "PASS  " : "FAIL  "}  ${c.figures}`);
    for (const d of (c.details ?? []).slice(0, 8)) lines.push(`${"".padEnd(width)}          ↳ ${d}`);
  }
  const failed = checks.filter((c) => !c.pass).length;
  lines.push(failed ? `${failed} of ${checks.length} checks FAILED` : `all ${checks.length} checks passed`);
  return lines.join("\n");
}

/**
 * CVSS v3.x base score (FIRST "CVSS v3.1 Specification Document", section 7.1 and Appendix A)
 * and the qualitative severity scale (section 5).
 *
 * Pure functions, no dependency. The v3.1 Roundup (Appendix A: integer arithmetic to avoid
 * floating-point artefacts) is used for both 3.0 and 3.1 vectors: the base equations are the same
 * in both versions (v3.1 only changed Roundup and environmental Modified Scope), and the 3.1
 * Roundup returns the value the 3.0 "round up to one decimal" intends. Checked against the 1,188
 * distinct vector/score pairs of the NVD 1.1 feeds (38,979 CVSS:3.0 and 19,178 CVSS:3.1 metrics).
 */

export type Severity = "critical" | "high" | "medium" | "low" | "none" | "unknown";

const AV: Record<string, number> = { N: 0.85, A: 0.62, L: 0.55, P: 0.2 };
const AC: Record<string, number> = { L: 0.77, H: 0.44 };
/** Privileges Required when Scope is Unchanged / Changed. */
const PR_U: Record<string, number> = { N: 0.85, L: 0.62, H: 0.27 };
const PR_C: Record<string, number> = { N: 0.85, L: 0.68, H: 0.5 };
const UI: Record<string, number> = { N: 0.85, R: 0.62 };
const CIA: Record<string, number> = { H: 0.56, L: 0.22, N: 0 };
const SCOPE: Record<string, true> = { U: true, C: true };

const BASE_METRICS = ["AV", "AC", "PR", "UI", "S", "C", "I", "A"] as const;
type BaseMetric = (typeof BASE_METRICS)[number];

/** Temporal and environmental metrics (and their allowed values) that may follow the base ones. */
const OTHER_METRICS: Record<string, readonly string[]> = {
  E: ["X", "H", "F", "P", "U"],
  RL: ["X", "U", "W", "T", "O"],
  RC: ["X", "C", "R", "U"],
  CR: ["X", "H", "M", "L"],
  IR: ["X", "H", "M", "L"],
  AR: ["X", "H", "M", "L"],
  MAV: ["X", "N", "A", "L", "P"],
  MAC: ["X", "L", "H"],
  MPR: ["X", "N", "L", "H"],
  MUI: ["X", "N", "R"],
  MS: ["X", "U", "C"],
  MC: ["X", "H", "L", "N"],
  MI: ["X", "H", "L", "N"],
  MA: ["X", "H", "L", "N"],
};

const BASE_VALUES: Record<BaseMetric, Record<string, unknown>> = {
  AV,
  AC,
  PR: PR_U,
  UI,
  S: SCOPE,
  C: CIA,
  I: CIA,
  A: CIA,
};

/**
 * The specification's Roundup (CVSS v3.1, Appendix A): the smallest number, to one decimal
 * place, that is equal to or higher than the input, computed on integers so that e.g.
 * 4.000000000000001 gives 4.0 and not 4.1.
 */
export function roundup(value: number): number {
  const intInput = Math.round(value * 100_000);
  if (intInput % 10_000 === 0) return intInput / 100_000;
  return (Math.floor(intInput / 10_000) + 1) / 10;
}

/**
 * The CVSS v3.0/v3.1 base score of a vector string such as
 * `CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H` (→ 10.0).
 *
 * Returns null when the string is not a valid v3.x vector: missing `CVSS:3.0/` or `CVSS:3.1/`
 * prefix (so v2 and v4 vectors give null), a missing, repeated or unknown metric, or an
 * invalid value. Temporal/environmental metrics are accepted (validated) and ignored: this is
 * the base score.
 */
export function cvss3BaseScore(vector: string): number | null {
  if (typeof vector !== "string") return null;
  const parts = vector.trim().split("/");
  const prefix = parts.shift();
  if (prefix !== "CVSS:3.1" && prefix !== "CVSS:3.0") return null;
  const base = new Map<string, string>();
  const seen = new Set<string>();
  for (const part of parts) {
    const colon = part.indexOf(":");
    if (colon <= 0) return null;
    const key = part.slice(0, colon);
    const value = part.slice(colon + 1);
    if (seen.has(key)) return null;
    seen.add(key);
    if ((BASE_METRICS as readonly string[]).includes(key)) {
      if (!(value in BASE_VALUES[key as BaseMetric])) return null;
      base.set(key, value);
    } else {
      const allowed = OTHER_METRICS[key];
      if (!allowed?.includes(value)) return null;
    }
  }
  if (base.size !== BASE_METRICS.length) return null;

  const changed = base.get("S") === "C";
  const av = AV[base.get("AV")!]!;
  const ac = AC[base.get("AC")!]!;
  const pr = (changed ? PR_C : PR_U)[base.get("PR")!]!;
  const ui = UI[base.get("UI")!]!;
  const c = CIA[base.get("C")!]!;
  const i = CIA[base.get("I")!]!;
  const a = CIA[base.get("A")!]!;

  const iss = 1 - (1 - c) * (1 - i) * (1 - a);
  const impact = changed ? 7.52 * (iss - 0.029) - 3.25 * (iss - 0.02) ** 15 : 6.42 * iss;
  const exploitability = 8.22 * av * ac * pr * ui;
  if (impact <= 0) return 0;
  return changed ? roundup(Math.min(1.08 * (impact + exploitability), 10)) : roundup(Math.min(impact + exploitability, 10));
}

/**
 * CVSS qualitative severity rating (v3.x specification, section 5; the same bands are used by
 * v4.0): 0.0 none, 0.1–3.9 low, 4.0–6.9 medium, 7.0–8.9 high, 9.0–10.0 critical; null (no score)
 * or a value outside 0–10 → "unknown".
 */
export function severityFromScore(score: number | null): Severity {
  if (score === null || typeof score !== "number" || !Number.isFinite(score)) return "unknown";
  if (score < 0 || score > 10) return "unknown";
  if (score === 0) return "none";
  if (score < 4) return "low";
  if (score < 7) return "medium";
  if (score < 9) return "high";
  return "critical";
}

/**
 * `palier`: the priority tier of a vulnerability, from what most predicts harm first:
 * - P1 — exploited in the wild (KEV), or EPSS ≥ 0.5, or a critical one with a public PoC;
 * - P2 — critical, or high with a public PoC or EPSS ≥ 0.1;
 * - P3 — high, or medium with a public PoC or EPSS ≥ 0.1;
 * - P4 — everything else (medium, low, none, unknown).
 */
export const PALIERS = ["P1", "P2", "P3", "P4"] as const;
export type Palier = (typeof PALIERS)[number];

export function palier(s: { severity: string | null; epss: number | null; isKev: boolean; hasPoc: boolean }): Palier {
  const epss = s.epss ?? 0;
  const likely = s.hasPoc || epss >= 0.1;
  if (s.isKev || epss >= 0.5 || (s.severity === "critical" && s.hasPoc)) return "P1";
  if (s.severity === "critical" || (s.severity === "high" && likely)) return "P2";
  if (s.severity === "high" || (s.severity === "medium" && likely)) return "P3";
  return "P4";
}

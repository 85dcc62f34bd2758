import type { RiskCaseRow, RiskRow } from "./risks.repository.js";
import type { RiskDetailOut, RiskOut } from "./risks.schemas.js";

const iso = (d: Date | string) => new Date(d).toISOString();

/** RiskOut: the entry, its effective status and how many of the visible cases it covers. */
export function presentRisk(r: RiskRow): RiskOut {
  return {
    id: r.id,
    title: r.title,
    owner: r.owner,
    justification: r.justification,
    review_on: r.review_on,
    expires_on: r.expires_on,
    status: r.status,
    cases_count: r.cases_count,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/** RiskDetailOut: the entry and the covered cases the caller may see. */
export function presentRiskDetail(r: RiskRow, cases: RiskCaseRow[]): RiskDetailOut {
  return {
    ...presentRisk(r),
    cases: cases.map((c) => ({ project_id: c.project_id, cve_id: c.cve_id, status: c.status, severity: c.severity })),
  };
}

import type { OrgItem, PlanInfo } from "./organizations.schemas.js";
import type { OrgRow, PlanRow } from "./organizations.repository.js";

export function presentPlan(p: PlanRow | null): PlanInfo | null {
  return p ? { name: p.name, slug: p.slug, max_api_calls_per_hour: p.maxApiCallsPerHour } : null;
}

export function presentOrg(o: OrgRow, role: string): OrgItem {
  return { id: o.id, name: o.name, role, is_personal: o.isPersonal, created_at: o.createdAt.toISOString() };
}

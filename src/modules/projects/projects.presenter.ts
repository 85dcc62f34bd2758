import type { ProjectRow } from "./projects.repository.js";
import type { ProjectItem } from "./projects.schemas.js";

export function presentProject(p: ProjectRow): ProjectItem {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    org_id: p.orgId,
    is_default: p.isDefault,
    created_at: p.createdAt.toISOString(),
  };
}

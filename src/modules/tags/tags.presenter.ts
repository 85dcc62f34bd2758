import type { TagRow } from "./tags.repository.js";
import type { TagBrief } from "./tags.schemas.js";

export function presentTag(t: TagRow): TagBrief {
  return { id: t.id, name: t.name, color: t.color };
}

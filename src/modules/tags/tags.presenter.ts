import type { TagRow } from "./tags.repository.js";
import type { TagBriefOut } from "./tags.schemas.js";

export function presentTag(t: TagRow): TagBriefOut {
  return { id: t.id, name: t.name, color: t.color };
}

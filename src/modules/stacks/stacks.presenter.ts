import type { TagRow } from "../tags/tags.repository.js";
import { presentTag } from "../tags/tags.presenter.js";
import type { StackItemRow } from "./stacks.repository.js";
import type { StackView } from "./stacks.service.js";

export function presentItem(i: StackItemRow, tags: TagRow[] = []) {
  return {
    id: i.id,
    item_type: i.itemType,
    value: i.value,
    min_severity: i.minSeverity,
    tags: tags.map(presentTag),
    created_at: i.createdAt.toISOString(),
  };
}

export function presentStack(v: StackView) {
  return { id: v.stack.id, name: v.stack.name, project_id: v.stack.projectId, items: v.items.map((i) => presentItem(i, v.tags.get(i.id))) };
}

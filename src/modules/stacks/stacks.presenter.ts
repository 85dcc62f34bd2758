import type { ItemMatchingProgress } from "../../matching/background.js";
import type { TagRow } from "../tags/tags.repository.js";
import { presentTag } from "../tags/tags.presenter.js";
import type { StackItemRow } from "./stacks.repository.js";
import type { StackView } from "./stacks.service.js";
import type { StackItemEol } from "../eol/eol.schemas.js";

/** The facts StackItemEolOut names, field by field (the lookup carries more). */
function strip(e: StackItemEol): StackItemEol {
  const { product_id, product_name, cycle, release_date, eol, lts, support, extended_support, latest, link } = e;
  return { product_id, product_name, cycle, release_date, eol, lts, support, extended_support, latest, link };
}

/** StackItemOut; `eol`: the endoflife.date cycle the item runs, or null; `matching`: its background matching, or null. */
export function presentItem(
  i: StackItemRow,
  tags: TagRow[] = [],
  eol: StackItemEol | null = null,
  matching: ItemMatchingProgress | null = null,
) {
  return {
    id: i.id,
    item_type: i.itemType,
    value: i.value,
    min_severity: i.minSeverity,
    tags: tags.map(presentTag),
    created_at: i.createdAt.toISOString(),
    eol: eol ? strip(eol) : null,
    sbom_id: i.sbomId,
    matching: matching && {
      state: matching.state,
      candidates: matching.candidates,
      processed: matching.processed,
      raised: matching.raised,
    },
  };
}

export function presentStack(v: StackView) {
  return {
    id: v.stack.id,
    name: v.stack.name,
    project_id: v.stack.projectId,
    items: v.items.map((i) => presentItem(i, v.tags.get(i.id), v.eol.get(i.id) ?? null, v.matching.get(i.id) ?? null)),
  };
}

/** StackItemPageOut. */
export function presentItemPage(
  p: {
    items: StackItemRow[];
    tags: Map<string, TagRow[]>;
    eol: Map<string, StackItemEol>;
    matching: Map<string, ItemMatchingProgress>;
    total: number;
  },
  query: { page: number; page_size: number },
) {
  return {
    items: p.items.map((i) => presentItem(i, p.tags.get(i.id), p.eol.get(i.id) ?? null, p.matching.get(i.id) ?? null)),
    total: p.total,
    page: query.page,
    page_size: query.page_size,
  };
}

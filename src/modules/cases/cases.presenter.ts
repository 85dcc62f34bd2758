import type { TagRow } from "../tags/tags.repository.js";
import { presentTag } from "../tags/tags.presenter.js";
import type { CaseRow, HistoryRow } from "./cases.repository.js";
import { TRANSITIONS } from "./cases.states.js";
import type { CaseDetailOut, CaseExportRow, CaseHistoryOut, CaseListOut, CaseListQuery, CaseOut } from "./cases.schemas.js";

const iso = (d: Date | string) => new Date(d).toISOString();

/** CaseOut: `exception` is the case's own (MITIGATED or an accepted risk outside the register); a register entry shows in `risque`. */
export function presentCase(c: CaseRow, tags: TagRow[] = []): CaseOut {
  return {
    cve_id: c.cve_id,
    status: c.status,
    severity: c.severity,
    notes: c.notes,
    created_at: iso(c.created_at),
    updated_at: iso(c.updated_at),
    exception: c.exception_nature
      ? {
          nature: c.exception_nature,
          measure: c.exception_measure,
          justification: c.exception_justification!,
          expires_on: c.exception_expires_on!,
          set_at: c.exception_set_at === null ? null : iso(c.exception_set_at),
        }
      : null,
    tags: tags.map(presentTag),
    risque: c.risk_id ? { id: c.risk_id, title: c.risk_title!, expires_on: c.risk_expires_on! } : null,
    severity_manual: c.severity_manual,
    justification_vex: c.vex_justification,
  };
}

export function presentHistory(h: HistoryRow): CaseHistoryOut {
  return {
    from_status: h.from_status,
    to_status: h.to_status,
    comment: h.comment,
    created_at: iso(h.created_at),
    event: h.event,
    actor: { type: h.actor_type, id: h.actor_id, label: h.actor_label },
    details: h.details,
  };
}

export function presentCaseDetail(c: CaseRow, tags: TagRow[], history: HistoryRow[]): CaseDetailOut {
  return { ...presentCase(c, tags), history: history.map(presentHistory), transitions: [...TRANSITIONS[c.status]] };
}

/** One exported case: the row, its exception and register entry flattened, its tag names joined by "; ". */
export function presentCaseExport(c: CaseRow & { tag_names: string }): CaseExportRow {
  return {
    cve_id: c.cve_id,
    status: c.status,
    severity: c.severity,
    severity_manual: c.severity_manual,
    notes: c.notes,
    created_at: iso(c.created_at),
    updated_at: iso(c.updated_at),
    exception_nature: c.exception_nature,
    exception_measure: c.exception_measure,
    exception_justification: c.exception_justification,
    exception_expires_on: c.exception_expires_on,
    exception_set_at: c.exception_set_at === null ? null : iso(c.exception_set_at),
    risk_id: c.risk_id,
    risk_title: c.risk_title,
    risk_expires_on: c.risk_expires_on,
    tags: c.tag_names,
  };
}

/** A page of the case list (GET …/cases and the MCP tool list_cases). */
export function presentCaseList(
  r: { rows: CaseRow[]; tags: Map<string, TagRow[]>; total: number },
  q: Pick<CaseListQuery, "page" | "page_size">,
): CaseListOut {
  return { items: r.rows.map((c) => presentCase(c, r.tags.get(c.id))), total: r.total, page: q.page, page_size: q.page_size };
}

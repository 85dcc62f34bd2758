import type { CaseStatus } from "../../platform/db/schema/index.js";
import type { ProposalRow } from "./vex.repository.js";
import type { VexProposalListOut, VexProposalListQuery, VexProposalOut } from "./vex.schemas.js";

const iso = (d: Date | string) => new Date(d).toISOString();

/** A proposal with the project's case status for its CVE now (null: the project has only the alert). */
export interface ProposalView {
  row: ProposalRow;
  caseStatus: CaseStatus | null;
}

export function presentProposal({ row, caseStatus }: ProposalView): VexProposalOut {
  return {
    id: row.id,
    cve_id: row.cve_id,
    status: row.status,
    vex_status: row.vex_status,
    justification: row.justification,
    impact_statement: row.impact_statement,
    products: row.products,
    source: {
      format: row.source_format,
      document: row.source_document,
      author: row.source_author,
      timestamp: row.source_timestamp === null ? null : iso(row.source_timestamp),
    },
    created_at: iso(row.created_at),
    decided_at: row.decided_at === null ? null : iso(row.decided_at),
    decided_by: row.decided_by,
    decision_comment: row.decision_comment,
    case_status: caseStatus,
  };
}

export function presentProposalList(
  r: { items: ProposalView[]; total: number },
  q: Pick<VexProposalListQuery, "page" | "page_size">,
): VexProposalListOut {
  return { items: r.items.map(presentProposal), total: r.total, page: q.page, page_size: q.page_size };
}

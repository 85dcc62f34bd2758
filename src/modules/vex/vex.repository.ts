import { sql } from "drizzle-orm";
import type { Actor } from "../../platform/auth/context.js";
import type { Executor } from "../../platform/db/client.js";
import type { VexJustification, VexProposalStatus } from "../../platform/db/schema/index.js";
import { rowsOf } from "../../platform/db/sql.js";
import type { VexFormat } from "./vex.schemas.js";

/** A proposal as stored. */
export interface ProposalRow {
  id: string;
  cve_id: string;
  status: VexProposalStatus;
  vex_status: string;
  justification: VexJustification | null;
  impact_statement: string | null;
  products: string[];
  source_format: VexFormat;
  source_document: string;
  source_author: string | null;
  source_timestamp: Date | string | null;
  created_at: Date | string;
  decided_at: Date | string | null;
  decided_by: Actor | null;
  decision_comment: string | null;
}

/** One statement to propose. */
export interface ProposalIn {
  cve_id: string;
  vex_status: string;
  justification: VexJustification | null;
  impact_statement: string | null;
  products: string[];
  source_format: VexFormat;
  source_document: string;
  source_author: string | null;
  source_timestamp: string | null;
}

const COLUMNS = sql`id, cve_id, status, vex_status, justification, impact_statement, products, source_format, source_document,
  source_author, source_timestamp, created_at, decided_at, decided_by, decision_comment`;

/** SQL of vex_proposals (this module's table); every method takes the project it works within. */
export const vexRepository = {
  /**
   * Writes the proposals a document makes, in one statement: a (project, CVE, document) already
   * proposed is left as it is, decided or not. Returns the CVE ids actually inserted.
   */
  async insertMany(ex: Executor, orgId: string, projectId: string, rows: ProposalIn[]): Promise<string[]> {
    if (!rows.length) return [];
    const inserted = await rowsOf<{ cve_id: string }>(
      ex,
      sql`insert into vex_proposals (org_id, project_id, cve_id, vex_status, justification, impact_statement, products,
          source_format, source_document, source_author, source_timestamp)
        select ${orgId}, ${projectId}, p.cve_id, p.vex_status, p.justification, p.impact_statement, coalesce(p.products, '[]'::jsonb),
          p.source_format, p.source_document, p.source_author, p.source_timestamp
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as p(cve_id text, vex_status text, justification text,
          impact_statement text, products jsonb, source_format text, source_document text, source_author text, source_timestamp timestamptz)
        order by p.cve_id
        on conflict (project_id, cve_id, source_document) do nothing
        returning cve_id`,
    );
    return inserted.map((r) => r.cve_id);
  },

  /** One page of the project's proposals, newest first (ties by id). */
  async page(
    ex: Executor,
    projectId: string,
    q: { status?: VexProposalStatus; page: number; page_size: number },
  ): Promise<{ rows: ProposalRow[]; total: number }> {
    const where = q.status ? sql`project_id = ${projectId} and status = ${q.status}` : sql`project_id = ${projectId}`;
    const [rows, [count]] = await Promise.all([
      rowsOf<ProposalRow>(
        ex,
        sql`select ${COLUMNS} from vex_proposals where ${where} order by created_at desc, id desc
        limit ${q.page_size} offset ${(q.page - 1) * q.page_size}`,
      ),
      rowsOf<{ n: number }>(ex, sql`select count(*)::int as n from vex_proposals where ${where}`),
    ]);
    return { rows, total: count!.n };
  },

  async get(ex: Executor, projectId: string, id: string, forUpdate = false): Promise<ProposalRow | undefined> {
    const lock = forUpdate ? sql` for update` : sql``;
    const [row] = await rowsOf<ProposalRow>(
      ex,
      sql`select ${COLUMNS} from vex_proposals where project_id = ${projectId} and id = ${id}${lock}`,
    );
    return row;
  },

  /** Records the decision; returns the row as it now is. */
  async decide(ex: Executor, id: string, status: "acceptee" | "rejetee", actor: Actor, comment: string | null): Promise<ProposalRow> {
    const [row] = await rowsOf<ProposalRow>(
      ex,
      sql`update vex_proposals set status = ${status}, decided_at = now(), decision_comment = ${comment},
        decided_by = ${JSON.stringify({ type: actor.type, id: actor.id, label: actor.label })}::jsonb
      where id = ${id} returning ${COLUMNS}`,
    );
    return row!;
  },

  /** The organization's name: the author and publisher of the documents Vigie writes. */
  async organizationName(ex: Executor, orgId: string): Promise<string> {
    const [row] = await rowsOf<{ name: string }>(ex, sql`select name from organizations where id = ${orgId}`);
    return row?.name ?? orgId;
  },
};

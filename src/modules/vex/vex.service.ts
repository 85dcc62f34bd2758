import type { Actor, ProjectScope } from "../../platform/auth/context.js";
import type { Db, Executor } from "../../platform/db/client.js";
import { Conflict, NotFound } from "../../platform/errors.js";
import { CONFLICT, NOT_FOUND } from "../../platform/messages.js";
import { projectMatches } from "../../matching/matcher.js";
import { VERSION } from "../../version.js";
import { alertsRead } from "../alerts/alerts.read.js";
import { casesRead } from "../cases/cases.read.js";
import type { CasesService } from "../cases/cases.service.js";
import { projectsRead } from "../projects/projects.read.js";
import { csafFileName, toCsaf } from "./vex.csaf.js";
import { readVexDocument } from "./vex.import.js";
import { buildModel, type VexModel } from "./vex.model.js";
import { toOpenVex } from "./vex.openvex.js";
import type { ProposalView } from "./vex.presenter.js";
import { vexRepository as repo, type ProposalRow } from "./vex.repository.js";
import type { VexFormat, VexImportOut, VexProposalListQuery } from "./vex.schemas.js";

/** The most ignored statements an import answer lists (the count is whole). */
const MAX_IGNORED_LISTED = 1000;

/** A VEX document ready to send. */
export interface VexFile {
  contentType: string;
  fileName: string;
  body: string;
}

/**
 * VEX out and in. Out: the project's alerted CVEs, their cases and every item each matches, read in
 * set-based queries, written by one of three pure serializers. In: a supplier's document, checked against its
 * format's schema, whose not_affected statements become proposals; a proposal changes a case only
 * when the team accepts it (through CasesService, in the decision's transaction).
 */
export class VexService {
  constructor(
    private readonly db: Db,
    private readonly cases: Pick<CasesService, "acceptVex">,
    /** VIGIE_PUBLIC_URL: the CSAF document's canonical URL and the project's identifier are under it. */
    private readonly publicUrl: string | null = null,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The project's VEX document in `format`; 409 vex_vide for CSAF and OpenVEX when the project has no alert. */
  async export(project: ProjectScope, format: VexFormat): Promise<VexFile> {
    const model = await this.model(project, format);
    if (format === "cyclonedx") {
      // The CycloneDX library (with its XML writer) is loaded at the first export, not at every process start.
      const { toCycloneDx } = await import("./vex.cyclonedx.js");
      return { contentType: "application/vnd.cyclonedx+json", fileName: `vex-${project.id}.cdx.json`, body: toCycloneDx(model) };
    }
    const doc = format === "csaf" ? toCsaf(model) : toOpenVex(model);
    return {
      contentType: "application/json; charset=utf-8",
      fileName: `vex-${project.id}.${format}.json`,
      body: `${JSON.stringify(doc, null, 2)}\n`,
    };
  }

  /**
   * The CSAF document by the file name CSAF gives it (its canonical URL): the current state's, whose
   * tracking id derives from that state; 404 for any other name (an older state's, or none).
   */
  async csafFile(project: ProjectScope, fileName: string): Promise<VexFile> {
    const doc = toCsaf(await this.model(project, "csaf")) as { document: { tracking: { id: string } } };
    if (csafFileName(doc.document.tracking.id) !== fileName) throw new NotFound(NOT_FOUND.vexDocument);
    return { contentType: "application/json; charset=utf-8", fileName, body: `${JSON.stringify(doc, null, 2)}\n` };
  }

  private async model(project: ProjectScope, format: VexFormat): Promise<VexModel> {
    const [alerts, cases, org, proj] = await Promise.all([
      alertsRead.vexFacts(this.db, project.id),
      casesRead.vexFacts(this.db, project.id),
      repo.organizationName(this.db, project.orgId),
      projectsRead.name(this.db, project.id),
    ]);
    if (!alerts.length && format !== "cyclonedx") throw new Conflict(CONFLICT.emptyVex.code, CONFLICT.emptyVex.message(format));
    // Every item each CVE matches, beside the one its alert keeps (one query, the matcher's decisions).
    const matches = await projectMatches(
      this.db,
      project.id,
      alerts.map((a) => a.cve_id),
    );
    return buildModel({
      organization: { id: project.orgId, name: org },
      project: { id: project.id, name: proj },
      alerts,
      cases,
      matches,
      tool: VERSION,
      publicUrl: this.publicUrl,
      now: this.now(),
    });
  }

  /**
   * Reads a supplier's document (422 on a format or schema fault, nothing written) and proposes
   * each not_affected statement about a CVE the project has an alert or a case for. Never touches a case.
   */
  async import(project: ProjectScope, body: unknown): Promise<VexImportOut> {
    const doc = await readVexDocument(body);
    const ignored: { cve_id: string; raison: string }[] = [...doc.ignored];
    const candidates = doc.statements;
    const ids = [...new Set(candidates.map((s) => s.cve_id))];
    const { proposed, known } = await this.db.transaction(async (tx) => {
      const [alerted, cased] = await Promise.all([alertsRead.alertedCves(tx, project.id, ids), casesRead.statuses(tx, project.id, ids)]);
      const rows = [];
      for (const s of candidates) {
        if (!alerted.has(s.cve_id) && !cased.has(s.cve_id)) {
          ignored.push({ cve_id: s.cve_id, raison: "le projet n'a ni alerte ni dossier pour cette CVE" });
          continue;
        }
        rows.push({
          ...s,
          source_format: doc.format,
          source_document: doc.id,
          source_author: doc.author,
          source_timestamp: s.timestamp ?? doc.timestamp,
        });
      }
      const inserted = await repo.insertMany(tx, project.orgId, project.id, rows);
      return { proposed: inserted.length, known: rows.length - inserted.length };
    });
    return {
      format: doc.format,
      document: doc.id,
      proposees: proposed,
      deja_connues: known,
      ignorees: { count: ignored.length, items: ignored.slice(0, MAX_IGNORED_LISTED) },
    };
  }

  /** One page of the project's proposals, each with its case's status now. */
  async list(project: ProjectScope, q: VexProposalListQuery): Promise<{ items: ProposalView[]; total: number }> {
    const { rows, total } = await repo.page(this.db, project.id, q);
    const statuses = await casesRead.statuses(
      this.db,
      project.id,
      rows.map((r) => r.cve_id),
    );
    return { items: rows.map((row) => ({ row, caseStatus: statuses.get(row.cve_id) ?? null })), total };
  }

  /**
   * Accepts a proposal: in one transaction, the case becomes non_concerne with the statement's
   * justification (CasesService.acceptVex: 409 transition_invalide from corrige, attenue or
   * risque_accepte) and the proposal is marked acceptee. 409 proposition_decidee when already decided.
   */
  async accept(project: ProjectScope, id: string, comment: string | null, actor: Actor): Promise<ProposalView> {
    return this.db.transaction(async (tx) => {
      const p = await this.undecided(tx, project, id);
      const source = {
        proposal_id: p.id,
        format: p.source_format,
        document: p.source_document,
        author: p.source_author,
        timestamp: p.source_timestamp === null ? null : new Date(p.source_timestamp).toISOString(),
        vex_status: p.vex_status,
        impact_statement: p.impact_statement,
      };
      const cites = `Déclaration VEX acceptée : ${p.source_format} « ${p.source_document} »${p.source_author ? ` de ${p.source_author}` : ""}`;
      await this.cases.acceptVex(tx, project, p.cve_id, p.justification, actor, comment ? `${cites} — ${comment}` : cites, source);
      const row = await repo.decide(tx, p.id, "acceptee", actor, comment);
      return { row, caseStatus: "non_concerne" as const };
    });
  }

  /** Rejects a proposal; the case is left as it is. 409 proposition_decidee when already decided. */
  async reject(project: ProjectScope, id: string, comment: string | null, actor: Actor): Promise<ProposalView> {
    return this.db.transaction(async (tx) => {
      const p = await this.undecided(tx, project, id);
      const row = await repo.decide(tx, p.id, "rejetee", actor, comment);
      const statuses = await casesRead.statuses(tx, project.id, [row.cve_id]);
      return { row, caseStatus: statuses.get(row.cve_id) ?? null };
    });
  }

  /** The proposal, locked; 404 outside the project, 409 when decided. */
  private async undecided(tx: Executor, project: ProjectScope, id: string): Promise<ProposalRow> {
    const p = await repo.get(tx, project.id, id, true);
    if (!p) throw new NotFound(NOT_FOUND.vexProposal);
    if (p.status !== "proposee")
      throw new Conflict(CONFLICT.proposalDecided.code, CONFLICT.proposalDecided.message(p.status), { status: p.status });
    return p;
  }
}

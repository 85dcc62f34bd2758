import { actorOf } from "../../platform/auth/context.js";
import { media, route, type RouteDef } from "../../platform/http/route.js";
import { ProjectParams } from "../projects/projects.schemas.js";
import { presentProposal, presentProposalList } from "./vex.presenter.js";
import {
  CsafOrOpenVexDocument, CycloneDxVexDocument, VexCsafFileParams, VexDecisionIn, VexDocumentIn, VexExportQuery, VexImportOut, VexProposalListOut, VexProposalListQuery, VexProposalOut, VexProposalParams,
} from "./vex.schemas.js";
import type { VexService } from "./vex.service.js";

const BASE = "/api/v1/organizations/:org_id/projects/:project_id/vex";
const TAGS = ["vex"];
const WRITE = "cases-write";

/** VEX out (the cases as CycloneDX, CSAF or OpenVEX) and in (a supplier's statements as proposals the team decides). */
export function vexRoutes(service: VexService): RouteDef[] {
  return [
    route({
      operationId: "exportVex",
      errors: { 409: "format csaf or openvex and the project has no alert: both formats require at least one statement (vex_vide)" },
      method: "GET", url: BASE, auth: "both", project: true, tags: TAGS, summary: "The project's alerted CVEs and what its cases say of them, as a VEX document",
      description:
        "Every CVE the project has an alert for, with its case's analysis (no case: under investigation), its exception, the stack items it matched (purl or CPE) and the organization as author. " +
        "The mapping, and what each format cannot say, is in docs/cases.md (VEX: what the cases say, out and in). Sent as an attachment named vex-<project_id>.cdx.json, .csaf.json or .openvex.json.",
      params: ProjectParams, query: VexExportQuery,
      responses: {
        200: media({
          "application/vnd.cyclonedx+json": CycloneDxVexDocument,
          "application/json": CsafOrOpenVexDocument,
        }),
      },
      handler: async ({ project, query, reply }) => {
        const doc = await service.export(project, query.format);
        reply.header("content-type", doc.contentType);
        reply.header("content-disposition", `attachment; filename="${doc.fileName}"`);
        return doc.body;
      },
    }),
    route({
      operationId: "getVexCsafFile",
      method: "GET", url: `${BASE}/csaf/:file_name`, auth: "both", project: true, tags: TAGS, summary: "The project's CSAF VEX document at its canonical URL",
      description:
        "The CSAF document of GET …/vex?format=csaf, at the URL its document.references (category self) gives when VIGIE_PUBLIC_URL is https: the file name is its tracking id in lower case (CSAF 2.0 §5.1). " +
        "The tracking id derives from the project's state: a name of an earlier state is a 404.",
      errors: { 409: "the project has no alert (vex_vide)" },
      params: VexCsafFileParams,
      responses: { 200: CsafOrOpenVexDocument },
      handler: async ({ project, params, reply }) => {
        const doc = await service.csafFile(project, params.file_name);
        reply.header("content-type", doc.contentType);
        return doc.body;
      },
    }),
    route({
      operationId: "importVex",
      method: "POST", url: BASE, auth: "both", project: true, scope: WRITE, tags: TAGS, summary: "Import a supplier's VEX document: its not_affected statements become proposals, no case changes",
      description:
        "The format is detected (CycloneDX, CSAF 2.0 csaf_vex, OpenVEX 0.2) and the document checked against its official JSON schema: a fault answers 422 with its JSON pointer, and nothing is written. " +
        "Each not_affected statement for a CVE the project has an alert or a case for becomes a proposal (status proposee) with its source; other statuses and other CVEs are counted as ignored, with the reason. " +
        "Importing the same document again creates nothing twice and never reopens a decided proposal.",
      params: ProjectParams, body: VexDocumentIn,
      responses: { 200: VexImportOut },
      handler: async ({ project, body }) => service.import(project, body),
    }),
    route({
      operationId: "listVexProposals",
      method: "GET", url: `${BASE}/proposals`, auth: "both", project: true, tags: TAGS, summary: "The project's VEX proposals, newest first",
      params: ProjectParams, query: VexProposalListQuery,
      responses: { 200: VexProposalListOut },
      handler: async ({ project, query }) => presentProposalList(await service.list(project, query), query),
    }),
    route({
      operationId: "acceptVexProposal",
      errors: {
        409: "the proposal is already decided (proposition_decidee), or the case cannot become non_concerne from its status (transition_invalide, with from and to)",
      },
      method: "POST", url: `${BASE}/proposals/:proposal_id/accept`, auth: "both", project: true, scope: WRITE, tags: TAGS, summary: "Accept a proposal: the case (created if need be) becomes non_concerne with the statement's justification",
      description: "The case's history row cites the source document and its author. A case already non_concerne takes the justification.",
      params: VexProposalParams, body: VexDecisionIn.optional(),
      responses: { 200: VexProposalOut },
      handler: async ({ project, params, body, auth }) =>
        presentProposal(await service.accept(project, params.proposal_id, body?.comment ?? null, actorOf(auth))),
    }),
    route({
      operationId: "rejectVexProposal",
      errors: { 409: "the proposal is already decided (proposition_decidee)" },
      method: "POST", url: `${BASE}/proposals/:proposal_id/reject`, auth: "both", project: true, scope: WRITE, tags: TAGS, summary: "Reject a proposal: the case is left as it is",
      params: VexProposalParams, body: VexDecisionIn.optional(),
      responses: { 200: VexProposalOut },
      handler: async ({ project, params, body, auth }) =>
        presentProposal(await service.reject(project, params.proposal_id, body?.comment ?? null, actorOf(auth))),
    }),
  ];
}

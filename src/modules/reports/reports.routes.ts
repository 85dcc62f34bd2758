import type { FastifyReply } from "fastify";
import { z } from "zod";
import { actorOf, type Caller } from "../../platform/auth/context.js";
import { media, route, type RouteDef } from "../../platform/http/route.js";
import { OrgParams } from "../organizations/organizations.schemas.js";
import { ProjectParams } from "../projects/projects.schemas.js";
import { presentFound, presentReport, presentReportDetail } from "./reports.presenter.js";
import {
  EvidenceFindIn, EvidenceFoundOut, EvidenceParams, OrgReportParams, ReportDetailOut, ReportDownloadQuery, ReportIn, ReportListOut, ReportListQuery, ReportOut, ReportParams, ReportSettingsIn, ReportSettingsOut,
} from "./reports.schemas.js";
import type { ReportOwner, ReportsService } from "./reports.service.js";

const PROJECT = "/api/v1/organizations/:org_id/projects/:project_id";
const BASE = `${PROJECT}/reports`;
const ORG_BASE = "/api/v1/organizations/:org_id/reports";
const TAGS = ["reports"];
const WRITE = "reports-write";
/** The largest file find-again takes (a PDF of the largest report is well under it: bench/reports.ts). */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

const CONTENT_TYPES = { pdf: "application/pdf", json: "application/json; charset=utf-8", csv: "text/csv; charset=utf-8" } as const;

const DOWNLOAD = {
  summary: "A stored file of a version: pdf (default), json (the canonical content) or csv",
  description:
    "The bytes stored when the version was generated: their SHA-256 is the one find-again looks up (the JSON file's is the fingerprint). Sent as an attachment; X-Vigie-Empreinte carries the version's fingerprint.",
  responses: {
    200: media({
      "application/pdf": z.string().meta({ format: "binary" }).describe("The PDF"),
      "application/json": z.record(z.string(), z.unknown()).describe("The canonical JSON content (sorted keys, ADR 0015)"),
      "text/csv": z.string().describe("CSV with a header row (conformite_kev, exceptions, inventaire)"),
    }),
  },
};
const CREATE =
  "from/to (Paris days) apply to rapport_projet only (default: the last 30 days, today included; at most 366 days); the other types give the state of the day. language fr (default) or en.";
const NOT_TABLE = "format csv on a report that is not a table (format_indisponible)";
const FROZEN = "the report is frozen (rapport_fige)";
const RESTRICTED = "the key is restricted to projects: organization reports need a key for every project";

/** The handlers both scopes share: the route declares where, these do the one service call and present. */
function handlers(service: ReportsService) {
  return {
    list: async (owner: ReportOwner, query: ReportListQuery) => {
      const r = await service.list(owner, query);
      return { items: r.items.map((v) => presentReport(v.row, v.state)), total: r.total, page: query.page, page_size: query.page_size };
    },
    create: async (owner: ReportOwner, body: ReportIn, auth: Caller) => {
      const v = await service.create(owner, body, actorOf(auth));
      return presentReport(v.row, v.state);
    },
    get: async (owner: ReportOwner, id: string) => {
      const r = await service.get(owner, id);
      return presentReportDetail(r.row, r.state, r.versions, r.history);
    },
    download: async (owner: ReportOwner, id: string, query: z.output<typeof ReportDownloadQuery>, reply: FastifyReply) => {
      const f = await service.download(owner, id, query.format, query.version);
      reply.header("content-type", CONTENT_TYPES[query.format]);
      reply.header("content-disposition", `attachment; filename="${f.row.report_type}-${f.row.id}-v${f.version}.${query.format}"`);
      reply.header("x-vigie-empreinte", f.empreinte);
      return reply.send(f.bytes);
    },
    freeze: async (owner: ReportOwner, id: string, auth: Caller) => {
      const v = await service.freeze(owner, id, actorOf(auth));
      return presentReport(v.row, v.state);
    },
  };
}

/** Evidence reports of a project and of the organization, and find-again; writes need reports-write. */
export function reportsRoutes(service: ReportsService): RouteDef[] {
  const h = handlers(service);
  return [
    route({
      operationId: "listReports",
      method: "GET", url: BASE, auth: "both", project: true, tags: TAGS, summary: "The project's reports, newest first, with their synchronisation state",
      params: ProjectParams, query: ReportListQuery,
      responses: { 200: ReportListOut },
      handler: async ({ project, query }) => h.list(project, query),
    }),
    route({
      operationId: "createReport",
      method: "POST", url: BASE, auth: "both", project: true, scope: WRITE, tags: TAGS, status: 201, summary: "Generate a report of the project now (version 1: content, PDF, CSV, fingerprint)",
      description: CREATE,
      params: ProjectParams, body: ReportIn,
      responses: { 201: ReportOut },
      handler: async ({ project, body, auth }) => h.create(project, body, auth),
    }),
    route({
      operationId: "getReportSettings",
      method: "GET", url: `${PROJECT}/report-settings`, auth: "both", project: true, tags: TAGS, summary: "The project's scheduled report (monthly, Paris time)",
      params: ProjectParams,
      responses: { 200: ReportSettingsOut },
      handler: async ({ project }) => service.settings(project),
    }),
    route({
      operationId: "updateReportSettings",
      method: "PATCH", url: `${PROJECT}/report-settings`, auth: "both", project: true, scope: WRITE, tags: TAGS, summary: "Change the scheduled report: enabled, report_type, language, day_of_month (1–28)",
      description: "When enabled, the job reports-schedule generates on day_of_month (Paris time, or at its first run after) the report of the previous calendar month.",
      params: ProjectParams, body: ReportSettingsIn,
      responses: { 200: ReportSettingsOut },
      handler: async ({ project, body }) => service.updateSettings(project, body),
    }),
    route({
      operationId: "getReport",
      method: "GET", url: `${BASE}/:report_id`, auth: "both", project: true, tags: TAGS, summary: "One report with its versions (fingerprints, file hashes) and history",
      params: ReportParams,
      responses: { 200: ReportDetailOut },
      handler: async ({ project, params }) => h.get(project, params.report_id),
    }),
    route({
      operationId: "downloadReport",
      errors: { 409: NOT_TABLE },
      method: "GET", url: `${BASE}/:report_id/download`, auth: "both", project: true, tags: TAGS, ...DOWNLOAD,
      params: ReportParams, query: ReportDownloadQuery,
      handler: async ({ project, params, query, reply }) => h.download(project, params.report_id, query, reply),
    }),
    route({
      operationId: "freezeReport",
      method: "POST", url: `${BASE}/:report_id/freeze`, auth: "both", project: true, scope: WRITE, tags: TAGS, summary: "Freeze the report: its current version never changes again (recorded with the actor)",
      params: ReportParams,
      responses: { 200: ReportOut },
      handler: async ({ project, params, auth }) => h.freeze(project, params.report_id, auth),
    }),
    route({
      operationId: "deleteReport",
      errors: { 409: FROZEN },
      method: "DELETE", url: `${BASE}/:report_id`, auth: "both", project: true, scope: WRITE, tags: TAGS, status: 204, summary: "Delete a report that is not frozen, with its versions",
      params: ReportParams,
      responses: { 204: null },
      handler: async ({ project, params }) => service.delete(project, params.report_id),
    }),
    route({
      operationId: "listOrgReports",
      errors: { 403: RESTRICTED },
      method: "GET", url: ORG_BASE, auth: "both", org: true, tags: TAGS, summary: "The organization's own reports (every project), newest first",
      params: OrgParams, query: ReportListQuery,
      responses: { 200: ReportListOut },
      handler: async ({ org, query }) => h.list(org, query),
    }),
    route({
      operationId: "createOrgReport",
      errors: { 403: RESTRICTED },
      method: "POST", url: ORG_BASE, auth: "both", org: true, scope: WRITE, tags: TAGS, status: 201, summary: "Generate a report of the whole organization now (every project)",
      description: `${CREATE} Rows name their project.`,
      params: OrgParams, body: ReportIn,
      responses: { 201: ReportOut },
      handler: async ({ org, body, auth }) => h.create(org, body, auth),
    }),
    route({
      operationId: "getOrgReport",
      errors: { 403: RESTRICTED },
      method: "GET", url: `${ORG_BASE}/:report_id`, auth: "both", org: true, tags: TAGS, summary: "One organization report with its versions and history",
      params: OrgReportParams,
      responses: { 200: ReportDetailOut },
      handler: async ({ org, params }) => h.get(org, params.report_id),
    }),
    route({
      operationId: "downloadOrgReport",
      errors: { 403: RESTRICTED, 409: NOT_TABLE },
      method: "GET", url: `${ORG_BASE}/:report_id/download`, auth: "both", org: true, tags: TAGS, ...DOWNLOAD,
      params: OrgReportParams, query: ReportDownloadQuery,
      handler: async ({ org, params, query, reply }) => h.download(org, params.report_id, query, reply),
    }),
    route({
      operationId: "freezeOrgReport",
      errors: { 403: RESTRICTED },
      method: "POST", url: `${ORG_BASE}/:report_id/freeze`, auth: "both", org: true, scope: WRITE, tags: TAGS, summary: "Freeze an organization report",
      params: OrgReportParams,
      responses: { 200: ReportOut },
      handler: async ({ org, params, auth }) => h.freeze(org, params.report_id, auth),
    }),
    route({
      operationId: "deleteOrgReport",
      errors: { 403: RESTRICTED, 409: FROZEN },
      method: "DELETE", url: `${ORG_BASE}/:report_id`, auth: "both", org: true, scope: WRITE, tags: TAGS, status: 204, summary: "Delete an organization report that is not frozen",
      params: OrgReportParams,
      responses: { 204: null },
      handler: async ({ org, params }) => service.delete(org, params.report_id),
    }),
    route({
      operationId: "findEvidence",
      method: "POST", url: "/api/v1/organizations/:org_id/evidence/find", auth: "both", org: true, tags: TAGS, summary: "Find again the report version of a file (multipart field file) or of a fingerprint",
      description: `Either multipart/form-data with the file (PDF, JSON or CSV as downloaded, at most ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB) in the field file, or JSON {"empreinte": "…"}. Only the organization's reports (and, for a key restricted to projects, those projects') are searched; a file altered by one byte is not found (404 « Preuve introuvable »).`,
      params: EvidenceParams, body: EvidenceFindIn, upload: { field: "file", maxBytes: MAX_UPLOAD_BYTES },
      responses: { 200: EvidenceFoundOut },
      handler: async ({ org, body, upload }) => {
        const r = await service.find(org, upload ? { file: upload.bytes } : { empreinte: body.empreinte });
        return presentFound(r.found, r.state);
      },
    }),
  ];
}

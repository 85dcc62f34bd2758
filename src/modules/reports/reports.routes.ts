import { z } from "zod";
import { actorOf } from "../../platform/auth/context.js";
import { media, route, type RouteDef } from "../../platform/http/route.js";
import { ProjectParams } from "../projects/projects.schemas.js";
import { presentFound, presentReport, presentReportDetail } from "./reports.presenter.js";
import {
  EvidenceFindIn, EvidenceFoundOut, EvidenceParams, ReportDetailOut, ReportDownloadQuery, ReportIn, ReportListOut, ReportListQuery, ReportOut, ReportParams, ReportSettingsIn, ReportSettingsOut,
} from "./reports.schemas.js";
import { projectScope, type ReportsService } from "./reports.service.js";

const PROJECT = "/api/v1/organizations/:org_id/projects/:project_id";
const BASE = `${PROJECT}/reports`;
const TAGS = ["reports"];
const WRITE = "reports-write";
/** The largest file find-again takes (a PDF of the largest report is well under it: bench/reports.ts). */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

const CONTENT_TYPES = { pdf: "application/pdf", json: "application/json; charset=utf-8", csv: "text/csv; charset=utf-8" } as const;

/** Evidence reports of a project, and find-again in the organization; writes need reports-write. */
export function reportsRoutes(service: ReportsService): RouteDef[] {
  return [
    route({
      operationId: "listReports",
      method: "GET", url: BASE, auth: "apiKey", project: true, tags: TAGS, summary: "The project's reports, newest first, with their synchronisation state",
      params: ProjectParams, query: ReportListQuery,
      responses: { 200: ReportListOut },
      handler: async ({ project, query }) => {
        const r = await service.list(projectScope(project), query);
        return { items: r.items.map((v) => presentReport(v.row, v.state)), total: r.total, page: query.page, page_size: query.page_size };
      },
    }),
    route({
      operationId: "createReport",
      method: "POST", url: BASE, auth: "apiKey", project: true, scope: WRITE, tags: TAGS, status: 201, summary: "Generate a report now (version 1: content, PDF, CSV, fingerprint)",
      description: "from/to (Paris days) apply to rapport_projet only (default: the last 30 days, today included; at most 366 days); the other types give the state of the day. language fr (default) or en.",
      params: ProjectParams, body: ReportIn,
      responses: { 201: ReportOut },
      handler: async ({ project, body, auth }) => {
        const v = await service.create(projectScope(project), body, actorOf(auth));
        return presentReport(v.row, v.state);
      },
    }),
    route({
      operationId: "getReportSettings",
      method: "GET", url: `${PROJECT}/report-settings`, auth: "apiKey", project: true, tags: TAGS, summary: "The project's scheduled report (monthly, Paris time)",
      params: ProjectParams,
      responses: { 200: ReportSettingsOut },
      handler: async ({ project }) => service.settings(project),
    }),
    route({
      operationId: "updateReportSettings",
      method: "PATCH", url: `${PROJECT}/report-settings`, auth: "apiKey", project: true, scope: WRITE, tags: TAGS, summary: "Change the scheduled report: enabled, report_type, language, day_of_month (1–28)",
      description: "When enabled, the job reports-schedule generates on day_of_month (Paris time, or at its first run after) the report of the previous calendar month.",
      params: ProjectParams, body: ReportSettingsIn,
      responses: { 200: ReportSettingsOut },
      handler: async ({ project, body }) => service.updateSettings(project, body),
    }),
    route({
      operationId: "getReport",
      method: "GET", url: `${BASE}/:report_id`, auth: "apiKey", project: true, tags: TAGS, summary: "One report with its versions (fingerprints, file hashes) and history",
      params: ReportParams,
      responses: { 200: ReportDetailOut },
      handler: async ({ project, params }) => {
        const r = await service.get(projectScope(project), params.report_id);
        return presentReportDetail(r.row, r.state, r.versions, r.history);
      },
    }),
    route({
      operationId: "downloadReport",
      errors: { 409: "format csv on a report that is not a table (format_indisponible)" },
      method: "GET", url: `${BASE}/:report_id/download`, auth: "apiKey", project: true, tags: TAGS, summary: "A stored file of a version: pdf (default), json (the canonical content) or csv",
      description: "The bytes stored when the version was generated: their SHA-256 is the one find-again looks up (the JSON file's is the fingerprint). Sent as an attachment; X-Vigie-Empreinte carries the version's fingerprint.",
      params: ReportParams, query: ReportDownloadQuery,
      responses: {
        200: media({
          "application/pdf": z.string().meta({ format: "binary" }).describe("The PDF"),
          "application/json": z.record(z.string(), z.unknown()).describe("The canonical JSON content (sorted keys, ADR 0012)"),
          "text/csv": z.string().describe("CSV with a header row (conformite_kev, exceptions, inventaire)"),
        }),
      },
      handler: async ({ project, params, query, reply }) => {
        const f = await service.download(projectScope(project), params.report_id, query.format, query.version);
        reply.header("content-type", CONTENT_TYPES[query.format]);
        reply.header("content-disposition", `attachment; filename="${f.row.report_type}-${f.row.id}-v${f.version}.${query.format}"`);
        reply.header("x-vigie-empreinte", f.empreinte);
        return reply.send(f.bytes);
      },
    }),
    route({
      operationId: "freezeReport",
      method: "POST", url: `${BASE}/:report_id/freeze`, auth: "apiKey", project: true, scope: WRITE, tags: TAGS, summary: "Freeze the report: its current version never changes again (recorded with the actor)",
      params: ReportParams,
      responses: { 200: ReportOut },
      handler: async ({ project, params, auth }) => {
        const v = await service.freeze(projectScope(project), params.report_id, actorOf(auth));
        return presentReport(v.row, v.state);
      },
    }),
    route({
      operationId: "deleteReport",
      errors: { 409: "the report is frozen (rapport_fige)" },
      method: "DELETE", url: `${BASE}/:report_id`, auth: "apiKey", project: true, scope: WRITE, tags: TAGS, status: 204, summary: "Delete a report that is not frozen, with its versions",
      params: ReportParams,
      responses: { 204: null },
      handler: async ({ project, params }) => {
        await service.delete(projectScope(project), params.report_id);
      },
    }),
    route({
      operationId: "findEvidence",
      method: "POST", url: "/api/v1/organizations/:org_id/evidence/find", auth: "apiKey", org: true, tags: TAGS, summary: "Find again the report version of a file (multipart field file) or of a fingerprint",
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

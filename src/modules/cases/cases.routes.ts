import { z } from "zod";
import { actorOf } from "../../platform/auth/context.js";
import { media, route, type RouteDef } from "../../platform/http/route.js";
import { ProjectParams } from "../projects/projects.schemas.js";
import { TagRefIn } from "../tags/tags.schemas.js";
import { EXPORT_COLUMNS, exportStream } from "./cases.export.js";
import { presentCase, presentCaseDetail, presentCaseList } from "./cases.presenter.js";
import {
  CaseBulkIn, CaseBulkOut, CaseCommentIn, CaseDetailOut, CaseExceptionIn, CaseExportQuery, CaseExportRow, CaseIn, CaseListOut, CaseListQuery, CaseOut, CaseParams, CaseSettingsIn, CaseSettingsOut, CaseStatsOut,
} from "./cases.schemas.js";
import type { CaseExpiry } from "./cases.expiry.js";
import type { CasesService } from "./cases.service.js";

const PROJECT = "/api/v1/organizations/:org_id/projects/:project_id";
const BASE = `${PROJECT}/cases`;
const TAGS = ["cases"];
const WRITE = "cases-write";
const TRANSITION = "the status change is not allowed from the current status (transition_invalide, with from and to)";

/** Cases of a project (one per CVE), their exceptions and tags; writes need cases-write (tags: tags-write). */
export function casesRoutes(service: CasesService, expiry: CaseExpiry): RouteDef[] {
  return [
    route({
      operationId: "getCase",
      method: "GET", url: `${BASE}/:cve_id`, auth: "both", project: true, tags: TAGS, summary: "One case with its history (oldest first)",
      params: CaseParams,
      responses: { 200: CaseDetailOut },
      handler: async ({ project, params }) => {
        const c = await service.get(project, params.cve_id);
        return presentCaseDetail(c.row, c.tags, c.history);
      },
    }),
    route({
      operationId: "putCase",
      errors: { 409: TRANSITION },
      method: "PUT", url: `${BASE}/:cve_id`, auth: "both", project: true, scope: WRITE, tags: TAGS, summary: "Create (201) or update (200) the project's case of a CVE",
      description: "A CVE Vigie does not know yet is accepted: its severity fills in when the CVE arrives. Each change writes a history row with the comment.",
      params: CaseParams, body: CaseIn,
      responses: { 200: CaseOut, 201: CaseOut },
      handler: async ({ project, params, body, auth, reply }) => {
        const c = await service.put(project, params.cve_id, body, actorOf(auth));
        reply.code(c.created ? 201 : 200);
        return presentCase(c.row, c.tags);
      },
    }),
    route({
      operationId: "setCaseException",
      errors: { 409: "the case is corrige or non_concerne (transition_invalide)" },
      method: "PUT", url: `${BASE}/:cve_id/exception`, auth: "both", project: true, scope: WRITE, tags: TAGS, summary: "Set the case's exception (MITIGATED → attenue, ACCEPTED_RISK → risque_accepte)",
      description: "expires_on is the last day of validity in Paris time, today or later; at 00:00 Europe/Paris the next day the case reopens (en_analyse) by itself.",
      params: CaseParams, body: CaseExceptionIn,
      responses: { 200: CaseOut },
      handler: async ({ project, params, body, auth }) => {
        const c = await service.setException(project, params.cve_id, body, actorOf(auth));
        return presentCase(c.row, c.tags);
      },
    }),
    route({
      operationId: "removeCaseException",
      method: "DELETE", url: `${BASE}/:cve_id/exception`, auth: "both", project: true, scope: WRITE, tags: TAGS, summary: "Remove the case's own exception: the case reopens (en_analyse)",
      params: CaseParams, body: CaseCommentIn.optional(),
      responses: { 200: CaseOut },
      handler: async ({ project, params, body, auth }) => {
        const c = await service.removeException(project, params.cve_id, body?.comment ?? null, actorOf(auth));
        return presentCase(c.row, c.tags);
      },
    }),
    route({
      operationId: "tagCase",
      method: "POST", url: `${BASE}/:cve_id/tags`, auth: "both", project: true, scope: "tags-write", tags: ["tags"], status: 204, summary: "Attach a tag to a case",
      params: CaseParams, body: TagRefIn,
      responses: { 204: null },
      handler: async ({ project, params, body, auth }) => {
        await service.tag(project, params.cve_id, body.tag_id, true, actorOf(auth));
      },
    }),
    route({
      operationId: "untagCase",
      method: "DELETE", url: `${BASE}/:cve_id/tags/:tag_id`, auth: "both", project: true, scope: "tags-write", tags: ["tags"], status: 204, summary: "Detach a tag from a case",
      params: CaseParams.extend({ tag_id: z.uuid() }),
      responses: { 204: null },
      handler: async ({ project, params, auth }) => {
        await service.tag(project, params.cve_id, params.tag_id, false, actorOf(auth));
      },
    }),
    route({
      operationId: "listCases",
      method: "GET", url: BASE, auth: "both", project: true, tags: TAGS, summary: "List the project's cases (filters, sort, paging) with total",
      params: ProjectParams, query: CaseListQuery,
      responses: { 200: CaseListOut },
      handler: async ({ project, query }) => presentCaseList(await service.list(project, query), query),
    }),
    route({
      operationId: "bulkCases",
      errors: { 409: "a selected case cannot take the status: nothing changed (transition_invalide, with from, to and the first 100 refused cve_ids)" },
      method: "POST", url: `${BASE}/bulk`, auth: "both", project: true, scope: WRITE, tags: TAGS, summary: "Change the status, severity or tags of many cases at once, all or nothing",
      description: "Select by cve_ids (every one must have a case in the project) or by the list's filters (at most 50,000 cases). Each case changed gets a history row per change, with the comment.",
      params: ProjectParams, body: CaseBulkIn,
      responses: { 200: CaseBulkOut },
      handler: async ({ project, body, auth }) => service.bulk(project, body, actorOf(auth)),
    }),
    route({
      operationId: "exportCases",
      method: "GET", url: `${BASE}/export`, auth: "both", project: true, tags: TAGS, summary: "Export the filtered list (CSV or JSON), streamed, with the exception and register columns",
      description: `Columns: ${EXPORT_COLUMNS.join(", ")}. CSV: UTF-8 with a header row; a cell starting with = + - @, a tab or a carriage return is prefixed with ' (CSV formula injection). JSON: an array of objects with the same keys. Sent as an attachment named cases-<project_id>.csv or .json.`,
      params: ProjectParams, query: CaseExportQuery,
      responses: {
        200: media({
          "text/csv": z.string().describe(`CSV, header row: ${EXPORT_COLUMNS.join(",")}`),
          "application/json": z.array(CaseExportRow),
        }),
      },
      handler: async ({ project, query, reply }) => {
        reply.header("content-type", query.format === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8");
        reply.header("content-disposition", `attachment; filename="cases-${project.id}.${query.format}"`);
        return exportStream(query.format, service.export(project, query));
      },
    }),
    route({
      operationId: "getCaseStats",
      method: "GET", url: `${BASE}/stats`, auth: "both", project: true, tags: TAGS, summary: "Counts of the project's cases: by status, by severity, exceptions, register, expiring soon",
      params: ProjectParams,
      responses: { 200: CaseStatsOut },
      handler: async ({ project }) => service.stats(project),
    }),
    route({
      operationId: "getCaseSettings",
      method: "GET", url: `${PROJECT}/case-settings`, auth: "both", project: true, tags: TAGS, summary: "The project's case settings (warning before an expiry)",
      params: ProjectParams,
      responses: { 200: CaseSettingsOut },
      handler: async ({ project }) => expiry.settings(project),
    }),
    route({
      operationId: "updateCaseSettings",
      method: "PATCH", url: `${PROJECT}/case-settings`, auth: "both", project: true, scope: WRITE, tags: TAGS, summary: "Change the project's case settings",
      description: "exception_warning_days: case.exception_expiring is written once per expiry date, from that many days before it (Paris days).",
      params: ProjectParams, body: CaseSettingsIn,
      responses: { 200: CaseSettingsOut },
      handler: async ({ project, body }) => expiry.updateSettings(project, body),
    }),
  ];
}

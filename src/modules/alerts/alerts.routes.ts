import { z } from "zod";
import { route, type RouteDef } from "../../platform/http/route.js";
import { ProjectParams } from "../projects/projects.schemas.js";
import { TagRefIn } from "../tags/tags.schemas.js";
import { presentAlert, presentAlertList } from "./alerts.presenter.js";
import {
  AlertListOut, AlertListQuery, AlertOut, AlertParams, AlertReadIn, AlertSettings, AlertSettingsIn, AlertsReadIn, AlertsReadOut, ProjectStatsOut,
} from "./alerts.schemas.js";
import type { AlertsService } from "./alerts.service.js";

const PROJECT = "/api/v1/organizations/:org_id/projects/:project_id";
const BASE = `${PROJECT}/alerts`;
const TAGS = ["alerts"];
const WRITE = "alerts-write";

/** Alerts of a project, its statistics and alerting settings; writes need alerts-write (tags: tags-write). */
export function alertsRoutes(service: AlertsService): RouteDef[] {
  return [
    route({
      operationId: "listAlerts",
      method: "GET", url: BASE, auth: "both", project: true, tags: TAGS, summary: "List the project's alerts (filters, sort, paging) with total and unread_count",
      params: ProjectParams, query: AlertListQuery,
      responses: { 200: AlertListOut },
      handler: async ({ project, query }) => presentAlertList(await service.list(project, query), query),
    }),
    route({
      operationId: "setAlertRead",
      method: "PATCH", url: `${BASE}/:alert_id`, auth: "both", project: true, scope: WRITE, tags: TAGS, summary: "Mark an alert read or unread",
      params: AlertParams, body: AlertReadIn,
      responses: { 200: AlertOut },
      handler: async ({ project, params, body }) => {
        const r = await service.setRead(project, params.alert_id, body.is_read);
        return presentAlert(r.row, r.tags);
      },
    }),
    route({
      operationId: "markAlertsRead",
      method: "POST", url: `${BASE}/read`, auth: "both", project: true, scope: WRITE, tags: TAGS, summary: "Mark alerts read: {\"ids\": [...]} or {\"all\": true}",
      params: ProjectParams, body: AlertsReadIn,
      responses: { 200: AlertsReadOut },
      handler: async ({ project, body }) => ({ updated: await service.markRead(project, body) }),
    }),
    route({
      operationId: "tagAlert",
      method: "POST", url: `${BASE}/:alert_id/tags`, auth: "both", project: true, scope: "tags-write", tags: ["tags"], status: 204, summary: "Attach a tag to an alert",
      params: AlertParams, body: TagRefIn,
      responses: { 204: null },
      handler: async ({ project, params, body }) => {
        await service.tag(project, params.alert_id, body.tag_id, true);
      },
    }),
    route({
      operationId: "untagAlert",
      method: "DELETE", url: `${BASE}/:alert_id/tags/:tag_id`, auth: "both", project: true, scope: "tags-write", tags: ["tags"], status: 204, summary: "Detach a tag from an alert",
      params: AlertParams.extend({ tag_id: z.uuid() }),
      responses: { 204: null },
      handler: async ({ project, params }) => {
        await service.tag(project, params.alert_id, params.tag_id, false);
      },
    }),
    route({
      operationId: "getProjectStats",
      method: "GET", url: `${PROJECT}/stats`, auth: "both", project: true, tags: ["stats"], summary: "Project statistics (exact counts, consistent with the alert list)",
      params: ProjectParams,
      responses: { 200: ProjectStatsOut },
      handler: async ({ project }) => service.stats(project),
    }),
    route({
      operationId: "getAlertSettings",
      method: "GET", url: `${PROJECT}/alert-settings`, auth: "both", project: true, tags: TAGS, summary: "What a new stack item alerts on among the stored CVEs",
      params: ProjectParams,
      responses: { 200: AlertSettings },
      handler: async ({ project }) => service.settings(project),
    }),
    route({
      operationId: "updateAlertSettings",
      method: "PATCH", url: `${PROJECT}/alert-settings`, auth: "both", project: true, scope: "stacks-write", tags: TAGS, summary: "Change the project's alert backfill setting",
      params: ProjectParams, body: AlertSettingsIn,
      responses: { 200: AlertSettings },
      handler: async ({ project, body }) => service.updateSettings(project, body),
    }),
  ];
}

import { route, type RouteDef } from "../../platform/http/route.js";
import { ProjectParams } from "../projects/projects.schemas.js";
import { presentItem } from "../stacks/stacks.presenter.js";
import { StackItemCreated } from "../stacks/stacks.schemas.js";
import { presentUrl, presentUrlDetail } from "./urls.presenter.js";
import {
  MonitoredUrl, MonitoredUrlDetail, MonitoredUrlIn, MonitoredUrlList, MonitoredUrlUpdateIn, ScanRequested, TechnologyParams, UrlListQuery, UrlParams, WatchIn,
} from "./urls.schemas.js";
import type { UrlsService } from "./urls.service.js";

const BASE = "/api/v1/organizations/:org_id/projects/:project_id/monitored-urls";
const TAGS = ["monitored-urls"];
const WRITE = "urls-write";

/** Monitored URLs of a project; writes (and asking for a scan) need urls-write. */
export function urlsRoutes(service: UrlsService): RouteDef[] {
  return [
    route({
      operationId: "listMonitoredUrls",
      method: "GET", url: BASE, auth: "both", project: true, tags: TAGS, summary: "List the project's monitored URLs, newest first",
      params: ProjectParams, query: UrlListQuery,
      responses: { 200: MonitoredUrlList },
      handler: async ({ project, query }) => {
        const { rows, total, privateTargetsAllowed } = await service.list(project, query);
        return {
          items: rows.map(presentUrl), total, page: query.page, page_size: query.page_size, private_targets_allowed: privateTargetsAllowed,
        };
      },
    }),
    route({
      operationId: "createMonitoredUrl",
      errors: { 409: "the project already monitors this URL (url_deja_surveillee)" },
      method: "POST", url: BASE, auth: "both", project: true, scope: WRITE, tags: TAGS, status: 201,
      summary: "Monitor a URL (http or https); its first scan runs within the minute, then every scan_interval_hours",
      params: ProjectParams, body: MonitoredUrlIn,
      responses: { 201: MonitoredUrl },
      handler: async ({ project, body }) => presentUrl(await service.create(project, body)),
    }),
    route({
      operationId: "getMonitoredUrl",
      method: "GET", url: `${BASE}/:url_id`, auth: "both", project: true, tags: TAGS,
      summary: "One monitored URL with the technologies of its last answer",
      params: UrlParams,
      responses: { 200: MonitoredUrlDetail },
      handler: async ({ project, params }) => presentUrlDetail(await service.get(project, params.url_id)),
    }),
    route({
      operationId: "updateMonitoredUrl",
      errors: { 409: "the project already monitors this URL (url_deja_surveillee)" },
      method: "PATCH", url: `${BASE}/:url_id`, auth: "both", project: true, scope: WRITE, tags: TAGS,
      summary: "Change a monitored URL (a new address starts over: pending, scanned within the minute)",
      params: UrlParams, body: MonitoredUrlUpdateIn,
      responses: { 200: MonitoredUrl },
      handler: async ({ project, params, body }) => presentUrl(await service.update(project, params.url_id, body)),
    }),
    route({
      operationId: "deleteMonitoredUrl",
      method: "DELETE", url: `${BASE}/:url_id`, auth: "both", project: true, scope: WRITE, tags: TAGS, status: 204,
      summary: "Stop monitoring a URL",
      params: UrlParams,
      responses: { 204: null },
      handler: async ({ project, params }) => {
        await service.delete(project, params.url_id);
      },
    }),
    route({
      operationId: "scanMonitoredUrl",
      method: "POST", url: `${BASE}/:url_id/scan`, auth: "both", project: true, scope: WRITE, tags: TAGS, status: 202,
      summary: "Scan now: the scan runs as a job (urls-scan); GET the URL for its result",
      params: UrlParams,
      responses: { 202: ScanRequested },
      handler: async ({ project, params }) => service.requestScan(project, params.url_id),
    }),
    route({
      operationId: "watchDetectedTechnology",
      errors: { 409: "the technology has no CPE in the fingerprints (technologie_sans_cpe) or no version was detected (technologie_sans_version)" },
      method: "POST", url: `${BASE}/:url_id/technologies/:name/watch`, auth: "both", project: true, scope: "stacks-write", tags: TAGS, status: 201,
      summary: "Add a detected technology to a stack, as its CPE with the detected version; it is matched at once",
      description: "`name` is the technology's name as detected (case-insensitive). Needs stacks-write (it writes a stack item).",
      params: TechnologyParams, body: WatchIn,
      responses: { 201: StackItemCreated },
      handler: async ({ project, params, body }) => {
        const r = await service.watch(project, params.url_id, params.name, body);
        return { ...presentItem(r.item, r.tags), alertes_creees: r.raised };
      },
    }),
  ];
}

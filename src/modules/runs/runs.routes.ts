import { route, type RouteDef } from "../../platform/http/route.js";
import { z } from "zod";
import { presentRun, presentRunDetail } from "./runs.presenter.js";
import { ProjectParams } from "../projects/projects.schemas.js";
import { WorkflowParams } from "../workflows/workflows.schemas.js";
import {
  DryRunIn, DryRunOut, NotificationSettingsIn, NotificationSettingsOut, Run, RunParams, RunsQuery, WorkflowRunDetailOut,
} from "./runs.schemas.js";
import type { RunsService } from "./runs.service.js";

const PROJECT = "/api/v1/organizations/:org_id/projects/:project_id";
const BASE = `${PROJECT}/workflows`;

/** A workflow's runs (the list, one with its steps, a dry run) and the project's notification settings. */
export function runsRoutes(service: RunsService): RouteDef[] {
  return [
    route({
      operationId: "listWorkflowRuns",
      method: "GET", url: `${BASE}/:workflow_id/runs`, auth: "both", project: true, tags: ["workflows"],
      summary: "List a workflow's runs, newest first",
      params: WorkflowParams,
      query: RunsQuery,
      responses: { 200: z.array(Run) },
      handler: async ({ project, params, query }) => (await service.list(project, params.workflow_id, query.limit)).map(presentRun),
    }),
    route({
      operationId: "dryRunWorkflow",
      method: "POST", url: `${BASE}/:workflow_id/dry-run`, auth: "both", project: true, scope: "workflows-write", tags: ["workflows"], status: 201,
      summary: "Evaluate a workflow against a CVE without acting; records a dry_run run",
      params: WorkflowParams,
      body: DryRunIn,
      responses: { 201: DryRunOut },
      handler: async ({ project, params, body }) => {
        const r = await service.dryRun(project, params.workflow_id, body.cve_id);
        return { ...presentRun(r.run), cve_connue: r.cve_connue, avertissement: r.avertissement, noeuds: r.noeuds };
      },
    }),
    route({
      operationId: "getWorkflowRun",
      method: "GET", url: `${BASE}/:workflow_id/runs/:run_id`, auth: "both", project: true, tags: ["workflows"],
      summary: "Read one run of a workflow with its steps (node, outcome, duration, error, what was sent with secrets masked)",
      description: "A run of the project's workflow, or of an organization workflow for this project. Another project's run: 404.",
      params: RunParams,
      responses: { 200: WorkflowRunDetailOut },
      handler: async ({ project, params }) => presentRunDetail(await service.get(project, params.workflow_id, params.run_id)),
    }),
    route({
      operationId: "getNotificationSettings",
      method: "GET", url: `${PROJECT}/notification-settings`, auth: "both", project: true, tags: ["workflows"], summary: "The language of the project's notifications",
      params: ProjectParams,
      responses: { 200: NotificationSettingsOut },
      handler: async ({ project }) => service.notificationSettings(project),
    }),
    route({
      operationId: "updateNotificationSettings",
      method: "PATCH", url: `${PROJECT}/notification-settings`, auth: "both", project: true, scope: "workflows-write", tags: ["workflows"], summary: "Change the language of the project's notifications (fr, en)",
      params: ProjectParams, body: NotificationSettingsIn,
      responses: { 200: NotificationSettingsOut },
      handler: async ({ project, body }) => service.updateNotificationSettings(project, body),
    }),
  ];
}

import { z } from "zod";
import { route, type RouteDef } from "../../platform/http/route.js";
import { ProjectParams } from "../projects/projects.schemas.js";
import { presentWorkflow, presentWorkflowItem } from "./workflows.presenter.js";
import {
  IdempotencyHeaders, Workflow, WorkflowActivationIn, WorkflowEcritureIn, WorkflowItem, WorkflowMiseAJourIn, WorkflowParams,
} from "./workflows.schemas.js";
import type { WorkflowListRow } from "./workflows.repository.js";
import type { WorkflowsService } from "./workflows.service.js";

const BASE = "/api/v1/organizations/:org_id/projects/:project_id/workflows";
const TAGS = ["workflows"];
const WRITE = "workflows-write";

// The JSON of a workflow list, built once per list the service caches (it answers with the same
// array until the list changes): presenting and serialising 20 items was ~12% of a list call.
const listBodies = new WeakMap<readonly WorkflowListRow[], string>();
function listBody(rows: readonly WorkflowListRow[]): string {
  let body = listBodies.get(rows);
  if (body === undefined) {
    body = JSON.stringify(rows.map(presentWorkflowItem));
    listBodies.set(rows, body);
  }
  return body;
}

/** The /api/v1 workflow surface (API keys) and the session reads of one workflow; their runs are the runs module's. */
export function workflowsRoutes(service: WorkflowsService): RouteDef[] {
  return [
    route({
      operationId: "listWorkflows",
      method: "GET", url: BASE, auth: "both", project: true, tags: TAGS,
      summary: "List the project's workflows (without their graph)",
      params: ProjectParams,
      responses: { 200: z.array(WorkflowItem) },
      handler: async ({ project, reply }) => {
        reply.type("application/json; charset=utf-8");
        return listBody(await service.list(project));
      },
    }),
    route({
      operationId: "createWorkflow",
      errors: { 409: "the Idempotency-Key was used with another body (cle_idempotence_reutilisee), or the name is taken on the project (nom_deja_utilise)" },
      method: "POST", url: BASE, auth: "both", project: true, scope: WRITE, tags: TAGS, status: 201,
      summary: "Create a workflow (graph form or short form)",
      description: "Requires an Idempotency-Key header. The same key with the same body answers 200 with the workflow as it is now; with another body, 409.",
      params: ProjectParams,
      headers: IdempotencyHeaders,
      body: WorkflowEcritureIn,
      responses: { 201: Workflow, 200: Workflow },
      handler: async ({ project, headers, body, reply }) => {
        const { workflow, created } = await service.create(project, headers["idempotency-key"], body);
        reply.code(created ? 201 : 200);
        return presentWorkflow(workflow);
      },
    }),
    route({
      operationId: "updateWorkflow",
      errors: { 409: "version is not the current one (version_perimee, with current_version), or the name is taken (nom_deja_utilise)" },
      method: "PATCH", url: `${BASE}/:workflow_id`, auth: "both", project: true, scope: WRITE, tags: TAGS,
      summary: "Update a workflow (optimistic concurrency on version)",
      params: WorkflowParams,
      body: WorkflowMiseAJourIn,
      responses: { 200: Workflow },
      handler: async ({ project, params, body }) => presentWorkflow(await service.update(project, params.workflow_id, body)),
    }),
    route({
      operationId: "setWorkflowEnabled",
      method: "PATCH", url: `${BASE}/:workflow_id/enabled`, auth: "both", project: true, scope: WRITE, tags: TAGS,
      summary: "Enable or disable a workflow (increments version)",
      params: WorkflowParams,
      body: WorkflowActivationIn,
      responses: { 200: Workflow },
      handler: async ({ project, params, body }) => presentWorkflow(await service.setEnabled(project, params.workflow_id, body.enabled)),
    }),
    route({
      operationId: "deleteWorkflow",
      errors: { 409: "the project's default workflow (workflow_par_defaut), or its last one (dernier_workflow)" },
      method: "DELETE", url: `${BASE}/:workflow_id`, auth: "both", project: true, scope: WRITE, tags: TAGS, status: 204,
      summary: "Delete a workflow (not the default one, nor the last one)",
      params: WorkflowParams,
      responses: { 204: null },
      handler: async ({ project, params }) => {
        await service.delete(project, params.workflow_id);
      },
    }),
    route({
      operationId: "getProjectWorkflow",
      method: "GET", url: "/projects/:project_id/workflows/:workflow_id", auth: "session", project: true, tags: ["session"],
      summary: "Read a project workflow with its graph (session cookie or account token)",
      params: z.object({ project_id: z.uuid(), workflow_id: z.uuid() }),
      responses: { 200: Workflow },
      handler: async ({ project, params }) => presentWorkflow(await service.get(project, params.workflow_id)),
    }),
    route({
      operationId: "getOrganizationWorkflow",
      method: "GET", url: "/organizations/:org_id/workflows/:workflow_id", auth: "session", org: true, tags: ["session"],
      summary: "Read an organization workflow (applies to every project) with its graph",
      params: z.object({ org_id: z.uuid(), workflow_id: z.uuid() }),
      responses: { 200: Workflow },
      handler: async ({ org, params }) => presentWorkflow(await service.getOrgWorkflow(org.id, params.workflow_id)),
    }),
  ];
}

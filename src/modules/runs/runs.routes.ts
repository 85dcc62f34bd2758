import { route, type RouteDef } from "../../platform/http/route.js";
import { presentRunDetail } from "./runs.presenter.js";
import { RunParams, WorkflowRunDetailOut } from "./runs.schemas.js";
import type { RunsService } from "./runs.service.js";

const BASE = "/api/v1/organizations/:org_id/projects/:project_id/workflows";

/** One run with its steps (beside the spec's run list, which stays as it is). */
export function runsRoutes(service: RunsService): RouteDef[] {
  return [
    route({
      operationId: "getWorkflowRun",
      method: "GET", url: `${BASE}/:workflow_id/runs/:run_id`, auth: "apiKey", project: true, tags: ["workflows"],
      summary: "Read one run of a workflow with its steps (node, outcome, duration, error, what was sent with secrets masked)",
      description: "A run of the project's workflow, or of an organization workflow for this project. Another project's run: 404.",
      params: RunParams,
      responses: { 200: WorkflowRunDetailOut },
      handler: async ({ project, params }) => presentRunDetail(await service.get(project, params.workflow_id, params.run_id)),
    }),
  ];
}

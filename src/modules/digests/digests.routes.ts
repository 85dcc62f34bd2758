import { route, type RouteDef } from "../../platform/http/route.js";
import { WorkflowParams } from "../workflows/workflows.schemas.js";
import { DigestPreviewOut } from "./digests.schemas.js";
import type { DigestsService } from "./digests.service.js";

const BASE = "/api/v1/organizations/:org_id/projects/:project_id/workflows";

/** A workflow's next digests (from the events waiting now) and its last ones. */
export function digestsRoutes(service: DigestsService): RouteDef[] {
  return [
    route({
      operationId: "previewWorkflowDigest",
      method: "GET", url: `${BASE}/:workflow_id/digest-preview`, auth: "both", project: true, tags: ["workflows"],
      summary: "Preview the workflow's next digests from the events waiting now (nothing is sent), and list its last digests",
      description: "One entry per notify node whose delivery is a digest, or that holds events of throttled runs. An organization workflow: this project's events. Another project's workflow: 404.",
      params: WorkflowParams,
      responses: { 200: DigestPreviewOut },
      handler: async ({ project, params }) => service.preview(project, params.workflow_id),
    }),
  ];
}

import { z } from "zod";
import { route, type RouteDef } from "../../platform/http/route.js";
import { OrgParams } from "../organizations/organizations.schemas.js";
import { presentProject } from "./projects.presenter.js";
import { ProjectItem } from "./projects.schemas.js";
import type { ProjectsService } from "./projects.service.js";

/** GET /api/v1/organizations/{org_id}/projects. */
export function projectsRoutes(service: ProjectsService): RouteDef[] {
  return [
    route({
      operationId: "listProjects",
      method: "GET",
      url: "/api/v1/organizations/:org_id/projects",
      auth: "both",
      org: true,
      summary: "Projects of the organization visible to the caller (an API key's restriction applies)",
      tags: ["context"],
      params: OrgParams,
      responses: { 200: z.array(ProjectItem) },
      handler: async ({ org }) => (await service.listIn(org)).map(presentProject),
    }),
  ];
}

import { z } from "zod";
import { route, type RouteDef } from "../../platform/http/route.js";
import { OrgParams } from "../organizations/organizations.schemas.js";
import { presentProject } from "./projects.presenter.js";
import { ProjectIn, ProjectItem } from "./projects.schemas.js";
import type { ProjectsService } from "./projects.service.js";

/** GET /api/v1/organizations/{org_id}/projects, and POST (its admins, signed in). */
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
    route({
      operationId: "createProject",
      method: "POST", url: "/api/v1/organizations/:org_id/projects", auth: "session", org: true, role: "admin", tags: ["access"],
      status: 201,
      summary: "Create a project in the organization, with its default workflow",
      errors: { 409: "a project of the organization has this name (nom_deja_utilise)" },
      params: OrgParams,
      body: ProjectIn,
      responses: { 201: ProjectItem },
      handler: async ({ org, body }) => presentProject(await service.create({ orgId: org.id, ...body }, ["body"])),
    }),
  ];
}

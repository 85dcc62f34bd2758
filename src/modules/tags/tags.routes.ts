import { z } from "zod";
import { route, type RouteDef } from "../../platform/http/route.js";
import { ProjectParams } from "../projects/projects.schemas.js";
import { presentTag } from "./tags.presenter.js";
import { TagBrief, TagIn, TagParams, TagUpdateIn } from "./tags.schemas.js";
import type { TagsService } from "./tags.service.js";

const BASE = "/api/v1/organizations/:org_id/projects/:project_id/tags";
const TAGS = ["tags"];
const WRITE = "tags-write";

/** Tags of a project; writes need tags-write. */
export function tagsRoutes(service: TagsService): RouteDef[] {
  return [
    route({
      operationId: "listTags",
      method: "GET", url: BASE, auth: "both", project: true, tags: TAGS, summary: "List the project's tags",
      params: ProjectParams,
      responses: { 200: z.array(TagBrief) },
      handler: async ({ project }) => (await service.list(project)).map(presentTag),
    }),
    route({
      operationId: "createTag",
      errors: { 409: "a tag of the project has this name, case aside (nom_deja_utilise)" },
      method: "POST", url: BASE, auth: "both", project: true, scope: WRITE, tags: TAGS, status: 201, summary: "Create a tag (names unique per project, case-insensitive)",
      params: ProjectParams, body: TagIn,
      responses: { 201: TagBrief },
      handler: async ({ project, body }) => presentTag(await service.create(project, body)),
    }),
    route({
      operationId: "updateTag",
      errors: { 409: "a tag of the project has this name, case aside (nom_deja_utilise)" },
      method: "PATCH", url: `${BASE}/:tag_id`, auth: "both", project: true, scope: WRITE, tags: TAGS, summary: "Rename or recolour a tag",
      params: TagParams, body: TagUpdateIn,
      responses: { 200: TagBrief },
      handler: async ({ project, params, body }) => presentTag(await service.update(project, params.tag_id, body)),
    }),
    route({
      operationId: "deleteTag",
      method: "DELETE", url: `${BASE}/:tag_id`, auth: "both", project: true, scope: WRITE, tags: TAGS, status: 204, summary: "Delete a tag (detached everywhere)",
      params: TagParams,
      responses: { 204: null },
      handler: async ({ project, params }) => {
        await service.delete(project, params.tag_id);
      },
    }),
  ];
}

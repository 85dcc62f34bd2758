import { z } from "zod";
import { route, type RouteDef } from "../../platform/http/route.js";
import { ProjectParams } from "../projects/projects.schemas.js";
import { TagRefIn } from "../tags/tags.schemas.js";
import { presentItem, presentItemPage, presentStack } from "./stacks.presenter.js";
import {
  Stack, StackCreated, StackIn, StackItem, StackItemCreated, StackItemIn, StackItemListQuery, StackItemPage, StackItemParams, StackItemUpdateIn,
  StackParams, StackUpdateIn,
} from "./stacks.schemas.js";
import type { StacksService } from "./stacks.service.js";

const BASE = "/api/v1/organizations/:org_id/projects/:project_id/stacks";
const TAGS = ["stacks"];
const WRITE = "stacks-write";

/** Stacks and their items; writes need stacks-write (tagging an item needs tags-write). */
export function stacksRoutes(service: StacksService): RouteDef[] {
  return [
    route({
      operationId: "listStacks",
      method: "GET", url: BASE, auth: "both", project: true, tags: TAGS, summary: "List the project's stacks with their items",
      params: ProjectParams,
      responses: { 200: z.array(Stack) },
      handler: async ({ project }) => (await service.list(project)).map(presentStack),
    }),
    route({
      operationId: "createStack",
      errors: { 409: "a stack of the project has this name (nom_deja_utilise)" },
      method: "POST", url: BASE, auth: "both", project: true, scope: WRITE, tags: TAGS, status: 201,
      summary: "Create a stack (optionally with items); its items are matched against the stored CVEs at once",
      params: ProjectParams, body: StackIn,
      responses: { 201: StackCreated },
      handler: async ({ project, body }) => {
        const v = await service.create(project, body);
        return { ...presentStack(v), alertes_creees: v.raised, avertissement: v.avertissement };
      },
    }),
    route({
      operationId: "getStack",
      method: "GET", url: `${BASE}/:stack_id`, auth: "both", project: true, tags: TAGS, summary: "One stack with its items",
      params: StackParams,
      responses: { 200: Stack },
      handler: async ({ project, params }) => presentStack(await service.get(project, params.stack_id)),
    }),
    route({
      operationId: "renameStack",
      errors: { 409: "a stack of the project has this name (nom_deja_utilise)" },
      method: "PATCH", url: `${BASE}/:stack_id`, auth: "both", project: true, scope: WRITE, tags: TAGS, summary: "Rename a stack",
      params: StackParams, body: StackUpdateIn,
      responses: { 200: Stack },
      handler: async ({ project, params, body }) => presentStack(await service.rename(project, params.stack_id, body.name)),
    }),
    route({
      operationId: "deleteStack",
      method: "DELETE", url: `${BASE}/:stack_id`, auth: "both", project: true, scope: WRITE, tags: TAGS, status: 204,
      summary: "Delete a stack and its items (the alerts they raised stay)",
      params: StackParams,
      responses: { 204: null },
      handler: async ({ project, params }) => {
        await service.delete(project, params.stack_id);
      },
    }),
    route({
      operationId: "listStackItems",
      method: "GET", url: `${BASE}/:stack_id/items`, auth: "both", project: true, tags: TAGS, summary: "A stack's items, paged, oldest first",
      description: "For stacks too large to read inline (an SBOM of 50,000 components): filtered by value (q: contains, case-insensitive), item_type and the SBOM they came from.",
      params: StackParams, query: StackItemListQuery,
      responses: { 200: StackItemPage },
      handler: async ({ project, params, query }) => presentItemPage(await service.listItems(project, params.stack_id, query), query),
    }),
    route({
      operationId: "addStackItem",
      method: "POST", url: `${BASE}/:stack_id/items`, auth: "both", project: true, scope: WRITE, tags: TAGS, status: 201,
      summary: "Add an item; it is matched against the stored CVEs at once (one set-based query)",
      params: StackParams, body: StackItemIn,
      responses: { 201: StackItemCreated },
      handler: async ({ project, params, body }) => {
        const r = await service.addItem(project, params.stack_id, body);
        return { ...presentItem(r.item, r.tags, r.eol, r.matching), alertes_creees: r.raised, avertissement: r.avertissement };
      },
    }),
    route({
      operationId: "updateStackItem",
      method: "PATCH", url: `${BASE}/:stack_id/items/:item_id`, auth: "both", project: true, scope: WRITE, tags: TAGS,
      summary: "Change an item (value, type, min_severity, tags); a changed item is matched again",
      params: StackItemParams, body: StackItemUpdateIn,
      responses: { 200: StackItem },
      handler: async ({ project, params, body }) => {
        const r = await service.updateItem(project, params.stack_id, params.item_id, body);
        return presentItem(r.item, r.tags, r.eol, r.matching);
      },
    }),
    route({
      operationId: "deleteStackItem",
      method: "DELETE", url: `${BASE}/:stack_id/items/:item_id`, auth: "both", project: true, scope: WRITE, tags: TAGS, status: 204, summary: "Remove an item",
      params: StackItemParams,
      responses: { 204: null },
      handler: async ({ project, params }) => {
        await service.deleteItem(project, params.stack_id, params.item_id);
      },
    }),
    route({
      operationId: "tagStackItem",
      method: "POST", url: `${BASE}/:stack_id/items/:item_id/tags`, auth: "both", project: true, scope: "tags-write", tags: ["tags"], status: 204,
      summary: "Attach a tag to a stack item", params: StackItemParams, body: TagRefIn,
      responses: { 204: null },
      handler: async ({ project, params, body }) => {
        await service.tagItem(project, params.stack_id, params.item_id, body.tag_id, true);
      },
    }),
    route({
      operationId: "untagStackItem",
      method: "DELETE", url: `${BASE}/:stack_id/items/:item_id/tags/:tag_id`, auth: "both", project: true, scope: "tags-write", tags: ["tags"], status: 204,
      summary: "Detach a tag from a stack item", params: StackItemParams.extend({ tag_id: z.uuid() }),
      responses: { 204: null },
      handler: async ({ project, params }) => {
        await service.tagItem(project, params.stack_id, params.item_id, params.tag_id, false);
      },
    }),
  ];
}

import { z } from "zod";
import { route, type RouteDef } from "../../platform/http/route.js";
import { OrgParams } from "../organizations/organizations.schemas.js";
import { presentApiKey } from "./apikeys.presenter.js";
import { ApiKeyCreated, ApiKeyIn, ApiKeyItem, ApiKeyListQuery, ApiKeyParams } from "./apikeys.schemas.js";
import type { ApiKeysService } from "./apikeys.service.js";

/** The API keys of an organization, managed by its admins on the session API (an API key manages no key). */
export function apiKeysRoutes(service: ApiKeysService): RouteDef[] {
  return [
    route({
      operationId: "listApiKeys",
      method: "GET", url: "/api/v1/organizations/:org_id/api-keys", auth: "session", org: true, role: "admin", tags: ["access"],
      summary: "The organization's live API keys, with include_revoked the revoked ones too (never the key itself: its prefix)",
      params: OrgParams,
      query: ApiKeyListQuery,
      responses: { 200: z.array(ApiKeyItem) },
      handler: async ({ org, query }) => (await service.list(org.id, query.include_revoked ?? false)).map((k) => presentApiKey(k, k.projectIds)),
    }),
    route({
      operationId: "createApiKey",
      method: "POST", url: "/api/v1/organizations/:org_id/api-keys", auth: "session", org: true, role: "admin", tags: ["access"],
      status: 201,
      summary: "Create an API key with scopes, optionally restricted to projects: the key is in this answer only",
      description: "A project_ids entry that is not a project of the organization is a 422 on project_ids.",
      params: OrgParams,
      body: ApiKeyIn,
      responses: { 201: ApiKeyCreated },
      handler: async ({ org, body }) => {
        const created = await service.create({ orgId: org.id, name: body.name, scopes: body.scopes, projectIds: body.project_ids ?? [] }, ["body"]);
        return presentApiKey(created.row, created.projectIds, created.key);
      },
    }),
    route({
      operationId: "revokeApiKey",
      method: "DELETE", url: "/api/v1/organizations/:org_id/api-keys/:key_id", auth: "session", org: true, role: "admin", tags: ["access"],
      status: 204,
      summary: "Revoke an API key: its next request is a 401 (revoking it again changes nothing)",
      params: ApiKeyParams,
      responses: { 204: null },
      handler: async ({ org, params }) => {
        await service.revoke(params.key_id, org.id);
      },
    }),
  ];
}

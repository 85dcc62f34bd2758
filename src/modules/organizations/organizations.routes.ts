import { z } from "zod";
import { route, type RouteDef } from "../../platform/http/route.js";
import type { OrganizationsService } from "./organizations.service.js";
import { presentOrg } from "./organizations.presenter.js";
import { Me, OrgItem, OrgParams, OrgUpdateIn } from "./organizations.schemas.js";

/** GET /api/v1/me, GET /api/v1/organizations and PATCH /api/v1/organizations/{org_id} (its owner, signed in). */
export function organizationsRoutes(service: OrganizationsService): RouteDef[] {
  return [
    route({
      operationId: "getMe",
      method: "GET",
      url: "/api/v1/me",
      auth: "apiKey",
      summary: "Organization context of the API key",
      tags: ["context"],
      responses: { 200: Me },
      // Everything Me needs came with the key lookup: no further query.
      handler: async ({ auth }) => ({ org_id: auth.orgId, org_name: auth.orgName, plan: auth.plan }),
    }),
    route({
      operationId: "listOrganizations",
      method: "GET",
      url: "/api/v1/organizations",
      auth: "both",
      summary: "The caller's organizations: an API key's own (role api_key), a signed-in user's with their role",
      tags: ["context"],
      responses: { 200: z.array(OrgItem) },
      handler: async ({ auth }) => (await service.reachable(auth)).map(({ org, role }) => presentOrg(org, role)),
    }),
    route({
      operationId: "updateOrganization",
      method: "PATCH", url: "/api/v1/organizations/:org_id", auth: "session", org: true, role: "owner", tags: ["access"],
      summary: "Rename the organization (its owners)",
      params: OrgParams,
      body: OrgUpdateIn,
      responses: { 200: OrgItem },
      handler: async ({ auth, org, body }) => {
        const renamed = await service.rename(auth, org, body);
        return presentOrg(renamed.org, renamed.role);
      },
    }),
  ];
}

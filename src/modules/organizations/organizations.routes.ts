import { z } from "zod";
import { route, type RouteDef } from "../../platform/http/route.js";
import type { OrganizationsService } from "./organizations.service.js";
import { presentOrg } from "./organizations.presenter.js";
import { Me, OrgItem } from "./organizations.schemas.js";

/** GET /api/v1/me and GET /api/v1/organizations. */
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
  ];
}

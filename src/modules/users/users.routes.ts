import { z } from "zod";
import { route, type RouteDef } from "../../platform/http/route.js";
import { OrgParams } from "../organizations/organizations.schemas.js";
import { presentMember } from "./users.presenter.js";
import { Member, MemberIn, MemberParams, MemberRoleIn } from "./users.schemas.js";
import type { UsersService } from "./users.service.js";

const OWNER_ROLE = "the owner role is granted, changed or removed by an owner only";

/** The members of an organization and their roles, on the session API: GET, POST, PATCH and DELETE …/members. */
export function membersRoutes(service: UsersService): RouteDef[] {
  return [
    route({
      operationId: "listMembers",
      method: "GET", url: "/api/v1/organizations/:org_id/members", auth: "session", org: true, role: "viewer", tags: ["access"],
      summary: "Members of the organization with their role",
      params: OrgParams,
      responses: { 200: z.array(Member) },
      handler: async ({ org }) => (await service.members(org)).map(presentMember),
    }),
    route({
      operationId: "addMember",
      method: "POST", url: "/api/v1/organizations/:org_id/members", auth: "session", org: true, role: "admin", tags: ["access"],
      status: 201,
      summary: "Add a member: an existing account, or a new one created with `password`",
      description:
        "An address with no account and no `password` is a 422 on `email`; an existing account with a `password` is a 409 " +
        "(email_deja_utilise: a password is never reset here); a member already is a 409 (deja_membre: PATCH their role).",
      errors: { 403: OWNER_ROLE, 409: "already a member (deja_membre), or a password given for an existing account (email_deja_utilise)" },
      params: OrgParams,
      body: MemberIn,
      responses: { 201: Member },
      handler: async ({ auth, org, body }) => presentMember(await service.addMember(auth, org, body)),
    }),
    route({
      operationId: "changeMemberRole",
      method: "PATCH", url: "/api/v1/organizations/:org_id/members/:user_id", auth: "session", org: true, role: "admin", tags: ["access"],
      summary: "Change a member's role",
      errors: { 403: OWNER_ROLE, 409: "the organization's last owner cannot be demoted (dernier_proprietaire)" },
      params: MemberParams,
      body: MemberRoleIn,
      responses: { 200: Member },
      handler: async ({ auth, org, params, body }) => presentMember(await service.changeRole(auth, org, params.user_id, body.role)),
    }),
    route({
      operationId: "removeMember",
      method: "DELETE", url: "/api/v1/organizations/:org_id/members/:user_id", auth: "session", org: true, role: "admin", tags: ["access"],
      status: 204,
      summary: "Remove a member (an admin may remove themselves): their access to this organization ends at their next request",
      errors: { 403: OWNER_ROLE, 409: "the organization's last owner cannot be removed (dernier_proprietaire)" },
      params: MemberParams,
      responses: { 204: null },
      handler: async ({ auth, org, params }) => service.removeMember(auth, org, params.user_id),
    }),
  ];
}

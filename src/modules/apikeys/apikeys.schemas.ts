import { z } from "zod";
import { SCOPES } from "../../platform/auth/scopes.js";
import { OrgParams } from "../organizations/organizations.schemas.js";

export const ApiKeyItem = z
  .object({
    id: z.uuid(),
    prefix: z.string().describe("The key's visible start (vk_…), to recognise it; not a secret"),
    name: z.string(),
    org_id: z.uuid(),
    scopes: z.array(z.string()),
    project_ids: z.array(z.uuid()).nullable().describe("The projects the key is restricted to; null: every project"),
    created_at: z.iso.datetime(),
    last_used_at: z.iso.datetime().nullable(),
    revoked_at: z.iso.datetime().nullable(),
  })
  .meta({ id: "ApiKeyItem" });

export const ApiKeyCreated = ApiKeyItem.extend({
  key: z.string().describe("The key itself (vk_…): shown in this answer only, never again (only its SHA-256 is stored)"),
}).meta({ id: "ApiKeyCreated" });

export const ApiKeyIn = z
  .object({
    name: z.string().trim().min(1).max(100),
    scopes: z.array(z.enum(SCOPES)).describe("Write scopes the key holds (reads need none)"),
    project_ids: z
      .array(z.uuid())
      .max(1000)
      .optional()
      .describe("Restricts the key to these projects of the organization; omitted or empty: every project"),
  })
  .meta({ id: "ApiKeyIn" });

export const ApiKeyParams = OrgParams.extend({ key_id: z.uuid() });

export const ApiKeyListQuery = z.object({
  include_revoked: z.boolean().optional().describe("true: the revoked keys too (with revoked_at), after the live ones"),
});

export type ApiKeyItem = z.infer<typeof ApiKeyItem>;
export type ApiKeyCreated = z.infer<typeof ApiKeyCreated>;

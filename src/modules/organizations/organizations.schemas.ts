import { z } from "zod";

export const PlanInfo = z
  .object({
    name: z.string(),
    slug: z.string(),
    max_api_calls_per_hour: z.int(),
  })
  .meta({ id: "PlanInfo" });

export const Me = z
  .object({
    org_id: z.uuid(),
    org_name: z.string(),
    plan: PlanInfo.nullable(),
  })
  .meta({ id: "MeResponse" });

export const OrgItem = z
  .object({
    id: z.uuid(),
    name: z.string(),
    role: z.string().describe("Role of the caller: 'api_key' for an API key, else the member's role (owner, admin, member, viewer)"),
    is_personal: z.boolean(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "OrgItem" });

export const OrgUpdateIn = z.object({ name: z.string().describe("1 to 200 characters once trimmed") }).meta({ id: "OrgUpdateIn" });

export const OrgParams = z.object({ org_id: z.uuid() });

export type PlanInfo = z.infer<typeof PlanInfo>;
export type OrgItem = z.infer<typeof OrgItem>;

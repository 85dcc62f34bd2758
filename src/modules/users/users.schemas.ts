import { z } from "zod";
import { ROLES } from "../../platform/db/schema/index.js";
import { OrgParams } from "../organizations/organizations.schemas.js";

const ROLE = z.enum(ROLES).describe("viewer reads; member triages; admin manages; owner everything, the organization included");

export const Member = z
  .object({
    id: z.uuid().describe("The user's id"),
    email: z.string(),
    role: ROLE,
    joined_at: z.iso.datetime().describe("When the user became a member"),
  })
  .meta({ id: "Member" });

export const MemberIn = z
  .object({
    email: z.string().max(254),
    role: ROLE,
    password: z
      .string()
      .max(1024)
      .optional()
      .describe("Creates the account with this password (8 to 1024 characters); omit it to add an existing account"),
  })
  .meta({ id: "MemberIn" });

export const MemberRoleIn = z.object({ role: ROLE }).meta({ id: "MemberRoleIn" });

export const MemberParams = OrgParams.extend({ user_id: z.uuid() });

export type Member = z.infer<typeof Member>;

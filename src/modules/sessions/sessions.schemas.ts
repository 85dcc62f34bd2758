import { z } from "zod";
import { ROLES } from "../../platform/db/schema/index.js";

export const LoginIn = z
  .object({
    email: z.string().min(1).max(254),
    password: z.string().min(1).max(1024),
  })
  .meta({ id: "LoginIn" });

export const LoginOut = z
  .object({
    token: z.string().describe("Account token: send as Authorization: Bearer <token>, or rely on the cookie"),
    expires_at: z.iso.datetime(),
  })
  .meta({ id: "LoginOut" });

export const SessionOut = z
  .object({
    user: z.object({ id: z.uuid(), email: z.string() }),
    expires_at: z.iso.datetime().describe("When this session ends: sign in again after"),
    organizations: z.array(
      z.object({
        id: z.uuid(),
        name: z.string(),
        role: z.enum(ROLES).describe("viewer reads; member triages; admin manages; owner everything"),
        is_personal: z.boolean(),
        projects: z.array(z.object({ id: z.uuid(), name: z.string() })),
      }),
    ),
  })
  .meta({ id: "Session" });
export type SessionOut = z.infer<typeof SessionOut>;

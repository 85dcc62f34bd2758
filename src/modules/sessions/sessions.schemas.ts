import { z } from "zod";

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

import type { FastifyRequest } from "fastify";
import type { Config } from "../../config.js";
import { bearerToken } from "../../platform/auth/api-key-auth.js";
import { route, type RouteDef } from "../../platform/http/route.js";
import { LoginIn, LoginOut } from "./sessions.schemas.js";
import type { SessionsService } from "./sessions.service.js";

export const SESSION_COOKIE = "vigie_session";

/** The session token of a request: the cookie, else an account token in Authorization. */
export function sessionToken(req: FastifyRequest): string | null {
  return req.cookies[SESSION_COOKIE] ?? bearerToken(req.headers.authorization);
}

/** POST /auth/login and POST /auth/logout. */
export function sessionsRoutes(service: SessionsService, config: Config): RouteDef[] {
  return [
    route({
      operationId: "login",
      errors: { 401: "wrong e-mail or password", 429: "too many failed attempts for this account or address (Retry-After)" },
      method: "POST", url: "/auth/login", auth: "none", tags: ["session"],
      summary: "Sign in: returns an account token and sets the session cookie",
      description: "Repeated failures are slowed down per account and per client address (429 with Retry-After).",
      body: LoginIn,
      responses: { 200: LoginOut },
      handler: async ({ body, req, reply }) => {
        const { token, expiresAt } = await service.login(body.email, body.password, req.ip);
        reply.setCookie(SESSION_COOKIE, token, {
          path: "/",
          httpOnly: true,
          sameSite: "lax",
          secure: config.cookieSecure,
          expires: expiresAt,
        });
        return { token, expires_at: expiresAt.toISOString() };
      },
    }),
    route({
      operationId: "logout",
      errors: { 401: "an API key in Authorization: this is the session API" },
      method: "POST", url: "/auth/logout", auth: "none", tags: ["session"], status: 204,
      summary: "Sign out: revokes the session and clears the cookie",
      responses: { 204: null },
      handler: async ({ req, reply }) => {
        await service.logout(sessionToken(req));
        reply.clearCookie(SESSION_COOKIE, { path: "/" });
      },
    }),
  ];
}

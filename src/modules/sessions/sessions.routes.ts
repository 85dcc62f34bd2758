import type { Config } from "../../config.js";
import { SESSION_COOKIE, sessionToken } from "../../platform/auth/credentials.js";
import { route, type RouteDef } from "../../platform/http/route.js";
import { LoginIn, LoginOut, SessionOut } from "./sessions.schemas.js";
import type { SessionsService } from "./sessions.service.js";

/** Sign-in and sign-out paths: the CSRF guard refuses them from another site's page (login CSRF). */
export const SIGN_IN_PATHS = ["/auth/login", "/auth/logout"] as const;

/** POST /auth/login, POST /auth/logout, GET /auth/session and POST /auth/logout-everywhere. */
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
          secure: config.cookieSecure || req.protocol === "https",
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
    route({
      operationId: "getSession",
      method: "GET", url: "/auth/session", auth: "session", tags: ["session"],
      summary: "The signed-in user: the session's expiry, their organizations with their role, and the projects of each",
      responses: { 200: SessionOut },
      handler: async ({ auth }) => service.describe(auth),
    }),
    route({
      operationId: "logoutEverywhere",
      method: "POST", url: "/auth/logout-everywhere", auth: "session", tags: ["session"], status: 204,
      summary: "Sign out everywhere: revokes every session of the signed-in user (this one included) and clears the cookie",
      responses: { 204: null },
      handler: async ({ auth, reply }) => {
        await service.logoutEverywhere(auth);
        reply.clearCookie(SESSION_COOKIE, { path: "/" });
      },
    }),
  ];
}

import type { FastifyRequest } from "fastify";
import { bearerToken } from "./api-key-auth.js";
import { SESSION_TOKEN_PREFIX } from "./secrets.js";

/** The cookie that carries a browser's session token (set by POST /auth/login). */
export const SESSION_COOKIE = "vigie_session";

/** The session token of a request: an account token in Authorization, else the cookie. */
export function sessionToken(req: FastifyRequest): string | null {
  return bearerToken(req.headers.authorization) ?? req.cookies[SESSION_COOKIE] ?? null;
}

/**
 * True when a request that a route serves to API keys and sessions alike (`auth: "both"`) presents a
 * session: an account token (vs_…) in Authorization, or the session cookie and no Authorization.
 * Anything else is an API key's request, answered as /api/v1 always has (401 without one).
 */
export function presentsSession(req: FastifyRequest): boolean {
  const authorization = req.headers.authorization;
  if (authorization !== undefined) return bearerToken(authorization)?.startsWith(SESSION_TOKEN_PREFIX) ?? false;
  return req.cookies[SESSION_COOKIE] !== undefined;
}

/** True when the request's credential is the session cookie (the only one a browser sends by itself: CSRF applies). */
export function cookieAuthenticated(req: FastifyRequest): boolean {
  return req.headers.authorization === undefined && req.cookies[SESSION_COOKIE] !== undefined;
}

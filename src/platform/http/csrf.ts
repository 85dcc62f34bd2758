import type { FastifyReply, FastifyRequest } from "fastify";
import { cookieAuthenticated } from "../auth/credentials.js";
import { AUTH } from "../messages.js";

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * True when a browser sent this request from another origin (ADR 0029): the browser's own
 * Sec-Fetch-Site header when it sends one (every current browser does), else Origin compared with
 * Host. A request with neither did not come from a browser's page (curl, an SDK): nothing to forge.
 */
export function crossOrigin(req: FastifyRequest): boolean {
  const site = req.headers["sec-fetch-site"];
  if (typeof site === "string") return site !== "same-origin" && site !== "none";
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== req.headers.host;
  } catch {
    return true; // "null" (a sandboxed frame, a redirect across origins) or garbage
  }
}

/**
 * The CSRF guard (onRequest, before anything is read or written): a write whose credential is the
 * session cookie, or a sign-in or sign-out, sent by another site's page → 403. Account tokens and
 * API keys travel in Authorization, which no other site can make a browser send.
 */
export function csrfGuard(paths: { signIn: readonly string[] }) {
  const signIn = new Set(paths.signIn);
  // Callback style, not async: it runs on every request (the hot path pays no promise for it).
  return (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (SAFE.has(req.method) || (!cookieAuthenticated(req) && !signIn.has(req.url.split("?", 1)[0]!)) || !crossOrigin(req)) return done();
    reply.code(403).send({ detail: AUTH.crossSite });
  };
}

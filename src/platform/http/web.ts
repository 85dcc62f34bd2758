import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The web build next to the compiled server: `dist/web/`, written by `vite build`. Run from the
 * sources (the tests), this is the repository's `web/` folder, which holds no build: no web.
 */
export const WEB_DIR = fileURLToPath(new URL("../../web/", import.meta.url));

/** Paths the server answers itself: never the web application's index.html. */
const SERVER_PATHS = /^\/(api|docs|mcp|auth|projects|organizations|assets|openapi\.json)(\/|$|\?)/;

/** Whether a request not routed by the server is a page of the web application (a browser asking for HTML). */
export function isClientRoute(req: FastifyRequest): boolean {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  if (SERVER_PATHS.test(req.url)) return false;
  return (req.headers.accept ?? "").includes("text/html");
}

/**
 * Serves the web application built in `dir` (default WEB_DIR): `/assets/*` (hashed names, cached
 * for a year, precompressed) and `index.html` (revalidated each time) for `/` and every client route. Without a
 * build (no `dir/.vite/manifest.json`, as when the server runs from its sources) nothing is
 * registered and those paths keep answering 404.
 */
export async function registerWeb(app: FastifyInstance, dir: string = WEB_DIR): Promise<void> {
  const indexFile = join(dir, "index.html");
  if (!existsSync(join(dir, ".vite", "manifest.json")) || !existsSync(indexFile)) return;
  const index = readFileSync(indexFile);
  await app.register(fastifyStatic, {
    root: join(dir, "assets"),
    prefix: "/assets/",
    decorateReply: false,
    index: false,
    cacheControl: false,
    // The build writes .br and .gz beside each text asset (scripts/copy-assets.mjs): sent as the
    // request's Accept-Encoding allows (brotli first), with Content-Encoding and Vary: Accept-Encoding.
    preCompressed: true,
    setHeaders: (reply) => reply.header("Cache-Control", "public, max-age=31536000, immutable"),
  });
  // A client route is no server route: the not-found handler asks here first (no hook on every request).
  app.clientPage = (req, reply) =>
    isClientRoute(req)
      ? reply
          .code(200)
          .header("Content-Type", "text/html; charset=utf-8")
          .header("Cache-Control", "no-cache")
          .header("X-Content-Type-Options", "nosniff")
          // Never framed by another site (clickjacking): the old header and the CSP directive.
          .header("X-Frame-Options", "DENY")
          .header("Content-Security-Policy", "frame-ancestors 'none'")
          .header("Content-Length", index.length)
          .send(req.method === "HEAD" ? undefined : index)
      : null;
}

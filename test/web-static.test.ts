import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { request } from "node:http";
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { createLogger } from "../src/platform/log.js";
import { openTestDatabase } from "./helpers.js";
import type { FastifyInstance } from "fastify";

const INDEX = '<!doctype html><html lang="fr"><script src="/assets/index-Ab12.js"></script></html>';
const APP_JS = `export const words = ${JSON.stringify(Array.from({ length: 200 }, (_, i) => `mot ${i}`))};\n`;
const HTML = { accept: "text/html,application/xhtml+xml,*/*;q=0.8" };

/** The application over a web build in `webDir` (a fake one written by the test). */
async function appWith(webDir: string): Promise<FastifyInstance> {
  const database = await openTestDatabase();
  const config = loadConfig({ ...process.env, VIGIE_JOBS: "off", VIGIE_SECRET_KEY: randomBytes(32).toString("base64") });
  const { app } = await buildApp({ config, database, logger: createLogger("silent"), webDir });
  await app.ready();
  afterAll(() => app.close());
  return app;
}

describe("the web application's static files", () => {
  const dir = mkdtempSync(join(tmpdir(), "vigie-web-"));
  let app: FastifyInstance;
  beforeAll(async () => {
    mkdirSync(join(dir, "assets"));
    mkdirSync(join(dir, ".vite"));
    writeFileSync(join(dir, "index.html"), INDEX);
    writeFileSync(join(dir, "assets", "index-Ab12.js"), "console.log('vigie');");
    // What scripts/copy-assets.mjs writes beside a built asset.
    writeFileSync(join(dir, "assets", "app-Cd34.js"), APP_JS);
    writeFileSync(join(dir, "assets", "app-Cd34.js.br"), brotliCompressSync(APP_JS));
    writeFileSync(join(dir, "assets", "app-Cd34.js.gz"), gzipSync(APP_JS));
    writeFileSync(join(dir, ".vite", "manifest.json"), "{}");
    app = await appWith(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("serves hashed assets cached for a year", async () => {
    const res = await app.inject({ method: "GET", url: "/assets/index-Ab12.js" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(res.headers["content-type"]).toMatch(/javascript/);
    expect(res.body).toBe("console.log('vigie');");
  });

  it("sends the precompressed variant the request accepts (brotli first), with Content-Encoding and Vary", async () => {
    const url = "/assets/app-Cd34.js";
    const ask = (encoding?: string) =>
      app.inject({ method: "GET", url, headers: encoding === undefined ? {} : { "accept-encoding": encoding } });
    const br = await ask("gzip, deflate, br, zstd");
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers["content-type"]).toMatch(/javascript/);
    expect(br.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(APP_JS);
    const gz = await ask("gzip");
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gz.rawPayload).toString()).toBe(APP_JS);
    for (const plain of [await ask(), await ask("identity")]) {
      expect(plain.headers["content-encoding"]).toBeUndefined();
      expect(plain.headers.vary).toMatch(/accept-encoding/i);
      expect(plain.body).toBe(APP_JS);
    }
    // An asset the build left uncompressed is sent as it is whatever the request accepts.
    const lone = await app.inject({ method: "GET", url: "/assets/index-Ab12.js", headers: { "accept-encoding": "br, gzip" } });
    expect(lone.headers["content-encoding"]).toBeUndefined();
    expect(lone.body).toBe("console.log('vigie');");
    // Over a real socket, as a browser asks.
    const address = await app.listen({ port: 0, host: "127.0.0.1" });
    const res = await new Promise<{ headers: Record<string, unknown>; body: Buffer }>((done, fail) => {
      request(`${address}${url}`, { headers: { "accept-encoding": "gzip, deflate, br, zstd" } }, (r) => {
        const chunks: Buffer[] = [];
        r.on("data", (c: Buffer) => chunks.push(c));
        r.on("end", () => done({ headers: r.headers, body: Buffer.concat(chunks) }));
      })
        .on("error", fail)
        .end();
    });
    expect(res.headers["content-encoding"]).toBe("br");
    expect(res.body.length).toBeLessThan(Buffer.byteLength(APP_JS));
    expect(brotliDecompressSync(res.body).toString()).toBe(APP_JS);
  });

  it("answers index.html, revalidated, for / and client routes asked by a browser", async () => {
    for (const url of ["/", "/login", "/feeds", "/p/123/alerts?x=1"]) {
      const res = await app.inject({ method: "GET", url, headers: HTML });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(res.headers["cache-control"]).toBe("no-cache");
      expect(res.headers["x-frame-options"]).toBe("DENY");
      expect(res.headers["content-security-policy"]).toBe("frame-ancestors 'none'");
      expect(res.body).toContain("/assets/index-Ab12.js");
    }
    const head = await app.inject({ method: "HEAD", url: "/feeds", headers: HTML });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe("");
    expect(head.headers["content-length"]).toBe(String(Buffer.byteLength(INDEX)));
  });

  it("leaves the server's paths, other methods and non-HTML requests as they were", async () => {
    for (const url of [
      "/api/v1/nothing",
      "/auth/nothing",
      "/projects",
      "/organizations/x",
      "/mcp/x",
      "/docs/nothing",
      "/assets/missing.js",
    ]) {
      const res = await app.inject({ method: "GET", url, headers: HTML });
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toEqual({ detail: "Not Found" });
    }
    const json = await app.inject({ method: "GET", url: "/feeds", headers: { accept: "application/json" } });
    expect(json.statusCode).toBe(404);
    expect(json.json()).toEqual({ detail: "Not Found" });
    const post = await app.inject({ method: "POST", url: "/login", headers: HTML });
    expect(post.statusCode).toBe(404);
    const openapi = await app.inject({ method: "GET", url: "/openapi.json", headers: HTML });
    expect(openapi.statusCode).toBe(200);
    expect(openapi.json().openapi).toBe("3.1.0");
  });
});

describe("without a web build", () => {
  it("answers / with 404 JSON as before", async () => {
    const app = await appWith(mkdtempSync(join(tmpdir(), "vigie-noweb-")));
    const res = await app.inject({ method: "GET", url: "/", headers: HTML });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: "Not Found" });
  });
});

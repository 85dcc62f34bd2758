/**
 * Answers Node's HTTP server gives before any route runs, read on a real socket: they too are
 * complete HTTP responses with a {"detail": ...} JSON body.
 */
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import Fastify from "fastify";
import { afterAll, describe, expect, it } from "vitest";
import { clientErrorHandler } from "../src/platform/http/server.js";
import { createTestApp } from "./helpers.js";

/** Writes raw bytes to the server and reads until it closes the connection (or `ms` elapse). */
function exchange(port: number, chunks: (string | Buffer)[], ms = 10_000): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const received: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error("no answer"));
    }, ms);
    socket.on("connect", () => chunks.forEach((c) => socket.write(c)));
    socket.on("data", (d) => received.push(d));
    socket.on("error", () => {}); // the server may reset after answering
    socket.on("close", () => {
      clearTimeout(timer);
      const text = Buffer.concat(received).toString("utf8");
      const [head = "", body = ""] = text.split("\r\n\r\n");
      resolve({ status: Number(head.split(" ")[1]), headers: head.toLowerCase(), body });
    });
  });
}

const t = await createTestApp();
await t.app.listen({ port: 0, host: "127.0.0.1" });
const port = (t.app.server.address() as AddressInfo).port;

describe("errors before routing, on a real socket", () => {
  it("431: headers past Node's 16 KiB limit", async () => {
    const res = await exchange(port, [`GET /api/v1/cves HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`]);
    expect(res.status).toBe(431);
    expect(res.headers).toContain("content-type: application/json");
    expect(JSON.parse(res.body)).toEqual({ detail: "Request Header Fields Too Large" });
  });

  it("400: a path that is not UTF-8 (FST_ERR_BAD_URL); 414: a path parameter past the limit (FST_ERR_MAX_PARAM_LENGTH)", async () => {
    const bad = await exchange(port, ["GET /api/v1/cves/%FF HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"]);
    expect([bad.status, JSON.parse(bad.body)]).toEqual([400, { detail: "Bad Request" }]);
    const long = await exchange(port, [`GET /api/v1/cves/${"a".repeat(300)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`]);
    expect([long.status, JSON.parse(long.body)]).toEqual([414, { detail: "URI Too Long" }]);
  });

  it("400: malformed HTTP, and a NUL in a header value, refused by Node's parser", async () => {
    const garbage = await exchange(port, ["NOT HTTP AT ALL\r\n\r\n"]);
    expect([garbage.status, JSON.parse(garbage.body)]).toEqual([400, { detail: "Bad Request" }]);
    const nul = await exchange(port, [Buffer.from("GET /api/v1/cves HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n", "latin1")]);
    expect([nul.status, JSON.parse(nul.body)]).toEqual([400, { detail: "Bad Request" }]);
  });

  it("a good request on the same server still answers normally", async () => {
    const ok = await exchange(port, ["GET /api/v1/nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"]);
    expect([ok.status, JSON.parse(ok.body)]).toEqual([404, { detail: "Not Found" }]);
  });
});

describe("408: request timeout", () => {
  // The service's timeouts are set by the server configuration; here a server with the same
  // clientErrorHandler and a short requestTimeout shows what a slow client receives. (On Node 20 the
  // requestTimeout Fastify sets after creating the server is only enforced when headersTimeout is
  // not larger than it; the checking interval is shortened from 30 s to keep the test quick.)
  const app = Fastify({ requestTimeout: 300, clientErrorHandler, http: { connectionsCheckingInterval: 50, headersTimeout: 300 } });
  app.post("/", async () => ({}));
  afterAll(() => app.close());

  it("a body that never ends: 408 {detail} and the connection closed", async () => {
    await app.listen({ port: 0, host: "127.0.0.1" });
    const slowPort = (app.server.address() as AddressInfo).port;
    const started = Date.now();
    const res = await exchange(slowPort, ["POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"]);
    expect(res.status).toBe(408);
    expect(JSON.parse(res.body)).toEqual({ detail: "Request Timeout" });
    expect(res.headers).toContain("connection: close");
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

import { connect, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { createTestApp } from "./helpers.js";

// Small limits so that the test takes seconds: the whole request within 1.5 s, a 1 MiB body budget.
const t = await createTestApp({
  VIGIE_HTTP_REQUEST_TIMEOUT_MS: "1500",
  VIGIE_HTTP_HEADERS_TIMEOUT_MS: "1000",
  VIGIE_HTTP_BODY_BUDGET_MB: "1",
});
await t.app.listen({ port: 0, host: "127.0.0.1" });
const { port } = t.app.server.address() as AddressInfo;

/** A raw connection: what it received, and a promise of its close. */
function open(): { socket: Socket; received: () => string; closed: Promise<number> } {
  const socket = connect(port, "127.0.0.1");
  let data = "";
  socket.on("data", (b) => (data += b.toString("utf8")));
  socket.on("error", () => undefined); // a reset by the server is an expected way to close
  const started = Date.now();
  const closed = new Promise<number>((resolve) => socket.on("close", () => resolve(Date.now() - started)));
  return { socket, received: () => data, closed };
}

const head = (length: number) =>
  `POST /auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

describe("slow and hostile clients are bounded", () => {
  it("a body trickled one byte at a time is cut off after the request timeout (408)", async () => {
    const c = open();
    c.socket.write(head(100));
    const timer = setInterval(() => c.socket.writable && c.socket.write("x"), 200);
    const ms = await c.closed;
    clearInterval(timer);
    expect(c.received()).toMatch(/^HTTP\/1\.1 408/);
    expect(ms).toBeGreaterThanOrEqual(1400);
    expect(ms).toBeLessThan(1500 + 1000); // timeout + Node's checking interval (250 ms here) + slack
  });

  it("a body past the budget of buffered bytes is refused (503, connection closed); the budget returns", async () => {
    const a = open();
    a.socket.write(head(600_000) + "x".repeat(10_000)); // holds 600 KB of the 1 MiB budget
    await new Promise((r) => setTimeout(r, 150));
    const b = open();
    b.socket.write(head(600_000) + "x".repeat(10_000));
    await b.closed;
    expect(b.received()).toMatch(/^HTTP\/1\.1 503/);
    expect(b.received()).toMatch(/connection: close/i);
    expect(JSON.parse(b.received().split("\r\n\r\n")[1]!)).toEqual({ detail: expect.stringMatching(/réessayez/) });

    a.socket.destroy(); // the client goes away: its reservation is released
    await a.closed;
    await new Promise((r) => setTimeout(r, 50));
    const c = open();
    c.socket.write(head(600_000) + "x".repeat(600_000));
    await new Promise<void>((resolve) => c.socket.on("data", () => resolve()));
    expect(c.received()).toMatch(/^HTTP\/1\.1 422/); // accepted and parsed (not JSON)
    // Answered on a connection kept alive: its reservation is released all the same.
    await new Promise((r) => setTimeout(r, 50));
    const d = open();
    d.socket.write(head(600_000) + "x".repeat(600_000));
    await new Promise<void>((resolve) => d.socket.on("data", () => resolve()));
    expect(d.received()).toMatch(/^HTTP\/1\.1 422/);
    c.socket.destroy();
    d.socket.destroy();
  });
});

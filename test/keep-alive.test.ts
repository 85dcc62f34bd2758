/**
 * Keep-alive: every answer given before a request's body is read (or instead of reading it) leaves
 * its connection usable, or says `Connection: close` and closes it. A client's pool reuses a
 * connection as soon as an answer is complete; if the server stopped reading there, the next
 * request on it would wait for nothing (issue 21: a storm through one pool found such requests).
 * Each case sends a request on a raw socket, reads its answer, then sends a second request on the
 * same socket, as a pool would, and reads that one too.
 */
import { connect, type AddressInfo, type Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { createTenant, createTestApp } from "./helpers.js";

// A 1 MiB body budget (one full body fills it) and a 2 s request timeout keep the 503 and 408 quick.
const t = await createTestApp({
  VIGIE_HTTP_BODY_BUDGET_MB: "1",
  VIGIE_HTTP_REQUEST_TIMEOUT_MS: "2000",
  VIGIE_HTTP_HEADERS_TIMEOUT_MS: "2000",
});
const tenant = await createTenant(t, { plan: "enterprise" });
await t.app.listen({ port: 0, host: "127.0.0.1" });
const port = (t.app.server.address() as AddressInfo).port;
const base = `/api/v1/organizations/${tenant.orgId}/projects/${tenant.projectId}`;
const MiB = 1024 * 1024;

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A client connection read answer by answer (Content-Length or chunked framing; no body after HEAD). */
class Connection {
  readonly socket: Socket;
  #buffer = Buffer.alloc(0);
  #closed = false;
  #wake: (() => void) | null = null;

  constructor() {
    this.socket = connect(port, "127.0.0.1");
    this.socket.on("data", (d: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, d]);
      this.#wake?.();
    });
    this.socket.on("error", () => {}); // a reset shows as a close without an answer
    this.socket.on("close", () => {
      this.#closed = true;
      this.#wake?.();
    });
  }

  send(...chunks: (string | Buffer)[]): this {
    for (const c of chunks) this.socket.write(c);
    return this;
  }

  /** The next complete answer; "closed" if the server closed first, "timeout" if nothing came within `ms`. */
  async answer(ms = 5000, head = false): Promise<Answer | "closed" | "timeout"> {
    const deadline = Date.now() + ms;
    for (;;) {
      const parsed = this.#parse(head);
      if (parsed) return parsed;
      if (this.#closed) return "closed";
      const left = deadline - Date.now();
      if (left <= 0) return "timeout";
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = null;
    }
  }

  /** Resolves true once the server has closed the connection (within `ms`). */
  async closed(ms = 3000): Promise<boolean> {
    const got = await this.answer(ms);
    return got === "closed";
  }

  #parse(head: boolean): Answer | null {
    const end = this.#buffer.indexOf("\r\n\r\n");
    if (end < 0) return null;
    const [statusLine = "", ...lines] = this.#buffer.subarray(0, end).toString("latin1").split("\r\n");
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const status = Number(statusLine.split(" ")[1]);
    let rest = this.#buffer.subarray(end + 4);
    let body: Buffer;
    if (head || status === 204 || status === 304 || status < 200) {
      body = Buffer.alloc(0);
    } else if (headers["transfer-encoding"] === "chunked") {
      const parts: Buffer[] = [];
      for (;;) {
        const eol = rest.indexOf("\r\n");
        if (eol < 0) return null;
        const size = Number.parseInt(rest.subarray(0, eol).toString("latin1"), 16);
        if (rest.length < eol + 2 + size + 2) return null;
        parts.push(rest.subarray(eol + 2, eol + 2 + size));
        rest = rest.subarray(eol + 2 + size + 2);
        if (size === 0) break;
      }
      body = Buffer.concat(parts);
    } else {
      const length = Number(headers["content-length"] ?? 0);
      if (rest.length < length) return null;
      body = rest.subarray(0, length);
      rest = rest.subarray(length);
    }
    this.#buffer = rest;
    return { status, headers, body: body.toString("utf8") };
  }
}

const opened: Connection[] = [];
afterAll(() => {
  for (const c of opened) c.socket.destroy();
});
function open(): Connection {
  const c = new Connection();
  opened.push(c);
  return c;
}

const auth = `Authorization: Bearer ${tenant.key}\r\n`;
/** The second request of every case: answered 200 when the connection is still read. */
const ME = `GET /api/v1/me HTTP/1.1\r\nHost: x\r\n${auth}\r\n`;
const request = (method: string, url: string, headers: string, body?: string | Buffer) =>
  `${method} ${url} HTTP/1.1\r\nHost: x\r\n${headers}${body === undefined ? "" : `Content-Length: ${Buffer.byteLength(body)}\r\n`}\r\n`;

/**
 * Sends `first` (its head, then its body), checks its answer with `expectFirst`, then asks the
 * second request on the same connection: answered 200, unless the first said Connection: close,
 * in which case the server must have closed the connection.
 */
async function thenSecond(chunks: (string | Buffer)[], expectFirst: (a: Answer) => void, opts: { head?: boolean } = {}): Promise<Answer> {
  const c = open().send(...chunks);
  const first = await c.answer(5000, opts.head);
  if (typeof first === "string") throw new Error(`first request: ${first}`);
  expectFirst(first);
  if (first.headers.connection?.toLowerCase() === "close") {
    expect(await c.closed(), "Connection: close, then the connection is closed").toBe(true);
    return first;
  }
  expect(first.headers.connection?.toLowerCase()).toBe("keep-alive");
  const second = await c.send(ME).answer(5000);
  expect(typeof second === "string" ? second : second.status, "the second request on the same connection").toBe(200);
  return first;
}

const detail = (a: Answer) => (JSON.parse(a.body) as { detail: unknown }).detail;
const item = `${base}/stacks/00000000-0000-4000-8000-000000000000/items/00000000-0000-4000-8000-000000000000`;
const stacks = `${base}/stacks`;

describe("the requests a keep-alive storm left unanswered", () => {
  it("PATCH of a stack item, one-byte body NUL, no Content-Type, lower-case bearer: 422 json_invalid, then the next request", async () => {
    const body = "\0";
    await thenSecond([request("PATCH", item, `Authorization: bearer ${tenant.key}\r\n`, body), body], (a) => {
      expect(a.status).toBe(422);
      expect(detail(a)).toEqual([
        { type: "json_invalid", loc: ["body", 0], msg: "JSON decode error", input: {}, ctx: { error: "Expecting value" } },
      ]);
    });
  });

  it("GET /api/v1/articles?page_size=1e309: 422 int_parsing, then the next request", async () => {
    await thenSecond([request("GET", "/api/v1/articles?q=x&page_size=1e309", `Authorization: bearer ${tenant.key}\r\n`)], (a) => {
      expect(a.status).toBe(422);
      expect(detail(a)).toMatchObject([{ type: "int_parsing", loc: ["query", "page_size"], input: "1e309" }]);
    });
  });
});

describe("answers given before or instead of reading the body", () => {
  const json = "application/json";

  it("413: a Content-Length over the 1 MiB limit is refused unread, with Connection: close", async () => {
    const body = Buffer.alloc(MiB + 1, "x");
    await thenSecond([request("POST", stacks, `${auth}Content-Type: ${json}\r\n`, body), body], (a) => {
      expect([a.status, detail(a), a.headers.connection]).toEqual([413, "Payload Too Large", "close"]);
    });
  });

  it("413: a chunked body that passes the limit while it is read", async () => {
    const chunk = Buffer.alloc(256 * 1024, "x");
    const chunked = Array.from({ length: 5 }, () => [`${chunk.length.toString(16)}\r\n`, chunk, "\r\n"]).flat();
    await thenSecond(
      [`POST ${stacks} HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: ${json}\r\nTransfer-Encoding: chunked\r\n\r\n`, ...chunked, "0\r\n\r\n"],
      (a) => expect([a.status, detail(a)]).toEqual([413, "Payload Too Large"]),
    );
  });

  it("415: a Content-Type that is not a media type, with a body of 300 KB left unread", async () => {
    const body = Buffer.alloc(300_000, "x");
    await thenSecond([request("POST", stacks, `${auth}Content-Type: /\r\n`, body), body], (a) =>
      expect([a.status, detail(a)]).toEqual([415, "Unsupported Media Type"]),
    );
  });

  it("422: malformed JSON", async () => {
    await thenSecond([request("POST", stacks, `${auth}Content-Type: ${json}\r\n`, '{"name": '), '{"name": '], (a) => {
      expect(a.status).toBe(422);
      expect(detail(a)).toMatchObject([{ type: "json_invalid" }]);
    });
  });

  it("400: JSON nested deeper than Python's decoder reads", async () => {
    const body = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    await thenSecond([request("POST", stacks, `${auth}Content-Type: ${json}\r\n`, body), body], (a) =>
      expect([a.status, detail(a)]).toEqual([400, "There was an error parsing the body"]),
    );
  });

  it("401: no credential, with a 500 KB body", async () => {
    const body = JSON.stringify({ name: "x".repeat(500_000) });
    await thenSecond([request("POST", stacks, `Content-Type: ${json}\r\n`, body), body], (a) =>
      expect([a.status, a.headers["www-authenticate"]]).toEqual([401, "Bearer"]),
    );
  });

  it("401 on /mcp, whose handler answers before any protocol", async () => {
    const body = "x".repeat(200_000);
    await thenSecond([request("POST", "/mcp", `Content-Type: ${json}\r\n`, body), body], (a) => expect(a.status).toBe(401));
  });

  it("GET and HEAD with a body (never read by a route), 404 and 405 with a body", async () => {
    const body = Buffer.alloc(300_000, "x");
    await thenSecond([request("GET", "/api/v1/me", auth, body), body], (a) => expect(a.status).toBe(200));
    await thenSecond([request("HEAD", "/api/v1/me", auth, body), body], (a) => expect(a.status).toBe(200), { head: true });
    await thenSecond([request("POST", "/nowhere", "", body), body], (a) => expect([a.status, detail(a)]).toEqual([404, "Not Found"]));
    await thenSecond([request("PUT", "/api/v1/me", auth, body), body], (a) => expect(a.status).toBe(405));
  });

  it("400 and 414 before routing (a path that is not UTF-8, a path parameter over 200 characters), with a body", async () => {
    const body = Buffer.alloc(300_000, "x");
    await thenSecond([request("POST", "/api/v1/cves/%FF", "", body), body], (a) => expect(a.status).toBe(400));
    await thenSecond([request("POST", `${base}/stacks/${"a".repeat(300)}/items`, "", body), body], (a) => expect(a.status).toBe(414));
  });

  it("503: the body budget is spent — Connection: close, Retry-After, the connection closed; the budget is given back", async () => {
    // One request holding the whole budget: a 1 MiB body of which a byte has been sent.
    const holder = open().send(request("POST", stacks, `${auth}Content-Type: ${json}\r\n`, Buffer.alloc(MiB)), "x");
    await new Promise((r) => setTimeout(r, 200));
    const body = '{"name": "x"}';
    await thenSecond([request("POST", stacks, `${auth}Content-Type: ${json}\r\n`, body), body], (a) => {
      expect([a.status, a.headers.connection, a.headers["retry-after"]]).toEqual([503, "close", "5"]);
      expect(detail(a)).toMatch(/Trop de corps/);
    });
    holder.socket.destroy();
    await new Promise((r) => setTimeout(r, 100));
    // Released when the holder went: the same request is read again (403: the test key lacks stacks-write).
    await thenSecond([request("POST", stacks, `${auth}Content-Type: ${json}\r\n`, body), body], (a) => expect(a.status).toBe(403));
  });

  it("408: a body that stops arriving — the answer says Connection: close and the connection is closed", async () => {
    const c = open().send(request("POST", stacks, `${auth}Content-Type: ${json}\r\n`, "x".repeat(100)), "{");
    const answer = await c.answer(6000);
    if (typeof answer === "string") throw new Error(`408 expected, got ${answer}`);
    expect([answer.status, detail(answer), answer.headers.connection]).toEqual([408, "Request Timeout", "close"]);
    expect(await c.closed()).toBe(true);
  });
});

/**
 * Issue 9 §1: no bad input ever gets a 500. Each case below was seen answering a 500 (or a wrong
 * success) before; each now gets the FastAPI-shaped answer, checked field by field.
 */
import { describe, expect, it } from "vitest";
import { importFeed } from "../src/feeds/import.js";
import { loadConfig } from "../src/config.js";
import { Invalid } from "../src/platform/errors.js";
import { route } from "../src/platform/http/route.js";
import { buildServer } from "../src/platform/http/server.js";
import { NUL_MESSAGE } from "../src/platform/http/validation.js";
import { createLogger } from "../src/platform/log.js";
import { articles, publicVulns } from "../src/platform/db/schema/index.js";
import { bearer, createTenant, createTestApp, createWorkflow, workflowsUrl } from "./helpers.js";

const t = await createTestApp();
const tenant = await createTenant(t);
const { key } = await t.services.apiKeys.create({
  orgId: tenant.orgId,
  scopes: ["stacks-write", "alerts-write", "tags-write", "workflows-write"],
  projectIds: [],
});
const base = `/api/v1/organizations/${tenant.orgId}/projects/${tenant.projectId}`;
const get = (url: string) => t.app.inject({ method: "GET", url, headers: bearer(key) });
const post = (url: string, payload: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: "POST", url, headers: { ...bearer(key), "content-type": "application/json", ...headers }, payload });
const nul = (loc: (string | number)[], input: string) => ({
  type: "value_error",
  loc,
  msg: `Value error, ${NUL_MESSAGE}`,
  input,
  ctx: { error: {} },
});
const LISTS = ["/api/v1/cves", "/api/v1/vulnerabilities", "/api/v1/articles", `${base}/alerts`];

describe("dates are validated as FastAPI's date type", () => {
  it("2024-13-45, 0000-00-00 (were a 500 RangeError) and 2024-02-30 (was accepted): 422 date_from_datetime_parsing", async () => {
    for (const [input, error] of [
      ["2024-13-45", "month value is outside expected range of 1-12"],
      ["0000-00-00", "month value is outside expected range of 1-12"],
      ["2024-02-30", "day value is outside expected range"],
    ]) {
      const res = await get(`/api/v1/cves?published_from=${input}`);
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({
        detail: [
          {
            type: "date_from_datetime_parsing",
            loc: ["query", "published_from"],
            msg: `Input should be a valid date or datetime, ${error}`,
            input,
            ctx: { error },
          },
        ],
      });
    }
    const inexact = await get("/api/v1/cves?published_to=2024-01-01T10:00:00");
    expect(inexact.json().detail).toEqual([
      {
        type: "date_from_datetime_inexact",
        loc: ["query", "published_to"],
        msg: "Datetimes provided to dates should have zero time - e.g. be exact dates",
        input: "2024-01-01T10:00:00",
      },
    ]);
  });

  it("valid dates, and a datetime at midnight, are accepted as FastAPI accepts them", async () => {
    for (const q of ["published_from=2024-02-29&published_to=2024-12-31", "published_from=2024-01-01T00:00:00Z"]) {
      const res = await get(`/api/v1/cves?${q}`);
      expect(res.statusCode, q).toBe(200);
      expect(res.json()).toMatchObject({ items: [], total: 0 });
    }
  });
});

describe("integer query parameters are bounded", () => {
  it("page=99999999999999999999 (was a 500: offset not a bigint) on every list: 422 less_than_equal", async () => {
    for (const list of LISTS) {
      const res = await get(`${list}?page=99999999999999999999`);
      expect(res.statusCode, list).toBe(422);
      expect(res.json()).toEqual({
        detail: [
          {
            type: "less_than_equal",
            loc: ["query", "page"],
            msg: "Input should be less than or equal to 100000",
            input: "99999999999999999999",
            ctx: { le: 100000 },
          },
        ],
      });
    }
    const last = await get("/api/v1/cves?page=100000&page_size=100");
    expect(last.statusCode).toBe(200);
    expect(last.json()).toMatchObject({ items: [], page: 100000, page_size: 100 });
    const runs = await get(workflowsUrl(tenant, `/${tenant.defaultWorkflowId}/runs?limit=201`));
    expect(runs.json().detail).toEqual([
      {
        type: "less_than_equal",
        loc: ["query", "limit"],
        msg: "Input should be less than or equal to 200",
        input: "201",
        ctx: { le: 200 },
      },
    ]);
  });

  it("a workflow version past PostgreSQL's integer (was a 500): 422 less_than_equal", async () => {
    for (const version of [2147483648, 1e300]) {
      const res = await t.app.inject({
        method: "PATCH",
        url: workflowsUrl(tenant, `/${tenant.defaultWorkflowId}`),
        headers: { ...bearer(key), "content-type": "application/json" },
        payload: JSON.stringify({ version }),
      });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({
        detail: [
          {
            type: "less_than_equal",
            loc: ["body", "version"],
            msg: "Input should be less than or equal to 2147483647",
            input: version,
            ctx: { le: 2147483647 },
          },
        ],
      });
    }
  });

  it("the OpenAPI document states every bound: page maximum 100000, page_size 100, limit 200; dates have format date", async () => {
    const doc = (await t.app.inject({ method: "GET", url: "/openapi.json" })).json();
    const params = (path: string) =>
      Object.fromEntries(
        (doc.paths[path].get.parameters as { name: string; schema: Record<string, unknown> }[]).map((p) => [p.name, p.schema]),
      );
    for (const path of [
      "/api/v1/cves",
      "/api/v1/vulnerabilities",
      "/api/v1/articles",
      "/api/v1/organizations/{org_id}/projects/{project_id}/alerts",
    ]) {
      expect(params(path).page, path).toMatchObject({ type: "integer", minimum: 1, maximum: 100000 });
      expect(params(path).page_size, path).toMatchObject({ type: "integer", minimum: 1, maximum: 100 });
    }
    expect(params("/api/v1/organizations/{org_id}/projects/{project_id}/workflows/{workflow_id}/runs").limit).toMatchObject({
      maximum: 200,
    });
    expect(params("/api/v1/cves").published_from).toMatchObject({ type: "string", format: "date" });
  });
});

describe("NUL (U+0000) is refused with a 422 at its loc, before any SQL", () => {
  it("in the search and filter terms of every list (were 500s from PostgreSQL)", async () => {
    for (const [list, names] of [
      ["/api/v1/cves", ["q", "vendor", "product"]],
      ["/api/v1/articles", ["q", "source"]],
      ["/api/v1/vulnerabilities", ["q", "source"]],
      [`${base}/alerts`, ["q", "tag"]],
    ] as const) {
      for (const name of names) {
        const res = await get(`${list}?${name}=a%00b`);
        expect(res.statusCode, `${list} ${name}`).toBe(422);
        expect(res.json()).toEqual({ detail: [nul(["query", name], "a\0b")] });
      }
    }
  });

  it("in a path id: /api/v1/cves/%00 and /api/v1/vulnerabilities/%00", async () => {
    expect((await get("/api/v1/cves/%00")).json()).toEqual({ detail: [nul(["path", "cve_id"], "\0")] });
    expect((await get("/api/v1/vulnerabilities/GHSA-%00")).json()).toEqual({ detail: [nul(["path", "id"], "GHSA-\0")] });
  });

  it("in a header: Idempotency-Key", async () => {
    const res = await createWorkflow(t, tenant, { name: "x", trigger: { event: "cve.new_match" } }, "k\0");
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ detail: [nul(["header", "idempotency-key"], "k\0")] });
  });

  it("in JSON bodies: workflow name, stack item value, tag name, login e-mail, and keys at any depth", async () => {
    const wf = await createWorkflow(t, tenant, { name: "a\0", trigger: { event: "cve.new_match" } });
    expect(wf.json()).toEqual({ detail: [nul(["body", "name"], "a\0")] });
    const stack = await post(
      `${base}/stacks`,
      JSON.stringify({
        name: "S",
        items: [
          { item_type: "vendor", value: "ok" },
          { item_type: "vendor", value: "x\0" },
        ],
      }),
    );
    expect(stack.json()).toEqual({ detail: [nul(["body", "items", 1, "value"], "x\0")] });
    const tag = await post(`${base}/tags`, '{"name": "t\\u0000"}');
    expect(tag.json()).toEqual({ detail: [nul(["body", "name"], "t\0")] });
    const login = await t.app.inject({
      method: "POST",
      url: "/auth/login",
      headers: { "content-type": "application/json" },
      payload: '{"email": "a\\u0000@b.c", "password": "x"}',
    });
    expect(login.statusCode).toBe(422);
    expect(login.json()).toEqual({ detail: [nul(["body", "email"], "a\0@b.c")] });
    const key = await createWorkflow(t, tenant, { name: "k", trigger: { event: "cve.new_match", params: { "p\0": 1 } } });
    expect(key.json()).toEqual({ detail: [nul(["body", "trigger", "params", "p\0", "[key]"], "p\0")] });
    // Nothing was written.
    const tags = await get(`${base}/tags`);
    expect(tags.json()).toEqual([]);
  });
});

describe("% and _ in search terms are literal (ILIKE escaped once, in likeContains)", () => {
  it("vulnerabilities and articles: q=_ and q=% find only texts that hold them", async () => {
    const db = t.database.db;
    await db.insert(publicVulns).values([
      { id: "GHSA-aaaa-0001", source: "ghsa", url: "https://x/1", summary: "Plain words only", data: {}, hash: "1" },
      { id: "GHSA-aaaa-0002", source: "ghsa", url: "https://x/2", summary: "Overflow in parse_header at 100%", data: {}, hash: "2" },
    ]);
    await db.insert(articles).values([
      { url: "https://news/1", title: "Plain title", description: "nothing special", hash: "a" },
      { url: "https://news/2", title: "A bug in snake_case names", description: "50% of hosts", hash: "b" },
    ]);
    for (const list of ["/api/v1/vulnerabilities", "/api/v1/articles"]) {
      for (const q of ["_", "%25", "\\"]) {
        const res = await get(`${list}?q=${q}`);
        expect(res.statusCode).toBe(200);
        expect(res.json().total, `${list} q=${q}`).toBe(q === "\\" ? 0 : 1);
      }
      expect((await get(`${list}?q=a`)).json().total, list).toBe(2);
    }
  });

  it("alerts: q=_ and q=% match no alert whose vendor, product and id hold neither", async () => {
    const stack = await post(
      `${base}/stacks`,
      JSON.stringify({ name: "PAN", items: [{ item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" }] }),
    );
    expect(stack.statusCode).toBe(201);
    for (const [source, path] of [
      ["cve5", "test/fixtures/matching/cve5-panos.jsonl"],
      ["nvd", "test/fixtures/import/nvd2-CVE-2024-3400.json"],
    ] as const) {
      expect((await importFeed(t.database.db, source, [path])).errors).toEqual([]);
    }
    const all = await get(`${base}/alerts`);
    expect(all.json().total).toBeGreaterThan(0);
    expect((await get(`${base}/alerts?q=CVE-2024`)).json().total).toBe(all.json().total);
    for (const q of ["_", "%25", "CVE_2024"]) expect((await get(`${base}/alerts?q=${q}`)).json().total, q).toBe(0);
  });
});

describe("every error body is {detail}", () => {
  it("a path that is not UTF-8: 400; a path parameter past 200 characters: 414 (were Fastify's own bodies)", async () => {
    const bad = await get("/api/v1/cves/%FF");
    expect([bad.statusCode, bad.json()]).toEqual([400, { detail: "Bad Request" }]);
    const long = await get(`/api/v1/cves/${"a".repeat(201)}`);
    expect([long.statusCode, long.json()]).toEqual([414, { detail: "URI Too Long" }]);
  });

  it("a body over 1 MiB: 413; an unparsable media type: 415", async () => {
    const big = await post(workflowsUrl(tenant), JSON.stringify({ name: "x".repeat(1024 * 1024) }), { "idempotency-key": "big" });
    expect([big.statusCode, big.json()]).toEqual([413, { detail: "Payload Too Large" }]);
    const media = await post(workflowsUrl(tenant), "{}", { "content-type": "foo", "idempotency-key": "m" });
    expect([media.statusCode, media.json()]).toEqual([415, { detail: "Unsupported Media Type" }]);
  });

  it("JSON nested too deep (was a 422 with body {}): 400 as FastAPI answers a RecursionError", async () => {
    for (const payload of ["[".repeat(100_000) + "]".repeat(100_000), `{"name": ${"[".repeat(5000)}`]) {
      const res = await post(workflowsUrl(tenant), payload, { "idempotency-key": "deep" });
      expect([res.statusCode, res.json()]).toEqual([400, { detail: "There was an error parsing the body" }]);
    }
  });

  it("POST /auth/logout with an API key: 401 (was a silent 204)", async () => {
    const res = await t.app.inject({ method: "POST", url: "/auth/logout", headers: bearer(key) });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ detail: "Une clé d'API n'est pas acceptée ici : connectez-vous (POST /auth/login)" });
    expect(res.headers["www-authenticate"]).toBe("Bearer");
    const none = await t.app.inject({ method: "POST", url: "/auth/logout" });
    expect(none.statusCode).toBe(204);
  });
});

describe("the error handler", () => {
  it("gives every 422 item an input, even when a service left it unset (null, as Pydantic's None)", async () => {
    const app = await buildServer({
      logger: createLogger("silent"),
      version: "test",
      trustProxy: false,
      signInPaths: [],
      limits: loadConfig({}).http,
      auth: {
        apiKey: async () => {
          throw new Error("unused");
        },
        session: async () => {
          throw new Error("unused");
        },
      },
      projects: {
        resolve: async () => {
          throw new Error("unused");
        },
      },
      routes: [
        route({
          method: "POST",
          url: "/x",
          operationId: "testInput",
          auth: "none",
          tags: ["test"],
          summary: "test",
          responses: { 200: null },
          handler: async () => {
            throw new Invalid([{ loc: ["body"], message: "x", input: undefined }]);
          },
        }),
      ],
    });
    const res = await app.inject({ method: "POST", url: "/x" });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      detail: [{ type: "value_error", loc: ["body"], msg: "Value error, x", input: null, ctx: { error: {} } }],
    });
    await app.close();
  });
});

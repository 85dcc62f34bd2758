/**
 * Contract test: walks the served OpenAPI document and, for every operation, sends requests
 * generated from its schemas (valid ones, and invalid ones with hostile values) with fast-check.
 * Every answer must be documented for its operation, never a 5xx, `{"detail": …}` when not a
 * success, a FastAPI-shaped 422, and a success body valid against the documented schema (ajv).
 * The requests travel as a client's would: over a listening server, through one shared pool of
 * keep-alive connections (undici, 16 connections, no pipelining), so that a request which leaves
 * its connection unusable fails the one after it; any request unanswered after 10 s fails, named.
 *
 * CONTRACT_SEED=<n> replays a run, CONTRACT_RUNS=<n> changes the number of requests per operation,
 * CONTRACT_VERBOSE=1 prints the statuses each operation answered.
 */
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import fc from "fast-check";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { Agent } from "undici";
import { afterAll, describe, expect, it } from "vitest";
import { importFeed } from "../src/feeds/import.js";
import { SCOPES } from "../src/platform/auth/scopes.js";
import { bearer, createTenant, createTestApp, createWorkflow } from "./helpers.js";

const SEED = Number(process.env.CONTRACT_SEED ?? 20261124);
const RUNS = Number(process.env.CONTRACT_RUNS ?? 40);
/** A request unanswered after this fails the test: on a keep-alive pool, that is a connection left unread. */
const ANSWER_WITHIN_MS = 10_000;

type Schema = Record<string, unknown> & { $ref?: string };
interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  schema: Schema;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
  security?: Record<string, string[]>[];
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
  servers?: { url: string }[];
}

// ---------------------------------------------------------------------------------------------
// The application, one tenant with a key holding every scope, real data behind every path id.
// ---------------------------------------------------------------------------------------------

const t = await createTestApp();
const db = t.database.db;
const tenant = await createTenant(t, { plan: "enterprise" });
const { key } = await t.services.apiKeys.create({ orgId: tenant.orgId, scopes: [...SCOPES], projectIds: [] });
await t.services.users.create({ email: "contract@example.org", password: "contract password", orgId: tenant.orgId, role: "owner" });
const session = (
  await t.app.inject({ method: "POST", url: "/auth/login", payload: { email: "contract@example.org", password: "contract password" } })
).json().token as string;
const base = `/api/v1/organizations/${tenant.orgId}/projects/${tenant.projectId}`;
const call = async (method: "POST" | "GET", path: string, payload?: unknown) => {
  const res = await t.app.inject({
    method,
    url: `${base}${path}`,
    headers: bearer(key),
    ...(payload !== undefined && { payload: payload as object }),
  });
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${res.body}`);
  return res.json();
};

// Items first, then the data: importing raises alerts on the project (PAN-OS, Django).
const ITEMS = [
  { item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" },
  { item_type: "purl", value: "pkg:pypi/django@4.2.1" },
];
const stack = await call("POST", "/stacks", { name: "Contrat", items: ITEMS });
for (const [source, path] of [
  ["cve5", "test/fixtures/import/cve5-sample.jsonl"],
  ["cve5", "test/fixtures/matching/cve5-panos.jsonl"],
  ["cve5", "test/fixtures/matching/cve5-django.jsonl"],
  ["nvd", "test/fixtures/import/nvd2-CVE-2024-3400.json"],
  ["osv", "test/fixtures/matching/osv-django.jsonl"],
  ["kev", "test/fixtures/import/kev-sample.json"],
  ["epss", "test/fixtures/matching/epss_scores-2026-08-16.csv"],
  ["poc", "test/fixtures/matching/poc-panos.jsonl"],
  ["certfr", "test/fixtures/import/certfr-sample.jsonl"],
  ["rss", "test/fixtures/feeds/rss/bleepingcomputer.xml"],
] as const) {
  await importFeed(db, source, [path]);
}
const alerts = (await call("GET", "/alerts?page_size=100")).items as { id: string }[];
const vulns = (await t.app.inject({ method: "GET", url: "/api/v1/vulnerabilities", headers: bearer(key) })).json().items as {
  id: string;
}[];
if (!alerts.length || !vulns.length) throw new Error("the contract test needs alerts and advisories to address");

/** Real ids of the tenant's resources, renewed when an operation deletes one. */
const real: Record<string, string[]> = {
  org_id: [tenant.orgId],
  project_id: [tenant.projectId],
  workflow_id: [tenant.defaultWorkflowId],
  stack_id: [stack.id],
  item_id: [stack.items[0].id],
  tag_id: [(await call("POST", "/tags", { name: "contrat" })).id],
  alert_id: alerts.map((a) => a.id).slice(0, 3),
  cve_id: ["CVE-2024-3400", "CVE-2023-36053", "CVE-2024-6387", "cve-2024-3400", "GHSA-jh75-99hm-m9p5"],
  id: vulns.map((v) => v.id).slice(0, 3),
  url_id: [(await call("POST", "/monitored-urls", { url: "https://contract.example.org/" })).id],
};
real.workflow_id!.push((await createWorkflow(t, { ...tenant, key }, { name: "Contrat", trigger: { event: "cve.new_match" } })).json().id);

/** After a successful DELETE, the resource is made again so that later requests still address one. */
async function replenish(path: string): Promise<void> {
  if (path.endsWith("/tags/{tag_id}") && !path.includes("/items/") && !path.includes("/alerts/"))
    real.tag_id = [(await call("POST", "/tags", { name: `contrat-${Date.now()}` })).id];
  else if (path.endsWith("/stacks/{stack_id}")) {
    const s = await call("POST", "/stacks", { name: `Contrat ${Date.now()}`, items: ITEMS });
    real.stack_id = [s.id];
    real.item_id = [s.items[0].id];
  } else if (path.endsWith("/items/{item_id}")) {
    real.item_id = [(await call("POST", `/stacks/${real.stack_id![0]}/items`, ITEMS[0])).id];
  } else if (path.endsWith("/monitored-urls/{url_id}")) {
    real.url_id = [(await call("POST", "/monitored-urls", { url: `https://contract.example.org/${Date.now()}` })).id];
  } else if (path.endsWith("/workflows/{workflow_id}")) {
    real.workflow_id = [
      tenant.defaultWorkflowId,
      (await createWorkflow(t, { ...tenant, key }, { name: `Contrat ${Date.now()}`, trigger: { event: "cve.new_match" } })).json().id,
    ];
  }
}

const doc = (await t.app.inject({ method: "GET", url: "/openapi.json" })).json() as Doc;

// One pool shared by every generated request, as a client library keeps one: a connection answered
// early (413, 415, 422 before the body is read...) is reused by whichever request comes next. The
// properties send one request at a time, so the pool hands the same idle connection to each in turn
// (a new one only after the server closed the last): every request follows the previous one on it.
await t.app.listen({ port: 0, host: "127.0.0.1" });
const origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
const pool = new Agent({ connections: 16, pipelining: 1 });
afterAll(() => pool.close());

interface Answer {
  status: number;
  text: string;
  contentType: string | undefined;
  connection: string | undefined;
}

/** Sends a generated request through the pool; a request not answered (body included) within ANSWER_WITHIN_MS throws, naming it. */
async function send(req: Req): Promise<Answer> {
  const signal = AbortSignal.timeout(ANSWER_WITHIN_MS);
  try {
    // origin + path: the path goes out as generated (raw segments such as %FF or .. are not normalised by a URL parser).
    const res = await pool.request({
      origin,
      path: req.url,
      method: req.method as "GET",
      headers: req.headers,
      body: req.payload,
      signal,
    });
    const text = await res.body.text();
    const header = (name: string) => [res.headers[name]].flat()[0];
    return { status: res.statusCode, text, contentType: header("content-type"), connection: header("connection") };
  } catch (err) {
    if (signal.aborted) throw new Error(`no answer within ${ANSWER_WITHIN_MS / 1000} s on the keep-alive pool — ${req.label}`);
    throw new Error(`${(err as Error).message} on the keep-alive pool — ${req.label}`, { cause: err });
  }
}

// ---------------------------------------------------------------------------------------------
// Schemas: ajv over the document's components (OpenAPI 3.1 = JSON Schema 2020-12), with formats.
// ---------------------------------------------------------------------------------------------

const ajv = new Ajv2020.default({ strict: false, allErrors: true, validateFormats: true });
addFormats.default(ajv);
ajv.addSchema({ $id: "doc.json", components: doc.components });
const compiled = new Map<Schema, ValidateFunction>();
function validatorOf(schema: Schema): ValidateFunction {
  let v = compiled.get(schema);
  if (!v) {
    v = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc.json#/components/')));
    compiled.set(schema, v);
  }
  return v;
}

function resolve(s: Schema): Schema {
  return s.$ref ? resolve(doc.components.schemas[s.$ref.split("/").at(-1)!]!) : s;
}

// ---------------------------------------------------------------------------------------------
// Generators: valid values from a schema, and hostile ones.
// ---------------------------------------------------------------------------------------------

const HOSTILE_STRINGS = [
  "\u0000",
  "a\u0000b",
  "%",
  "_",
  "%_%",
  "\\",
  "'",
  '"',
  "' or 1=1 --",
  ";drop table cves;--",
  "2024-13-45",
  "0000-00-00",
  "2024-02-30",
  "99999999999999999999",
  "-1",
  "0",
  "1e309",
  "NaN",
  "Infinity",
  "-0",
  "\uFFFF",
  "\uD800",
  "😀",
  "é",
  " ",
  "",
  "null",
  "true",
  "[]",
  "{}",
  "CVE-2024-3400",
  "pkg:pypi/django@%E0%A4%A",
  "pkg:npm/%ZZ@1",
  "cpe:2.3:a:\\",
  "cpe:/a:%zz:x",
  "cpe:2.3:a:*:*:*:*:*:*:*:*:*:*",
  "a:b:c:d",
  "@1.0",
  "../../etc/passwd",
  "<script>alert(1)</script>",
  "x".repeat(201),
  "é".repeat(5000),
  "a".repeat(70_000),
];
const hostileString = fc.oneof(fc.constantFrom(...HOSTILE_STRINGS), fc.string({ unit: "binary", maxLength: 40 }));
// biome-ignore lint/correctness/noPrecisionLoss: numbers past 2^53 are the point (they reach the service rounded, as a client sends them)
const HUGE_NUMBERS = [99999999999999999999, 2147483648, -2147483649, 9007199254740993, 1e308, -1e308, 0.5, -1, 0, 3.000001];

function deep(depth: number, leaf: unknown): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : [v];
  return v;
}
const wrongType = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, {}, [], 0, -1, "texte", [null], { "": null }, deep(64, 1)),
  fc.constantFrom(...HUGE_NUMBERS),
  hostileString,
);

/** `branch` applied to `base`: its keywords added, its properties merged into base's. */
function merge(base: Schema, branch: Schema): Schema {
  const { oneOf: _o, anyOf: _a, allOf: _l, ...rest } = base;
  const properties = { ...(rest.properties as Record<string, Schema> | undefined) };
  for (const [name, p] of Object.entries((branch.properties ?? {}) as Record<string, Schema>))
    properties[name] = { ...resolve(properties[name] ?? {}), ...p };
  return {
    ...rest,
    ...branch,
    properties,
    required: [...new Set([...((rest.required ?? []) as string[]), ...((branch.required ?? []) as string[])])],
  };
}

/** A value of the schema, as JSON would carry it. */
function valid(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  if (s.type === "object" && s.properties) {
    // Branches over an object's own properties (AlertsReadIn's oneOf, StackItemIn's if/then per item_type).
    const branches = (s.oneOf ?? s.anyOf) as Schema[] | undefined;
    if (branches) return fc.oneof(...branches.map((b) => valid(merge(s, b), depth)));
    const conditions = (s.allOf as Schema[] | undefined)?.filter((c) => c.if && c.then);
    if (conditions?.length)
      return fc.oneof(
        valid({ ...s, allOf: undefined }, depth),
        ...conditions.map((c) => valid(merge(merge({ ...s, allOf: undefined }, c.if as Schema), c.then as Schema), depth)),
      );
  }
  if ("const" in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  const alts = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (alts) return fc.oneof(...alts.map((a) => valid(a, depth + 1)));
  const type = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string | undefined];
  const arbs = type.map((ty) => validOfType(ty, s, depth));
  return arbs.length === 1 ? arbs[0]! : fc.oneof(...arbs);
}

function validOfType(type: string | undefined, s: Schema, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer": {
      const min = Math.max(Number(s.minimum ?? -1e6), -1e9);
      const max = Math.min(Number(s.maximum ?? 1e6), 1e9);
      return fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max));
    }
    case "number":
      return fc.double({ min: Number(s.minimum ?? -1e6), max: Number(s.maximum ?? 1e6), noNaN: true, noDefaultInfinity: true });
    case "string": {
      if (s.format === "uuid")
        return fc.oneof(
          fc.uuid(),
          fc.constantFrom(
            ...Object.values(real)
              .flat()
              .filter((v) => /^[0-9a-f-]{36}$/.test(v)),
          ),
        );
      if (s.format === "date-time")
        return fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }).map((d) => d.toISOString());
      if (s.format === "date")
        return fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }).map((d) => d.toISOString().slice(0, 10));
      const minLength = Number(s.minLength ?? 0);
      const maxLength = Math.min(Number(s.maxLength ?? 60), 60);
      if (typeof s.pattern === "string")
        return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length >= minLength && v.length <= Number(s.maxLength ?? Infinity));
      return fc.string({ minLength, maxLength: Math.max(minLength, maxLength) });
    }
    case "array": {
      if (depth > 4) return fc.constant([]);
      return fc.array(valid((s.items as Schema) ?? {}, depth + 1), {
        minLength: Number(s.minItems ?? 0),
        maxLength: Math.min(Number(s.maxItems ?? 3), 3),
      });
    }
    case "object": {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      const required = new Set((s.required ?? []) as string[]);
      if (depth > 4) return fc.constant({});
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, p] of Object.entries(props)) record[name] = valid(p, depth + 1);
      return fc.record(record, { requiredKeys: [...required].filter((r) => r in props) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Mostly valid, sometimes hostile: every field of a valid object may be replaced or dropped. */
function mixed(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  if (s.type === "object" && s.properties && depth < 4) {
    const props = s.properties as Record<string, Schema>;
    const record: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [name, p] of Object.entries(props)) record[name] = mixed(p, depth + 1);
    return fc.oneof(
      { weight: 6, arbitrary: fc.record(record, { requiredKeys: ((s.required ?? []) as string[]).filter((r) => r in props) }) },
      { weight: 1, arbitrary: fc.record(record, { requiredKeys: [] }) },
      { weight: 1, arbitrary: wrongType },
    );
  }
  if (s.type === "array" && s.items && depth < 4) {
    return fc.oneof(
      { weight: 4, arbitrary: fc.array(mixed(s.items as Schema, depth + 1), { maxLength: 3 }) },
      { weight: 1, arbitrary: wrongType },
    );
  }
  return fc.oneof({ weight: 4, arbitrary: valid(s, depth) }, { weight: 1, arbitrary: wrongType });
}

/** A query, path or header value as text. */
function asText(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** A path segment as a client sends it (a lone surrogate has no UTF-8: sent as U+FFFD, as URLSearchParams does). */
const segment = (v: string) =>
  encodeURIComponent(v.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD"));

// Raw path segments a client could send: invalid UTF-8 once decoded, over-long, NUL.
const RAW_SEGMENTS = ["%FF", "%C3%28", "%E0%A4%A", "%00", "a%00b", "%25", "_", "x".repeat(300), "%2F", "..", "%20"];

const SBOMS = ["known-answer-v1.cdx.json", "known-answer-v2.cdx.json"].map((f) =>
  JSON.parse(readFileSync(`test/fixtures/sbom/${f}`, "utf8")),
);

/** Bodies that pass the service's own rules, which random values seldom do: the success paths get walked too. */
const name = fc.string({ minLength: 1, maxLength: 40 });
const EXAMPLES: Record<string, fc.Arbitrary<unknown>> = {
  createWorkflow: fc.record({ name, trigger: fc.constant({ event: "cve.new_match" }), create_case: fc.boolean() }),
  login: fc.constantFrom(
    { email: "contract@example.org", password: "contract password" },
    { email: "Contract@Example.org ", password: "contract password" },
  ),
  addStackItem: fc.constantFrom(
    ...ITEMS,
    { item_type: "cve", value: "CVE-2024-3400" },
    { item_type: "keyword", value: "GlobalProtect" },
    { item_type: "cpe", value: "cpe:2.3:a:openbsd:openssh:9.6p1:*:*:*:*:*:*:*" },
  ),
  dryRunWorkflow: fc.constantFrom({ cve_id: "CVE-2024-3400" }, { cve_id: " cve-2023-36053 " }, { cve_id: "CVE-1999-0001" }),
  // Real SBOMs (a CycloneDX 1.6 document and its next version): uploads that succeed, then replace.
  importStackSbom: fc.constantFrom(...SBOMS),
  createStackFromSbom: fc.constantFrom(...SBOMS),
};

interface Req {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
  label: string;
}

function requestOf(path: string, method: string, op: Operation): fc.Arbitrary<Req> {
  const params = op.parameters ?? [];
  const pathArbs: Record<string, fc.Arbitrary<string>> = {};
  for (const p of params.filter((x) => x.in === "path")) {
    const ids = real[p.name] ?? [];
    pathArbs[p.name] = fc.oneof(
      ...(ids.length ? [{ weight: 8, arbitrary: fc.constantFrom(...ids).map(segment) }] : []),
      { weight: 2, arbitrary: valid(p.schema).map((v) => segment(asText(v))) },
      { weight: 1, arbitrary: hostileString.map(segment) },
      { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
    );
  }
  const queryArbs: Record<string, fc.Arbitrary<string[]>> = {};
  for (const p of params.filter((x) => x.in === "query")) {
    const s = resolve(p.schema);
    const one = fc.oneof(
      { weight: 5, arbitrary: valid(s.type === "array" ? (s.items as Schema) : s).map(asText) },
      { weight: 2, arbitrary: hostileString },
    );
    queryArbs[p.name] = s.type === "array" ? fc.array(one, { minLength: 1, maxLength: 3 }) : one.map((v) => [v]);
  }
  const headerArbs: Record<string, fc.Arbitrary<string>> = {};
  for (const p of params.filter((x) => x.in === "header")) {
    // Header values travel as visible ASCII (a NUL or a newline is not HTTP).
    headerArbs[p.name] = fc.oneof(
      { weight: 5, arbitrary: valid(p.schema).map(asText) },
      { weight: 1, arbitrary: fc.constantFrom("", " ", "x".repeat(300), "%00", "é") },
    );
  }
  const bodySchema = op.requestBody?.content["application/json"]?.schema;
  const examples = EXAMPLES[op.operationId];
  const body: fc.Arbitrary<string | undefined> = bodySchema
    ? fc.oneof(
        ...(examples ? [{ weight: 6, arbitrary: examples.map((v) => JSON.stringify(v)) }] : []),
        { weight: 6, arbitrary: valid(bodySchema).map((v) => JSON.stringify(v)) },
        { weight: 6, arbitrary: mixed(bodySchema).map((v) => JSON.stringify(v)) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            undefined,
            "",
            "{",
            '{"a":1,,}',
            "[".repeat(5000) + "]".repeat(5000),
            JSON.stringify(deep(3000, 1)),
            '"\u0000"',
            `{"name": "${"x".repeat(1_100_000)}"}`,
          ),
        },
      )
    : fc.constant(undefined);
  const contentType = fc.oneof(
    { weight: 12, arbitrary: fc.constant("application/json") },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/json; charset=latin1",
        "multipart/form-data; boundary=x",
        "application/vnd.api+json",
        "",
        "/",
        "application/json;;;",
      ),
    },
  );
  const auth = fc.oneof({ weight: 12, arbitrary: fc.constant("ok") }, { weight: 1, arbitrary: fc.constantFrom("none", "bad", "read") });
  const optional = <T>(a: fc.Arbitrary<T>) => fc.option(a, { freq: 4, nil: undefined });
  const queryRecord: Record<string, fc.Arbitrary<string[] | undefined>> = {};
  for (const p of params.filter((x) => x.in === "query"))
    queryRecord[p.name] = p.required ? queryArbs[p.name]! : optional(queryArbs[p.name]!);
  const headerRecord: Record<string, fc.Arbitrary<string | undefined>> = {};
  for (const p of params.filter((x) => x.in === "header"))
    headerRecord[p.name] = fc.oneof({ weight: 8, arbitrary: headerArbs[p.name]! }, { weight: 1, arbitrary: fc.constant(undefined) });

  return fc
    .record({ path: fc.record(pathArbs), query: fc.record(queryRecord), headers: fc.record(headerRecord), body, auth, contentType })
    .map((r) => {
      const url = path.replace(/\{(\w+)\}/g, (_, name: string) => r.path[name]!);
      const search = new URLSearchParams();
      for (const [name, values] of Object.entries(r.query)) for (const v of values ?? []) search.append(name, v);
      const headers: Record<string, string> = {};
      for (const [name, v] of Object.entries(r.headers)) if (v !== undefined) headers[name] = v;
      const secured = (op.security ?? []).length > 0;
      if (secured && r.auth !== "none") {
        const session_ = (op.security ?? []).some((s) => "accountToken" in s);
        const token = r.auth === "bad" ? "vk_not_a_key" : r.auth === "read" ? tenant.readKey : session_ ? session : key;
        headers.authorization = `Bearer ${token}`;
      }
      if (r.body !== undefined) headers["content-type"] = r.contentType;
      const qs = search.toString();
      const full = qs ? `${url}?${qs}` : url;
      return {
        method: method.toUpperCase(),
        url: full,
        headers,
        payload: r.body,
        label: `${method.toUpperCase()} ${full.slice(0, 300)} ${r.body === undefined ? "" : `(${r.contentType}) ${r.body.slice(0, 300)}`}`,
      };
    });
}

// ---------------------------------------------------------------------------------------------
// The checks.
// ---------------------------------------------------------------------------------------------

/**
 * Node's HTTP parser refuses a request whose request line and headers pass 16 KiB (a 70,000-character
 * query value) with 431 before any route sees it: the server's answer to any operation, not one the
 * document lists. The estimate adds the headers the client writes itself (host, connection,
 * content-length); the generated heads are either far under the limit or far over it.
 */
const MAX_HEAD_BYTES = 16 * 1024;
function headBytes(req: Req): number {
  let n = Buffer.byteLength(`${req.method} ${req.url} HTTP/1.1\r\n`) + 100;
  for (const [name, value] of Object.entries(req.headers)) n += Buffer.byteLength(`${name}: ${value}\r\n`);
  return n;
}

function check(op: Operation, req: Req, res: Answer): void {
  const { status, text, contentType } = res;
  const where = `${op.operationId}: ${req.label}\n→ ${status} ${text.slice(0, 500)}`;
  if (headBytes(req) > MAX_HEAD_BYTES) {
    expect([status, JSON.parse(text), res.connection], `a request head over 16 KiB — ${where}`).toEqual([
      431,
      { detail: "Request Header Fields Too Large" },
      "close",
    ]);
    return;
  }
  expect(status, where).toBeLessThan(500);
  const documented = op.responses[String(status)];
  expect(documented, `undocumented status — ${where}`).toBeDefined();
  const media = documented!.content ?? {};
  if (status === 204 || !Object.keys(media).length) {
    expect(text, `a ${status} has no body — ${where}`).toBe("");
    return;
  }
  // The answer's Content-Type is one the operation documents (an export: text/csv or JSON).
  const type = Object.keys(media).find((t) => contentType?.split(";")[0]?.trim() === t);
  expect(type, `Content-Type ${contentType} not documented — ${where}`).toBeDefined();
  if (type !== "application/json") return;
  const schema = media[type]!.schema;
  const body = JSON.parse(text) as unknown;
  if (status >= 300) {
    expect(
      body !== null && typeof body === "object" && !Array.isArray(body) ? Object.keys(body) : body,
      `error bodies are {"detail": …} — ${where}`,
    ).toEqual(["detail"]);
  }
  const validate = validatorOf(schema);
  if (!validate(body))
    throw new Error(`body does not match the documented ${status} schema: ${ajv.errorsText(validate.errors)} — ${where}`);
}

const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })));
// Deletions last, so that the other operations meet the resources first.
operations.sort((a, b) => Number(a.method === "delete") - Number(b.method === "delete"));

describe("the OpenAPI document", () => {
  it("names every operation once, and serves its requests from a servers entry", () => {
    const ids = operations.map(({ op }) => op.operationId);
    expect(ids.every((id) => typeof id === "string" && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.servers?.[0]?.url).toBe("/");
  });

  it("documents the request bodies under the specification's names and the statuses each route can give", () => {
    const wf = doc.paths["/api/v1/organizations/{org_id}/projects/{project_id}/workflows"]!;
    expect(wf.post!.requestBody!.content["application/json"]!.schema.$ref).toBe("#/components/schemas/WorkflowEcritureIn");
    const enabled = doc.paths["/api/v1/organizations/{org_id}/projects/{project_id}/workflows/{workflow_id}/enabled"]!.patch!;
    expect(enabled.requestBody!.content["application/json"]!.schema.$ref).toBe("#/components/schemas/WorkflowActivationIn");
    // A conflict only where one exists; 413 with a body, 414 with path parameters.
    expect(Object.keys(enabled.responses)).not.toContain("409");
    expect(Object.keys(wf.post!.responses)).toEqual(expect.arrayContaining(["409", "413", "414", "422", "429"]));
    expect(Object.keys(doc.paths["/api/v1/me"]!.get!.responses)).toEqual(["200", "401", "429", "503"]);
    // The operations routes read no database through the request: no 503 for its loss (readyz says it in its own body).
    expect(Object.keys(doc.paths["/healthz"]!.get!.responses)).toEqual(["200"]);
    expect(Object.keys(doc.paths["/readyz"]!.get!.responses)).toEqual(["200", "503"]);
    expect(Object.keys(doc.paths["/metrics"]!.get!.responses)).toEqual(["200", "401"]);
    expect(doc.components.schemas.ValidationError!.required).toEqual(expect.arrayContaining(["type", "loc", "msg", "input"]));
  });
});

/**
 * Each /api/v1 operation, asked with one credential alone: `accepted` when the answer is not a 401
 * (the credential got past authentication: a 403, 404 or 422 after it still counts). Path
 * parameters name nothing that exists and write bodies are empty, so that nothing changes.
 */
async function acceptedWith(path: string, method: string, headers: Record<string, string>): Promise<boolean> {
  const url = path.replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000");
  const write = method !== "get" && method !== "delete";
  const res = await t.app.inject({
    method: method.toUpperCase() as "GET",
    url,
    headers: { ...headers, ...(write && { "content-type": "application/json" }) },
    ...(write && { payload: "{}" }),
  });
  return res.statusCode !== 401;
}

describe("the security the document names for each /api/v1 operation", () => {
  const api = operations.filter(({ path }) => path.startsWith("/api/v1/"));
  it.each(api)("$method $path: a credential is accepted iff its scheme is named", async ({ path, method, op }) => {
    const schemes = new Set((op.security ?? []).flatMap((s) => Object.keys(s)));
    expect(await acceptedWith(path, method, bearer(key)), "API key").toBe(schemes.has("apiKey"));
    expect(await acceptedWith(path, method, bearer(session)), "account token").toBe(schemes.has("accountToken"));
    expect(await acceptedWith(path, method, { cookie: `vigie_session=${session}` }), "session cookie").toBe(schemes.has("sessionCookie"));
  });
});

const seen = new Map<string, Set<number>>();
afterAll(() => {
  if (process.env.CONTRACT_VERBOSE) for (const [id, statuses] of seen) console.log(`${id}: ${[...statuses].sort().join(" ")}`);
});

// Each login verifies a scrypt hash (N=2^15, on purpose slow): fewer of them keep the file fast.
const RUNS_OF: Record<string, number> = { login: Math.min(RUNS, 10) };

describe.each(operations)("$method $path", ({ path, method, op }) => {
  const runs = RUNS_OF[op.operationId] ?? RUNS;
  it(`answers only what the document says (${runs} generated requests)`, { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(requestOf(path, method, op), async (req) => {
        const res = await send(req);
        seen.set(op.operationId, (seen.get(op.operationId) ?? new Set()).add(res.status));
        check(op, req, res);
        if (method === "delete" && res.status === 204) await replenish(path);
      }),
      { numRuns: runs, seed: SEED, endOnFailure: true },
    );
  });
});

/**
 * The MCP server end to end: the official SDK's client over Streamable HTTP against the listening
 * server. Each tool answers what its REST twin answers (the same service and presenter), a project
 * outside the key's reach does not exist, and errors before the protocol are `{"detail": …}`.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importFeed } from "../src/feeds/import.js";
import { TOOLS } from "../src/mcp/tools.js";
import { bearer, createTenant, createTestApp, createWorkflow, tenantWithScopes } from "./helpers.js";

const t = await createTestApp();
const db = t.database.db;

// Organization A: a stack that real CVE records hit (PAN-OS, Django), a workflow, a run, a case.
const a = await tenantWithScopes(t, "MCP A", ["stacks-write", "cases-write", "workflows-write"]);
const stack = await a.call("POST", "/stacks", {
  name: "MCP",
  items: [
    { item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" },
    { item_type: "purl", value: "pkg:pypi/django@4.2.1" },
  ],
});
expect(stack.statusCode).toBe(201);
for (const [source, path] of [
  ["cve5", "test/fixtures/import/cve5-sample.jsonl"],
  ["cve5", "test/fixtures/matching/cve5-panos.jsonl"],
  ["cve5", "test/fixtures/matching/cve5-django.jsonl"],
  ["nvd", "test/fixtures/import/nvd2-CVE-2024-3400.json"],
  ["osv", "test/fixtures/matching/osv-django.jsonl"],
  ["kev", "test/fixtures/import/kev-sample.json"],
] as const) {
  expect((await importFeed(db, source, [path])).errors).toEqual([]);
}
const created = await createWorkflow(t, a, {
  name: "KEV critiques",
  trigger: { event: "cve.new_match", match: "all", conditions: [{ field: "cve.is_kev", op: "eq", value: true }] },
  actions: [{ type: "add_tag", params: { tag: "kev" } }],
});
expect(created.statusCode).toBe(201);
const workflow = created.json() as { id: string };
const dryRun = await a.call("POST", `/workflows/${workflow.id}/dry-run`, { cve_id: "CVE-2024-3400" });
expect(dryRun.statusCode).toBe(201);
const run = dryRun.json() as { id: string };
expect((await a.call("PUT", "/cases/CVE-2024-3400", { status: "en_analyse", notes: "PAN-OS exposé", comment: "vu" })).statusCode).toBe(201);
const orgWorkflow = await t.services.workflows.createAsOperator({
  orgId: a.orgId,
  projectId: null,
  name: "KEV de l'organisation",
  trigger: { event: "cve.kev_added", match: "all" },
  actions: [],
  create_case: true,
});

// A second project of A, a key restricted to it, and organization B.
const recette = await t.services.projects.create({ orgId: a.orgId, name: "Recette" });
const restricted = await t.services.apiKeys.create({ orgId: a.orgId, scopes: [], projectIds: [recette.id] });
const b = await createTenant(t, { name: "MCP B" });

// The session API's reading of a workflow, the record get_workflow must give.
await t.services.users.create({ email: "mcp@example.org", password: "mcp password", orgId: a.orgId, role: "owner" });
const session = (
  await t.app.inject({ method: "POST", url: "/auth/login", payload: { email: "mcp@example.org", password: "mcp password" } })
).json().token as string;
const sessionGet = async (url: string) => {
  const res = await t.app.inject({ method: "GET", url, headers: bearer(session) });
  expect(res.statusCode).toBe(200);
  return res.json();
};
const rest = async (path: string) => {
  const res = await a.call("GET", path);
  expect(res.statusCode).toBe(200);
  return res.json();
};

let url: URL;
const clients: Client[] = [];
beforeAll(async () => {
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  url = new URL(`http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/mcp`);
});
afterAll(async () => {
  for (const c of clients) await c.close();
});

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: "vigie-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: bearer(key) } }));
  clients.push(client);
  return client;
}

type Result = Awaited<ReturnType<Client["callTool"]>>;

/** A tool's structured result, after checking its text twin. */
function ok(r: Result): unknown {
  expect(r.isError ?? false, JSON.stringify(r.content)).toBe(false);
  const content = r.content as { type: string; text: string }[];
  expect(content[0]!.type).toBe("text");
  expect(JSON.parse(content[0]!.text)).toEqual(r.structuredContent);
  return r.structuredContent;
}

/** A tool error's text. */
function toolError(r: Result): string {
  expect(r.isError).toBe(true);
  expect(r.structuredContent).toBeUndefined();
  return (r.content as { text: string }[])[0]!.text;
}

const TOOL_NAMES = [
  "get_workflow",
  "list_workflows",
  "list_runs",
  "get_run",
  "list_alerts",
  "search_cves",
  "get_cve",
  "list_cases",
  "get_case",
  "list_stack_items",
  "import_sbom",
  "stats_totals",
  "stats_top",
  "stats_top_trend",
  "stats_timeseries",
  "stats_distribution",
  "stats_delays",
  // VEX.
  "get_vex",
  // CSAF providers.
  "list_csaf_providers",
  "list_csaf_advisories",
];

describe("MCP server (Streamable HTTP, official SDK client)", () => {
  it("initializes and lists the tools with their input and output JSON Schemas", async () => {
    const client = await connect(a.readKey);
    expect(client.getServerVersion()?.name).toBe("vigie");
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual([...TOOL_NAMES].sort());
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type).toBe("object");
      expect(tool.description).toBeTruthy();
      // Every tool reads but import_sbom, which replaces a stack's SBOM items (the same document twice changes nothing).
      if (tool.name === "import_sbom")
        expect(tool.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
      else expect(tool.annotations?.readOnlyHint).toBe(true);
    }
    const byName = Object.fromEntries(tools.map((x) => [x.name, x]));
    expect(byName.get_workflow!.inputSchema.required).toEqual(["workflow_id"]);
    expect(Object.keys(byName.get_workflow!.inputSchema.properties!)).toEqual(["project_id", "org_id", "workflow_id"]);
    expect(byName.list_alerts!.inputSchema.required).toEqual(["project_id"]);
    expect(Object.keys(byName.list_alerts!.inputSchema.properties!)).toEqual(
      expect.arrayContaining(["project_id", "is_read", "severity", "is_kev", "q", "rule", "sort", "page", "page_size"]),
    );
    expect(byName.get_case!.inputSchema.required).toEqual(["project_id", "cve_id"]);
    expect(byName.get_workflow!.outputSchema!.required).toEqual(expect.arrayContaining(["id", "graph", "version"]));
  });

  it("get_workflow gives the session API's record, for a project workflow and an organization workflow", async () => {
    const client = await connect(a.readKey);
    const own = ok(await client.callTool({ name: "get_workflow", arguments: { project_id: a.projectId, workflow_id: workflow.id } }));
    expect(own).toEqual(await sessionGet(`/projects/${a.projectId}/workflows/${workflow.id}`));
    expect(own).toEqual(created.json());
    const org = ok(await client.callTool({ name: "get_workflow", arguments: { org_id: a.orgId, workflow_id: orgWorkflow.id } }));
    expect(org).toEqual(await sessionGet(`/organizations/${a.orgId}/workflows/${orgWorkflow.id}`));
    expect((org as { graph: { nodes: unknown[] } }).graph.nodes.length).toBeGreaterThan(1);
    // Both targets, or neither: the tool says which to give.
    const both = await client.callTool({
      name: "get_workflow",
      arguments: { project_id: a.projectId, org_id: a.orgId, workflow_id: workflow.id },
    });
    expect(toolError(both)).toContain("l'un des deux");
    const neither = await client.callTool({ name: "get_workflow", arguments: { workflow_id: workflow.id } });
    expect(toolError(neither)).toContain("l'un des deux");
    // An organization workflow is not a project's, and the reverse.
    const wrong = await client.callTool({ name: "get_workflow", arguments: { project_id: a.projectId, workflow_id: orgWorkflow.id } });
    expect(toolError(wrong)).toBe("Workflow introuvable");
  });

  it("list_workflows, list_runs and get_run answer as the REST routes", async () => {
    const client = await connect(a.readKey);
    const list = ok(await client.callTool({ name: "list_workflows", arguments: { project_id: a.projectId } })) as {
      items: { id: string }[];
    };
    expect(list.items).toEqual(await rest("/workflows"));
    expect(list.items.map((w) => w.id)).toContain(workflow.id);
    const runs = ok(await client.callTool({ name: "list_runs", arguments: { project_id: a.projectId, workflow_id: workflow.id } })) as {
      items: unknown[];
    };
    expect(runs.items).toEqual(await rest(`/workflows/${workflow.id}/runs`));
    expect(runs.items).toHaveLength(1);
    const limited = await client.callTool({
      name: "list_runs",
      arguments: { project_id: a.projectId, workflow_id: workflow.id, limit: 201 },
    });
    expect(toolError(limited)).toContain("limit");
    const one = ok(
      await client.callTool({ name: "get_run", arguments: { project_id: a.projectId, workflow_id: workflow.id, run_id: run.id } }),
    ) as { id: string; status: string; cve_id: string };
    expect(one).toMatchObject({ id: run.id, status: "dry_run", cve_id: "CVE-2024-3400", workflow_id: workflow.id });
    // The same record as the REST route's run detail, steps included.
    expect(one).toEqual(await rest(`/workflows/${workflow.id}/runs/${run.id}`));
    const elsewhere = await client.callTool({
      name: "get_run",
      arguments: { project_id: a.projectId, workflow_id: a.defaultWorkflowId, run_id: run.id },
    });
    expect(toolError(elsewhere)).toBe("Run introuvable");
  });

  it("list_alerts, search_cves and get_cve answer as the REST routes, filters included", async () => {
    const client = await connect(a.readKey);
    const all = ok(await client.callTool({ name: "list_alerts", arguments: { project_id: a.projectId, page_size: 100 } })) as {
      items: { cve_id: string }[];
      total: number;
    };
    expect(all).toEqual(await rest("/alerts?page_size=100"));
    expect(all.items.map((x) => x.cve_id)).toContain("CVE-2024-3400");
    const kev = ok(
      await client.callTool({
        name: "list_alerts",
        arguments: { project_id: a.projectId, is_kev: true, severity: ["critical"], sort: "cvss" },
      }),
    ) as { total: number };
    expect(kev).toEqual(await rest("/alerts?is_kev=true&severity=critical&sort=cvss"));
    expect(kev.total).toBeGreaterThan(0);
    expect(kev.total).toBeLessThan(all.total);
    // The rule that raised them: PAN-OS 10.2.5 within CVE-2024-3400's range, not a version KEV alone names.
    const ranged = ok(await client.callTool({ name: "list_alerts", arguments: { project_id: a.projectId, rule: ["version_range"] } })) as {
      items: { cve_id: string; correspondance: { rule: string } }[];
    };
    expect(ranged).toEqual(await rest("/alerts?rule=version_range"));
    expect(ranged.items.map((x) => x.cve_id)).toContain("CVE-2024-3400");
    expect(new Set(ranged.items.map((x) => x.correspondance.rule))).toEqual(new Set(["version_range"]));
    expect(toolError(await client.callTool({ name: "list_alerts", arguments: { project_id: a.projectId, rule: ["exact"] } }))).toContain(
      "rule",
    );

    const search = ok(await client.callTool({ name: "search_cves", arguments: { q: "django", page_size: 5 } })) as { total: number };
    const restSearch = await t.app.inject({ method: "GET", url: "/api/v1/cves?q=django&page_size=5", headers: bearer(a.readKey) });
    expect(search).toEqual(restSearch.json());
    expect(search.total).toBeGreaterThan(0);

    const cve = ok(await client.callTool({ name: "get_cve", arguments: { cve_id: "cve-2024-3400" } })) as { id: string; is_kev: boolean };
    const restCve = await t.app.inject({ method: "GET", url: "/api/v1/cves/CVE-2024-3400", headers: bearer(a.readKey) });
    expect(cve).toEqual(restCve.json());
    expect(cve.is_kev).toBe(true);
    expect(toolError(await client.callTool({ name: "get_cve", arguments: { cve_id: "CVE-1999-99999" } }))).toBe("CVE introuvable");
    expect(toolError(await client.callTool({ name: "search_cves", arguments: { page_size: 101 } }))).toContain("page_size");
  });

  it("list_cases and get_case answer as the REST routes", async () => {
    const client = await connect(a.readKey);
    const cases = ok(await client.callTool({ name: "list_cases", arguments: { project_id: a.projectId, status: ["en_analyse"] } })) as {
      items: { cve_id: string }[];
    };
    expect(cases).toEqual(await rest("/cases?status=en_analyse"));
    expect(cases.items.map((c) => c.cve_id)).toEqual(["CVE-2024-3400"]);
    const one = ok(await client.callTool({ name: "get_case", arguments: { project_id: a.projectId, cve_id: "cve-2024-3400" } })) as {
      history: unknown[];
    };
    expect(one).toEqual(await rest("/cases/CVE-2024-3400"));
    expect(one.history.length).toBeGreaterThan(0);
    expect(toolError(await client.callTool({ name: "get_case", arguments: { project_id: a.projectId, cve_id: "CVE-2099-0001" } }))).toBe(
      "Dossier introuvable",
    );
  });

  // VEX: get_vex (kept in one block).
  it("get_vex answers the REST export's document, in each format; CSAF and OpenVEX of a project without alerts are a tool error", async () => {
    const client = await connect(a.readKey);
    for (const format of ["cyclonedx", "csaf", "openvex"]) {
      const out = ok(await client.callTool({ name: "get_vex", arguments: { project_id: a.projectId, format } })) as {
        format: string;
        file_name: string;
        document: Record<string, unknown>;
      };
      const res = await a.call("GET", `/vex?format=${format}`);
      expect(res.statusCode).toBe(200);
      expect(out.document).toEqual(JSON.parse(res.body));
      expect(out.format).toBe(format);
      expect(res.headers["content-disposition"]).toContain(out.file_name);
    }
    const byDefault = ok(await client.callTool({ name: "get_vex", arguments: { project_id: a.projectId } })) as { format: string };
    expect(byDefault.format).toBe("cyclonedx");
    const empty = await connect(restricted.key);
    expect(toolError(await empty.callTool({ name: "get_vex", arguments: { project_id: recette.id, format: "openvex" } }))).toContain(
      "aucune alerte",
    );
    expect(toolError(await client.callTool({ name: "get_vex", arguments: { project_id: b.projectId } }))).toBe("Projet introuvable");
  });

  it("import_sbom loads an SBOM as POST …/stacks/{stack_id}/sbom does; list_stack_items pages as the REST list", async () => {
    const document = readFileSync("test/fixtures/sbom/known-answer-v1.cdx.json", "utf8");
    const target = (await a.call("POST", "/stacks", { name: "MCP SBOM" })).json() as { id: string };
    const args = { project_id: a.projectId, stack_id: target.id, document, media_type: "application/vnd.cyclonedx+json" };
    // A key without stacks-write is refused, as on REST, and nothing is written.
    const reader = await connect(a.readKey);
    expect(toolError(await reader.callTool({ name: "import_sbom", arguments: args }))).toBe(
      "Scope manquant : cette opération exige le scope « stacks-write » sur la clé d'API",
    );
    const writer = await connect(a.key);
    const first = ok(await writer.callTool({ name: "import_sbom", arguments: args })) as {
      sbom: { id: string; item_count: number; document_key: string };
      ajoutes: { count: number };
      ignores: { count: number };
    };
    expect(first.sbom).toMatchObject({ item_count: 8, document_key: "urn:uuid:7d0c5c1e-4d2b-4a8e-9b1e-5a0f3c9e2b61" });
    expect(first.ajoutes.count).toBe(8);
    expect(first.ignores.count).toBe(3);
    // The same document through REST: the same SBOM, nothing changes.
    const again = await t.app.inject({
      method: "POST",
      url: `${a.base}/stacks/${target.id}/sbom`,
      headers: { ...bearer(a.key), "content-type": "application/vnd.cyclonedx+json" },
      payload: document,
    });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ sbom: { id: first.sbom.id }, inchanges: 8, ajoutes: { count: 0 } });
    const invalid = await writer.callTool({ name: "import_sbom", arguments: { ...args, document: '{"bomFormat": "CycloneDX"}' } });
    expect(toolError(invalid)).toMatch(/^body/);

    const page = ok(
      await reader.callTool({
        name: "list_stack_items",
        arguments: { project_id: a.projectId, stack_id: target.id, q: "pkg:golang", page_size: 5 },
      }),
    );
    expect(page).toEqual(await rest(`/stacks/${target.id}/items?q=pkg:golang&page_size=5`));
    expect((page as { total: number }).total).toBe(2);
    const elsewhere = await (await connect(b.readKey)).callTool({
      name: "list_stack_items",
      arguments: { project_id: b.projectId, stack_id: target.id },
    });
    expect(toolError(elsewhere)).toBe("Pile introuvable");
  });

  it("the stats tools answer as GET /api/v1/stats/…, over the corpus and over a project", async () => {
    const client = await connect(a.readKey);
    const statsRest = async (path: string) =>
      (await t.app.inject({ method: "GET", url: `/api/v1/stats/${path}`, headers: bearer(a.readKey) })).json();
    const range = { from: "2024-01-01", to: "2024-12-31" };
    const totals = ok(await client.callTool({ name: "stats_totals", arguments: range })) as { published: number };
    expect(totals).toEqual(await statsRest("totals?from=2024-01-01&to=2024-12-31"));
    expect(totals.published).toBeGreaterThan(0);
    const top = ok(
      await client.callTool({ name: "stats_top", arguments: { ...range, dimension: "cwe", limit: 3, project_id: a.projectId } }),
    );
    expect(top).toEqual(await statsRest(`top?from=2024-01-01&to=2024-12-31&dimension=cwe&limit=3&project_id=${a.projectId}`));
    const delays = ok(
      await client.callTool({
        name: "stats_delays",
        arguments: { ...range, metric: "reservation_to_publication", granularity: "quarter" },
      }),
    );
    expect(delays).toEqual(await statsRest("delays?from=2024-01-01&to=2024-12-31&metric=reservation_to_publication&granularity=quarter"));
    expect(toolError(await client.callTool({ name: "stats_delays", arguments: { metric: "alert_to_case_closed" } }))).toContain(
      "project_id",
    );
    expect(toolError(await client.callTool({ name: "stats_top", arguments: { project_id: b.projectId } }))).toBe("Projet introuvable");
  });

  it("a key restricted to another project: the project does not exist for it", async () => {
    const client = await connect(restricted.key);
    const calls = [
      { name: "get_workflow", arguments: { project_id: a.projectId, workflow_id: workflow.id } },
      { name: "list_workflows", arguments: { project_id: a.projectId } },
      { name: "list_runs", arguments: { project_id: a.projectId, workflow_id: workflow.id } },
      { name: "get_run", arguments: { project_id: a.projectId, workflow_id: workflow.id, run_id: run.id } },
      { name: "list_alerts", arguments: { project_id: a.projectId } },
      { name: "list_cases", arguments: { project_id: a.projectId } },
      { name: "get_case", arguments: { project_id: a.projectId, cve_id: "CVE-2024-3400" } },
      { name: "list_stack_items", arguments: { project_id: a.projectId, stack_id: stack.json().id } },
      { name: "stats_totals", arguments: { project_id: a.projectId } },
    ];
    for (const call of calls) expect(toolError(await client.callTool(call)), call.name).toBe("Projet introuvable");
    // Its own project answers.
    const own = ok(await client.callTool({ name: "list_workflows", arguments: { project_id: recette.id } })) as { items: unknown[] };
    expect(own.items).toHaveLength(1);
  });

  it("a key of another organization: neither A's projects nor A's organization exist", async () => {
    const client = await connect(b.readKey);
    for (const call of [
      { name: "get_workflow", arguments: { project_id: a.projectId, workflow_id: workflow.id } },
      { name: "list_workflows", arguments: { project_id: a.projectId } },
      { name: "list_alerts", arguments: { project_id: a.projectId } },
      { name: "get_case", arguments: { project_id: a.projectId, cve_id: "CVE-2024-3400" } },
    ]) {
      expect(toolError(await client.callTool(call)), call.name).toBe("Projet introuvable");
    }
    const org = await client.callTool({ name: "get_workflow", arguments: { org_id: a.orgId, workflow_id: orgWorkflow.id } });
    expect(toolError(org)).toBe("Organisation introuvable");
    // A's workflow id under B's own project: not B's.
    const mixed = await client.callTool({ name: "get_workflow", arguments: { project_id: b.projectId, workflow_id: workflow.id } });
    expect(toolError(mixed)).toBe("Workflow introuvable");
  });

  it('answers {"detail": …} before the protocol: 401 without a key or with a bad one, 405 for GET and DELETE', async () => {
    const init = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } },
    });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const none = await fetch(url, { method: "POST", headers, body: init });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe("Bearer");
    expect(await none.json()).toEqual({ detail: "Not authenticated" });
    const bad = await fetch(url, { method: "POST", headers: { ...headers, ...bearer("vk_not_a_key") }, body: init });
    expect(bad.status).toBe(401);
    expect(bad.headers.get("www-authenticate")).toBe("Bearer");
    expect(await bad.json()).toEqual({ detail: "Clé d'API invalide ou révoquée" });
    // The SDK client sees the 401 as a failed connection.
    await expect(connect("vk_not_a_key")).rejects.toMatchObject({ code: 401 });

    const good = await fetch(url, { method: "POST", headers: { ...headers, ...bearer(a.readKey) }, body: init });
    expect(good.status).toBe(200);
    expect(good.headers.get("x-ratelimit-limit")).toMatch(/^\d+$/);
    expect(((await good.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name).toBe("vigie");
    const garbled = await fetch(url, { method: "POST", headers: { ...headers, ...bearer(a.readKey) }, body: "{not json" });
    expect(garbled.status).toBe(400);
    expect(((await garbled.json()) as { error: { code: number } }).error.code).toBe(-32700);

    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(url, { method, headers: bearer(a.readKey) });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      expect(await res.json()).toEqual({ detail: "Method Not Allowed" });
    }
  });

  it("answers a bare JSON-RPC call (curl) without a session, and counts each request against the hourly limit", async () => {
    await t.services.organizations.upsertPlan({ slug: "mcp-tiny", name: "MCP Tiny", maxApiCallsPerHour: 3 });
    const small = await createTenant(t, { plan: "mcp-tiny" }); // createTenant spends 1 call
    const headers = { ...bearer(small.readKey), "content-type": "application/json", accept: "application/json, text/event-stream" };
    const body = (id: number) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "get_workflow", arguments: { project_id: small.projectId, workflow_id: small.defaultWorkflowId } },
      });
    const first = await fetch(url, { method: "POST", headers, body: body(1) });
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toContain("application/json");
    expect(first.headers.get("x-ratelimit-remaining")).toBe("1");
    const answer = (await first.json()) as { id: number; result: { structuredContent: { id: string; is_default: boolean } } };
    expect(answer.id).toBe(1);
    expect(answer.result.structuredContent).toMatchObject({ id: small.defaultWorkflowId, is_default: true });
    expect((await fetch(url, { method: "POST", headers, body: body(2) })).status).toBe(200);
    const limited = await fetch(url, { method: "POST", headers, body: body(3) });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await limited.json()) as { detail: string }).detail).toEqual(expect.any(String));
  });

  it("is not in the OpenAPI document, which says where it is", async () => {
    const doc = (await t.app.inject({ method: "GET", url: "/openapi.json" })).json() as {
      paths: Record<string, unknown>;
      info: { description: string };
    };
    expect(doc.paths["/mcp"]).toBeUndefined();
    expect(doc.info.description).toContain("POST /mcp");
  });
});

describe("tool tenancy is declared, as on routes (ADR 0007, 0017)", () => {
  it("every tool naming a project or an organization declares it, so the tool runner resolves it", () => {
    const declared = TOOLS.map((d) => {
      const shape = d.input.shape as Record<string, unknown>;
      return { name: d.name, project_id: "project_id" in shape, project: d.project ?? null, org_id: "org_id" in shape, org: d.org ?? null };
    });
    for (const d of declared) {
      expect(d.project !== null, `${d.name}: project_id without project`).toBe(d.project_id);
      expect(d.org !== null, `${d.name}: org_id without org`).toBe(d.org_id);
    }
    // Required where the argument is (a list, a read); optional where it narrows (statistics) or chooses (get_workflow).
    expect(declared.filter((d) => d.project === true).map((d) => d.name)).toEqual([
      "list_workflows",
      "list_runs",
      "get_run",
      "list_alerts",
      "list_cases",
      "get_case",
      // VEX.
      "get_vex",
      "list_stack_items",
      "import_sbom",
    ]);
  });

  it("a write tool declares the scope of its REST twin; the others read", () => {
    expect(TOOLS.filter((d) => d.scope).map((d) => [d.name, d.scope])).toEqual([["import_sbom", "stacks-write"]]);
  });
});

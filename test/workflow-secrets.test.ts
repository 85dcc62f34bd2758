import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { createServices } from "../src/app.js";
import type { StoredGraph } from "../src/engine/graph.js";
import { GraphSecrets } from "../src/engine/secret-params.js";
import { workflowsRepository } from "../src/modules/workflows/workflows.repository.js";
import { REDACT_PATHS } from "../src/platform/log.js";
import { SecretBox, SecretError } from "../src/platform/secrets.js";
import { bearer, createTenant, createTestApp, createWorkflow, workflowsUrl, type Tenant } from "./helpers.js";

const t = await createTestApp();

const HOOK_SECRET = "whsec_0123456789abcdefWXYZ";
const SLACK = "https://hooks.slack.com/services/T0000000/B0000000/abcdefghijklmnopqrstSLCK";
const TEAMS = "https://example.webhook.office.com/webhookb2/1111-2222/IncomingWebhook/3333/4444TEAM";
const CLEAR = [HOOK_SECRET, SLACK, TEAMS, "abcdefghijklmnopqrst", "B0000000", "webhookb2"];

function graph(over: { secret?: string; slack?: string; teams?: string } = {}) {
  return {
    nodes: [
      { id: "t", type: "trigger", event: "cve.new_match" },
      {
        id: "hook",
        type: "action",
        action: "notify_webhook",
        params: { url: "https://receiver.example.org/vigie", secret: over.secret ?? HOOK_SECRET },
      },
      { id: "slack", type: "action", action: "notify_slack", params: { webhook_url: over.slack ?? SLACK } },
      { id: "teams", type: "action", action: "notify_teams", params: { webhook_url: over.teams ?? TEAMS } },
    ],
    edges: [
      { from: "t", to: "hook" },
      { from: "hook", to: "slack" },
      { from: "slack", to: "teams" },
    ],
  };
}

/** What the database holds for a workflow, as text. */
async function storedGraph(id: string): Promise<string> {
  const { rows } = (await t.database.executeSql("select graph::text as g from workflows where id = $1", [id])) as { rows: { g: string }[] };
  return rows[0]!.g;
}

function expectNoClearSecret(text: string) {
  for (const s of CLEAR) expect(text).not.toContain(s);
}

async function created(tenant: Tenant, body: unknown = { name: `secrets ${randomBytes(3).toString("hex")}`, graph: graph() }) {
  const res = await createWorkflow(t, tenant, body);
  expect(res.statusCode).toBe(201);
  return res.json() as { id: string; version: number; graph: StoredGraph };
}

const paramsOf = (g: StoredGraph, id: string) => (g.nodes.find((n) => n.id === id) as { params: Record<string, unknown> }).params;

describe("secret action parameters at rest", () => {
  it("are stored encrypted: the row holds no clear secret", async () => {
    const tenant = await createTenant(t);
    const wf = await created(tenant);
    const text = await storedGraph(wf.id);
    expectNoClearSecret(text);
    const stored = JSON.parse(text) as StoredGraph;
    expect(paramsOf(stored, "hook").secret).toMatch(/^enc:v1:[0-9a-f]{8}:/);
    expect(paramsOf(stored, "slack").webhook_url).toMatch(/^enc:v1:/);
    expect(paramsOf(stored, "teams").webhook_url).toMatch(/^enc:v1:/);
    // The webhook's own URL is no secret: stored as given.
    expect(paramsOf(stored, "hook").url).toBe("https://receiver.example.org/vigie");
    // The engine gets them back in clear, right before a handler runs.
    expect(t.services.secrets.decryptParams("notify_webhook", paramsOf(stored, "hook"))).toEqual({
      url: "https://receiver.example.org/vigie",
      secret: HOOK_SECRET,
    });
    expect(t.services.secrets.decryptParams("notify_slack", paramsOf(stored, "slack")).webhook_url).toBe(SLACK);
    expect(t.services.secrets.decryptParams("notify_teams", paramsOf(stored, "teams")).webhook_url).toBe(TEAMS);
  });

  it("are never answered in clear: creation, session read, update, enable, dry run and its stored run, operator creation", async () => {
    const tenant = await createTenant(t);
    const res = await createWorkflow(t, tenant, { name: "masked", graph: graph() });
    expectNoClearSecret(res.body);
    const wf = res.json();
    expect(paramsOf(wf.graph, "hook")).toEqual({ url: "https://receiver.example.org/vigie", secret: "••••WXYZ" });
    expect(paramsOf(wf.graph, "slack")).toEqual({ webhook_url: "••••SLCK" });
    expect(paramsOf(wf.graph, "teams")).toEqual({ webhook_url: "••••TEAM" });

    await t.services.users.create({ email: `s-${wf.id}@example.org`, password: "pass word 123", orgId: tenant.orgId, role: "member" });
    const login = await t.app.inject({
      method: "POST",
      url: "/auth/login",
      payload: { email: `s-${wf.id}@example.org`, password: "pass word 123" },
    });
    const session = await t.app.inject({
      method: "GET",
      url: `/projects/${tenant.projectId}/workflows/${wf.id}`,
      headers: bearer(login.json().token),
    });
    expect(session.statusCode).toBe(200);
    expectNoClearSecret(session.body);
    expect(session.json().graph).toEqual(wf.graph);

    const renamed = await t.app.inject({
      method: "PATCH",
      url: workflowsUrl(tenant, `/${wf.id}`),
      headers: bearer(tenant.key),
      payload: { version: 1, name: "renamed" },
    });
    expect(renamed.statusCode).toBe(200);
    expectNoClearSecret(renamed.body);
    const disabled = await t.app.inject({
      method: "PATCH",
      url: workflowsUrl(tenant, `/${wf.id}/enabled`),
      headers: bearer(tenant.key),
      payload: { enabled: false },
    });
    expectNoClearSecret(disabled.body);
    expect(paramsOf(disabled.json().graph, "slack").webhook_url).toBe("••••SLCK");

    const dry = await t.app.inject({
      method: "POST",
      url: workflowsUrl(tenant, `/${wf.id}/dry-run`),
      headers: bearer(tenant.key),
      payload: { cve_id: "CVE-2024-3400" },
    });
    expect(dry.statusCode).toBe(201);
    expectNoClearSecret(dry.body);
    expect(dry.json().noeuds.find((n: { id: string }) => n.id === "hook").params.secret).toBe("••••WXYZ");
    const { rows } = (await t.database.executeSql("select report::text as r from workflow_runs where workflow_id = $1", [wf.id])) as {
      rows: { r: string }[];
    };
    expect(rows).toHaveLength(1);
    expectNoClearSecret(rows[0]!.r);

    // `vigie workflow create` answers through the same service.
    const op = await t.services.workflows.createAsOperator({
      orgId: tenant.orgId,
      projectId: null,
      name: "org-wide",
      graph: graph() as never,
    });
    expectNoClearSecret(JSON.stringify(op.graph));
    expectNoClearSecret(await storedGraph(op.id));
  });

  it("a graph sent back as read (masked) keeps the stored secrets; a new clear value replaces one", async () => {
    const tenant = await createTenant(t);
    const wf = await created(tenant);
    const before = JSON.parse(await storedGraph(wf.id)) as StoredGraph;
    const roundTrip = await t.app.inject({
      method: "PATCH",
      url: workflowsUrl(tenant, `/${wf.id}`),
      headers: bearer(tenant.key),
      payload: { version: wf.version, graph: wf.graph },
    });
    expect(roundTrip.statusCode).toBe(200);
    expect(roundTrip.json().graph).toEqual(wf.graph);
    const after = JSON.parse(await storedGraph(wf.id)) as StoredGraph;
    // The very same ciphertext: nothing was re-encrypted from a mask.
    expect(paramsOf(after, "hook").secret).toBe(paramsOf(before, "hook").secret);
    expect(t.services.secrets.decryptParams("notify_slack", paramsOf(after, "slack")).webhook_url).toBe(SLACK);

    // Nodes renamed and reordered: the mask still names its secret (one secret of that action has it).
    const moved = structuredClone(roundTrip.json().graph) as ReturnType<typeof graph>;
    moved.nodes[2]!.id = "slack-2";
    moved.edges = [
      { from: "t", to: "hook" },
      { from: "hook", to: "slack-2" },
      { from: "slack-2", to: "teams" },
    ];
    const renamed = await t.app.inject({
      method: "PATCH",
      url: workflowsUrl(tenant, `/${wf.id}`),
      headers: bearer(tenant.key),
      payload: { version: 2, graph: moved },
    });
    expect(renamed.statusCode).toBe(200);
    const stored2 = JSON.parse(await storedGraph(wf.id)) as StoredGraph;
    expect(t.services.secrets.decryptParams("notify_slack", paramsOf(stored2, "slack-2")).webhook_url).toBe(SLACK);

    const changed = await t.app.inject({
      method: "PATCH",
      url: workflowsUrl(tenant, `/${wf.id}`),
      headers: bearer(tenant.key),
      payload: {
        version: 3,
        graph: {
          ...moved,
          nodes: moved.nodes.map((n) =>
            n.id === "hook" ? { ...n, params: { url: "https://receiver.example.org/vigie", secret: "a-brand-new-secret-9876" } } : n,
          ),
        },
      },
    });
    expect(changed.statusCode).toBe(200);
    expect(paramsOf(changed.json().graph, "hook").secret).toBe("••••9876");
    const stored3 = JSON.parse(await storedGraph(wf.id)) as StoredGraph;
    expect(t.services.secrets.decryptParams("notify_webhook", paramsOf(stored3, "hook")).secret).toBe("a-brand-new-secret-9876");
  });

  it("a short-form update may send the masked values it read", async () => {
    const tenant = await createTenant(t);
    const wf = await created(tenant, {
      name: "short",
      trigger: { event: "cve.kev_added" },
      actions: [{ type: "notify_slack", params: { webhook_url: SLACK } }],
    });
    const res = await t.app.inject({
      method: "PATCH",
      url: workflowsUrl(tenant, `/${wf.id}`),
      headers: bearer(tenant.key),
      payload: {
        version: 1,
        trigger: { event: "cve.poc_published" },
        actions: [{ type: "notify_slack", params: { webhook_url: "••••SLCK" } }],
      },
    });
    expect(res.statusCode).toBe(200);
    const stored = JSON.parse(await storedGraph(wf.id)) as StoredGraph;
    const slack = stored.nodes.find((n) => n.type === "action" && n.action === "notify_slack")!;
    expect(t.services.secrets.decryptParams("notify_slack", (slack as { params: Record<string, unknown> }).params).webhook_url).toBe(SLACK);
  });

  it("a masked value that stands for no stored secret is a 422, and a 422 never echoes a restored secret", async () => {
    const tenant = await createTenant(t);
    const onCreate = await createWorkflow(t, tenant, { name: "x", graph: graph({ secret: "••••WXYZ" }) });
    expect(onCreate.statusCode).toBe(422);
    expect(onCreate.json().detail).toEqual([
      expect.objectContaining({
        loc: ["body", "graph", "nodes", 1, "action", "params", "secret"],
        msg: expect.stringContaining("valeur masquée qui ne correspond à aucun secret enregistré"),
      }),
    ]);
    const wf = await created(tenant);
    const unknown = await t.app.inject({
      method: "PATCH",
      url: workflowsUrl(tenant, `/${wf.id}`),
      headers: bearer(tenant.key),
      payload: { version: 1, graph: graph({ slack: "••••ZZZZ", secret: "••••WXYZ", teams: "••••TEAM" }) },
    });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().detail.map((d: { loc: unknown[] }) => d.loc.at(-1))).toEqual(["webhook_url"]);

    // A graph whose masked secrets are restored but which fails elsewhere: the node echoed stays masked.
    const broken = graph({ secret: "••••WXYZ", slack: "••••SLCK", teams: "••••TEAM" });
    broken.edges = broken.edges.slice(0, 2); // teams no longer reached
    const res = await t.app.inject({
      method: "PATCH",
      url: workflowsUrl(tenant, `/${wf.id}`),
      headers: bearer(tenant.key),
      payload: { version: 1, graph: broken },
    });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain("nœud non relié au déclencheur");
    expect(res.body).toContain("••••TEAM");
    expectNoClearSecret(res.body);
    expectNoClearSecret(await storedGraph(wf.id));
  });

  it("a client cannot plant a ciphertext: a value that looks encrypted is encrypted like any other", async () => {
    const tenant = await createTenant(t);
    const donor = await created(tenant);
    const stolen = paramsOf(JSON.parse(await storedGraph(donor.id)) as StoredGraph, "hook").secret as string;
    const wf = await created(tenant, { name: "planted", graph: graph({ secret: stolen }) });
    const stored = JSON.parse(await storedGraph(wf.id)) as StoredGraph;
    expect(paramsOf(stored, "hook").secret).not.toBe(stolen);
    expect(t.services.secrets.decryptParams("notify_webhook", paramsOf(stored, "hook")).secret).toBe(stolen);
  });

  it("an idempotent replay of a creation with secrets answers the same workflow", async () => {
    const tenant = await createTenant(t);
    const body = { name: "replay", graph: graph() };
    const first = await createWorkflow(t, tenant, body, "replay-key");
    const again = await createWorkflow(t, tenant, body, "replay-key");
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(200);
    expect(again.json().id).toBe(first.json().id);
    const other = await createWorkflow(t, tenant, { name: "replay", graph: graph({ secret: "another-secret-0000" }) }, "replay-key");
    expect(other.statusCode).toBe(409);
  });

  it("under another key: decryption fails clearly, answers still show the mask", async () => {
    const tenant = await createTenant(t);
    const wf = await created(tenant);
    const stored = JSON.parse(await storedGraph(wf.id)) as StoredGraph;
    const wrong = new GraphSecrets(new SecretBox(randomBytes(32)));
    expect(() => wrong.decryptParams("notify_webhook", paramsOf(stored, "hook"))).toThrow(SecretError);
    expect(() => wrong.decryptParams("notify_webhook", paramsOf(stored, "hook"))).toThrow(/chiffré avec une autre clé/);
    const services = createServices(t.database, { ...t.config, secretKey: randomBytes(32) });
    const read = await services.workflows.get({ id: tenant.projectId, orgId: tenant.orgId }, wf.id);
    expect(paramsOf(read.graph as StoredGraph, "hook").secret).toBe("••••");
    // A handler must never be given a mask for a secret.
    expect(() => t.services.secrets.decryptParams("notify_slack", { webhook_url: "••••SLCK" })).toThrow(/masqué/);
  });
});

describe("logs", () => {
  it("redact secret parameters wherever an object carries them", () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const log = pino({ redact: { paths: REDACT_PATHS, censor: "[redacted]" } }, sink);
    log.info({ params: { url: "https://r.example.org", secret: HOOK_SECRET } }, "a");
    log.info({ node: { params: { webhook_url: SLACK } } }, "b");
    log.info({ webhook_url: TEAMS, secret: HOOK_SECRET }, "c");
    log.info({ config: { secretKey: "k", notify: { smtpUrl: "smtp://u:p@h" } } }, "d");
    const out = lines.join("");
    expectNoClearSecret(out);
    expect(out).not.toContain("smtp://u:p@h");
    expect(out).toContain("https://r.example.org");
  });
});

describe("workflows written before secrets at rest", () => {
  it("are sealed at start-up: secrets encrypted, version unchanged, nothing else touched", async () => {
    const tenant = await createTenant(t);
    const legacy = await workflowsRepository.insert(t.database.db, {
      orgId: tenant.orgId,
      projectId: tenant.projectId,
      name: "legacy",
      description: null,
      family: "alerting",
      graph: {
        nodes: [
          { id: "t", type: "trigger", event: "cve.new_match", params: {} },
          {
            id: "hook",
            type: "action",
            action: "notify_webhook",
            params: { url: "https://r.example.org/h", secret: HOOK_SECRET },
            on_error: "continue",
          },
          { id: "slack", type: "action", action: "notify_slack", params: { webhook_url: SLACK }, on_error: "continue" },
          {
            id: "hook2",
            type: "action",
            action: "notify_webhook",
            params: { url: "https://r.example.org/unsigned" },
            on_error: "continue",
          },
        ],
        edges: [
          { from: "t", to: "hook" },
          { from: "hook", to: "slack" },
          { from: "slack", to: "hook2" },
        ],
      },
    });
    expect(await storedGraph(legacy.id)).toContain(SLACK);
    // Before sealing, answers already mask them.
    const before = await t.services.workflows.get({ id: tenant.projectId, orgId: tenant.orgId }, legacy.id);
    expect(paramsOf(before.graph as StoredGraph, "slack").webhook_url).toBe("••••SLCK");

    expect(await t.services.workflows.sealStoredSecrets()).toBeGreaterThanOrEqual(1);
    const text = await storedGraph(legacy.id);
    expectNoClearSecret(text);
    const stored = JSON.parse(text) as StoredGraph;
    expect(paramsOf(stored, "hook2")).toEqual({ url: "https://r.example.org/unsigned" });
    expect(t.services.secrets.decryptParams("notify_webhook", paramsOf(stored, "hook")).secret).toBe(HOOK_SECRET);
    const after = await t.services.workflows.get({ id: tenant.projectId, orgId: tenant.orgId }, legacy.id);
    expect(after.version).toBe(legacy.version);
    expect(await t.services.workflows.sealStoredSecrets()).toBe(0);
  });
});

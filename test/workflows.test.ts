import { describe, expect, it } from "vitest";
import { bearer, createTenant, createTestApp, createWorkflow, workflowsUrl } from "./helpers.js";

const t = await createTestApp();

const GRAPH = {
  nodes: [
    { id: "t", type: "trigger", event: "cve.new_match" },
    {
      id: "c",
      type: "condition",
      match: "any",
      rules: [
        { field: "cve.is_kev", op: "eq", value: true },
        { field: "cve.cvss_score", op: "gte", value: 9 },
      ],
    },
    { id: "a1", type: "action", action: "create_case" },
    { id: "a2", type: "action", action: "notify_webhook", params: { url: "https://hooks.example.org/vigie" }, on_error: "stop" },
  ],
  edges: [
    { from: "t", to: "c" },
    { from: "c", to: "a1", when: "true" },
    { from: "c", to: "a2", when: "false" },
  ],
};

const FULL_KEYS = ["created_at", "description", "family", "graph", "id", "is_default", "is_enabled", "name", "updated_at", "version"];

describe("every new project has one default workflow", () => {
  it("lists it with the WorkflowItem fields only", async () => {
    const tenant = await createTenant(t);
    const res = await t.app.inject({ method: "GET", url: workflowsUrl(tenant), headers: bearer(tenant.readKey) });
    expect(res.statusCode).toBe(200);
    const [item] = res.json();
    expect(Object.keys(item).sort()).toEqual(["created_at", "id", "is_default", "is_enabled", "name", "updated_at"]);
    expect(item).toMatchObject({ is_default: true, is_enabled: true });
    const wf = await t.services.workflows.get({ id: tenant.projectId, orgId: tenant.orgId }, item.id);
    // Its policy, in its graph and its description: a case for a verified P1/P2 new match; the rest waits in the inbox.
    expect(wf.graph).toEqual({
      nodes: [
        { id: "trigger", type: "trigger", event: "cve.new_match", params: {} },
        {
          id: "condition",
          type: "condition",
          match: "all",
          rules: [
            { field: "alert.palier", op: "in", value: ["P1", "P2"] },
            { field: "alert.rule", op: "ne", value: "unversioned" },
          ],
        },
        { id: "action-1", type: "action", action: "create_case", params: {}, on_error: "continue" },
      ],
      edges: [
        { from: "trigger", to: "condition" },
        { from: "condition", to: "action-1", when: "true" },
      ],
    });
    expect(wf).toMatchObject({ name: "Correspondance vérifiée P1/P2 → dossier" });
    expect(wf.description).toMatch(/vérifiée, en palier P1 ou P2.*« non vérifiables », attendent dans la boîte de réception/);
  });
});

describe("create", () => {
  it("creates from a graph: 201 with the full record, version 1, graph returned", async () => {
    const tenant = await createTenant(t);
    const res = await createWorkflow(t, tenant, { name: "KEV ou critique", description: "tri", graph: GRAPH });
    expect(res.statusCode).toBe(201);
    const wf = res.json();
    expect(Object.keys(wf).sort()).toEqual(FULL_KEYS);
    expect(wf).toMatchObject({
      name: "KEV ou critique",
      description: "tri",
      is_enabled: true,
      is_default: false,
      family: "alerting",
      version: 1,
    });
    expect(wf.graph.nodes[1]).toEqual(GRAPH.nodes[1]);
    expect(wf.graph.edges).toEqual([
      { from: "t", to: "c" },
      { from: "c", to: "a1", when: "true" },
      { from: "c", to: "a2", when: "false" },
    ]);
    expect(JSON.stringify(wf.graph.edges[0])).toBe('{"from":"t","to":"c"}'); // reading order, not jsonb's
    const list = await t.app.inject({ method: "GET", url: workflowsUrl(tenant), headers: bearer(tenant.key) });
    expect(list.json().map((w: { name: string }) => w.name)).toContain("KEV ou critique");
  });

  it("stores the short form as its equivalent graph, create_case first by default", async () => {
    const tenant = await createTenant(t);
    const res = await createWorkflow(t, tenant, {
      name: "court",
      trigger: { event: "cve.kev_added", conditions: [{ field: "cve.severity", op: "gte", value: "high" }] },
      actions: [{ type: "add_tag", params: { tag: "urgent" } }],
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().graph).toEqual({
      nodes: [
        { id: "trigger", type: "trigger", event: "cve.kev_added", params: {} },
        { id: "condition", type: "condition", match: "all", rules: [{ field: "cve.severity", op: "gte", value: "high" }] },
        { id: "action-1", type: "action", action: "create_case", params: {}, on_error: "continue" },
        { id: "action-2", type: "action", action: "add_tag", params: { tag: "urgent" }, on_error: "continue" },
      ],
      edges: [
        { from: "trigger", to: "condition" },
        { from: "condition", to: "action-1", when: "true" },
        { from: "action-1", to: "action-2" },
      ],
    });
    const noCase = await createWorkflow(t, tenant, {
      name: "sans dossier",
      trigger: { event: "cve.new_match" },
      actions: [{ type: "set_alert_read" }],
      create_case: false,
    });
    expect(noCase.json().graph.nodes.map((n: { action?: string }) => n.action ?? "trigger")).toEqual(["trigger", "set_alert_read"]);
  });

  it("requires Idempotency-Key (422 missing header) and rejects both forms at once (422)", async () => {
    const tenant = await createTenant(t);
    const noKey = await t.app.inject({
      method: "POST",
      url: workflowsUrl(tenant),
      headers: bearer(tenant.key),
      payload: { name: "x", graph: GRAPH },
    });
    expect(noKey.statusCode).toBe(422);
    expect(noKey.json()).toEqual({ detail: [{ type: "missing", loc: ["header", "idempotency-key"], msg: "Field required", input: null }] });
    const both = await createWorkflow(t, tenant, { name: "x", graph: GRAPH, trigger: { event: "cve.new_match" } });
    expect(both.statusCode).toBe(422);
    expect(both.json().detail[0]).toMatchObject({ type: "value_error", loc: ["body"] });
    const neither = await createWorkflow(t, tenant, { name: "x" });
    expect(neither.statusCode).toBe(422);
    const list = await t.app.inject({ method: "GET", url: workflowsUrl(tenant), headers: bearer(tenant.key) });
    expect(list.json()).toHaveLength(1);
  });

  it("replays the same key and body with 200 and the workflow as it is now; 409 for another body", async () => {
    const tenant = await createTenant(t);
    const body = { name: "idem", trigger: { event: "cve.new_match" } };
    const first = await createWorkflow(t, tenant, body, "key-1");
    expect(first.statusCode).toBe(201);
    const id = first.json().id;
    await t.app.inject({
      method: "PATCH",
      url: workflowsUrl(tenant, `/${id}/enabled`),
      headers: bearer(tenant.key),
      payload: { enabled: false },
    });
    const replay = await createWorkflow(t, tenant, { trigger: { event: "cve.new_match" }, name: "idem" }, "key-1");
    expect(replay.statusCode).toBe(200);
    expect(replay.json()).toMatchObject({ id, is_enabled: false, version: 2 });
    const other = await createWorkflow(t, tenant, { name: "autre", trigger: { event: "cve.new_match" } }, "key-1");
    expect(other.statusCode).toBe(409);
    expect(other.json().detail).toMatchObject({ code: "cle_idempotence_reutilisee", message: expect.any(String) });
    const list = await t.app.inject({ method: "GET", url: workflowsUrl(tenant), headers: bearer(tenant.key) });
    expect(list.json()).toHaveLength(2);
  });

  it("scopes idempotency keys to the organization", async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    const body = { name: "partagé", trigger: { event: "cve.new_match" } };
    expect((await createWorkflow(t, a, body, "same")).statusCode).toBe(201);
    expect((await createWorkflow(t, b, body, "same")).statusCode).toBe(201);
  });

  it("creates exactly one workflow for concurrent requests with one key", async () => {
    const tenant = await createTenant(t);
    const body = { name: "concurrent", trigger: { event: "cve.new_match" } };
    const results = await Promise.all(Array.from({ length: 8 }, () => createWorkflow(t, tenant, body, "race")));
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes.filter((c) => c === 201)).toHaveLength(1);
    expect(codes.every((c) => c === 201 || c === 200 || c === 409)).toBe(true);
    const ids = new Set(results.filter((r) => r.statusCode < 300).map((r) => r.json().id));
    expect(ids.size).toBe(1);
    const list = await t.app.inject({ method: "GET", url: workflowsUrl(tenant), headers: bearer(tenant.key) });
    expect(list.json().filter((w: { name: string }) => w.name === "concurrent")).toHaveLength(1);
  });

  it("answers 409 when the name is already used on the project (database constraint)", async () => {
    const tenant = await createTenant(t);
    expect((await createWorkflow(t, tenant, { name: "doublon", trigger: { event: "cve.new_match" } })).statusCode).toBe(201);
    const dup = await createWorkflow(t, tenant, { name: "doublon", trigger: { event: "cve.kev_added" } });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().detail.code).toBe("nom_deja_utilise");
    await expect(
      t.database.executeSql("insert into workflows (org_id, project_id, name, graph) values ($1, $2, 'doublon', '{}')", [
        tenant.orgId,
        tenant.projectId,
      ]),
    ).rejects.toThrow();
  });

  it("validates the graph and points at the failing location", async () => {
    const tenant = await createTenant(t);
    const cases: [unknown, (string | number)[], string][] = [
      [{ nodes: [{ id: "a", type: "action", action: "create_case" }], edges: [] }, ["body", "graph", "nodes"], "value_error"],
      [
        {
          ...GRAPH,
          nodes: [...GRAPH.nodes, { id: "t2", type: "trigger", event: "cve.kev_added" }],
          edges: [...GRAPH.edges, { from: "t2", to: "a1" }],
        },
        ["body", "graph", "nodes", 4],
        "value_error",
      ],
      [{ ...GRAPH, edges: [...GRAPH.edges, { from: "c", to: "zz" }] }, ["body", "graph", "edges", 3, "to"], "value_error"],
      [{ ...GRAPH, edges: [...GRAPH.edges, { from: "a1", to: "c" }] }, ["body", "graph", "edges", 3], "value_error"],
      [{ ...GRAPH, edges: [...GRAPH.edges, { from: "a1", to: "t" }] }, ["body", "graph", "edges", 3, "to"], "value_error"],
      [
        { ...GRAPH, nodes: [{ id: "t", type: "trigger", event: "cve.unknown" }, ...GRAPH.nodes.slice(1)] },
        ["body", "graph", "nodes", 0, "trigger", "event"],
        "literal_error",
      ],
      [
        { ...GRAPH, nodes: [...GRAPH.nodes.slice(0, 3), { id: "a2", type: "action", action: "launch_missiles" }] },
        ["body", "graph", "nodes", 3, "action", "action"],
        "literal_error",
      ],
      [
        {
          ...GRAPH,
          nodes: [
            GRAPH.nodes[0],
            { id: "c", type: "condition", rules: [{ field: "cve.cvss_score", op: "between", value: 1 }] },
            ...GRAPH.nodes.slice(2),
          ],
        },
        ["body", "graph", "nodes", 1, "condition", "rules", 0, "op"],
        "literal_error",
      ],
      [
        {
          ...GRAPH,
          nodes: [
            GRAPH.nodes[0],
            { id: "c", type: "condition", rules: [{ field: "cve.nope", op: "eq", value: 1 }] },
            ...GRAPH.nodes.slice(2),
          ],
        },
        ["body", "graph", "nodes", 1, "condition", "rules", 0, "field"],
        "literal_error",
      ],
      [
        {
          ...GRAPH,
          nodes: [
            GRAPH.nodes[0],
            { id: "c", type: "condition", rules: [{ field: "cve.cvss_score", op: "gte", value: "high" }] },
            ...GRAPH.nodes.slice(2),
          ],
        },
        ["body", "graph", "nodes", 1, "condition", "rules", 0, "value"],
        "value_error",
      ],
      [
        {
          ...GRAPH,
          nodes: [
            GRAPH.nodes[0],
            { id: "c", type: "condition", rules: [{ field: "eol.days_left", op: "lt", value: 3 }] },
            ...GRAPH.nodes.slice(2),
          ],
        },
        ["body", "graph", "nodes", 1, "condition", "rules", 0, "field"],
        "value_error",
      ],
      [
        {
          ...GRAPH,
          nodes: [...GRAPH.nodes.slice(0, 3), { id: "a2", type: "action", action: "notify_webhook", params: { url: "ftp://x" } }],
        },
        ["body", "graph", "nodes", 3, "action", "params", "url"],
        "value_error",
      ],
      [
        { ...GRAPH, nodes: [...GRAPH.nodes, { id: "lonely", type: "action", action: "create_case" }] },
        ["body", "graph", "nodes", 4],
        "value_error",
      ],
      [
        { ...GRAPH, edges: [{ from: "t", to: "c", when: "true" }, ...GRAPH.edges.slice(1)] },
        ["body", "graph", "edges", 0, "when"],
        "value_error",
      ],
      [
        { ...GRAPH, nodes: [{ id: "t", event: "cve.new_match" }, ...GRAPH.nodes.slice(1)] },
        ["body", "graph", "nodes", 0],
        "union_tag_not_found",
      ],
    ];
    for (const [graph, loc, type] of cases) {
      const res = await createWorkflow(t, tenant, { name: "invalide", graph });
      expect(res.statusCode, JSON.stringify(loc)).toBe(422);
      expect(res.json().detail, JSON.stringify(res.json())).toContainEqual(expect.objectContaining({ loc, type }));
    }
    const list = await t.app.inject({ method: "GET", url: workflowsUrl(tenant), headers: bearer(tenant.key) });
    expect(list.json()).toHaveLength(1);
  });
});

describe("update, enable/disable, delete", () => {
  it("updates with the current version (200, version + 1) and refuses a stale one with 409 version_perimee", async () => {
    const tenant = await createTenant(t);
    const created = (await createWorkflow(t, tenant, { name: "v", graph: GRAPH })).json();
    const url = workflowsUrl(tenant, `/${created.id}`);
    const ok = await t.app.inject({
      method: "PATCH",
      url,
      headers: bearer(tenant.key),
      payload: {
        version: 1,
        name: "v2",
        trigger: { event: "cve.epss_spike", params: { min_delta: 0.2 } },
        actions: [{ type: "notify_email", params: { to: ["soc@example.org"] } }],
      },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ id: created.id, name: "v2", version: 2, description: null });
    expect(ok.json().graph.nodes[0]).toEqual({ id: "trigger", type: "trigger", event: "cve.epss_spike", params: { min_delta: 0.2 } });
    const stale = await t.app.inject({ method: "PATCH", url, headers: bearer(tenant.key), payload: { version: 1, name: "v3" } });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toEqual({ detail: { code: "version_perimee", message: expect.any(String), current_version: 2 } });
    const descOnly = await t.app.inject({
      method: "PATCH",
      url,
      headers: bearer(tenant.key),
      payload: { version: 2, description: "nouvelle" },
    });
    expect(descOnly.json()).toMatchObject({ name: "v2", description: "nouvelle", version: 3 });
    expect(descOnly.json().graph).toEqual(ok.json().graph);
    const noVersion = await t.app.inject({ method: "PATCH", url, headers: bearer(tenant.key), payload: { name: "x" } });
    expect(noVersion.statusCode).toBe(422);
    expect(noVersion.json().detail).toEqual([{ type: "missing", loc: ["body", "version"], msg: "Field required", input: { name: "x" } }]);
    const missing = await t.app.inject({
      method: "PATCH",
      url: workflowsUrl(tenant, "/00000000-0000-4000-8000-000000000000"),
      headers: bearer(tenant.key),
      payload: { version: 1 },
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ detail: "Workflow introuvable" });
  });

  it("refuses a name already used by another workflow of the project", async () => {
    const tenant = await createTenant(t);
    await createWorkflow(t, tenant, { name: "a", trigger: { event: "cve.new_match" } });
    const b = (await createWorkflow(t, tenant, { name: "b", trigger: { event: "cve.new_match" } })).json();
    const res = await t.app.inject({
      method: "PATCH",
      url: workflowsUrl(tenant, `/${b.id}`),
      headers: bearer(tenant.key),
      payload: { version: 1, name: "a" },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().detail.code).toBe("nom_deja_utilise");
  });

  it("enables and disables with the full record and version incremented each time", async () => {
    const tenant = await createTenant(t);
    const url = workflowsUrl(tenant, `/${tenant.defaultWorkflowId}/enabled`);
    const off = await t.app.inject({ method: "PATCH", url, headers: bearer(tenant.key), payload: { enabled: false } });
    expect(off.statusCode).toBe(200);
    expect(Object.keys(off.json()).sort()).toEqual(FULL_KEYS);
    expect(off.json()).toMatchObject({ is_enabled: false, version: 2 });
    const on = await t.app.inject({ method: "PATCH", url, headers: bearer(tenant.key), payload: { enabled: "true" } });
    expect(on.json()).toMatchObject({ is_enabled: true, version: 3 });
    const bad = await t.app.inject({ method: "PATCH", url, headers: bearer(tenant.key), payload: { enabled: "peut-être" } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail).toEqual([
      {
        type: "bool_parsing",
        loc: ["body", "enabled"],
        msg: "Input should be a valid boolean, unable to interpret input",
        input: "peut-être",
      },
    ]);
  });

  it("deletes with 204, but never the default workflow nor the last one (409)", async () => {
    const tenant = await createTenant(t);
    const def = await t.app.inject({
      method: "DELETE",
      url: workflowsUrl(tenant, `/${tenant.defaultWorkflowId}`),
      headers: bearer(tenant.key),
    });
    expect(def.statusCode).toBe(409);
    expect(def.json().detail.code).toBe("workflow_par_defaut");
    const other = (await createWorkflow(t, tenant, { name: "jetable", trigger: { event: "cve.new_match" } })).json();
    const del = await t.app.inject({ method: "DELETE", url: workflowsUrl(tenant, `/${other.id}`), headers: bearer(tenant.key) });
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe("");
    const again = await t.app.inject({ method: "DELETE", url: workflowsUrl(tenant, `/${other.id}`), headers: bearer(tenant.key) });
    expect(again.statusCode).toBe(404);
    // A project whose only workflow is not the default one: the last-workflow rule answers.
    await t.database.executeSql("update workflows set is_default = false where id = $1", [tenant.defaultWorkflowId]);
    const last = await t.app.inject({
      method: "DELETE",
      url: workflowsUrl(tenant, `/${tenant.defaultWorkflowId}`),
      headers: bearer(tenant.key),
    });
    expect(last.statusCode).toBe(409);
    expect(last.json().detail.code).toBe("dernier_workflow");
  });

  it("another organization's key cannot touch the workflow", async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    const url = workflowsUrl(a, `/${a.defaultWorkflowId}`);
    for (const [method, payload] of [
      ["PATCH", { version: 1, name: "pirate" }],
      ["DELETE", undefined],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: bearer(b.key), payload });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ detail: "Projet introuvable" });
    }
    // b's project with a's workflow id: the workflow is not on that project.
    const cross = await t.app.inject({
      method: "PATCH",
      url: workflowsUrl(b, `/${a.defaultWorkflowId}/enabled`),
      headers: bearer(b.key),
      payload: { enabled: false },
    });
    expect(cross.statusCode).toBe(404);
    expect(cross.json()).toEqual({ detail: "Workflow introuvable" });
  });
});

describe("runs and dry run", () => {
  it("dry-runs against an unknown CVE: 201, records a dry_run run, says the fields were empty", async () => {
    const tenant = await createTenant(t);
    const wf = (await createWorkflow(t, tenant, { name: "dry", graph: GRAPH })).json();
    const res = await t.app.inject({
      method: "POST",
      url: workflowsUrl(tenant, `/${wf.id}/dry-run`),
      headers: bearer(tenant.key),
      payload: { cve_id: "cve-2024-3400" },
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({
      workflow_id: wf.id,
      trigger_event: "cve.new_match",
      cve_id: "CVE-2024-3400",
      status: "dry_run",
      cve_connue: false,
    });
    expect(body.finished_at).toEqual(expect.any(String));
    expect(body.avertissement).toContain("CVE-2024-3400");
    expect(body.noeuds.map((n: { id: string; resultat: string }) => [n.id, n.resultat])).toEqual([
      ["t", "declenche"],
      ["c", "faux"],
      ["a1", "non_atteint"],
      ["a2", "serait_executee"],
    ]);
    const runs = await t.app.inject({ method: "GET", url: workflowsUrl(tenant, `/${wf.id}/runs`), headers: bearer(tenant.readKey) });
    expect(runs.json()).toEqual([
      {
        id: body.id,
        workflow_id: wf.id,
        trigger_event: "cve.new_match",
        cve_id: "CVE-2024-3400",
        status: "dry_run",
        started_at: body.started_at,
        finished_at: body.finished_at,
      },
    ]);
    const bad = await t.app.inject({
      method: "POST",
      url: workflowsUrl(tenant, `/${wf.id}/dry-run`),
      headers: bearer(tenant.key),
      payload: { cve_id: "pas-une-cve" },
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0]).toMatchObject({ type: "string_pattern_mismatch", loc: ["body", "cve_id"] });
  });

  it("lists runs newest first, honours limit (1 to 200, default 50)", async () => {
    const tenant = await createTenant(t);
    const url = workflowsUrl(tenant, `/${tenant.defaultWorkflowId}`);
    for (let i = 0; i < 3; i++) {
      await t.app.inject({
        method: "POST",
        url: `${url}/dry-run`,
        headers: bearer(tenant.key),
        payload: { cve_id: `CVE-2024-000${i + 1}` },
      });
    }
    const runs = await t.app.inject({ method: "GET", url: `${url}/runs?limit=2`, headers: bearer(tenant.key) });
    expect(runs.json().map((r: { cve_id: string }) => r.cve_id)).toEqual(["CVE-2024-0003", "CVE-2024-0002"]);
    const tooMany = await t.app.inject({ method: "GET", url: `${url}/runs?limit=201`, headers: bearer(tenant.key) });
    expect(tooMany.statusCode).toBe(422);
    expect(tooMany.json()).toEqual({
      detail: [
        {
          type: "less_than_equal",
          loc: ["query", "limit"],
          msg: "Input should be less than or equal to 200",
          input: "201",
          ctx: { le: 200 },
        },
      ],
    });
    const zero = await t.app.inject({ method: "GET", url: `${url}/runs?limit=0`, headers: bearer(tenant.key) });
    expect(zero.json().detail[0]).toMatchObject({ type: "greater_than_equal", ctx: { ge: 1 } });
    const nan = await t.app.inject({ method: "GET", url: `${url}/runs?limit=abc`, headers: bearer(tenant.key) });
    expect(nan.json().detail[0]).toEqual({
      type: "int_parsing",
      loc: ["query", "limit"],
      msg: "Input should be a valid integer, unable to parse string as an integer",
      input: "abc",
    });
    const otherWf = await t.app.inject({
      method: "GET",
      url: workflowsUrl(tenant, "/00000000-0000-4000-8000-000000000000/runs"),
      headers: bearer(tenant.key),
    });
    expect(otherWf.json()).toEqual({ detail: "Workflow introuvable" });
  });
});

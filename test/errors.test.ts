import { describe, expect, it } from "vitest";
import { bearer, createTenant, createTestApp, workflowsUrl } from "./helpers.js";

const t = await createTestApp();
const tenant = await createTenant(t);

describe("FastAPI-compatible errors", () => {
  it("unknown route → 404 Not Found; wrong method → 405 Method Not Allowed", async () => {
    const nf = await t.app.inject({ method: "GET", url: "/api/v1/nothing-here" });
    expect(nf.statusCode).toBe(404);
    expect(nf.json()).toEqual({ detail: "Not Found" });
    const na = await t.app.inject({ method: "PUT", url: workflowsUrl(tenant), headers: bearer(tenant.key) });
    expect(na.statusCode).toBe(405);
    expect(na.json()).toEqual({ detail: "Method Not Allowed" });
    expect(na.headers.allow).toContain("GET");
    const getOnMe = await t.app.inject({ method: "DELETE", url: "/api/v1/me" });
    expect(getOnMe.statusCode).toBe(405);
  });

  it("path UUIDs: uuid_parsing with the Pydantic message", async () => {
    const res = await t.app.inject({
      method: "GET",
      url: `/api/v1/organizations/not-a-uuid/projects/${tenant.projectId}/workflows`,
      headers: bearer(tenant.key),
    });
    expect(res.statusCode).toBe(422);
    const [err] = res.json().detail;
    expect(err).toMatchObject({ type: "uuid_parsing", loc: ["path", "org_id"], input: "not-a-uuid" });
    expect(err.msg).toMatch(/^Input should be a valid UUID, /);
    expect(err.ctx.error).toEqual(err.msg.replace("Input should be a valid UUID, ", ""));
  });

  it("a body that is not JSON: json_invalid at the offset, before anything else", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: workflowsUrl(tenant),
      headers: { ...bearer(tenant.key), "content-type": "application/json", "idempotency-key": "j" },
      payload: '{"name": "x",, }',
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      detail: [
        {
          type: "json_invalid",
          loc: ["body", 13],
          msg: "JSON decode error",
          input: {},
          ctx: { error: "Expecting property name enclosed in double quotes" },
        },
      ],
    });
  });

  it("a body that is not an object: model_attributes_type; an empty body: missing", async () => {
    const url = workflowsUrl(tenant, `/${tenant.defaultWorkflowId}/enabled`);
    const arr = await t.app.inject({
      method: "PATCH",
      url,
      headers: { ...bearer(tenant.key), "content-type": "application/json" },
      payload: "[1]",
    });
    expect(arr.json()).toEqual({
      detail: [
        {
          type: "model_attributes_type",
          loc: ["body"],
          msg: "Input should be a valid dictionary or object to extract fields from",
          input: [1],
        },
      ],
    });
    const empty = await t.app.inject({ method: "PATCH", url, headers: { ...bearer(tenant.key), "content-type": "application/json" } });
    expect(empty.json()).toEqual({ detail: [{ type: "missing", loc: ["body"], msg: "Field required", input: null }] });
  });

  it("reports every failing part in one response, in FastAPI's order (path, query, header, body)", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: `/api/v1/organizations/${tenant.orgId}/projects/xyz/workflows`,
      headers: { ...bearer(tenant.key), "content-type": "application/json" },
      payload: { name: "", description: 5, create_case: "maybe" },
    });
    expect(res.statusCode).toBe(422);
    const detail = res.json().detail as { type: string; loc: (string | number)[] }[];
    expect(detail.map((d) => [d.type, d.loc.join(".")])).toEqual([
      ["uuid_parsing", "path.project_id"],
      ["missing", "header.idempotency-key"],
      ["string_too_short", "body.name"],
      ["string_type", "body.description"],
      ["bool_parsing", "body.create_case"],
    ]);
    expect(detail[2]).toEqual({
      type: "string_too_short",
      loc: ["body", "name"],
      msg: "String should have at least 1 character",
      input: "",
      ctx: { min_length: 1 },
    });
  });

  it("long names: string_too_long with ctx", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: workflowsUrl(tenant),
      headers: { ...bearer(tenant.key), "idempotency-key": "long" },
      payload: { name: "x".repeat(101), trigger: { event: "cve.new_match" } },
    });
    expect(res.json().detail).toEqual([
      {
        type: "string_too_long",
        loc: ["body", "name"],
        msg: "String should have at most 100 characters",
        input: "x".repeat(101),
        ctx: { max_length: 100 },
      },
    ]);
  });

  it("never leaks a stack trace or SQL", async () => {
    const res = await t.app.inject({
      method: "PATCH",
      url: workflowsUrl(tenant, `/${tenant.defaultWorkflowId}`),
      headers: bearer(tenant.key),
      payload: { version: 2147483648 },
    });
    expect(res.body).not.toMatch(/at .*\.ts|select|insert|update /i);
  });
});

describe("OpenAPI", () => {
  it("serves an OpenAPI 3.1 document generated from the Zod schemas, and Swagger UI at /docs", async () => {
    const res = await t.app.inject({ method: "GET", url: "/openapi.json" });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe("3.1.0");
    const create = doc.paths["/api/v1/organizations/{org_id}/projects/{project_id}/workflows"].post;
    expect(create.parameters).toContainEqual(expect.objectContaining({ in: "header", name: "idempotency-key", required: true }));
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(["200", "201", "401", "403", "404", "409", "422", "429"]));
    expect(doc.components.schemas.WorkflowGraph.properties.nodes.items.oneOf).toHaveLength(3);
    expect(doc.components.schemas.WorkflowTriggerNode.properties.event.enum).toContain("cve.new_match");
    expect(doc.components.schemas.HTTPValidationError).toBeDefined();
    expect(doc.paths["/api/v1/organizations/{org_id}/projects/{project_id}/workflows/{workflow_id}"].get).toBeUndefined();
    // The vulnerability data API.
    for (const path of [
      "/api/v1/cves",
      "/api/v1/cves/{cve_id}",
      "/api/v1/vulnerabilities",
      "/api/v1/vulnerabilities/{id}",
      "/api/v1/articles",
    ]) {
      expect(doc.paths[path]?.get, path).toBeDefined();
    }
    expect(doc.components.schemas.CveListOut.properties.items.items.$ref).toContain("CveListItem");
    expect(doc.components.schemas.CveDetailOut.required).toEqual(expect.arrayContaining(["epss_publie", "affected", "poc_count"]));
    expect(doc.paths["/api/v1/cves"].get.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(["q", "vendor", "severity", "min_epss", "page_size"]),
    );
    // Stacks, alerts, tags and statistics.
    const P = "/api/v1/organizations/{org_id}/projects/{project_id}";
    for (const [path, methods] of [
      [`${P}/stacks`, ["get", "post"]],
      [`${P}/stacks/{stack_id}`, ["get", "patch", "delete"]],
      [`${P}/stacks/{stack_id}/items`, ["post"]],
      [`${P}/stacks/{stack_id}/items/{item_id}`, ["patch", "delete"]],
      [`${P}/alerts`, ["get"]],
      [`${P}/alerts/{alert_id}`, ["patch"]],
      [`${P}/alerts/read`, ["post"]],
      [`${P}/tags`, ["get", "post"]],
      [`${P}/tags/{tag_id}`, ["patch", "delete"]],
      [`${P}/stats`, ["get"]],
    ] as const) {
      for (const m of methods) expect(doc.paths[path]?.[m], `${m} ${path}`).toBeDefined();
    }
    expect(doc.components.schemas.AlertListOut.required).toEqual(expect.arrayContaining(["items", "total", "unread_count"]));
    expect(doc.components.schemas.StackOut.properties.items.items.$ref).toContain("StackItemOut");
    expect(doc.components.schemas.ProjectStatsOut.required).toEqual(
      expect.arrayContaining(["total_alerts", "alerts_by_severity", "eol_subscriptions"]),
    );
    expect(doc.components.schemas.StackItemIn.properties.item_type.enum).toEqual(["cpe", "product", "vendor", "purl", "keyword", "cve"]);
    const ui = await t.app.inject({ method: "GET", url: "/docs/" });
    expect(ui.statusCode).toBe(200);
    expect(ui.body).toContain("swagger");
  });
});

import { randomUUID } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { bearer, createTenant, createTestApp } from "./helpers.js";

const t = await createTestApp();

// Routes declaring `project: true`, one per module, with a spy on the service method their handler calls.
const ROUTES = [
  { path: "/workflows", spy: () => vi.spyOn(t.services.workflows, "list") },
  { path: "/stacks", spy: () => vi.spyOn(t.services.stacks, "list") },
  { path: "/tags", spy: () => vi.spyOn(t.services.tags, "list") },
  { path: "/alerts", spy: () => vi.spyOn(t.services.alerts, "list") },
  { path: "/stats", spy: () => vi.spyOn(t.services.alerts, "stats") },
  { path: "/alert-settings", spy: () => vi.spyOn(t.services.alerts, "settings") },
  { path: "/cases", spy: () => vi.spyOn(t.services.cases, "list") },
  { path: "/cases/stats", spy: () => vi.spyOn(t.services.cases, "stats") },
  { path: "/cases/export", spy: () => vi.spyOn(t.services.cases, "export") },
  { path: "/case-settings", spy: () => vi.spyOn(t.services.caseExpiry, "settings") },
  { path: "/reports", spy: () => vi.spyOn(t.services.reports, "list") },
  { path: "/report-settings", spy: () => vi.spyOn(t.services.reports, "settings") },
];

describe("the route resolves the project before the handler", () => {
  it("answers 404 « Projet introuvable » for another organization's project, one outside the key's restriction, or an absent one, without calling the service", async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    const second = await t.services.projects.create({ orgId: tenant.orgId, name: "Staging" });
    const restricted = await t.services.apiKeys.create({ orgId: tenant.orgId, scopes: [], projectIds: [tenant.projectId] });
    const cases = [
      { why: "another organization's project under this organization", org: tenant.orgId, project: other.projectId, key: tenant.readKey },
      { why: "this organization's project under another organization", org: other.orgId, project: tenant.projectId, key: tenant.readKey },
      { why: "outside the key's restriction", org: tenant.orgId, project: second.id, key: restricted.key },
      { why: "absent", org: tenant.orgId, project: randomUUID(), key: tenant.readKey },
    ];
    for (const { path, spy: spyOn } of ROUTES) {
      const spy = spyOn();
      for (const c of cases) {
        const res = await t.app.inject({
          method: "GET",
          url: `/api/v1/organizations/${c.org}/projects/${c.project}${path}`,
          headers: bearer(c.key),
        });
        expect([res.statusCode, res.json()], `${path}: ${c.why}`).toEqual([404, { detail: "Projet introuvable" }]);
      }
      expect(spy, path).not.toHaveBeenCalled();
      const ok = await t.app.inject({
        method: "GET",
        url: `/api/v1/organizations/${tenant.orgId}/projects/${tenant.projectId}${path}`,
        headers: bearer(restricted.key),
      });
      expect(ok.statusCode, path).toBe(200);
      expect(spy.mock.calls[0]![0], path).toEqual({ id: tenant.projectId, orgId: tenant.orgId });
      spy.mockRestore();
    }
  });

  it("answers 404 to a signed-in user who is not a member of the project's organization, without calling the service", async () => {
    const tenant = await createTenant(t);
    const outsider = await createTenant(t);
    await t.services.users.create({ email: "carol@example.org", password: "carol password", orgId: tenant.orgId, role: "member" });
    const { token } = (
      await t.app.inject({ method: "POST", url: "/auth/login", payload: { email: "carol@example.org", password: "carol password" } })
    ).json();
    const spy = vi.spyOn(t.services.workflows, "get");
    for (const url of [
      `/projects/${outsider.projectId}/workflows/${outsider.defaultWorkflowId}`,
      `/projects/${randomUUID()}/workflows/${outsider.defaultWorkflowId}`,
    ]) {
      const res = await t.app.inject({ method: "GET", url, headers: bearer(token) });
      expect([res.statusCode, res.json()]).toEqual([404, { detail: "Projet introuvable" }]);
    }
    expect(spy).not.toHaveBeenCalled();
    const own = await t.app.inject({
      method: "GET",
      url: `/projects/${tenant.projectId}/workflows/${tenant.defaultWorkflowId}`,
      headers: bearer(token),
    });
    expect(own.statusCode).toBe(200);
    expect(spy).toHaveBeenCalledOnce();
    spy.mockRestore();
  });

  it("checks in the order 401, 403, 422, then 404", async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    const foreign = `/api/v1/organizations/${tenant.orgId}/projects/${other.projectId}/tags`;
    const post = (headers: Record<string, string>, payload: unknown) =>
      t.app.inject({ method: "POST", url: foreign, headers, payload: payload as object });
    expect((await post({}, { name: "x" })).statusCode).toBe(401);
    expect((await post(bearer(tenant.readKey), { name: "x" })).statusCode).toBe(403);
    const tagKey = await t.services.apiKeys.create({ orgId: tenant.orgId, scopes: ["tags-write"], projectIds: [] });
    expect((await post(bearer(tagKey.key), {})).statusCode).toBe(422);
    expect((await post(bearer(tagKey.key), { name: "x" })).statusCode).toBe(404);
  });
});

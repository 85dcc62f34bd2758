import { describe, expect, it } from "vitest";
import { bearer, createTenant, createTestApp, createWorkflow } from "./helpers.js";

const t = await createTestApp();

async function login(email: string, password: string, ip = "10.0.0.1") {
  return t.app.inject({ method: "POST", url: "/auth/login", payload: { email, password }, remoteAddress: ip });
}

describe("session API", () => {
  it("logs in with a token and an HttpOnly SameSite cookie; wrong credentials → 401", async () => {
    const tenant = await createTenant(t);
    await t.services.users.create({ email: "Alice@Example.org", password: "correct horse", orgId: tenant.orgId, role: "viewer" });
    const res = await login("alice@example.org", "correct horse");
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.token).toMatch(/^vs_/);
    expect(new Date(body.expires_at).getTime()).toBeGreaterThan(Date.now());
    const cookie = String(res.headers["set-cookie"]);
    expect(cookie).toContain("vigie_session=");
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect((await login("alice@example.org", "wrong password")).statusCode).toBe(401);
    expect((await login("nobody@example.org", "whatever")).statusCode).toBe(401);
    const { rows } = (await t.database.executeSql("select password_hash from users where email = 'alice@example.org'")) as {
      rows: { password_hash: string }[];
    };
    expect(rows[0]!.password_hash).toMatch(/^scrypt\$/);
    expect(rows[0]!.password_hash).not.toContain("correct horse");
  });

  it("reads a project workflow by cookie or account token; an API key → 401; non-member → 404", async () => {
    const tenant = await createTenant(t);
    const outsider = await createTenant(t);
    await t.services.users.create({ email: "bob@example.org", password: "bob password", orgId: tenant.orgId, role: "member" });
    const { token } = (await login("bob@example.org", "bob password", "10.0.0.2")).json();
    const url = `/projects/${tenant.projectId}/workflows/${tenant.defaultWorkflowId}`;
    const byToken = await t.app.inject({ method: "GET", url, headers: bearer(token) });
    expect(byToken.statusCode).toBe(200);
    expect(byToken.json()).toMatchObject({
      id: tenant.defaultWorkflowId,
      is_default: true,
      version: 1,
      graph: { nodes: expect.any(Array), edges: expect.any(Array) },
    });
    const byCookie = await t.app.inject({ method: "GET", url, cookies: { vigie_session: token } });
    expect(byCookie.statusCode).toBe(200);
    const byKey = await t.app.inject({ method: "GET", url, headers: bearer(tenant.key) });
    expect(byKey.statusCode).toBe(401);
    const none = await t.app.inject({ method: "GET", url });
    expect(none.statusCode).toBe(401);
    const foreign = await t.app.inject({
      method: "GET",
      url: `/projects/${outsider.projectId}/workflows/${outsider.defaultWorkflowId}`,
      headers: bearer(token),
    });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ detail: "Projet introuvable" });
    // The /api/v1 surface has no single-workflow GET.
    const v1 = await t.app.inject({
      method: "GET",
      url: `/api/v1/organizations/${tenant.orgId}/projects/${tenant.projectId}/workflows/${tenant.defaultWorkflowId}`,
      headers: bearer(tenant.key),
    });
    expect(v1.statusCode).toBe(405);
  });

  it("reads an organization workflow, for members of that organization only", async () => {
    const tenant = await createTenant(t);
    const outsider = await createTenant(t);
    const wf = await t.services.workflows.createAsOperator({
      orgId: tenant.orgId,
      projectId: null,
      name: "Org-wide KEV",
      trigger: { event: "cve.kev_added", match: "all" },
      actions: [],
      create_case: true,
    });
    await t.services.users.create({ email: "carol@example.org", password: "carol password", orgId: tenant.orgId, role: "admin" });
    await t.services.users.create({ email: "dave@example.org", password: "dave password", orgId: outsider.orgId, role: "owner" });
    const carol = (await login("carol@example.org", "carol password", "10.0.0.3")).json().token;
    const dave = (await login("dave@example.org", "dave password", "10.0.0.4")).json().token;
    const ok = await t.app.inject({ method: "GET", url: `/organizations/${tenant.orgId}/workflows/${wf.id}`, headers: bearer(carol) });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ name: "Org-wide KEV", is_default: false });
    const no = await t.app.inject({ method: "GET", url: `/organizations/${tenant.orgId}/workflows/${wf.id}`, headers: bearer(dave) });
    expect(no.statusCode).toBe(404);
    // A project workflow is not an organization workflow.
    const proj = await t.app.inject({
      method: "GET",
      url: `/organizations/${tenant.orgId}/workflows/${tenant.defaultWorkflowId}`,
      headers: bearer(carol),
    });
    expect(proj.statusCode).toBe(404);
    expect((await createWorkflow(t, tenant, { name: "Org-wide KEV", trigger: { event: "cve.new_match" } })).statusCode).toBe(201);
  });

  it("logout revokes the session", async () => {
    const tenant = await createTenant(t);
    await t.services.users.create({ email: "erin@example.org", password: "erin password", orgId: tenant.orgId });
    const { token } = (await login("erin@example.org", "erin password", "10.0.0.5")).json();
    const url = `/projects/${tenant.projectId}/workflows/${tenant.defaultWorkflowId}`;
    expect((await t.app.inject({ method: "GET", url, headers: bearer(token) })).statusCode).toBe(200);
    const out = await t.app.inject({ method: "POST", url: "/auth/logout", headers: bearer(token) });
    expect(out.statusCode).toBe(204);
    expect((await t.app.inject({ method: "GET", url, headers: bearer(token) })).statusCode).toBe(401);
  });

  it("slows down repeated failures per account (429 + Retry-After), even with the right password", async () => {
    await t.services.users.create({ email: "frank@example.org", password: "frank password" });
    for (let i = 0; i < 5; i++) expect((await login("frank@example.org", "nope", `10.1.0.${i}`)).statusCode).toBe(401);
    const blocked = await login("frank@example.org", "frank password", "10.1.0.99");
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers["retry-after"])).toBeGreaterThanOrEqual(1);
  });

  it("slows down repeated failures per address across accounts", async () => {
    for (let i = 0; i < 20; i++) expect((await login(`user${i}@example.org`, "nope", "10.2.0.1")).statusCode).toBe(401);
    expect((await login("other@example.org", "nope", "10.2.0.1")).statusCode).toBe(429);
    expect((await login("other@example.org", "nope", "10.2.0.2")).statusCode).toBe(401);
  });
});

import { describe, expect, it } from "vitest";
import type { Role } from "../src/platform/db/schema/index.js";
import { bearer, createTenant, createTestApp, type Tenant } from "./helpers.js";

const t = await createTestApp();
let ips = 0;

/** A user of the tenant with this role, signed in: their account token. */
async function signedIn(tenant: Tenant, role: Role): Promise<string> {
  const email = `${role}-${Math.random().toString(36).slice(2)}@example.org`;
  await t.services.users.create({ email, password: "long password", orgId: tenant.orgId, role });
  const res = await t.app.inject({
    method: "POST",
    url: "/auth/login",
    payload: { email, password: "long password" },
    remoteAddress: `10.9.${++ips}.1`,
  });
  expect(res.statusCode).toBe(200);
  return res.json().token as string;
}

const project = (tenant: Tenant, path: string) => `/api/v1/organizations/${tenant.orgId}/projects/${tenant.projectId}${path}`;

async function count(table: string): Promise<number> {
  const { rows } = (await t.database.executeSql(`select count(*)::int as n from ${table}`)) as { rows: { n: number }[] };
  return rows[0]!.n;
}

describe("/api/v1 on the session API (auth both)", () => {
  it("answers a signed-in user with the same handler as an API key, by role: viewer reads, member triages, admin manages", async () => {
    const tenant = await createTenant(t);
    const tokens = {
      viewer: await signedIn(tenant, "viewer"),
      member: await signedIn(tenant, "member"),
      admin: await signedIn(tenant, "admin"),
    };
    const byKey = await t.app.inject({ method: "GET", url: project(tenant, "/workflows"), headers: bearer(tenant.readKey) });
    for (const token of Object.values(tokens)) {
      const res = await t.app.inject({ method: "GET", url: project(tenant, "/workflows"), headers: bearer(token) });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(byKey.json());
    }
    const tag = (token: string, name: string) =>
      t.app.inject({ method: "POST", url: project(tenant, "/tags"), headers: bearer(token), payload: { name } });
    const stack = (token: string, name: string) =>
      t.app.inject({ method: "POST", url: project(tenant, "/stacks"), headers: bearer(token), payload: { name } });

    const refused = await tag(tokens.viewer, "by viewer");
    expect(refused.statusCode).toBe(403);
    expect(refused.json().detail).toContain("« member »");
    expect((await tag(tokens.member, "by member")).statusCode).toBe(201);
    expect((await stack(tokens.member, "by member")).statusCode).toBe(403);
    expect((await stack(tokens.admin, "by admin")).statusCode).toBe(201);
    const names = (await t.app.inject({ method: "GET", url: project(tenant, "/tags"), headers: bearer(tokens.viewer) }))
      .json()
      .map((x: { name: string }) => x.name);
    expect(names).toContain("by member");
    expect(names).not.toContain("by viewer");
  });

  it("another organization's project is a 404 whatever the role; corpus reads need only a session", async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    const owner = await signedIn(tenant, "owner");
    const foreign = await t.app.inject({ method: "GET", url: project(other, "/alerts"), headers: bearer(owner) });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ detail: "Projet introuvable" });
    // The org_id of the path must be the project's.
    const mixed = `/api/v1/organizations/${other.orgId}/projects/${tenant.projectId}/alerts`;
    expect((await t.app.inject({ method: "GET", url: mixed, headers: bearer(owner) })).statusCode).toBe(404);
    expect((await t.app.inject({ method: "GET", url: "/api/v1/cves?limit=1", headers: bearer(owner) })).statusCode).toBe(200);
    const stats = await t.app.inject({
      method: "GET",
      url: `/api/v1/stats/totals?project_id=${other.projectId}`,
      headers: bearer(owner),
    });
    expect(stats.statusCode).toBe(404);
  });

  it("lists the user's organizations with their role, and the projects of the session", async () => {
    const tenant = await createTenant(t, { name: "Acme SOC" });
    const token = await signedIn(tenant, "admin");
    const orgs = await t.app.inject({ method: "GET", url: "/api/v1/organizations", headers: bearer(token) });
    expect(orgs.json()).toEqual([expect.objectContaining({ id: tenant.orgId, name: "Acme SOC", role: "admin" })]);
    const byKey = await t.app.inject({ method: "GET", url: "/api/v1/organizations", headers: bearer(tenant.readKey) });
    expect(byKey.json()).toEqual([expect.objectContaining({ id: tenant.orgId, role: "api_key" })]);
    const session = await t.app.inject({ method: "GET", url: "/auth/session", headers: bearer(token) });
    expect(session.statusCode).toBe(200);
    expect(session.json()).toMatchObject({
      user: { email: expect.stringMatching(/^admin-/) },
      organizations: [{ id: tenant.orgId, name: "Acme SOC", role: "admin", projects: [{ id: tenant.projectId, name: "Production" }] }],
    });
    expect(new Date(session.json().expires_at).getTime()).toBeGreaterThan(Date.now());
    // /api/v1/me describes an API key: a session has /auth/session.
    expect((await t.app.inject({ method: "GET", url: "/api/v1/me", headers: bearer(token) })).statusCode).toBe(401);
  });

  it("session calls neither count against the organization's hourly limit nor carry its headers", async () => {
    const tenant = await createTenant(t);
    const token = await signedIn(tenant, "viewer");
    // The limit is the organization's api_usage count (reserved in blocks by each process, ADR 0033).
    const used = async () => {
      const { rows } = (await t.database.executeSql("select coalesce(sum(count), 0)::int as n from api_usage where org_id = $1", [
        tenant.orgId,
      ])) as { rows: { n: number }[] };
      return rows[0]!.n;
    };
    const before = await used();
    for (let i = 0; i < 5; i++) {
      const res = await t.app.inject({ method: "GET", url: project(tenant, "/alerts"), headers: bearer(token) });
      expect(res.statusCode).toBe(200);
      expect(res.headers["x-ratelimit-remaining"]).toBeUndefined();
    }
    expect(await used()).toBe(before);
    const byKey = await t.app.inject({ method: "GET", url: "/api/v1/me", headers: bearer(tenant.readKey) });
    expect(byKey.headers["x-ratelimit-remaining"]).toBeDefined();
    expect(await used()).toBeGreaterThan(before);
  });

  it("an unknown or garbage bearer on /api/v1 is answered as before: the API key's 401", async () => {
    for (const token of ["vk_nothing_here", "garbage", "vs_expired_or_unknown"]) {
      const res = await t.app.inject({ method: "GET", url: "/api/v1/cves", headers: bearer(token) });
      expect(res.statusCode).toBe(401);
      expect(res.json().detail).toMatch(token.startsWith("vs_") ? /Session invalide/ : /Clé d'API invalide/);
    }
  });
});

describe("cookie sessions: CSRF and sign-out", () => {
  it("refuses a cookie-authenticated write sent by another site's page, and changes nothing", async () => {
    const tenant = await createTenant(t);
    const token = await signedIn(tenant, "member");
    const post = (headers: Record<string, string>, name: string) =>
      t.app.inject({
        method: "POST",
        url: project(tenant, "/tags"),
        cookies: { vigie_session: token },
        headers: { host: "vigie.example", ...headers },
        payload: { name },
      });
    const tags = await count("tags");
    for (const headers of <Record<string, string>[]>[
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
      { origin: "https://evil.example" },
      { origin: "null" },
    ]) {
      const res = await post(headers, "forged");
      expect(res.statusCode).toBe(403);
      expect(res.json().detail).toMatch(/CSRF/);
    }
    expect(await count("tags")).toBe(tags);
    expect((await post({ "sec-fetch-site": "same-origin" }, "from vigie")).statusCode).toBe(201);
    expect((await post({ origin: "https://vigie.example" }, "from vigie by origin")).statusCode).toBe(201);
    // The account token travels in Authorization, which no other site can make a browser send.
    const byToken = await t.app.inject({
      method: "POST",
      url: project(tenant, "/tags"),
      headers: { ...bearer(token), "sec-fetch-site": "cross-site" },
      payload: { name: "by token" },
    });
    expect(byToken.statusCode).toBe(201);
    // Reads are not guarded.
    const read = await t.app.inject({
      method: "GET",
      url: project(tenant, "/tags"),
      cookies: { vigie_session: token },
      headers: { "sec-fetch-site": "cross-site" },
    });
    expect(read.statusCode).toBe(200);
  });

  it("refuses a sign-in from another site's page (login CSRF)", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/auth/login",
      headers: { "sec-fetch-site": "cross-site" },
      payload: { email: "x@example.org", password: "whatever" },
    });
    expect(res.statusCode).toBe(403);
  });

  it("signs out everywhere: every session of the user ends", async () => {
    const tenant = await createTenant(t);
    const email = "mallory-laptop@example.org";
    await t.services.users.create({ email, password: "long password", orgId: tenant.orgId, role: "viewer" });
    const tokens: string[] = [];
    for (const ip of ["10.8.0.1", "10.8.0.2"]) {
      const res = await t.app.inject({
        method: "POST",
        url: "/auth/login",
        payload: { email, password: "long password" },
        remoteAddress: ip,
      });
      tokens.push(res.json().token);
    }
    const out = await t.app.inject({ method: "POST", url: "/auth/logout-everywhere", headers: bearer(tokens[0]!) });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers["set-cookie"])).toMatch(/vigie_session=;/);
    for (const token of tokens) {
      expect((await t.app.inject({ method: "GET", url: "/auth/session", headers: bearer(token) })).statusCode).toBe(401);
    }
  });
});

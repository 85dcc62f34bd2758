import { describe, expect, it } from "vitest";
import { bearer, createTenant, createTestApp, workflowsUrl } from "./helpers.js";

const t = await createTestApp();

describe("API key authentication", () => {
  it("answers 401 Not authenticated with WWW-Authenticate when the header is missing or malformed", async () => {
    for (const authorization of [undefined, "Basic abc", "Bearer", "Bearer  ", "token vk_x"]) {
      const res = await t.app.inject({ method: "GET", url: "/api/v1/me", headers: authorization ? { authorization } : {} });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ detail: "Not authenticated" });
      expect(res.headers["www-authenticate"]).toBe("Bearer");
    }
  });

  it("answers 401 to an unknown key and to a revoked key", async () => {
    const tenant = await createTenant(t);
    const unknown = await t.app.inject({ method: "GET", url: "/api/v1/me", headers: bearer("vk_AAAAAAAA_doesnotexist") });
    expect(unknown.statusCode).toBe(401);
    const keys = await t.services.apiKeys.list(tenant.orgId);
    const ok = await t.app.inject({ method: "GET", url: "/api/v1/me", headers: bearer(tenant.readKey) });
    expect(ok.statusCode).toBe(200);
    const readRow = keys.find((k) => tenant.readKey.startsWith(k.prefix))!;
    await t.services.apiKeys.revoke(readRow.id, null);
    const revoked = await t.app.inject({ method: "GET", url: "/api/v1/me", headers: bearer(tenant.readKey) });
    expect(revoked.statusCode).toBe(401);
    expect(revoked.headers["www-authenticate"]).toBe("Bearer");
  });

  it("stores only a hash of the key, and records last_used_at", async () => {
    const tenant = await createTenant(t);
    await t.services.authenticator.limiter.flush(); // key usage is written with the batched counts
    const { rows } = (await t.database.executeSql("select key_hash, prefix, last_used_at from api_keys where org_id = $1", [
      tenant.orgId,
    ])) as {
      rows: { key_hash: string; prefix: string; last_used_at: Date | null }[];
    };
    for (const r of rows) {
      expect(r.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(r.key_hash).not.toContain(r.prefix);
      expect([tenant.key, tenant.readKey]).not.toContain(r.key_hash);
    }
    expect(rows.some((r) => r.last_used_at !== null)).toBe(true); // createTenant used the read key
  });
});

describe("context endpoints", () => {
  it("GET /me gives the organization and its plan, null when it has none", async () => {
    const withPlan = await createTenant(t, { plan: "pro", name: "Acme" });
    const res = await t.app.inject({ method: "GET", url: "/api/v1/me", headers: bearer(withPlan.readKey) });
    expect(res.json()).toEqual({
      org_id: withPlan.orgId,
      org_name: "Acme",
      plan: { name: "Pro", slug: "pro", max_api_calls_per_hour: 10000 },
    });
    const noPlan = await createTenant(t);
    const res2 = await t.app.inject({ method: "GET", url: "/api/v1/me", headers: bearer(noPlan.readKey) });
    expect(res2.json().plan).toBeNull();
  });

  it("GET /organizations lists only the key's organization", async () => {
    const a = await createTenant(t, { name: "Org A" });
    await createTenant(t, { name: "Org B" });
    const res = await t.app.inject({ method: "GET", url: "/api/v1/organizations", headers: bearer(a.readKey) });
    const body = res.json();
    expect(body).toHaveLength(1);
    expect(body[0]).toMatchObject({ id: a.orgId, name: "Org A", is_personal: false });
    expect(Object.keys(body[0]).sort()).toEqual(["created_at", "id", "is_personal", "name", "role"]);
  });

  it("GET /organizations/{org}/projects lists the projects within the key's restriction", async () => {
    const tenant = await createTenant(t);
    const second = await t.services.projects.create({ orgId: tenant.orgId, name: "Staging", description: "pré-production" });
    const all = await t.app.inject({
      method: "GET",
      url: `/api/v1/organizations/${tenant.orgId}/projects`,
      headers: bearer(tenant.readKey),
    });
    expect(all.json().map((p: { name: string }) => p.name)).toEqual(["Production", "Staging"]);
    expect(all.json()[0]).toEqual({
      id: tenant.projectId,
      name: "Production",
      description: null,
      org_id: tenant.orgId,
      is_default: true,
      created_at: expect.any(String),
    });
    expect(all.json()[1].is_default).toBe(false);
    const restricted = await t.services.apiKeys.create({ orgId: tenant.orgId, scopes: [], projectIds: [second.id] });
    const some = await t.app.inject({
      method: "GET",
      url: `/api/v1/organizations/${tenant.orgId}/projects`,
      headers: bearer(restricted.key),
    });
    expect(some.json().map((p: { id: string }) => p.id)).toEqual([second.id]);
    const other = await createTenant(t);
    const foreign = await t.app.inject({
      method: "GET",
      url: `/api/v1/organizations/${other.orgId}/projects`,
      headers: bearer(tenant.readKey),
    });
    expect(foreign.statusCode).toBe(404);
  });
});

describe("tenancy and scopes", () => {
  it("hides projects of other organizations, outside the restriction, or absent: 404 Projet introuvable", async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    const extra = await t.services.projects.create({ orgId: a.orgId, name: "Other" });
    const restricted = await t.services.apiKeys.create({ orgId: a.orgId, scopes: ["workflows-write"], projectIds: [extra.id] });
    const cases = [
      { url: workflowsUrl(b), key: a.key }, // other organization's project in its own org path
      { url: `/api/v1/organizations/${a.orgId}/projects/${b.projectId}/workflows`, key: a.key }, // other org's project under my org
      { url: `/api/v1/organizations/${b.orgId}/projects/${a.projectId}/workflows`, key: a.key }, // my project under another org id
      { url: workflowsUrl(a), key: restricted.key }, // outside the restriction
      { url: `/api/v1/organizations/${a.orgId}/projects/00000000-0000-4000-8000-000000000000/workflows`, key: a.key },
    ];
    for (const c of cases) {
      const res = await t.app.inject({ method: "GET", url: c.url, headers: bearer(c.key) });
      expect(res.statusCode, c.url).toBe(404);
      expect(res.json()).toEqual({ detail: "Projet introuvable" });
      expect(res.headers["x-ratelimit-limit"]).toBeDefined(); // error answers carry the rate-limit headers too
      const post = await t.app.inject({
        method: "POST",
        url: c.url,
        headers: { ...bearer(c.key), "idempotency-key": "x" },
        payload: { name: "w", trigger: { event: "cve.new_match" } },
      });
      expect(post.statusCode).toBe(404);
    }
    const inside = await t.app.inject({
      method: "GET",
      url: `/api/v1/organizations/${a.orgId}/projects/${extra.id}/workflows`,
      headers: bearer(restricted.key),
    });
    expect(inside.statusCode).toBe(200);
  });

  it("refuses workflow writes without workflows-write (403 naming the scope), reads need no scope", async () => {
    const tenant = await createTenant(t);
    const wf = `${workflowsUrl(tenant)}/${tenant.defaultWorkflowId}`;
    const writes = [
      {
        method: "POST" as const,
        url: workflowsUrl(tenant),
        payload: { name: "x", trigger: { event: "cve.new_match" } },
        headers: { "idempotency-key": "k" },
      },
      { method: "PATCH" as const, url: wf, payload: { version: 1, name: "y" } },
      { method: "PATCH" as const, url: `${wf}/enabled`, payload: { enabled: false } },
      { method: "DELETE" as const, url: wf },
      { method: "POST" as const, url: `${wf}/dry-run`, payload: { cve_id: "CVE-2024-3400" } },
    ];
    for (const w of writes) {
      const res = await t.app.inject({
        method: w.method,
        url: w.url,
        payload: w.payload,
        headers: { ...bearer(tenant.readKey), ...w.headers },
      });
      expect(res.statusCode, `${w.method} ${w.url}`).toBe(403);
      expect(res.json().detail).toContain("workflows-write");
    }
    const runs = await t.app.inject({ method: "GET", url: `${wf}/runs`, headers: bearer(tenant.readKey) });
    expect(runs.statusCode).toBe(200);
    // Nothing changed.
    const list = await t.app.inject({ method: "GET", url: workflowsUrl(tenant), headers: bearer(tenant.readKey) });
    expect(list.json()).toHaveLength(1);
    expect(list.json()[0].is_enabled).toBe(true);
  });
});

describe("hourly rate limit per organization", () => {
  it("counts calls in the database, answers 429 with Retry-After past the plan's limit, and never limits another organization", async () => {
    await t.services.organizations.upsertPlan({ slug: "tiny", name: "Tiny", maxApiCallsPerHour: 3 });
    const small = await createTenant(t, { plan: "tiny" }); // createTenant spends 1 call
    const other = await createTenant(t, { plan: "tiny" });
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({ method: "GET", url: "/api/v1/me", headers: bearer(small.readKey) });
      seen.push(res.statusCode);
      expect(res.headers["x-ratelimit-limit"]).toBe("3");
      expect(Number(res.headers["x-ratelimit-reset"])).toBeGreaterThan(Date.now() / 1000);
      if (res.statusCode === 200) expect(res.headers["x-ratelimit-remaining"]).toBe(String(3 - (i + 2)));
    }
    expect(seen).toEqual([200, 200, 429]);
    const limited = await t.app.inject({ method: "GET", url: "/api/v1/me", headers: bearer(small.key) });
    expect(limited.statusCode).toBe(429);
    expect(limited.json().detail).toEqual(expect.any(String));
    const retry = Number(limited.headers["retry-after"]);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(3600);
    expect(limited.headers["x-ratelimit-remaining"]).toBe("0");
    const fine = await t.app.inject({ method: "GET", url: "/api/v1/me", headers: bearer(other.readKey) });
    expect(fine.statusCode).toBe(200);
    expect(fine.headers["x-ratelimit-remaining"]).toBe("1");
  });

  it("uses the default limit for an organization without a plan", async () => {
    const tenant = await createTenant(t);
    const res = await t.app.inject({ method: "GET", url: "/api/v1/me", headers: bearer(tenant.readKey) });
    expect(res.headers["x-ratelimit-limit"]).toBe(String(t.config.defaultMaxApiCallsPerHour));
  });
});

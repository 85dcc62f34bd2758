/**
 * Access management on the session API: API keys, members and roles, the organization's name and
 * its projects — the role matrix, tenancy (another organization's: 404), keys shown once and
 * revoked, the owner rules, and API keys refused (401).
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Role } from "../src/platform/db/schema/index.js";
import { bearer, createTenant, createTestApp, type Tenant } from "./helpers.js";

const t = await createTestApp();

let ip = 0;
/** A new account with `role` in the organization (when given), signed in: its account token. */
async function account(orgId: string | null, role?: Role): Promise<{ id: string; email: string; token: string }> {
  const email = `${role ?? "user"}-${randomBytes(4).toString("hex")}@example.org`;
  const { user } = await t.services.users.create({ email, password: "password 1234", ...(orgId && { orgId, role }) });
  const res = await t.app.inject({
    method: "POST",
    url: "/auth/login",
    payload: { email, password: "password 1234" },
    remoteAddress: `10.9.${ip >> 8}.${ip++ & 255}`,
  });
  expect(res.statusCode).toBe(200);
  return { id: user.id, email, token: res.json().token };
}

type Method = "GET" | "POST" | "PATCH" | "DELETE";
function call(token: string, method: Method, url: string, payload?: object) {
  return t.app.inject({ method, url: `/api/v1${url}`, headers: bearer(token), ...(payload && { payload }) });
}

/** An organization with one account of each role. */
async function organization(): Promise<Tenant & Record<Role, { id: string; email: string; token: string }>> {
  const tenant = await createTenant(t);
  const [owner, admin, member, viewer] = await Promise.all(
    (["owner", "admin", "member", "viewer"] as const).map((r) => account(tenant.orgId, r)),
  );
  return { ...tenant, owner: owner!, admin: admin!, member: member!, viewer: viewer! };
}

const ROLES = ["viewer", "member", "admin", "owner"] as const;

describe("access management on the session API", () => {
  it("the role matrix: each route answers its least role and above, 403 below", async () => {
    const o = await organization();
    const org = `/organizations/${o.orgId}`;
    /** Each route: the least role, and a request made fresh for each caller (its own target). */
    const routes: { name: string; least: Role; ok: number; request: () => Promise<[Method, string, object?]> }[] = [
      { name: "list keys", least: "admin", ok: 200, request: async () => ["GET", `${org}/api-keys`] },
      { name: "create key", least: "admin", ok: 201, request: async () => ["POST", `${org}/api-keys`, { name: "ci", scopes: [] }] },
      {
        name: "revoke key",
        least: "admin",
        ok: 204,
        request: async () => {
          const { row } = await t.services.apiKeys.create({ orgId: o.orgId, scopes: [], projectIds: [] });
          return ["DELETE", `${org}/api-keys/${row.id}`];
        },
      },
      { name: "list members", least: "viewer", ok: 200, request: async () => ["GET", `${org}/members`] },
      {
        name: "add member",
        least: "admin",
        ok: 201,
        request: async () => {
          const { email } = await account(null);
          return ["POST", `${org}/members`, { email, role: "viewer" }];
        },
      },
      {
        name: "change role",
        least: "admin",
        ok: 200,
        request: async () => ["PATCH", `${org}/members/${(await account(o.orgId, "viewer")).id}`, { role: "member" }],
      },
      {
        name: "remove member",
        least: "admin",
        ok: 204,
        request: async () => ["DELETE", `${org}/members/${(await account(o.orgId, "viewer")).id}`],
      },
      { name: "rename organization", least: "owner", ok: 200, request: async () => ["PATCH", org, { name: "Acme" }] },
      {
        name: "create project",
        least: "admin",
        ok: 201,
        request: async () => ["POST", `${org}/projects`, { name: `P ${randomBytes(3).toString("hex")}` }],
      },
    ];
    const seen: string[] = [];
    for (const r of routes) {
      for (const role of ROLES) {
        const [method, url, payload] = await r.request();
        const res = await call(o[role].token, method, url, payload);
        const expected = ROLES.indexOf(role) >= ROLES.indexOf(r.least) ? r.ok : 403;
        seen.push(`${r.name} as ${role}: ${res.statusCode}`);
        expect(res.statusCode, `${r.name} as ${role}: ${res.body}`).toBe(expected);
        if (expected === 403) expect(res.json().detail).toContain(`« ${r.least} »`);
      }
    }
    expect(seen).toHaveLength(routes.length * ROLES.length);
  });

  it("another organization's routes, key or member: 404; an API key on these routes: 401", async () => {
    const a = await organization();
    const b = await organization();
    const org = `/organizations/${a.orgId}`;
    const { row: keyOfA } = await t.services.apiKeys.create({ orgId: a.orgId, scopes: [], projectIds: [] });
    const requests: [Method, string, object?][] = [
      ["GET", `${org}/api-keys`],
      ["POST", `${org}/api-keys`, { name: "x", scopes: [] }],
      ["DELETE", `${org}/api-keys/${keyOfA.id}`],
      ["GET", `${org}/members`],
      ["POST", `${org}/members`, { email: b.viewer.email, role: "viewer" }],
      ["PATCH", `${org}/members/${a.viewer.id}`, { role: "admin" }],
      ["DELETE", `${org}/members/${a.viewer.id}`],
      ["PATCH", org, { name: "Pris" }],
      ["POST", `${org}/projects`, { name: "Pris" }],
    ];
    for (const [method, url, payload] of requests) {
      const foreign = await call(b.owner.token, method, url, payload);
      expect(foreign.statusCode, `${method} ${url}`).toBe(404);
      expect(foreign.json()).toEqual({ detail: "Organisation introuvable" });
      const byKey = await call(a.key, method, url, payload);
      expect(byKey.statusCode, `${method} ${url} with an API key`).toBe(401);
    }
    // Nothing changed in A.
    expect((await call(a.key, "GET", "/me")).json().org_name).not.toBe("Pris");
    expect((await call(a.owner.token, "GET", `${org}/members`)).json()).toHaveLength(4);

    // B's admin, in B's path, names A's key or A's member: 404, and the key still works.
    const { row: keyOfB, key: clearB } = await t.services.apiKeys.create({ orgId: b.orgId, scopes: [], projectIds: [] });
    const crossKey = await call(a.admin.token, "DELETE", `${org}/api-keys/${keyOfB.id}`);
    expect(crossKey.statusCode).toBe(404);
    expect(crossKey.json()).toEqual({ detail: "Clé d'API introuvable" });
    expect((await call(clearB, "GET", "/me")).statusCode).toBe(200);
    const crossMember = await call(a.owner.token, "PATCH", `${org}/members/${b.viewer.id}`, { role: "admin" });
    expect(crossMember.statusCode).toBe(404);
    expect(crossMember.json()).toEqual({ detail: "Membre introuvable" });
    expect((await call(a.owner.token, "DELETE", `${org}/members/${b.viewer.id}`)).statusCode).toBe(404);
  });

  it("a key is shown once, works on /api/v1 within its scopes and projects, and its revocation is a 401 at once", async () => {
    const o = await organization();
    const org = `/organizations/${o.orgId}`;
    const created = await call(o.admin.token, "POST", `${org}/api-keys`, {
      name: "  déploiement ",
      scopes: ["stacks-write", "alerts-write", "stacks-write"],
      project_ids: [o.projectId.toUpperCase()],
    });
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(body).toMatchObject({
      name: "déploiement",
      org_id: o.orgId,
      scopes: ["alerts-write", "stacks-write"],
      project_ids: [o.projectId],
      last_used_at: null,
      revoked_at: null,
    });
    expect(body.key).toMatch(/^vk_/);
    expect(body.key.startsWith(body.prefix)).toBe(true);

    const me = await call(body.key, "GET", "/me");
    expect(me.statusCode).toBe(200);
    expect(me.json().org_id).toBe(o.orgId);
    const stacks = `${org}/projects/${o.projectId}/stacks`;
    expect((await call(body.key, "POST", stacks, { name: "Pile de la clé" })).statusCode).toBe(201);
    // No workflows-write scope.
    expect((await call(body.key, "POST", `${org}/projects/${o.projectId}/tags`, { name: "x" })).statusCode).toBe(403);

    const list = await call(o.admin.token, "GET", `${org}/api-keys`);
    expect(list.statusCode).toBe(200);
    const listed = list.json().find((k: { id: string }) => k.id === body.id);
    expect(listed).toMatchObject({ prefix: body.prefix, scopes: ["alerts-write", "stacks-write"], project_ids: [o.projectId] });
    expect(list.body).not.toContain(body.key);
    for (const k of list.json()) expect(k).not.toHaveProperty("key");

    const revoked = await call(o.admin.token, "DELETE", `${org}/api-keys/${body.id}`);
    expect(revoked.statusCode).toBe(204);
    expect(revoked.body).toBe("");
    expect((await call(body.key, "GET", "/me")).statusCode).toBe(401);
    expect((await call(o.admin.token, "GET", `${org}/api-keys`)).json().map((k: { id: string }) => k.id)).not.toContain(body.id);
    // include_revoked: the revoked key too, after the live ones, with its date.
    const all = (await call(o.admin.token, "GET", `${org}/api-keys?include_revoked=true`)).json() as {
      id: string;
      revoked_at: string | null;
    }[];
    expect(all.at(-1)).toMatchObject({ id: body.id, revoked_at: expect.any(String) });
    expect(all.slice(0, -1).every((k) => k.revoked_at === null)).toBe(true);
    // Revoking it again: still 204, the first date kept.
    expect((await call(o.admin.token, "DELETE", `${org}/api-keys/${body.id}`)).statusCode).toBe(204);
    expect((await call(o.admin.token, "DELETE", `${org}/api-keys/${crypto.randomUUID()}`)).json()).toEqual({
      detail: "Clé d'API introuvable",
    });
  });

  it("a key's body is checked: unknown scope, another organization's project → 422 on the field", async () => {
    const o = await organization();
    const other = await createTenant(t);
    const url = `/organizations/${o.orgId}/api-keys`;
    const scope = await call(o.admin.token, "POST", url, { name: "k", scopes: ["everything"] });
    expect(scope.statusCode).toBe(422);
    expect(scope.json().detail[0]).toMatchObject({ type: "literal_error", loc: ["body", "scopes", 0], input: "everything" });
    const foreign = await call(o.admin.token, "POST", url, { name: "k", scopes: [], project_ids: [other.projectId] });
    expect(foreign.statusCode).toBe(422);
    expect(foreign.json().detail).toEqual([
      {
        type: "value_error",
        loc: ["body", "project_ids"],
        msg: `Value error, projet introuvable dans cette organisation : ${other.projectId}`,
        input: [other.projectId],
        ctx: { error: {} },
      },
    ]);
    const missing = await call(o.admin.token, "POST", url, { scopes: [] });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().detail[0]).toMatchObject({ type: "missing", loc: ["body", "name"] });
  });

  it("members: add an existing account or create one; the owner role is an owner's; the last owner stays", async () => {
    const o = await organization();
    const org = `/organizations/${o.orgId}`;
    const members = async () =>
      Object.fromEntries(
        ((await call(o.viewer.token, "GET", `${org}/members`)).json() as { email: string; role: string }[]).map((m) => [m.email, m.role]),
      );
    expect(await members()).toEqual({
      [o.owner.email]: "owner",
      [o.admin.email]: "admin",
      [o.member.email]: "member",
      [o.viewer.email]: "viewer",
    });
    const listed = (await call(o.viewer.token, "GET", `${org}/members`)).json();
    expect(listed[0]).toEqual({
      id: expect.any(String),
      email: expect.any(String),
      role: expect.any(String),
      joined_at: expect.any(String),
    });

    // An existing account, by its address in any case.
    const existing = await account(null);
    const added = await call(o.admin.token, "POST", `${org}/members`, { email: existing.email.toUpperCase(), role: "member" });
    expect(added.statusCode).toBe(201);
    expect(added.json()).toMatchObject({ id: existing.id, email: existing.email, role: "member" });
    // The member's session sees the organization on its next request.
    expect((await call(existing.token, "GET", `${org}/projects`)).statusCode).toBe(200);
    const again = await call(o.admin.token, "POST", `${org}/members`, { email: existing.email, role: "viewer" });
    expect(again.statusCode).toBe(409);
    expect(again.json().detail).toMatchObject({ code: "deja_membre" });
    expect((await members())[existing.email]).toBe("member");

    // A new account, created with its password, can sign in.
    const email = `new-${randomBytes(3).toString("hex")}@example.org`;
    const created = await call(o.admin.token, "POST", `${org}/members`, { email, role: "viewer", password: "mot de passe" });
    expect(created.statusCode).toBe(201);
    const login = await t.app.inject({
      method: "POST",
      url: "/auth/login",
      payload: { email, password: "mot de passe" },
      remoteAddress: "10.8.0.1",
    });
    expect(login.statusCode).toBe(200);
    // A password for an existing account: 409, the password unchanged.
    const reset = await call(o.admin.token, "POST", `${org}/members`, {
      email: existing.email,
      role: "viewer",
      password: "autre mot de passe",
    });
    expect(reset.statusCode).toBe(409);
    expect(reset.json().detail.code).toBe("email_deja_utilise");
    // An unknown address without password: 422 on email; a short password: 422 on password.
    const unknown = await call(o.admin.token, "POST", `${org}/members`, { email: "personne@example.org", role: "viewer" });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().detail[0]).toMatchObject({ loc: ["body", "email"], msg: expect.stringContaining("fournir password") });
    const short = await call(o.admin.token, "POST", `${org}/members`, { email: "court@example.org", role: "viewer", password: "court" });
    expect(short.statusCode).toBe(422);
    expect(short.json().detail[0]).toMatchObject({ loc: ["body", "password"], input: "[redacted]" });
    expect(short.body).not.toContain('court"');
    const role = await call(o.admin.token, "POST", `${org}/members`, { email, role: "superuser" });
    expect(role.statusCode).toBe(422);
    expect(role.json().detail[0]).toMatchObject({ type: "literal_error", loc: ["body", "role"] });

    // An admin neither grants, changes nor removes the owner role.
    for (const [method, url, payload] of [
      ["POST", `${org}/members`, { email: (await account(null)).email, role: "owner" }],
      ["PATCH", `${org}/members/${o.viewer.id}`, { role: "owner" }],
      ["PATCH", `${org}/members/${o.admin.id}`, { role: "owner" }],
      ["PATCH", `${org}/members/${o.owner.id}`, { role: "admin" }],
      ["DELETE", `${org}/members/${o.owner.id}`],
    ] as [Method, string, object?][]) {
      const res = await call(o.admin.token, method, url, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json()).toEqual({ detail: "Seul un propriétaire (owner) peut attribuer, modifier ou retirer le rôle « owner »" });
    }
    expect((await members())[o.owner.email]).toBe("owner");

    // The last owner can be neither demoted nor removed, even by themselves.
    for (const [method, url, payload] of [
      ["PATCH", `${org}/members/${o.owner.id}`, { role: "admin" }],
      ["DELETE", `${org}/members/${o.owner.id}`],
    ] as [Method, string, object?][]) {
      const res = await call(o.owner.token, method, url, payload);
      expect(res.statusCode).toBe(409);
      expect(res.json().detail).toEqual({
        code: "dernier_proprietaire",
        message: "Le dernier propriétaire de l'organisation ne peut être ni rétrogradé ni retiré : nommez d'abord un autre propriétaire",
      });
    }
    // An owner grants owner; then the first may step down.
    const promoted = await call(o.owner.token, "PATCH", `${org}/members/${o.admin.id}`, { role: "owner" });
    expect(promoted.statusCode).toBe(200);
    expect(promoted.json()).toMatchObject({ id: o.admin.id, role: "owner" });
    expect((await call(o.owner.token, "PATCH", `${org}/members/${o.owner.id}`, { role: "viewer" })).statusCode).toBe(200);
    expect((await members())[o.owner.email]).toBe("viewer");
    // The former owner is a viewer from their next request on.
    expect((await call(o.owner.token, "PATCH", org, { name: "Plus à moi" })).statusCode).toBe(403);
    expect((await call(o.admin.token, "PATCH", `${org}/members/${o.admin.id}`, { role: "admin" })).statusCode).toBe(409);
    expect((await call(o.admin.token, "PATCH", `${org}/members/${crypto.randomUUID()}`, { role: "admin" })).json()).toEqual({
      detail: "Membre introuvable",
    });
  });

  it("two owners demoting each other at once: one succeeds, the other is a 409 (one owner remains)", async () => {
    const o = await organization();
    const second = await account(o.orgId, "owner");
    // Both sessions read before either change (as two requests in flight): each still says "owner".
    const [first, other] = await Promise.all([o.owner.token, second.token].map((tok) => t.services.sessions.authenticate(tok)));
    const org = { id: o.orgId, projectIds: null };
    const results = await Promise.allSettled([
      t.services.users.changeRole(first!, org, second.id, "admin"),
      t.services.users.changeRole(other!, org, o.owner.id, "admin"),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: "dernier_proprietaire" });
    const owners = ((await call(o.viewer.token, "GET", `/organizations/${o.orgId}/members`)).json() as { role: string }[]).filter(
      (m) => m.role === "owner",
    );
    expect(owners).toHaveLength(1);
  });

  it("a removed member loses this organization at their next request, and keeps their session and other organizations", async () => {
    const a = await organization();
    const b = await createTenant(t);
    await t.services.users.create({ email: "twice@example.org", password: "twice password", orgId: a.orgId, role: "member" });
    const twice = (
      await t.app.inject({
        method: "POST",
        url: "/auth/login",
        payload: { email: "twice@example.org", password: "twice password" },
        remoteAddress: "10.7.0.1",
      })
    ).json().token as string;
    const addToB = await t.services.users.create({ email: "bowner@example.org", password: "b password", orgId: b.orgId, role: "owner" });
    const bOwner = (
      await t.app.inject({
        method: "POST",
        url: "/auth/login",
        payload: { email: "bowner@example.org", password: "b password" },
        remoteAddress: "10.7.0.2",
      })
    ).json().token as string;
    expect(addToB.role).toBe("owner");
    expect(
      (await call(bOwner, "POST", `/organizations/${b.orgId}/members`, { email: "twice@example.org", role: "viewer" })).statusCode,
    ).toBe(201);
    const session = await t.app.inject({ method: "GET", url: "/auth/session", headers: bearer(twice) });
    expect(
      session
        .json()
        .organizations.map((o: { id: string }) => o.id)
        .sort(),
    ).toEqual([a.orgId, b.orgId].sort());

    const members = (await call(a.admin.token, "GET", `/organizations/${a.orgId}/members`)).json() as { id: string; email: string }[];
    const id = members.find((m) => m.email === "twice@example.org")!.id;
    expect((await call(twice, "GET", `/organizations/${a.orgId}/projects`)).statusCode).toBe(200);
    expect((await call(a.admin.token, "DELETE", `/organizations/${a.orgId}/members/${id}`)).statusCode).toBe(204);

    const gone = await call(twice, "GET", `/organizations/${a.orgId}/projects`);
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toEqual({ detail: "Organisation introuvable" });
    expect((await call(twice, "GET", `/organizations/${b.orgId}/projects`)).statusCode).toBe(200);
    const after = await t.app.inject({ method: "GET", url: "/auth/session", headers: bearer(twice) });
    expect(after.statusCode).toBe(200);
    expect(after.json().organizations.map((o: { id: string }) => o.id)).toEqual([b.orgId]);
    // An admin may leave by themselves.
    expect((await call(a.admin.token, "DELETE", `/organizations/${a.orgId}/members/${a.admin.id}`)).statusCode).toBe(204);
    expect((await call(a.admin.token, "GET", `/organizations/${a.orgId}/members`)).statusCode).toBe(404);
  });

  it("renames the organization (OrgItem with the caller's role) and creates projects with their default workflow", async () => {
    const o = await organization();
    const org = `/organizations/${o.orgId}`;
    const renamed = await call(o.owner.token, "PATCH", org, { name: "  Acme SOC  " });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ id: o.orgId, name: "Acme SOC", role: "owner", is_personal: false });
    expect((await call(o.key, "GET", "/me")).json().org_name).toBe("Acme SOC");
    const empty = await call(o.owner.token, "PATCH", org, { name: "   " });
    expect(empty.statusCode).toBe(422);
    expect(empty.json().detail[0]).toMatchObject({ type: "value_error", loc: ["body", "name"], input: "   " });

    const project = await call(o.admin.token, "POST", `${org}/projects`, { name: "Recette", description: "Pré-production" });
    expect(project.statusCode).toBe(201);
    expect(project.json()).toMatchObject({ name: "Recette", description: "Pré-production", org_id: o.orgId, is_default: false });
    const workflows = await call(o.readKey, "GET", `${org}/projects/${project.json().id}/workflows`);
    expect(workflows.json()).toEqual([expect.objectContaining({ is_default: true })]);
    const duplicate = await call(o.admin.token, "POST", `${org}/projects`, { name: "Recette" });
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json().detail.code).toBe("nom_deja_utilise");
    const session = await t.app.inject({ method: "GET", url: "/auth/session", headers: bearer(o.member.token) });
    const mine = session.json().organizations.find((x: { id: string }) => x.id === o.orgId);
    expect(mine.name).toBe("Acme SOC");
    expect(mine.projects.map((p: { name: string }) => p.name)).toContain("Recette");
  });

  it("a cookie-authenticated write from another site is refused (CSRF)", async () => {
    const o = await organization();
    const res = await t.app.inject({
      method: "POST",
      url: `/api/v1/organizations/${o.orgId}/api-keys`,
      cookies: { vigie_session: o.admin.token },
      headers: { "sec-fetch-site": "cross-site" },
      payload: { name: "forgée", scopes: ["workflows-write"] },
    });
    expect(res.statusCode).toBe(403);
    expect(
      (await call(o.admin.token, "GET", `/organizations/${o.orgId}/api-keys`)).json().map((k: { name: string }) => k.name),
    ).not.toContain("forgée");
  });
});

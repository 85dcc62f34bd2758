import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "../src/platform/db/sql.js";
import { casesVersion, readVersion } from "../src/platform/db/versions.js";
import { addDays, parisDate } from "../src/platform/paris.js";
import { bearer, createTenant, createTestApp } from "./helpers.js";

const t = await createTestApp();
const today = parisDate(new Date());

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

interface History {
  event: string;
  from_status: string | null;
  to_status: string;
  comment: string | null;
  actor: { type: string; id: string | null; label: string | null };
  details: Record<string, unknown> | null;
}
interface Case {
  cve_id: string;
  status: string;
  exception: { nature: string; measure: string | null } | null;
  risque: { id: string; title: string; expires_on: string } | null;
  history: History[];
}
interface Risk {
  id: string;
  title: string;
  owner: string;
  justification: string;
  review_on: string | null;
  expires_on: string;
  status: string;
  cases_count: number;
  cases: { project_id: string; cve_id: string; status: string; severity: string | null }[];
}

/** An organization with two projects P and Q, a full key "ci", a read-only key and a cases-write key restricted to P. */
async function org(name: string) {
  const tenant = await createTenant(t, { name });
  const p = tenant.projectId;
  const q = (await t.services.projects.create({ orgId: tenant.orgId, name: "Recette" })).id;
  const make = async (keyName: string, scopes: string[], projectIds: string[] = []) =>
    (await t.services.apiKeys.create({ orgId: tenant.orgId, name: keyName, scopes, projectIds })).key;
  const key = await make("ci", ["cases-write"]);
  const onlyP = await make("equipe-p", ["cases-write"], [p]);
  const risks = `/api/v1/organizations/${tenant.orgId}/risks`;
  const call = (method: Method, path: string, payload?: unknown, token = key) =>
    t.app.inject({ method, url: `${risks}${path}`, headers: bearer(token), ...(payload !== undefined && { payload: payload as object }) });
  const caseCall = (project: string, method: Method, path: string, payload?: unknown, token = key) =>
    t.app.inject({
      method,
      url: `/api/v1/organizations/${tenant.orgId}/projects/${project}/cases${path}`,
      headers: bearer(token),
      ...(payload !== undefined && { payload: payload as object }),
    });
  const getCase = async (project: string, cve: string) => (await caseCall(project, "GET", `/${cve}`)).json() as Case;
  return { ...tenant, p, q, key, onlyP, risks, call, caseCall, getCase };
}

const a = await org("Alpha");
const b = await org("Beta");

const entry = (over: Record<string, unknown> = {}) => ({
  title: "Serveur legacy isolé",
  owner: "RSSI",
  justification: "Réseau isolé, remplacement prévu",
  expires_on: addDays(today, 90),
  ...over,
});

describe("the risk register: an entry's life", () => {
  it("creates an entry covering cases across projects; covers more, uncovers one, and its withdrawal reopens every case", async () => {
    await a.caseCall(a.p, "PUT", "/CVE-2099-1001", { status: "en_analyse" });
    const v0 = await readVersion(t.database.db, casesVersion(a.q));
    const created = await a.call("POST", "", {
      ...entry({ review_on: addDays(today, 30) }),
      cases: [
        { project_id: a.p, cve_id: "CVE-2099-1001" },
        { project_id: a.q, cve_id: "cve-2099-1002" },
      ],
      comment: "revue sécurité",
    });
    expect(created.statusCode).toBe(201);
    const r = created.json() as Risk;
    expect(r).toMatchObject({
      title: "Serveur legacy isolé",
      owner: "RSSI",
      status: "active",
      review_on: addDays(today, 30),
      cases_count: 2,
    });
    expect(r.cases.map((c) => [c.project_id, c.cve_id, c.status]).sort()).toEqual(
      [
        [a.p, "CVE-2099-1001", "risque_accepte"],
        [a.q, "CVE-2099-1002", "risque_accepte"],
      ].sort(),
    );
    // Every write bumps the cases version of the projects it changes.
    expect(await readVersion(t.database.db, casesVersion(a.q))).toBeGreaterThan(v0);

    const ref = { id: r.id, title: "Serveur legacy isolé", expires_on: r.expires_on };
    const existing = await a.getCase(a.p, "CVE-2099-1001");
    expect(existing).toMatchObject({ status: "risque_accepte", exception: null, risque: ref });
    expect(existing.history.at(-1)).toEqual({
      event: "risk_linked",
      from_status: "en_analyse",
      to_status: "risque_accepte",
      comment: "revue sécurité",
      created_at: expect.any(String),
      actor: { type: "api_key", id: expect.any(String), label: "ci" },
      details: { risk: ref, previous: null },
    });
    // A case the project did not have is created, then covered.
    const fresh = await a.getCase(a.q, "CVE-2099-1002");
    expect(fresh.history.map((h) => [h.event, h.from_status, h.to_status])).toEqual([
      ["created", null, "nouveau"],
      ["risk_linked", "nouveau", "risque_accepte"],
    ]);

    const patched = await a.call("PATCH", `/${r.id}`, { title: "Legacy isolé", expires_on: addDays(today, 60), review_on: null });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ title: "Legacy isolé", expires_on: addDays(today, 60), review_on: null, owner: "RSSI" });
    expect((await a.getCase(a.p, "CVE-2099-1001")).risque).toEqual({ id: r.id, title: "Legacy isolé", expires_on: addDays(today, 60) });

    const more = await a.call("POST", `/${r.id}/cases`, { cases: [{ project_id: a.p, cve_id: "CVE-2099-1003" }] });
    expect(more.statusCode).toBe(200);
    expect((more.json() as Risk).cases_count).toBe(3);
    // Covering a covered case again changes nothing.
    await a.call("POST", `/${r.id}/cases`, { cases: [{ project_id: a.p, cve_id: "CVE-2099-1003" }] });
    expect((await a.getCase(a.p, "CVE-2099-1003")).history).toHaveLength(2);

    const list = (await a.call("GET", "?q=rssi&status=active")).json() as { items: Risk[]; total: number };
    expect(list.total).toBe(1);
    expect(list.items[0]).toMatchObject({ id: r.id, cases_count: 3 });

    const un = await a.call("DELETE", `/${r.id}/cases/${a.p}/cve-2099-1003`, { comment: "corrigé autrement" });
    expect(un.statusCode).toBe(200);
    expect(un.json()).toMatchObject({ cve_id: "CVE-2099-1003", status: "en_analyse", risque: null, exception: null });
    expect((await a.getCase(a.p, "CVE-2099-1003")).history.at(-1)).toMatchObject({
      event: "risk_unlinked",
      from_status: "risque_accepte",
      to_status: "en_analyse",
      comment: "corrigé autrement",
      details: { risk: { id: r.id, title: "Legacy isolé", expires_on: addDays(today, 60) } },
    });
    // Not covered by this entry any more.
    const again = await a.call("DELETE", `/${r.id}/cases/${a.p}/CVE-2099-1003`);
    expect([again.statusCode, again.json()]).toEqual([404, { detail: "Dossier introuvable" }]);

    const deleted = await a.call("DELETE", `/${r.id}`);
    expect(deleted.statusCode).toBe(204);
    for (const [project, cve] of [
      [a.p, "CVE-2099-1001"],
      [a.q, "CVE-2099-1002"],
    ] as const) {
      const c = await a.getCase(project, cve);
      expect(c).toMatchObject({ status: "en_analyse", risque: null });
      expect(c.history.at(-1)).toMatchObject({
        event: "risk_unlinked",
        from_status: "risque_accepte",
        to_status: "en_analyse",
        actor: { type: "api_key", label: "ci" },
        details: { risk: { id: r.id, title: "Legacy isolé" } },
      });
    }
    expect((await a.call("GET", `/${r.id}`)).json()).toEqual({ detail: "Entrée du registre des risques introuvable" });
  });

  it("covering a case replaces its own exception (kept in the history); its own exception set later uncovers it", async () => {
    await a.caseCall(a.p, "PUT", "/CVE-2099-2001", {});
    const mitigated = { nature: "MITIGATED", measure: "WAF", justification: "derrière le WAF", expires_on: addDays(today, 10) };
    await a.caseCall(a.p, "PUT", "/CVE-2099-2001/exception", mitigated);
    const r = (await a.call("POST", "", entry({ cases: [{ project_id: a.p, cve_id: "CVE-2099-2001" }] }))).json() as Risk;
    const covered = await a.getCase(a.p, "CVE-2099-2001");
    expect(covered).toMatchObject({ status: "risque_accepte", exception: null, risque: { id: r.id } });
    expect(covered.history.at(-1)).toMatchObject({
      event: "risk_linked",
      from_status: "attenue",
      details: {
        risk: { id: r.id },
        previous: { nature: "MITIGATED", measure: "WAF", justification: "derrière le WAF", expires_on: addDays(today, 10) },
      },
    });

    const own = await a.caseCall(a.p, "PUT", "/CVE-2099-2001/exception", mitigated);
    expect(own.json()).toMatchObject({ status: "attenue", exception: { nature: "MITIGATED" }, risque: null });
    expect((await a.getCase(a.p, "CVE-2099-2001")).history.at(-1)).toMatchObject({
      event: "exception_set",
      details: { previous: { risk: { id: r.id } } },
    });
    expect(((await a.call("GET", `/${r.id}`)).json() as Risk).cases).toEqual([]);
  });
});

describe("all or nothing", () => {
  it("a corrige case among those to cover: 409 transition_invalide, nothing changed, no case created", async () => {
    const r = (await a.call("POST", "", entry())).json() as Risk;
    await a.caseCall(a.p, "PUT", "/CVE-2099-3001", { status: "en_analyse" });
    await a.caseCall(a.p, "PUT", "/CVE-2099-3002", { status: "corrige" });
    const v0 = await readVersion(t.database.db, casesVersion(a.p));
    const res = await a.call("POST", `/${r.id}/cases`, {
      cases: [
        { project_id: a.p, cve_id: "CVE-2099-3001" },
        { project_id: a.p, cve_id: "CVE-2099-3002" },
        { project_id: a.p, cve_id: "CVE-2099-3003" },
      ],
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      detail: { code: "transition_invalide", message: expect.any(String), from: "corrige", to: "risque_accepte" },
    });
    expect(await a.getCase(a.p, "CVE-2099-3001")).toMatchObject({ status: "en_analyse", risque: null });
    expect((await a.getCase(a.p, "CVE-2099-3001")).history).toHaveLength(2);
    expect((await a.caseCall(a.p, "GET", "/CVE-2099-3003")).statusCode).toBe(404);
    expect(await readVersion(t.database.db, casesVersion(a.p))).toBe(v0);
    // Creating an entry with it: the entry is not created either.
    const before = ((await a.call("GET", "")).json() as { total: number }).total;
    const create = await a.call("POST", "", entry({ cases: [{ project_id: a.p, cve_id: "CVE-2099-3002" }] }));
    expect(create.statusCode).toBe(409);
    expect(((await a.call("GET", "")).json() as { total: number }).total).toBe(before);
  });

  it("a project of another organization or a bad CVE id: 422 at the case, nothing changed", async () => {
    const r = (await a.call("POST", "", entry())).json() as Risk;
    const res = await a.call("POST", `/${r.id}/cases`, {
      cases: [
        { project_id: a.p, cve_id: "CVE-2099-4001" },
        { project_id: b.p, cve_id: "CVE-2099-4002" },
      ],
    });
    expect(res.statusCode).toBe(422);
    expect((res.json() as { detail: unknown[] }).detail).toEqual([
      expect.objectContaining({ loc: ["body", "cases", 1, "project_id"], msg: expect.stringContaining(b.p), input: b.p }),
    ]);
    expect((await a.caseCall(a.p, "GET", "/CVE-2099-4001")).statusCode).toBe(404);
    const bad = await a.call("POST", `/${r.id}/cases`, { cases: [{ project_id: a.p, cve_id: "GHSA-1234" }] });
    expect(bad.statusCode).toBe(422);
    expect((bad.json() as { detail: { loc: unknown[] }[] }).detail[0]!.loc).toEqual(["body", "cases", 0, "cve_id"]);
    expect(((await a.call("GET", `/${r.id}`)).json() as Risk).cases_count).toBe(0);
  });
});

describe("batches", () => {
  it("covers 1,000 cases in one call (created, covered, two history rows each); 1,001 is a 422", async () => {
    const r = (await a.call("POST", "", entry({ title: "Lot" }))).json() as Risk;
    const cases = Array.from({ length: 1000 }, (_, i) => ({ project_id: i % 2 ? a.p : a.q, cve_id: `CVE-2098-${String(10000 + i)}` }));
    const res = await a.call("POST", `/${r.id}/cases`, { cases });
    expect(res.statusCode).toBe(200);
    expect((res.json() as Risk).cases_count).toBe(1000);
    const [row] = await rowsOf<{ n: number; cases: number }>(
      t.database.db,
      sql`select count(*)::int as n, count(distinct h.case_id)::int as cases from case_history h join cases c on c.id = h.case_id where c.risk_id = ${r.id}`,
    );
    expect(row).toEqual({ n: 2000, cases: 1000 });
    const tooMany = await a.call("POST", `/${r.id}/cases`, { cases: [...cases, { project_id: a.p, cve_id: "CVE-2098-0001" }] });
    expect(tooMany.statusCode).toBe(422);
    expect((await a.call("DELETE", `/${r.id}`)).statusCode).toBe(204);
    expect((await a.getCase(a.q, "CVE-2098-10000")).status).toBe("en_analyse");
  });
});

describe("rules and rights", () => {
  it("refuses a past expires_on (Paris) on creation and change: 422", async () => {
    const past = await a.call("POST", "", entry({ expires_on: addDays(today, -1) }));
    expect(past.statusCode).toBe(422);
    expect((past.json() as { detail: { loc: string[]; msg: string }[] }).detail).toEqual([
      expect.objectContaining({ loc: ["body", "expires_on"], msg: expect.stringContaining(today) }),
    ]);
    const r = (await a.call("POST", "", entry({ expires_on: today }))).json() as Risk;
    expect(r.status).toBe("active");
    expect((await a.call("PATCH", `/${r.id}`, { expires_on: addDays(today, -1) })).statusCode).toBe(422);
    expect(((await a.call("GET", `/${r.id}`)).json() as Risk).expires_on).toBe(today);
  });

  it("an expired entry cannot be changed back to life nor cover cases (409 risque_expire), and lists as expiree", async () => {
    const r = (await a.call("POST", "", entry({ title: "Expirée" }))).json() as Risk;
    // Its expiry date is past (the expiry job has not run yet): expired all the same.
    await t.database.db.execute(sql`update risks set expires_on = ${addDays(today, -1)}::date where id = ${r.id}`);
    expect(((await a.call("GET", `/${r.id}`)).json() as Risk).status).toBe("expiree");
    const patch = await a.call("PATCH", `/${r.id}`, { expires_on: addDays(today, 30) });
    expect(patch.statusCode).toBe(409);
    expect((patch.json() as { detail: { code: string } }).detail.code).toBe("risque_expire");
    const cover = await a.call("POST", `/${r.id}/cases`, { cases: [{ project_id: a.p, cve_id: "CVE-2099-5001" }] });
    expect([cover.statusCode, (cover.json() as { detail: { code: string } }).detail.code]).toEqual([409, "risque_expire"]);
    expect((await a.caseCall(a.p, "GET", "/CVE-2099-5001")).statusCode).toBe(404);
    const expired = (await a.call("GET", "?status=expiree")).json() as { items: Risk[] };
    expect(expired.items.map((i) => i.title)).toEqual(["Expirée"]);
    const active = (await a.call("GET", "?status=active")).json() as { items: Risk[] };
    expect(active.items.map((i) => i.id)).not.toContain(r.id);
  });

  it("lists by expiry date with filters and paging", async () => {
    const c = await org("Gamma");
    const mk = (title: string, expires: number, review: number | null, owner = "DSI") =>
      c.call(
        "POST",
        "",
        entry({ title, owner, expires_on: addDays(today, expires), review_on: review === null ? null : addDays(today, review) }),
      );
    await mk("B tardive", 200, 100);
    await mk("A proche", 10, null, "RSSI");
    await mk("C moyenne", 50, 20);
    const all = (await c.call("GET", "")).json() as { items: Risk[]; total: number; page: number; page_size: number };
    expect(all.items.map((i) => i.title)).toEqual(["A proche", "C moyenne", "B tardive"]);
    expect(all).toMatchObject({ total: 3, page: 1, page_size: 20 });
    const titles = async (query: string) => ((await c.call("GET", query)).json() as { items: Risk[] }).items.map((i) => i.title);
    expect(await titles(`?expiring_before=${addDays(today, 50)}`)).toEqual(["A proche", "C moyenne"]);
    expect(await titles(`?review_before=${addDays(today, 30)}`)).toEqual(["C moyenne"]);
    expect(await titles("?q=rssi")).toEqual(["A proche"]);
    expect(await titles("?q=tard")).toEqual(["B tardive"]);
    const page2 = (await c.call("GET", "?page=2&page_size=2")).json() as { items: Risk[]; total: number };
    expect([page2.items.map((i) => i.title), page2.total]).toEqual([["B tardive"], 3]);
    expect((await c.call("GET", "?status=ouverte")).statusCode).toBe(422);
  });

  it("needs cases-write to write; reads need no scope", async () => {
    const r = (await a.call("POST", "", entry())).json() as Risk;
    const read = a.readKey;
    const writes: [Method, string, unknown][] = [
      ["POST", "", entry()],
      ["PATCH", `/${r.id}`, { title: "x" }],
      ["DELETE", `/${r.id}`, undefined],
      ["POST", `/${r.id}/cases`, { cases: [{ project_id: a.p, cve_id: "CVE-2099-6001" }] }],
      ["DELETE", `/${r.id}/cases/${a.p}/CVE-2099-6001`, undefined],
    ];
    for (const [method, path, body] of writes) {
      const res = await a.call(method, path, body, read);
      expect([method, path, res.statusCode]).toEqual([method, path, 403]);
    }
    expect((await a.call("GET", "", undefined, read)).statusCode).toBe(200);
    expect((await a.call("GET", `/${r.id}`, undefined, read)).json()).toMatchObject({ title: r.title });
  });

  it("another organization's key gets 404 on every route; an entry of another organization is a 404 too", async () => {
    const r = (await a.call("POST", "", entry({ cases: [{ project_id: a.p, cve_id: "CVE-2099-7001" }] }))).json() as Risk;
    const routes: [Method, string, unknown][] = [
      ["GET", "", undefined],
      ["POST", "", entry()],
      ["GET", `/${r.id}`, undefined],
      ["PATCH", `/${r.id}`, { title: "x" }],
      ["DELETE", `/${r.id}`, undefined],
      ["POST", `/${r.id}/cases`, { cases: [{ project_id: a.p, cve_id: "CVE-2099-7002" }] }],
      ["DELETE", `/${r.id}/cases/${a.p}/CVE-2099-7001`, undefined],
    ];
    for (const [method, path, body] of routes) {
      // a's organization in the path, b's key.
      const res = await a.call(method, path, body, b.key);
      expect([method, path, res.statusCode, res.json()]).toEqual([method, path, 404, { detail: "Organisation introuvable" }]);
      if (path === "") continue;
      // b's own organization in the path, a's entry.
      const own = await b.call(method, path, body);
      expect([method, path, own.statusCode, own.json()]).toEqual([
        method,
        path,
        404,
        { detail: "Entrée du registre des risques introuvable" },
      ]);
    }
    expect(await a.getCase(a.p, "CVE-2099-7001")).toMatchObject({ status: "risque_accepte", risque: { id: r.id } });
    expect((await a.call("GET", `/${r.id}`)).json()).toMatchObject({ title: r.title, cases_count: 1 });
  });

  it("a key restricted to project P sees only P's cases, covers only them, and cannot change an entry reaching beyond P", async () => {
    const r = (
      await a.call(
        "POST",
        "",
        entry({
          title: "Deux projets",
          cases: [
            { project_id: a.p, cve_id: "CVE-2099-8001" },
            { project_id: a.q, cve_id: "CVE-2099-8002" },
            { project_id: a.q, cve_id: "CVE-2099-8003" },
          ],
        }),
      )
    ).json() as Risk;
    expect(r.cases_count).toBe(3);
    const seen = (await a.call("GET", `/${r.id}`, undefined, a.onlyP)).json() as Risk;
    expect(seen.cases_count).toBe(1);
    expect(seen.cases.map((c) => [c.project_id, c.cve_id])).toEqual([[a.p, "CVE-2099-8001"]]);
    const listed = (await a.call("GET", "?q=Deux", undefined, a.onlyP)).json() as { items: Risk[] };
    expect(listed.items.map((i) => i.cases_count)).toEqual([1]);

    const foreign = await a.call(
      "POST",
      `/${r.id}/cases`,
      {
        cases: [
          { project_id: a.p, cve_id: "CVE-2099-8004" },
          { project_id: a.q, cve_id: "CVE-2099-8005" },
        ],
      },
      a.onlyP,
    );
    expect(foreign.statusCode).toBe(422);
    expect((foreign.json() as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc)).toEqual([["body", "cases", 1, "project_id"]]);
    expect((await a.caseCall(a.p, "GET", "/CVE-2099-8004")).statusCode).toBe(404);
    const own = await a.call("POST", `/${r.id}/cases`, { cases: [{ project_id: a.p, cve_id: "CVE-2099-8004" }] }, a.onlyP);
    expect((own.json() as Risk).cases_count).toBe(2);
    expect((await a.getCase(a.p, "CVE-2099-8004")).history.at(-1)!.actor.label).toBe("equipe-p");

    const unQ = await a.call("DELETE", `/${r.id}/cases/${a.q}/CVE-2099-8002`, undefined, a.onlyP);
    expect(unQ.statusCode).toBe(404);
    expect((await a.getCase(a.q, "CVE-2099-8002")).status).toBe("risque_accepte");
    for (const [method, body] of [
      ["PATCH", { title: "x" }],
      ["DELETE", undefined],
    ] as const) {
      const res = await a.call(method, `/${r.id}`, body, a.onlyP);
      expect([method, res.statusCode]).toEqual([method, 403]);
    }
    expect(((await a.call("GET", `/${r.id}`)).json() as Risk).cases_count).toBe(4);
    // An entry within P is the restricted key's to change.
    const mine = (await a.call("POST", "", entry({ cases: [{ project_id: a.p, cve_id: "CVE-2099-8006" }] }), a.onlyP)).json() as Risk;
    expect((await a.call("PATCH", `/${mine.id}`, { owner: "Équipe P" }, a.onlyP)).statusCode).toBe(200);
    expect((await a.call("DELETE", `/${mine.id}`, undefined, a.onlyP)).statusCode).toBe(204);
    expect((await a.getCase(a.p, "CVE-2099-8006")).status).toBe("en_analyse");
  });
});

import { describe, expect, it } from "vitest";
import { CasesService } from "../src/modules/cases/cases.service.js";
import { tagsRepository } from "../src/modules/tags/tags.repository.js";
import { addDays, parisDate } from "../src/platform/paris.js";
import { bearer, createTestApp, tenantWithScopes } from "./helpers.js";

const t = await createTestApp();
const expiry = t.services.caseExpiry;
const today = parisDate(new Date());
const JOB_ACTOR = { type: "job", id: null, label: "cases-expiry" };

// biome-ignore lint/suspicious/noExplicitAny: rows read field by field by the assertions.
async function q(text: string, params: unknown[] = []): Promise<any[]> {
  return ((await t.database.executeSql(text, params)) as { rows: unknown[] }).rows;
}

/** The instant of 00:00 Europe/Paris on `day`: the offset that day is +01:00 (winter) or +02:00 (summer). */
function parisMidnight(day: string): Date {
  for (const offset of ["+01:00", "+02:00"]) {
    const at = new Date(`${day}T00:00:00${offset}`);
    if (parisDate(at) === day && parisDate(new Date(at.getTime() - 1)) !== day) return at;
  }
  throw new Error(`no midnight for ${day}`);
}
const secondBefore = (at: Date) => new Date(at.getTime() - 1000);

async function tenantWithKeys(name: string) {
  return tenantWithScopes(t, name, ["cases-write"]);
}

const a = await tenantWithKeys("Alpha");
const b = await tenantWithKeys("Beta");

/** Cases service whose clock reads `iso`: sets exceptions with a fixed expiry date, whatever the real date of the test run. */
const casesAt = (iso: string) => new CasesService(t.database.db, tagsRepository, () => new Date(iso));
const JAN_2026 = casesAt("2026-01-01T12:00:00Z");
const actor = { type: "api_key", id: null, label: "test" } as const;

/** A case of `cve` under an exception of `nature` valid through `expiresOn` (set while the clock reads 2026-01-01). */
async function caseWithException(project: { id: string; orgId: string }, cve: string, expiresOn: string, nature = "MITIGATED") {
  await JAN_2026.put(project, cve, {}, actor);
  await JAN_2026.setException(
    project,
    cve,
    { nature: nature as "MITIGATED", measure: nature === "MITIGATED" ? "WAF" : null, justification: "revue", expires_on: expiresOn },
    actor,
  );
  return (await q("select id from cases where project_id = $1 and cve_id = $2", [project.id, cve]))[0].id as string;
}

/** The project's alert for a CVE, read. */
async function readAlert(project: { id: string; orgId: string }, cve: string): Promise<string> {
  const [row] = await q(
    `insert into alerts (org_id, project_id, cve_id, severity, palier, source, match, is_read)
     values ($1, $2, $3, 'HIGH', 'P2', 'test', '{}', true) returning id`,
    [project.orgId, project.id, cve],
  );
  return row.id;
}

/** Expires whatever earlier tests left, so that each test counts only its own cases. */
async function settle(): Promise<void> {
  await expiry.run(new Date("2100-01-01T00:00:00Z"));
}

/** A project's events of one kind for these CVEs, by CVE then oldest first. */
const outbox = (projectId: string, event: string, cves: string[]) =>
  q(
    `select org_id, project_id, event, cve_id, alert_id, payload from outbox_events
     where project_id = $1 and event = $2 and cve_id = any($3::text[]) order by cve_id, id`,
    [projectId, event, cves],
  );

let n = 100;
const nextCve = () => `CVE-2026-${String(++n).padStart(5, "0")}`;

describe("exceptions expire at 00:00 Europe/Paris the day after expires_on", () => {
  it.each([
    ["winter (UTC+1)", "2026-01-15", "2026-01-15T23:00:00.000Z"],
    ["summer (UTC+2)", "2026-07-14", "2026-07-14T22:00:00.000Z"],
    ["the eve of the spring change (midnight still UTC+1)", "2026-03-28", "2026-03-28T23:00:00.000Z"],
    ["the day of the spring change (midnight after it, UTC+2)", "2026-03-29", "2026-03-29T22:00:00.000Z"],
    ["the eve of the autumn change (midnight still UTC+2)", "2026-10-24", "2026-10-24T22:00:00.000Z"],
    ["the day of the autumn change (midnight after it, UTC+1)", "2026-10-25", "2026-10-25T23:00:00.000Z"],
  ])("%s: expires_on %s is in force one second before %s and reopened at it", async (_label, day, reopensAt) => {
    await settle();
    const at = new Date(reopensAt);
    expect(parisMidnight(addDays(day, 1))).toEqual(at);
    const cve = nextCve();
    await caseWithException(a.project, cve, day);
    expect(await expiry.run(secondBefore(at))).toMatchObject({ today: day, expired: 0, risks_expired: 0 });
    expect((await a.call("GET", `/cases/${cve}`)).json()).toMatchObject({ status: "attenue", exception: { expires_on: day } });
    expect(await expiry.run(at)).toMatchObject({ today: addDays(day, 1), expired: 1, risks_expired: 0, warned: 0 });
    expect((await a.call("GET", `/cases/${cve}`)).json()).toMatchObject({ status: "en_analyse", exception: null });
  });

  it("reopens the case: exception kept in history, case.exception_expired event, the project's alert unread again; a second run changes nothing", async () => {
    await settle();
    const expiresOn = addDays(today, 10);
    const mitigated = nextCve();
    const accepted = nextCve();
    for (const cve of [mitigated, accepted]) expect((await a.call("PUT", `/cases/${cve}`, {})).statusCode).toBe(201);
    expect(
      (
        await a.call("PUT", `/cases/${mitigated}/exception`, {
          nature: "MITIGATED",
          measure: "WAF",
          justification: "j",
          expires_on: expiresOn,
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (await a.call("PUT", `/cases/${accepted}/exception`, { nature: "ACCEPTED_RISK", justification: "k", expires_on: expiresOn }))
        .statusCode,
    ).toBe(200);
    const alertId = await readAlert(a.project, mitigated);
    const exceptions = new Map<string, unknown>();
    const ids = new Map<string, string>();
    for (const cve of [mitigated, accepted]) {
      exceptions.set(cve, ((await a.call("GET", `/cases/${cve}`)).json() as { exception: unknown }).exception);
      ids.set(cve, (await q("select id from cases where project_id = $1 and cve_id = $2", [a.projectId, cve]))[0].id);
    }
    const at = parisMidnight(addDays(expiresOn, 1));

    expect(await expiry.run(at)).toEqual({
      today: addDays(expiresOn, 1),
      expired: 2,
      risks_expired: 0,
      reopened_by_register: 0,
      warned: 0,
    });

    for (const [cve, from] of [
      [mitigated, "attenue"],
      [accepted, "risque_accepte"],
    ] as const) {
      const c = (await a.call("GET", `/cases/${cve}`)).json() as { status: string; exception: unknown; history: unknown[] };
      expect(c.status).toBe("en_analyse");
      expect(c.exception).toBeNull();
      expect(c.history.at(-1)).toEqual({
        event: "exception_expired",
        from_status: from,
        to_status: "en_analyse",
        comment: null,
        created_at: expect.any(String),
        actor: JOB_ACTOR,
        details: { exception: exceptions.get(cve) },
      });
    }
    expect(await outbox(a.projectId, "case.exception_expired", [mitigated, accepted])).toEqual(
      [mitigated, accepted].map((cve) => ({
        org_id: a.orgId,
        project_id: a.projectId,
        event: "case.exception_expired",
        cve_id: cve,
        alert_id: cve === mitigated ? alertId : null,
        payload: { case_id: ids.get(cve), cve_id: cve, source: "case", exception: exceptions.get(cve) },
      })),
    );
    expect(await q("select is_read from alerts where id = $1", [alertId])).toEqual([{ is_read: false }]);

    // Idempotent: the same instant, or a later one, changes nothing more.
    const counts = async () =>
      (await q("select (select count(*)::int from case_history) as h, (select count(*)::int from outbox_events) as o"))[0];
    const was = await counts();
    await q("update alerts set is_read = true where id = $1", [alertId]);
    for (const again of [at, new Date(at.getTime() + 86_400_000)])
      expect(await expiry.run(again)).toEqual({
        today: parisDate(again),
        expired: 0,
        risks_expired: 0,
        reopened_by_register: 0,
        warned: 0,
      });
    expect(await counts()).toEqual(was);
    expect(await q("select is_read from alerts where id = $1", [alertId])).toEqual([{ is_read: true }]);
  });

  it("two runs at once reopen each case once", async () => {
    await settle();
    const cves = [nextCve(), nextCve(), nextCve()];
    for (const cve of cves) await caseWithException(a.project, cve, "2026-05-01");
    const at = parisMidnight("2026-05-02");
    const [r1, r2] = await Promise.all([expiry.run(at), expiry.run(at)]);
    expect(r1.expired + r2.expired).toBe(3);
    const rows = await q(
      `select k.cve_id, count(h.*)::int as n from cases k join case_history h on h.case_id = k.id and h.event = 'exception_expired'
       where k.cve_id = any($1::text[]) group by k.cve_id order by k.cve_id`,
      [cves],
    );
    expect(rows).toEqual(cves.map((cve_id) => ({ cve_id, n: 1 })));
    const events = await q("select cve_id from outbox_events where event = 'case.exception_expired' and cve_id = any($1::text[])", [cves]);
    expect(events.length).toBe(3);
  });
});

describe("register entries expire the same way", () => {
  it.each([
    ["the eve of the spring change", "2026-03-28", "2026-03-28T23:00:00.000Z"],
    ["the eve of the autumn change", "2026-10-24", "2026-10-24T22:00:00.000Z"],
  ])("%s: an entry valid through %s reopens every case it covers at %s, not a second before", async (_label, day, reopensAt) => {
    await settle();
    const at = new Date(reopensAt);
    const other = await t.services.projects.create({ orgId: a.orgId, name: `Autre ${day}` });
    const [risk] = await q(
      "insert into risks (org_id, title, owner, justification, expires_on) values ($1, 'Serveur legacy', 'rssi', 'budget', $2) returning id",
      [a.orgId, day],
    );
    const covered = [
      { project: a.project, cve: nextCve() },
      { project: { id: other.id, orgId: a.orgId }, cve: nextCve() },
    ];
    for (const c of covered) {
      await JAN_2026.put(c.project, c.cve, {}, actor);
      await q("update cases set status = 'risque_accepte', risk_id = $1 where project_id = $2 and cve_id = $3", [
        risk.id,
        c.project.id,
        c.cve,
      ]);
    }
    const alertId = await readAlert(a.project, covered[0]!.cve);

    expect(await expiry.run(secondBefore(at))).toMatchObject({ expired: 0, risks_expired: 0, reopened_by_register: 0 });
    expect(await q("select status from risks where id = $1", [risk.id])).toEqual([{ status: "active" }]);

    expect(await expiry.run(at)).toEqual({ today: addDays(day, 1), expired: 0, risks_expired: 1, reopened_by_register: 2, warned: 0 });
    expect(await q("select status from risks where id = $1", [risk.id])).toEqual([{ status: "expiree" }]);
    const riskDetails = { id: risk.id, title: "Serveur legacy", expires_on: day };
    for (const c of covered) {
      const [row] = await q("select id, status, risk_id from cases where project_id = $1 and cve_id = $2", [c.project.id, c.cve]);
      expect(row).toMatchObject({ status: "en_analyse", risk_id: null });
      const history = await q(
        "select event, from_status, to_status, comment, actor_type, actor_id, actor_label, details from case_history where case_id = $1 order by id desc limit 1",
        [row.id],
      );
      expect(history).toEqual([
        {
          event: "risk_expired",
          from_status: "risque_accepte",
          to_status: "en_analyse",
          comment: null,
          actor_type: "job",
          actor_id: null,
          actor_label: "cases-expiry",
          details: { risk: riskDetails },
        },
      ]);
      expect(await outbox(c.project.id, "case.exception_expired", [c.cve])).toEqual([
        {
          org_id: a.orgId,
          project_id: c.project.id,
          event: "case.exception_expired",
          cve_id: c.cve,
          alert_id: c === covered[0] ? alertId : null,
          payload: { case_id: row.id, cve_id: c.cve, source: "register", risk: riskDetails },
        },
      ]);
    }
    const shown = (await a.call("GET", `/cases/${covered[0]!.cve}`)).json();
    expect(shown).toMatchObject({ status: "en_analyse", risque: null, exception: null });
    expect(await q("select is_read from alerts where id = $1", [alertId])).toEqual([{ is_read: false }]);
    expect(await expiry.run(at)).toMatchObject({ expired: 0, risks_expired: 0, reopened_by_register: 0, warned: 0 });
  });
});

describe("case.exception_expiring: once per expiry date, within the project's warning days", () => {
  it("warns N days before (default 7), once, and again when the expiry changes", async () => {
    await settle();
    const cve = nextCve();
    const e1 = addDays(today, 20);
    await a.call("PUT", `/cases/${cve}`, {});
    const set = (expires_on: string) =>
      a.call("PUT", `/cases/${cve}/exception`, { nature: "MITIGATED", measure: "WAF", justification: "j", expires_on });
    expect((await set(e1)).statusCode).toBe(200);
    const caseId = (await q("select id from cases where project_id = $1 and cve_id = $2", [a.projectId, cve]))[0].id;
    const alertId = await readAlert(a.project, cve);

    // E − 8 days, one second before E − 7 days: not yet.
    expect((await expiry.run(secondBefore(parisMidnight(addDays(e1, -7))))).warned).toBe(0);
    expect(await expiry.run(parisMidnight(addDays(e1, -7)))).toMatchObject({ warned: 1, expired: 0 });
    expect(await expiry.run(parisMidnight(addDays(e1, -3)))).toMatchObject({ warned: 0 });
    expect(await outbox(a.projectId, "case.exception_expiring", [cve])).toEqual([
      {
        org_id: a.orgId,
        project_id: a.projectId,
        event: "case.exception_expiring",
        cve_id: cve,
        alert_id: alertId,
        payload: { case_id: caseId, cve_id: cve, expires_on: e1, days_left: 7, source: "case" },
      },
    ]);
    // A warning leaves the case and its alert as they are.
    expect((await a.call("GET", `/cases/${cve}`)).json()).toMatchObject({ status: "attenue", exception: { expires_on: e1 } });
    expect(await q("select is_read from alerts where id = $1", [alertId])).toEqual([{ is_read: true }]);

    // Extended: the warning is re-armed for the new date.
    const e2 = addDays(e1, 5);
    expect((await set(e2)).statusCode).toBe(200);
    expect((await expiry.run(parisMidnight(addDays(e1, -3)))).warned).toBe(0);
    expect(await expiry.run(new Date(parisMidnight(e2).getTime() + 12 * 3600_000))).toMatchObject({ warned: 1, expired: 0 });
    expect((await outbox(a.projectId, "case.exception_expiring", [cve])).map((e) => e.payload)).toEqual([
      { case_id: caseId, cve_id: cve, expires_on: e1, days_left: 7, source: "case" },
      { case_id: caseId, cve_id: cve, expires_on: e2, days_left: 0, source: "case" },
    ]);
    expect((await expiry.run(secondBefore(parisMidnight(addDays(e2, 1))))).warned).toBe(0);
  });

  it("follows the project's setting, and warns for the register entry covering a case", async () => {
    await settle();
    const project = await t.services.projects.create({ orgId: b.orgId, name: "Registre" });
    const base = `/api/v1/organizations/${b.orgId}/projects/${project.id}`;
    const patched = await t.app.inject({
      method: "PATCH",
      url: `${base}/case-settings`,
      headers: bearer(b.key),
      payload: { exception_warning_days: 3 },
    });
    expect(patched.json()).toEqual({ exception_warning_days: 3 });
    const day = "2026-06-30";
    const [risk] = await q(
      "insert into risks (org_id, title, owner, justification, expires_on) values ($1, 'R', 'o', 'j', $2) returning id",
      [b.orgId, day],
    );
    const cve = nextCve();
    await JAN_2026.put({ id: project.id, orgId: b.orgId }, cve, {}, actor);
    await q("update cases set status = 'risque_accepte', risk_id = $1 where project_id = $2 and cve_id = $3", [risk.id, project.id, cve]);
    const caseId = (await q("select id from cases where project_id = $1 and cve_id = $2", [project.id, cve]))[0].id;

    expect((await expiry.run(secondBefore(parisMidnight("2026-06-27")))).warned).toBe(0);
    expect((await expiry.run(parisMidnight("2026-06-27"))).warned).toBe(1);
    expect((await expiry.run(parisMidnight("2026-06-28"))).warned).toBe(0);
    expect(await outbox(project.id, "case.exception_expiring", [cve])).toEqual([
      {
        org_id: b.orgId,
        project_id: project.id,
        event: "case.exception_expiring",
        cve_id: cve,
        alert_id: null,
        payload: { case_id: caseId, cve_id: cve, expires_on: day, days_left: 3, source: "register" },
      },
    ]);
    expect(await q("select to_char(expiry_warned_for, 'YYYY-MM-DD') as d from cases where id = $1", [caseId])).toEqual([{ d: day }]);
  });
});

describe("case settings (GET/PATCH case-settings)", () => {
  it("reads the default, changes it with cases-write, refuses out of range (422) without change", async () => {
    expect((await a.call("GET", "/case-settings")).json()).toEqual({ exception_warning_days: 7 });
    const ok = await a.call("PATCH", "/case-settings", { exception_warning_days: 30 });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ exception_warning_days: 30 });
    // ("7" would pass: the validation coerces numeric strings, as Pydantic does.)
    for (const bad of [366, -1, 2.5, "sept", null]) {
      const res = await a.call("PATCH", "/case-settings", { exception_warning_days: bad });
      expect(res.statusCode, JSON.stringify(bad)).toBe(422);
      expect(res.json()).toEqual({
        detail: [expect.objectContaining({ loc: ["body", "exception_warning_days"], msg: expect.any(String), type: expect.any(String) })],
      });
    }
    expect((await a.call("PATCH", "/case-settings", { exception_warning_days: 0 })).json()).toEqual({ exception_warning_days: 0 });
    expect((await a.call("PATCH", "/case-settings", {})).json()).toEqual({ exception_warning_days: 0 });
    expect((await a.call("PATCH", "/case-settings", { exception_warning_days: 365 })).json()).toEqual({ exception_warning_days: 365 });
    expect((await a.call("GET", "/case-settings")).json()).toEqual({ exception_warning_days: 365 });
    await a.call("PATCH", "/case-settings", { exception_warning_days: 7 });
  });

  it("needs cases-write to change (403), and another tenant's project is a 404", async () => {
    const read = await a.call("GET", "/case-settings", undefined, a.readKey);
    expect(read.statusCode).toBe(200);
    const denied = await a.call("PATCH", "/case-settings", { exception_warning_days: 1 }, a.readKey);
    expect(denied.statusCode).toBe(403);
    for (const method of ["GET", "PATCH"] as const) {
      const res = await t.app.inject({
        method,
        url: `${a.base}/case-settings`,
        headers: bearer(b.key),
        ...(method === "PATCH" && { payload: { exception_warning_days: 1 } }),
      });
      expect(res.statusCode).toBe(404);
    }
    expect((await a.call("GET", "/case-settings")).json()).toEqual({ exception_warning_days: 7 });
  });
});

import { describe, expect, it } from "vitest";
import { importFeed } from "../src/feeds/import.js";
import { addDays, parisDate } from "../src/platform/paris.js";
import { bearer, createTestApp, tenantWithScopes } from "./helpers.js";

const t = await createTestApp();
const today = parisDate(new Date());

interface Case {
  cve_id: string;
  status: string;
  severity: string | null;
  severity_manual: boolean;
  notes: string | null;
  exception: { nature: string; measure: string | null; justification: string; expires_on: string; set_at: string | null } | null;
  risque: { id: string; title: string } | null;
  tags: { id: string; name: string }[];
  history?: {
    event: string;
    from_status: string | null;
    to_status: string;
    comment: string | null;
    actor: { type: string; label: string | null };
  }[];
}

async function tenantWithKeys(name: string) {
  return tenantWithScopes(t, name, ["cases-write", "tags-write"]);
}

const a = await tenantWithKeys("Alpha");
const b = await tenantWithKeys("Beta");

describe("a case's life", () => {
  it("is created by PUT (201), updated by PUT (200), and each change has its history row with its actor", async () => {
    const created = await a.call("PUT", "/cases/cve-2099-0001", { comment: "vu en revue" });
    expect(created.statusCode).toBe(201);
    const c = created.json() as Case;
    // A CVE Vigie does not know: no severity yet.
    expect(c).toMatchObject({ cve_id: "CVE-2099-0001", status: "nouveau", severity: null, exception: null, risque: null, tags: [] });
    const updated = await a.call("PUT", "/cases/CVE-2099-0001", { status: "en_analyse", notes: "à qualifier", comment: "prise en charge" });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({ status: "en_analyse", notes: "à qualifier" });
    const detail = (await a.call("GET", "/cases/CVE-2099-0001")).json() as Case;
    expect(detail.history!.map((h) => [h.event, h.from_status, h.to_status, h.comment])).toEqual([
      ["created", null, "nouveau", "vu en revue"],
      ["status", "nouveau", "en_analyse", "prise en charge"],
      ["notes", "en_analyse", "en_analyse", "prise en charge"],
    ]);
    expect(detail.history![0]!.actor).toEqual({ type: "api_key", id: expect.any(String), label: "ci" });
  });

  it("refuses a transition the rules do not allow: 409 transition_invalide with from and to, nothing changed", async () => {
    await a.call("PUT", "/cases/CVE-2099-0002", { status: "corrige" });
    const res = await a.call("PUT", "/cases/CVE-2099-0002", { status: "en_remediation", notes: "x" });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      detail: {
        code: "transition_invalide",
        message: expect.stringContaining("corrige → en_remediation"),
        from: "corrige",
        to: "en_remediation",
      },
    });
    // attenue is reached by an exception only.
    const direct = await a.call("PUT", "/cases/CVE-2099-0002", { status: "attenue" });
    expect(direct.statusCode).toBe(409);
    const c = (await a.call("GET", "/cases/CVE-2099-0002")).json() as Case;
    expect(c.status).toBe("corrige");
    // The detail names what may follow: from corrige, only en_analyse.
    expect((c as Case & { transitions: string[] }).transitions).toEqual(["en_analyse"]);
    expect(c.notes).toBeNull();
    expect(c.history).toHaveLength(2);
  });

  it("takes the CVE's severity, follows it on import unless set by hand, and fills it in when the CVE arrives", async () => {
    await a.call("PUT", "/cases/CVE-2024-3400", {});
    await b.call("PUT", "/cases/CVE-2024-3400", { severity: "low" });
    expect(((await a.call("GET", "/cases/CVE-2024-3400")).json() as Case).severity).toBeNull();
    const r = await importFeed(t.database.db, "nvd", ["test/fixtures/import/nvd2-CVE-2024-3400.json"]);
    expect(r.errors).toEqual([]);
    expect(((await a.call("GET", "/cases/CVE-2024-3400")).json() as Case).severity).toBe("critical");
    const manual = (await b.call("GET", "/cases/CVE-2024-3400")).json() as Case;
    expect(manual).toMatchObject({ severity: "low", severity_manual: true });
    // null: follow the CVE again, at once.
    const back = (await b.call("PUT", "/cases/CVE-2024-3400", { severity: null })).json() as Case;
    expect(back).toMatchObject({ severity: "critical", severity_manual: false });
    // Asking again to follow the CVE changes nothing and writes no history row.
    const rows = ((await b.call("GET", "/cases/CVE-2024-3400")).json() as Case).history!.length;
    await b.call("PUT", "/cases/CVE-2024-3400", { severity: null });
    expect(((await b.call("GET", "/cases/CVE-2024-3400")).json() as Case).history).toHaveLength(rows);
    expect(((await a.call("PUT", "/cases/CVE-2099-0009", {})).json() as Case).severity).toBeNull();
  });

  it("an exception sets attenue, is shown with set_at, and its removal reopens the case", async () => {
    await a.call("PUT", "/cases/CVE-2099-0003", { status: "en_analyse" });
    const expires = addDays(today, 30);
    const res = await a.call("PUT", "/cases/CVE-2099-0003/exception", {
      nature: "MITIGATED",
      measure: "WAF rule 942100",
      justification: "exposé derrière le WAF",
      expires_on: expires,
    });
    expect(res.statusCode).toBe(200);
    const c = res.json() as Case;
    expect(c.status).toBe("attenue");
    expect(c.exception).toEqual({
      nature: "MITIGATED",
      measure: "WAF rule 942100",
      justification: "exposé derrière le WAF",
      expires_on: expires,
      set_at: expect.any(String),
    });
    const removed = await a.call("DELETE", "/cases/CVE-2099-0003/exception", { comment: "patch appliqué" });
    expect(removed.json()).toMatchObject({ status: "en_analyse", exception: null });
    const h = ((await a.call("GET", "/cases/CVE-2099-0003")).json() as Case).history!;
    expect(h.map((x) => [x.event, x.from_status, x.to_status])).toEqual([
      ["created", null, "nouveau"],
      ["status", "nouveau", "en_analyse"],
      ["exception_set", "en_analyse", "attenue"],
      ["exception_removed", "attenue", "en_analyse"],
    ]);
  });

  it("refuses a past expires_on (Paris), a MITIGATED without measure, a non-CVE id and an unknown status: 422, nothing changed", async () => {
    await a.call("PUT", "/cases/CVE-2099-0004", {});
    const past = await a.call("PUT", "/cases/CVE-2099-0004/exception", {
      nature: "MITIGATED",
      justification: "j",
      expires_on: addDays(today, -1),
    });
    expect(past.statusCode).toBe(422);
    expect((past.json() as { detail: { loc: string[] }[] }).detail.map((d) => d.loc)).toEqual([
      ["body", "expires_on"],
      ["body", "measure"],
    ]);
    const notCve = await a.call("PUT", "/cases/GHSA-xxxx", {});
    expect(notCve.statusCode).toBe(422);
    expect((notCve.json() as { detail: { type: string; loc: string[] }[] }).detail[0]).toMatchObject({
      type: "string_pattern_mismatch",
      loc: ["path", "cve_id"],
    });
    const status = await a.call("PUT", "/cases/CVE-2099-0004", { status: "ferme" });
    expect(status.statusCode).toBe(422);
    expect(((await a.call("GET", "/cases/CVE-2099-0004")).json() as Case).history).toHaveLength(1);
  });

  it("needs cases-write to write, and another tenant's case is a 404", async () => {
    const noScope = await a.call("PUT", "/cases/CVE-2099-0001", { notes: "x" }, a.readKey);
    expect(noScope.statusCode).toBe(403);
    expect((await a.call("GET", "/cases/CVE-2099-0001", undefined, a.readKey)).statusCode).toBe(200);
    expect((await b.call("GET", "/cases/CVE-2099-0001")).statusCode).toBe(404);
    const foreign = await t.app.inject({
      method: "GET",
      url: `${a.base}/cases/CVE-2099-0001`,
      headers: bearer(b.key),
    });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ detail: "Projet introuvable" });
  });

  it("tags a case with the project's tags", async () => {
    const tag = await t.services.tags.create({ id: a.projectId, orgId: a.orgId }, { name: "prod", color: "#ff0000" });
    expect((await a.call("POST", "/cases/CVE-2099-0001/tags", { tag_id: tag.id })).statusCode).toBe(204);
    const c = (await a.call("GET", "/cases/CVE-2099-0001")).json() as Case;
    expect(c.tags.map((x) => x.name)).toEqual(["prod"]);
    expect(c.history!.at(-1)!.event).toBe("tag_added");
    const foreignTag = await t.services.tags.create({ id: b.projectId, orgId: b.orgId }, { name: "x", color: "#ff0000" });
    expect((await a.call("POST", "/cases/CVE-2099-0001/tags", { tag_id: foreignTag.id })).statusCode).toBe(404);
  });
});

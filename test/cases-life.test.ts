import { describe, expect, it } from "vitest";
import { addDays, parisDate, parisMidnight } from "../src/platform/paris.js";
import { bearer, createTestApp, tenantWithScopes } from "./helpers.js";

/**
 * The "done when": one case through its whole life — created by hand, analysed, mitigated
 * with an exception, reopened by the expiry job at 00:00 Paris the day after expires_on and not a
 * minute before, covered by a register entry, closed — every step in its history, and another
 * tenant sees none of it.
 */
const t = await createTestApp();
const a = await tenantWithScopes(t, "Alpha", ["cases-write"]);
const b = await tenantWithScopes(t, "Beta", ["cases-write"]);

interface History {
  event: string;
  from_status: string | null;
  to_status: string;
  comment: string | null;
  actor: { type: string; label: string | null };
  details: Record<string, unknown> | null;
}

describe("a case's whole life", () => {
  it("created, analysed, mitigated, reopened at 00:00 Paris, covered by the register, closed — each step in its history", async () => {
    const expires = addDays(parisDate(new Date()), 10);
    expect((await a.call("PUT", "/cases/CVE-2024-3400", { comment: "vu dans le bulletin" })).statusCode).toBe(201);
    expect((await a.call("PUT", "/cases/CVE-2024-3400", { status: "en_analyse", comment: "qualification" })).statusCode).toBe(200);
    const mitigated = await a.call("PUT", "/cases/CVE-2024-3400/exception", {
      nature: "MITIGATED",
      measure: "télémétrie désactivée",
      justification: "correctif pas encore publié",
      expires_on: expires,
      comment: "contournement de l'éditeur",
    });
    expect(mitigated.json()).toMatchObject({ status: "attenue", exception: { nature: "MITIGATED", expires_on: expires } });

    // One minute before 00:00 Paris the day after: still in force; at 00:00: reopened.
    const midnight = parisMidnight(addDays(expires, 1));
    expect((await t.services.caseExpiry.run(new Date(midnight.getTime() - 60_000))).expired).toBe(0);
    expect((await a.call("GET", "/cases/CVE-2024-3400")).json()).toMatchObject({ status: "attenue" });
    expect((await t.services.caseExpiry.run(midnight)).expired).toBe(1);
    expect((await a.call("GET", "/cases/CVE-2024-3400")).json()).toMatchObject({ status: "en_analyse", exception: null });

    const risk = await t.app.inject({
      method: "POST",
      url: `/api/v1/organizations/${a.orgId}/risks`,
      headers: bearer(a.key),
      payload: {
        title: "PAN-OS en attente de migration",
        owner: "RSSI",
        justification: "interface de gestion isolée",
        expires_on: addDays(expires, 90),
        cases: [{ project_id: a.projectId, cve_id: "CVE-2024-3400" }],
        comment: "comité des risques",
      },
    });
    expect(risk.statusCode, risk.body).toBe(201);
    const riskId = (risk.json() as { id: string }).id;
    expect((await a.call("GET", "/cases/CVE-2024-3400")).json()).toMatchObject({ status: "risque_accepte", risque: { id: riskId } });

    const closed = await a.call("PUT", "/cases/CVE-2024-3400", { status: "corrige", comment: "migré en 11.1" });
    expect(closed.json()).toMatchObject({ status: "corrige", risque: null, exception: null });

    const detail = (await a.call("GET", "/cases/CVE-2024-3400")).json() as { history: History[] };
    expect(detail.history.map((h) => [h.event, h.from_status, h.to_status, h.comment, h.actor.type])).toEqual([
      ["created", null, "nouveau", "vu dans le bulletin", "api_key"],
      ["status", "nouveau", "en_analyse", "qualification", "api_key"],
      ["exception_set", "en_analyse", "attenue", "contournement de l'éditeur", "api_key"],
      ["exception_expired", "attenue", "en_analyse", null, "job"],
      ["risk_linked", "en_analyse", "risque_accepte", "comité des risques", "api_key"],
      ["risk_unlinked", "risque_accepte", "corrige", "migré en 11.1", "api_key"],
    ]);
    // What expired and what covered the case are kept in the history.
    expect(detail.history[3]!.details).toMatchObject({
      exception: { nature: "MITIGATED", measure: "télémétrie désactivée", expires_on: expires },
    });
    expect(detail.history[4]!.details).toMatchObject({ risk: { id: riskId, title: "PAN-OS en attente de migration" } });

    // Another tenant sees none of it.
    expect((await b.call("GET", "/cases/CVE-2024-3400")).statusCode).toBe(404);
    expect((await b.call("GET", "/cases")).json()).toMatchObject({ total: 0 });
    const foreign = await t.app.inject({ method: "GET", url: `/api/v1/organizations/${a.orgId}/risks/${riskId}`, headers: bearer(b.key) });
    expect(foreign.statusCode).toBe(404);
    const foreignCase = await t.app.inject({ method: "GET", url: `${a.base}/cases/CVE-2024-3400`, headers: bearer(b.key) });
    expect(foreignCase.json()).toEqual({ detail: "Projet introuvable" });
  });
});

/**
 * A case's VEX justification (justification_vex): set only with non_concerne, in the history, and
 * cleared whenever the case leaves non_concerne — by PUT, by the bulk change, and never by the
 * workflow engine, whose only case action (create_case) changes no status.
 */
import { describe, expect, it } from "vitest";
import { createTestApp, tenantWithScopes } from "./helpers.js";

const t = await createTestApp();
const a = await tenantWithScopes(t, "Cases VEX", ["cases-write"]);

const get = async (cve: string) => (await a.call("GET", `/cases/${cve}`)).json();

describe("justification_vex on a case", () => {
  it("PUT: taken with non_concerne, shown, written to the history; 422 on another status, nothing changed", async () => {
    const created = await a.call("PUT", "/cases/CVE-2099-7001", {
      status: "non_concerne",
      justification_vex: "inline_mitigations_already_exist",
      comment: "WAF",
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ status: "non_concerne", justification_vex: "inline_mitigations_already_exist" });
    const h = (await get("CVE-2099-7001")).history;
    expect(h.at(-1)).toMatchObject({
      event: "status",
      to_status: "non_concerne",
      details: { justification_vex: "inline_mitigations_already_exist" },
    });

    await a.call("PUT", "/cases/CVE-2099-7002", { status: "en_analyse" });
    const refused = await a.call("PUT", "/cases/CVE-2099-7002", { justification_vex: "component_not_present", notes: "x" });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().detail[0]).toMatchObject({ loc: ["body", "justification_vex"], msg: expect.stringContaining("non_concerne") });
    const also = await a.call("PUT", "/cases/CVE-2099-7002", { status: "corrige", justification_vex: "component_not_present" });
    expect(also.statusCode).toBe(422);
    expect(await get("CVE-2099-7002")).toMatchObject({ status: "en_analyse", notes: null, justification_vex: null });
    const bad = await a.call("PUT", "/cases/CVE-2099-7002", { status: "non_concerne", justification_vex: "not_exploitable" });
    expect(bad.statusCode).toBe(422);
  });

  it("PUT on a case already non_concerne changes the justification (a vex_justification history row); leaving non_concerne clears it", async () => {
    const r = await a.call("PUT", "/cases/CVE-2099-7001", { justification_vex: "vulnerable_code_not_present" });
    expect(r.json().justification_vex).toBe("vulnerable_code_not_present");
    expect((await get("CVE-2099-7001")).history.at(-1)).toMatchObject({
      event: "vex_justification",
      details: { from: "inline_mitigations_already_exist", to: "vulnerable_code_not_present" },
    });
    const reopened = await a.call("PUT", "/cases/CVE-2099-7001", { status: "en_analyse", comment: "à revoir" });
    expect(reopened.json()).toMatchObject({ status: "en_analyse", justification_vex: null });
    expect((await get("CVE-2099-7001")).history.at(-1)).toMatchObject({
      event: "status",
      details: { justification_vex: null, previous_justification_vex: "vulnerable_code_not_present" },
    });
    // Back to non_concerne without one: none (the old one does not come back).
    expect((await a.call("PUT", "/cases/CVE-2099-7001", { status: "non_concerne" })).json().justification_vex).toBeNull();
  });

  it("bulk: set with status non_concerne, alone on cases all non_concerne (422 otherwise), cleared when they leave", async () => {
    for (const id of ["CVE-2099-7101", "CVE-2099-7102", "CVE-2099-7103"]) await a.call("PUT", `/cases/${id}`, {});
    const ids = ["CVE-2099-7101", "CVE-2099-7102"];
    const set = await a.call("POST", "/cases/bulk", {
      cve_ids: ids,
      set: { status: "non_concerne", justification_vex: "component_not_present" },
    });
    expect(set.json()).toMatchObject({ matched: 2, updated: 2 });
    for (const id of ids) expect(await get(id)).toMatchObject({ status: "non_concerne", justification_vex: "component_not_present" });
    expect((await get(ids[0]!)).history.at(-1).details).toEqual({ justification_vex: "component_not_present" });

    const mixed = await a.call("POST", "/cases/bulk", {
      cve_ids: [...ids, "CVE-2099-7103"],
      set: { justification_vex: "vulnerable_code_not_present" },
    });
    expect(mixed.statusCode).toBe(422);
    expect(mixed.json().detail[0].msg).toContain("CVE-2099-7103");
    const wrong = await a.call("POST", "/cases/bulk", {
      cve_ids: ids,
      set: { status: "en_analyse", justification_vex: "component_not_present" },
    });
    expect(wrong.statusCode).toBe(422);

    const alone = await a.call("POST", "/cases/bulk", { cve_ids: ids, set: { justification_vex: "vulnerable_code_not_present" } });
    expect(alone.json()).toMatchObject({ matched: 2, updated: 2 });
    expect(await get(ids[1]!)).toMatchObject({ justification_vex: "vulnerable_code_not_present" });
    expect((await get(ids[1]!)).history.at(-1)).toMatchObject({ event: "vex_justification" });

    const leave = await a.call("POST", "/cases/bulk", { cve_ids: ids, set: { status: "en_analyse" } });
    expect(leave.json()).toMatchObject({ updated: 2 });
    for (const id of ids) expect(await get(id)).toMatchObject({ status: "en_analyse", justification_vex: null });
    expect((await get(ids[0]!)).history.at(-1).details).toEqual({
      justification_vex: null,
      previous_justification_vex: "vulnerable_code_not_present",
    });
  });

  it("the workflow engine's create_case leaves a non_concerne case and its justification as they are", async () => {
    await a.call("PUT", "/cases/CVE-2099-7201", { status: "non_concerne", justification_vex: "component_not_present" });
    const created = await t.services.cases.openForWorkflow(
      a.project,
      "CVE-2099-7201",
      { type: "workflow", id: null, label: "wf" },
      { severity: "high" },
    );
    expect(created).toBe(false);
    expect(await get("CVE-2099-7201")).toMatchObject({ status: "non_concerne", justification_vex: "component_not_present" });
  });
});

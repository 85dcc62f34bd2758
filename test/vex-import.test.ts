/**
 * VEX in: a supplier's document proposes, the team decides. Real published documents
 * (test/fixtures/vex/SOURCES.md) against a project alerted for Log4Shell and Apache Tomcat by real
 * records; an OpenVEX document exported by Vigie itself for the OpenVEX not_affected path.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { importFeed } from "../src/feeds/import.js";
import { bearer, createTestApp, tenantWithScopes } from "./helpers.js";
import { openVexErrors } from "./vex-validators.js";

const t = await createTestApp();
for (const [source, path] of [
  ["cve5", "test/fixtures/matching/cve5-tomcat.jsonl"],
  ["osv", "test/fixtures/feeds/osv/GHSA-jfh8-c2jp-5v3q.json"],
] as const) {
  expect((await importFeed(t.database.db, source, [path])).errors).toEqual([]);
}
const TOMCAT = { item_type: "cpe", value: "cpe:2.3:a:apache:tomcat:9.0.80:*:*:*:*:*:*:*" };
const LOG4J = { item_type: "purl", value: "pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1" };
const fixture = (name: string) => JSON.parse(readFileSync(`test/fixtures/vex/${name}`, "utf8")) as Record<string, unknown>;

async function project(name: string) {
  const p = await tenantWithScopes(t, name, ["stacks-write", "cases-write"]);
  expect((await p.call("POST", "/stacks", { name: "App", items: [TOMCAT, LOG4J] })).statusCode).toBe(201);
  return p;
}

interface Proposal {
  id: string;
  cve_id: string;
  status: string;
  vex_status: string;
  justification: string | null;
  impact_statement: string | null;
  products: string[];
  source: { format: string; document: string; author: string | null; timestamp: string | null };
  decided_by: { type: string; label: string | null } | null;
  decision_comment: string | null;
  case_status: string | null;
}

const b = await project("Beta VEX");
const proposals = async (p = b, q = "") => (await p.call("GET", `/vex/proposals${q}`)).json() as { items: Proposal[]; total: number };
const caseOf = async (p: typeof b, cve: string) => p.call("GET", `/cases/${cve}`);

describe("VEX import: proposals, never a silent change", () => {
  it("a CycloneDX supplier VEX (CISA use case 1): one proposal, its justification mapped back, no case touched", async () => {
    const r = await b.call("POST", "/vex", fixture("cdx-cisa-case1-not_affected.json"));
    expect(r.statusCode, r.body).toBe(200);
    const out = r.json();
    expect(out).toMatchObject({ format: "cyclonedx", proposees: 1, deja_connues: 0, ignorees: { count: 0, items: [] } });
    // No serialNumber in that document: its identity is the digest of its content.
    expect(out.document).toMatch(/^sha256:[0-9a-f]{64}$/);
    const [p] = (await proposals()).items;
    expect(p).toMatchObject({
      cve_id: "CVE-2021-44228",
      status: "proposee",
      vex_status: "not_affected",
      justification: "vulnerable_code_not_present",
      impact_statement: expect.stringContaining("Class with vulnerable code was removed"),
      products: ["ABC 4.2"],
      source: { format: "cyclonedx", document: out.document, author: null, timestamp: "2022-03-03T00:00:00.000Z" },
      case_status: null,
    });
    expect((await caseOf(b, "CVE-2021-44228")).statusCode).toBe(404);

    // The same document again: nothing twice.
    const again = (await b.call("POST", "/vex", fixture("cdx-cisa-case1-not_affected.json"))).json();
    expect(again).toMatchObject({ proposees: 0, deja_connues: 1 });
    expect((await proposals()).total).toBe(1);
  });

  it("a CSAF csaf_vex (OASIS example): known_not_affected with an impact threat and no flag; an OpenVEX 'fixed' and an unknown CVE are ignored with the reason", async () => {
    const r = (await b.call("POST", "/vex", fixture("csaf-oasis-2022-evd-uc-01-na-001.json"))).json();
    expect(r).toMatchObject({ format: "csaf", document: "2022-EVD-UC-01-NA-001", proposees: 1, deja_connues: 0 });
    const p = (await proposals()).items.find((x) => x.source.format === "csaf")!;
    expect(p).toMatchObject({
      cve_id: "CVE-2021-44228",
      vex_status: "known_not_affected",
      justification: null,
      impact_statement: "Class with vulnerable code was removed before shipping.",
      products: ["Example Company ABC 4.2"],
      source: { author: "Example Company ProductCERT", timestamp: "2022-03-03T11:00:00.000Z" },
    });
    const o = (await b.call("POST", "/vex", fixture("openvex-vexctl-demo.vex.json"))).json();
    expect(o).toMatchObject({
      format: "openvex",
      document: "https://openvex.dev/docs/public/vex-d7653e1c3ccc092c02e2cfd2b12549be29264ff28f9f704f599613b007584dbe",
      proposees: 0,
      ignorees: { count: 1, items: [{ cve_id: "CVE-2014-123456", raison: "statut fixed : seul not_affected est proposé" }] },
    });
  });

  it("the team accepts: the case (created from the alert) becomes non_concerne with the statement's justification, its history citing the source", async () => {
    const p = (await proposals()).items.find((x) => x.source.format === "cyclonedx")!;
    const r = await b.call("POST", `/vex/proposals/${p.id}/accept`, { comment: "vérifié sur le build" });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json()).toMatchObject({
      status: "acceptee",
      case_status: "non_concerne",
      decided_by: { type: "api_key", label: "ci" },
      decision_comment: "vérifié sur le build",
    });
    const c = (await caseOf(b, "CVE-2021-44228")).json();
    expect(c).toMatchObject({ status: "non_concerne", justification_vex: "vulnerable_code_not_present" });
    const last = c.history.at(-1);
    expect(last).toMatchObject({ event: "status", from_status: "nouveau", to_status: "non_concerne" });
    expect(last.comment).toContain(p.source.document);
    expect(last.comment).toContain("vérifié sur le build");
    expect(last.details).toMatchObject({
      justification_vex: "vulnerable_code_not_present",
      vex: { proposal_id: p.id, format: "cyclonedx", document: p.source.document },
    });
    // Decided once.
    const twice = await b.call("POST", `/vex/proposals/${p.id}/accept`, {});
    expect(twice.statusCode).toBe(409);
    expect(twice.json().detail).toMatchObject({ code: "proposition_decidee", status: "acceptee" });
  });

  it("the team rejects: the case is left as it is; importing the document again does not reopen the decision", async () => {
    const p = (await proposals(b, "?status=proposee")).items[0]!;
    expect(p.source.format).toBe("csaf");
    const before = (await caseOf(b, "CVE-2021-44228")).json();
    const r = await b.call("POST", `/vex/proposals/${p.id}/reject`, { comment: "produit différent du nôtre" });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: "rejetee", decision_comment: "produit différent du nôtre", case_status: "non_concerne" });
    expect((await caseOf(b, "CVE-2021-44228")).json().history).toHaveLength(before.history.length);
    const again = (await b.call("POST", "/vex", fixture("csaf-oasis-2022-evd-uc-01-na-001.json"))).json();
    expect(again).toMatchObject({ proposees: 0, deja_connues: 1 });
    expect((await proposals(b, "?status=rejetee")).items.map((x) => x.id)).toEqual([p.id]);
    expect((await proposals(b, "?status=proposee")).total).toBe(0);
  });

  it("an OpenVEX document (exported by another project) proposes; accepting from corrige is a 409 transition_invalide", async () => {
    await b.call("PUT", "/cases/CVE-2024-34750", {
      status: "non_concerne",
      justification_vex: "vulnerable_code_cannot_be_controlled_by_adversary",
    });
    await b.call("PUT", "/cases/CVE-2024-23672", { status: "non_concerne", notes: "module AJP absent" });
    const doc = (await b.call("GET", "/vex?format=openvex")).json();
    expect(openVexErrors(doc)).toEqual([]);

    const c = await project("Gamma VEX");
    await c.call("PUT", "/cases/CVE-2024-34750", { status: "corrige" });
    const r = (await c.call("POST", "/vex", doc)).json();
    // not_affected: CVE-2021-44228 (accepted in Beta), CVE-2024-34750, CVE-2024-23672; the others are under investigation.
    expect(r).toMatchObject({ format: "openvex", document: doc["@id"], proposees: 3 });
    expect(r.ignorees.items.every((i: { raison: string }) => i.raison.startsWith("statut under_investigation"))).toBe(true);
    const list = (await proposals(c)).items;
    const j = list.find((x) => x.cve_id === "CVE-2024-34750")!;
    expect(j).toMatchObject({ justification: "vulnerable_code_cannot_be_controlled_by_adversary", case_status: "corrige" });
    const refused = await c.call("POST", `/vex/proposals/${j.id}/accept`, {});
    expect(refused.statusCode).toBe(409);
    expect(refused.json().detail).toMatchObject({ code: "transition_invalide", from: "corrige", to: "non_concerne" });
    expect((await caseOf(c, "CVE-2024-34750")).json().status).toBe("corrige");
    expect((await proposals(c)).items.find((x) => x.id === j.id)!.status).toBe("proposee");
    // Without a justification, its impact statement travels.
    const ajp = list.find((x) => x.cve_id === "CVE-2024-23672")!;
    expect(ajp).toMatchObject({ justification: null, impact_statement: "module AJP absent" });
  });

  it("a statement for a CVE the project has neither alert nor case for is ignored; with only a case it proposes", async () => {
    const d = await tenantWithScopes(t, "Delta VEX", ["cases-write"]);
    const r1 = (await d.call("POST", "/vex", fixture("csaf-oasis-2022-evd-uc-01-na-001.json"))).json();
    expect(r1).toMatchObject({
      proposees: 0,
      ignorees: { count: 1, items: [{ cve_id: "CVE-2021-44228", raison: expect.stringContaining("ni alerte ni dossier") }] },
    });
    await d.call("PUT", "/cases/CVE-2021-44228", {});
    const r2 = (await d.call("POST", "/vex", fixture("csaf-oasis-2022-evd-uc-01-na-001.json"))).json();
    expect(r2).toMatchObject({ proposees: 1 });
  });

  it("an OpenVEX statement with a justification and an impact statement (Rancher's VEX Hub, the pattern the specification recommends) proposes, both kept", async () => {
    const doc = fixture("openvex-rancher-vexhub-mangle-test-json.json");
    expect(openVexErrors(doc)).toEqual([]);
    const r = await b.call("POST", "/vex", doc);
    expect(r.statusCode, r.body).toBe(200);
    // Neither alert nor case yet: read, not refused.
    expect(r.json()).toMatchObject({ format: "openvex", proposees: 0, ignorees: { count: 1, items: [{ cve_id: "CVE-2026-39824" }] } });
    await b.call("PUT", "/cases/CVE-2026-39824", {});
    const again = (await b.call("POST", "/vex", doc)).json();
    expect(again).toMatchObject({ format: "openvex", document: doc["@id"], proposees: 1 });
    const p = (await proposals()).items.find((x) => x.cve_id === "CVE-2026-39824")!;
    expect(p).toMatchObject({
      vex_status: "not_affected",
      justification: "vulnerable_code_not_present",
      impact_statement: "Govulncheck determined that the vulnerable code isn't called",
      source: { format: "openvex", author: "Rancher Security team" },
    });
    expect(p.products).toEqual(expect.arrayContaining(["pkg:golang/golang.org/x/sys@v0.7.0"]));
  });

  it("a document its schema refuses: 422 with the JSON pointer of each fault, nothing written", async () => {
    const e = await project("Epsilon VEX");
    const bad = fixture("csaf-oasis-2022-evd-uc-01-na-001.json") as { document: { category: string } };
    bad.document.category = "";
    const r = await e.call("POST", "/vex", bad);
    expect(r.statusCode).toBe(422);
    expect(r.json().detail[0]).toMatchObject({ type: "value_error", loc: ["body", "document", "category"] });
    expect(r.json().detail[0].msg).toContain("/document/category");

    const noAuthor = fixture("openvex-vexctl-demo.vex.json");
    delete noAuthor.author;
    const o = await e.call("POST", "/vex", noAuthor);
    expect(o.statusCode).toBe(422);
    expect(o.json().detail[0].msg).toContain("author");

    const cdx = fixture("cdx-cisa-case1-not_affected.json") as { vulnerabilities: { analysis: { state: string } }[] };
    cdx.vulnerabilities[0]!.analysis.state = "harmless";
    const x = await e.call("POST", "/vex", cdx);
    expect(x.statusCode).toBe(422);
    expect(x.json().detail.map((i: { loc: unknown[] }) => i.loc)).toContainEqual(["body", "vulnerabilities", 0, "analysis", "state"]);

    const unknown = await e.call("POST", "/vex", { spdxVersion: "SPDX-2.3" });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().detail[0].msg).toContain("format VEX non reconnu");
    expect((await proposals(e)).total).toBe(0);
  });

  it("needs cases-write to import or decide; another organization's proposal is a 404", async () => {
    const p = (await proposals(b)).items[0]!;
    const ro = await b.call("POST", "/vex", fixture("csaf-oasis-2022-evd-uc-01-na-001.json"), b.readKey);
    expect(ro.statusCode).toBe(403);
    expect((await b.call("POST", `/vex/proposals/${p.id}/reject`, {}, b.readKey)).statusCode).toBe(403);
    expect((await b.call("GET", "/vex/proposals", undefined, b.readKey)).statusCode).toBe(200);
    const other = await tenantWithScopes(t, "Zeta VEX", ["cases-write"]);
    const r = await other.call("POST", `/vex/proposals/${p.id}/accept`, {});
    expect(r.statusCode).toBe(404);
    const cross = await t.app.inject({
      method: "POST",
      url: `${b.base}/vex/proposals/${p.id}/accept`,
      headers: bearer(other.key),
      payload: {},
    });
    expect(cross.statusCode).toBe(404);
  });
});

/**
 * VEX out: a project's alerted CVEs and what its cases say, as CycloneDX 1.6, CSAF 2.0 (csaf_vex)
 * and OpenVEX 0.2, each held to its official validator (test/vex-validators.ts). Real data: the
 * Apache Tomcat CVE records (cpe item), Django's PYSEC advisory (purl item) and Log4Shell's GHSA
 * (purl item), as the other matching tests import them.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { importFeed } from "../src/feeds/import.js";
import { addDays, parisDate } from "../src/platform/paris.js";
import { bearer, createTestApp, tenantWithScopes } from "./helpers.js";
import { CSAF_MANDATORY_TESTS, csafFailures, cycloneDxErrors, openVexErrors } from "./vex-validators.js";

const t = await createTestApp();
const MATCH = "test/fixtures/matching";
for (const [source, path] of [
  ["cve5", `${MATCH}/cve5-tomcat.jsonl`],
  ["cve5", `${MATCH}/cve5-django.jsonl`],
  ["osv", `${MATCH}/osv-django.jsonl`],
  ["osv", "test/fixtures/feeds/osv/GHSA-jfh8-c2jp-5v3q.json"],
] as const) {
  expect((await importFeed(t.database.db, source, [path])).errors).toEqual([]);
}

const TOMCAT = "cpe:2.3:a:apache:tomcat:9.0.80:*:*:*:*:*:*:*";
const DJANGO = "pkg:pypi/django@4.2.1";
const LOG4J = "pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1";
const expiry = addDays(parisDate(new Date()), 30);

const a = await tenantWithScopes(t, "Alpha VEX", ["stacks-write", "cases-write"]);
expect((await a.call("POST", "/stacks", { name: "Web", items: [TOMCAT, DJANGO, LOG4J].map(itemOf) })).statusCode).toBe(201);

function itemOf(value: string) {
  return { item_type: value.startsWith("pkg:") ? "purl" : "cpe", value };
}

async function put(cve: string, body: object) {
  const r = await a.call("PUT", `/cases/${cve}`, body);
  expect(r.statusCode, r.body).toBeLessThan(300);
}

async function exported(format: string, who = a) {
  const r = await who.call("GET", `/vex?format=${format}`);
  return r;
}

type Cdx = {
  serialNumber: string;
  metadata: { timestamp: string; authors: { name: string }[]; supplier: { name: string }; component: { name: string; "bom-ref": string } };
  components: { "bom-ref": string; name: string; version?: string; purl?: string; cpe?: string }[];
  vulnerabilities: {
    id: string;
    analysis: { state: string; justification?: string; response?: string[]; detail?: string };
    affects: { ref: string }[];
    properties?: { name: string; value: string }[];
    ratings?: { score?: number; severity?: string; method?: string }[];
    cwes?: number[];
  }[];
};
type Csaf = {
  document: { category: string; publisher: { name: string }; tracking: { id: string } };
  product_tree: {
    full_product_names: { name: string; product_id: string; product_identification_helper?: Record<string, string> }[];
    relationships: { full_product_name: { product_id: string }; product_reference: string }[];
  };
  vulnerabilities: {
    cve: string;
    product_status: Record<string, string[]>;
    flags?: { label: string; product_ids: string[] }[];
    threats?: { category: string; details: string }[];
    remediations?: { category: string; details: string; date?: string }[];
  }[];
};
type OpenVex = {
  "@id": string;
  author: string;
  statements: {
    vulnerability: { name: string };
    status: string;
    justification?: string;
    impact_statement?: string;
    status_notes?: string;
    action_statement?: string;
    action_statement_timestamp?: string;
    products: { "@id": string; subcomponents: { "@id": string; identifiers?: Record<string, string> }[] }[];
  }[];
};

/** The three documents, each checked against its validator. */
async function allThree(who = a): Promise<{ cdx: Cdx; csaf: Csaf; ovx: OpenVex }> {
  const c = await exported("cyclonedx", who);
  expect(c.statusCode).toBe(200);
  expect(c.headers["content-type"]).toMatch(/^application\/vnd\.cyclonedx\+json(;|$)/);
  expect(c.headers["content-disposition"]).toBe(`attachment; filename="vex-${who.projectId}.cdx.json"`);
  expect(await cycloneDxErrors(c.body)).toBeNull();
  const s = await exported("csaf", who);
  expect(s.statusCode).toBe(200);
  expect(s.headers["content-type"]).toMatch(/^application\/json/);
  expect(s.headers["content-disposition"]).toBe(`attachment; filename="vex-${who.projectId}.csaf.json"`);
  const csaf = s.json() as Csaf;
  expect(await csafFailures(csaf)).toEqual([]);
  const o = await exported("openvex", who);
  expect(o.statusCode).toBe(200);
  const ovx = o.json() as OpenVex;
  expect(openVexErrors(ovx)).toEqual([]);
  return { cdx: JSON.parse(c.body) as Cdx, csaf, ovx };
}

const vulnOf = (d: Cdx, cve: string) => d.vulnerabilities.find((v) => v.id === cve)!;
const csafOf = (d: Csaf, cve: string) => d.vulnerabilities.find((v) => v.cve === cve)!;
const stmtOf = (d: OpenVex, cve: string) => d.statements.find((s) => s.vulnerability.name === cve)!;

describe("VEX export", () => {
  it("the CSAF and CVSS schemas the import reads (assets/schemas) are the validator package's, unchanged", async () => {
    const lib = "@secvisogram/csaf-validator-lib";
    const asset = (n: string) => JSON.parse(readFileSync(`assets/schemas/${n}`, "utf8"));
    expect(asset("csaf_json_schema_2.0.json")).toEqual((await import(`${lib}/lib/schemaTests/csaf_2_0/schema.js`)).default);
    for (const v of ["2.0", "3.0", "3.1"]) expect(asset(`cvss-v${v}.json`)).toEqual((await import(`${lib}/schemas/cvss-v${v}.js`)).default);
  });

  it("runs the csaf_vex profile's mandatory tests (6.1.27.x) among the CSAF checks", () => {
    for (const n of ["1", "4", "5", "6", "7", "8", "9", "10", "11"]) expect(CSAF_MANDATORY_TESTS).toContain(`mandatoryTest_6_1_27_${n}`);
  });

  it("writes every alerted CVE with its case's analysis, in all three formats, each valid against its official schema", async () => {
    await put("CVE-2023-45648", {});
    await put("CVE-2023-46589", { status: "en_analyse" });
    await put("CVE-2024-23672", { status: "en_remediation", notes: "montée de version prévue" });
    await put("CVE-2024-24549", { status: "corrige" });
    await put("CVE-2024-34750", {
      status: "non_concerne",
      justification_vex: "vulnerable_code_not_in_execute_path",
      notes: "le connecteur HTTP/2 n'est pas activé",
    });
    await put("CVE-2023-36053", {});
    const ex = await a.call("PUT", "/cases/CVE-2023-36053/exception", {
      nature: "MITIGATED",
      measure: "EmailValidator remplacé par une expression bornée",
      justification: "correctif applicatif en place",
      expires_on: expiry,
    });
    expect(ex.statusCode).toBe(200);
    await put("CVE-2021-44228", {});
    expect(
      (
        await a.call("PUT", "/cases/CVE-2021-44228/exception", {
          nature: "ACCEPTED_RISK",
          justification: "serveur isolé, décommission prévue",
          expires_on: expiry,
        })
      ).statusCode,
    ).toBe(200);

    const { cdx, csaf, ovx } = await allThree();
    const cves = [
      "CVE-2021-44228",
      "CVE-2023-36053",
      "CVE-2023-42795",
      "CVE-2023-45648",
      "CVE-2023-46589",
      "CVE-2024-23672",
      "CVE-2024-24549",
      "CVE-2024-34750",
    ];
    expect(cdx.vulnerabilities.map((v) => v.id).sort()).toEqual(cves);
    expect(csaf.vulnerabilities.map((v) => v.cve)).toEqual(cves);
    expect(ovx.statements.map((s) => s.vulnerability.name)).toEqual(cves);

    // The organization is the author; the project is the BOM's subject, the matched items its components.
    const org = (await t.database.executeSql("select name from organizations where id = $1", [a.orgId])).rows[0] as { name: string };
    expect(cdx.metadata.supplier.name).toBe(org.name);
    expect(cdx.metadata.authors).toEqual([{ name: org.name }]);
    expect(csaf.document.publisher.name).toBe(org.name);
    expect(ovx.author).toBe(org.name);
    expect(cdx.metadata.component.name).toBe("Production");
    expect(cdx.components.map((c) => c.purl ?? c.cpe).sort()).toEqual([TOMCAT, LOG4J, DJANGO].sort());
    const tomcat = cdx.components.find((c) => c.cpe === TOMCAT)!;
    expect(tomcat).toMatchObject({ name: "apache tomcat", version: "9.0.80" });
    expect(vulnOf(cdx, "CVE-2024-34750").affects).toEqual([{ ref: tomcat["bom-ref"] }]);
    expect(csaf.product_tree.full_product_names.find((p) => p.product_identification_helper?.purl === LOG4J)).toBeDefined();
    expect(csaf.product_tree.full_product_names.find((p) => p.product_identification_helper?.cpe === TOMCAT)).toBeDefined();
    expect(stmtOf(ovx, "CVE-2021-44228").products[0]!.subcomponents).toEqual([{ "@id": LOG4J, identifiers: { purl: LOG4J } }]);
    expect(stmtOf(ovx, "CVE-2024-34750").products[0]!.subcomponents[0]!.identifiers).toEqual({ cpe23: TOMCAT });

    // non_concerne with its justification: carried, mapped, by all three.
    expect(vulnOf(cdx, "CVE-2024-34750").analysis).toEqual({
      state: "not_affected",
      justification: "code_not_reachable",
      detail: "le connecteur HTTP/2 n'est pas activé",
    });
    expect(vulnOf(cdx, "CVE-2024-34750").properties).toContainEqual({
      name: "vigie:justification_vex",
      value: "vulnerable_code_not_in_execute_path",
    });
    const na = csafOf(csaf, "CVE-2024-34750");
    expect(Object.keys(na.product_status)).toEqual(["known_not_affected"]);
    expect(na.flags?.map((f) => f.label)).toEqual(["vulnerable_code_not_in_execute_path"]);
    expect(na.threats).toMatchObject([{ category: "impact", details: "le connecteur HTTP/2 n'est pas activé" }]);
    // The label and the notes as its impact statement: the pattern the OpenVEX specification recommends.
    expect(stmtOf(ovx, "CVE-2024-34750")).toMatchObject({
      status: "not_affected",
      justification: "vulnerable_code_not_in_execute_path",
      impact_statement: "le connecteur HTTP/2 n'est pas activé",
    });

    // corrige → resolved / fixed.
    expect(vulnOf(cdx, "CVE-2024-24549").analysis).toMatchObject({ state: "resolved", response: ["update"] });
    expect(csafOf(csaf, "CVE-2024-24549").product_status).toEqual({ fixed: [expect.any(String)] });
    expect(stmtOf(ovx, "CVE-2024-24549").status).toBe("fixed");

    // No case, nouveau, en_analyse → in_triage / under_investigation.
    for (const cve of ["CVE-2023-42795", "CVE-2023-45648", "CVE-2023-46589"]) {
      expect(vulnOf(cdx, cve).analysis.state).toBe("in_triage");
      expect(Object.keys(csafOf(csaf, cve).product_status)).toEqual(["under_investigation"]);
      expect(stmtOf(ovx, cve).status).toBe("under_investigation");
    }
    expect(stmtOf(ovx, "CVE-2023-42795").status_notes).toContain("sans dossier");

    // en_remediation → exploitable / known_affected with an action / affected with its action statement.
    expect(vulnOf(cdx, "CVE-2024-23672").analysis).toMatchObject({ state: "exploitable" });
    expect(vulnOf(cdx, "CVE-2024-23672").analysis.detail).toContain("montée de version prévue");
    expect(csafOf(csaf, "CVE-2024-23672").remediations).toMatchObject([{ category: "none_available" }]);
    expect(stmtOf(ovx, "CVE-2024-23672")).toMatchObject({ status: "affected", status_notes: "montée de version prévue" });

    // MITIGATED: the measure, the justification and the expiry, where each format can say them.
    const mit = vulnOf(cdx, "CVE-2023-36053");
    expect(mit.analysis).toMatchObject({ state: "exploitable", response: ["workaround_available"] });
    expect(mit.analysis.detail).toContain("EmailValidator remplacé par une expression bornée");
    expect(mit.analysis.detail).toContain(expiry);
    expect(mit.properties).toEqual(
      expect.arrayContaining([
        { name: "vigie:exception:nature", value: "MITIGATED" },
        { name: "vigie:exception:expires_on", value: expiry },
      ]),
    );
    const mitCsaf = csafOf(csaf, "CVE-2023-36053");
    expect(mitCsaf.product_status).toEqual({ known_affected: [expect.any(String)] });
    expect(mitCsaf.remediations![0]!.category).toBe("mitigation");
    expect(mitCsaf.remediations![0]!.details).toContain("correctif applicatif en place");
    expect(mitCsaf.remediations![0]!.details).toContain(expiry);
    expect(mitCsaf.remediations![0]!.date).toEqual(expect.any(String));
    const mitOvx = stmtOf(ovx, "CVE-2023-36053");
    expect(mitOvx.status).toBe("affected");
    expect(mitOvx.action_statement).toContain("EmailValidator remplacé");
    expect(mitOvx.action_statement).toContain(expiry);
    expect(mitOvx.action_statement_timestamp).toEqual(expect.any(String));

    // risque_accepte (own ACCEPTED_RISK): will_not_fix / no_fix_planned / affected.
    expect(vulnOf(cdx, "CVE-2021-44228").analysis).toMatchObject({ state: "exploitable", response: ["will_not_fix"] });
    expect(csafOf(csaf, "CVE-2021-44228").remediations![0]).toMatchObject({ category: "no_fix_planned" });
    expect(csafOf(csaf, "CVE-2021-44228").remediations![0]!.details).toContain("serveur isolé");
    expect(stmtOf(ovx, "CVE-2021-44228").action_statement).toContain("Risque accepté");

    // The validators are not vacuous: the same documents, broken, fail them.
    const noImpact = structuredClone(csaf);
    delete csafOf(noImpact, "CVE-2024-34750").threats;
    delete csafOf(noImpact, "CVE-2024-34750").flags;
    expect((await csafFailures(noImpact)).map((f) => f.name)).toContain("mandatoryTest_6_1_27_9");
    const badState = structuredClone(cdx);
    vulnOf(badState, "CVE-2024-34750").analysis.state = "not_concerned";
    expect(await cycloneDxErrors(JSON.stringify(badState))).not.toBeNull();
    const oldCpe = structuredClone(ovx);
    stmtOf(oldCpe, "CVE-2024-34750").products[0]!.subcomponents[0]!.identifiers = { "@cpe23": TOMCAT };
    expect(openVexErrors(oldCpe)).not.toEqual([]);
    const noReason = structuredClone(ovx);
    delete stmtOf(noReason, "CVE-2024-34750").justification;
    delete stmtOf(noReason, "CVE-2024-34750").impact_statement;
    expect(openVexErrors(noReason)).not.toEqual([]);

    // CVE facts: the GHSA's CVSS 3.1 score and its CWEs.
    expect(vulnOf(cdx, "CVE-2021-44228").ratings).toEqual([
      { score: 10, severity: "critical", method: "CVSSv31", vector: expect.any(String) },
    ]);
    expect(vulnOf(cdx, "CVE-2021-44228").cwes).toEqual(expect.arrayContaining([502]));
  });

  it("is deterministic: the same state gives the same bytes and ids; a change gives new ids", async () => {
    const one = await exported("cyclonedx");
    const two = await exported("cyclonedx");
    expect(two.body).toBe(one.body);
    const csaf1 = (await exported("csaf")).json() as Csaf;
    const ovx1 = (await exported("openvex")).json() as OpenVex;
    expect(JSON.parse(one.body).serialNumber).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await put("CVE-2023-42795", { status: "en_analyse" });
    const three = await exported("cyclonedx");
    expect(JSON.parse(three.body).serialNumber).not.toBe(JSON.parse(one.body).serialNumber);
    expect(((await exported("csaf")).json() as Csaf).document.tracking.id).not.toBe(csaf1.document.tracking.id);
    expect(((await exported("openvex")).json() as OpenVex)["@id"]).not.toBe(ovx1["@id"]);
  });

  it("a register entry, component_not_present (CycloneDX false_positive) and non_concerne without a justification", async () => {
    const risk = await t.app.inject({
      method: "POST",
      url: `/api/v1/organizations/${a.orgId}/risks`,
      headers: bearer(a.key),
      payload: {
        title: "Tomcat 9 hors support",
        owner: "RSSI",
        justification: "migration vers Tomcat 10 planifiée",
        expires_on: expiry,
        cases: [{ project_id: a.projectId, cve_id: "CVE-2023-46589" }],
      },
    });
    expect(risk.statusCode, risk.body).toBe(201);
    await put("CVE-2023-45648", { status: "non_concerne", justification_vex: "component_not_present" });
    await put("CVE-2023-42795", { status: "non_concerne", notes: "jamais déployé" });
    const { cdx, csaf, ovx } = await allThree();

    expect(vulnOf(cdx, "CVE-2023-46589").analysis).toMatchObject({ state: "exploitable", response: ["will_not_fix"] });
    expect(vulnOf(cdx, "CVE-2023-46589").properties).toContainEqual({ name: "vigie:exception:register", value: "Tomcat 9 hors support" });
    expect(csafOf(csaf, "CVE-2023-46589").remediations![0]!.details).toContain("migration vers Tomcat 10 planifiée");
    expect(stmtOf(ovx, "CVE-2023-46589").action_statement).toContain("Tomcat 9 hors support");

    expect(vulnOf(cdx, "CVE-2023-45648").analysis.state).toBe("false_positive");
    expect(csafOf(csaf, "CVE-2023-45648").flags?.map((f) => f.label)).toEqual(["component_not_present"]);
    expect(stmtOf(ovx, "CVE-2023-45648")).toMatchObject({ status: "not_affected", justification: "component_not_present" });

    // Without a justification: an impact statement (OpenVEX), an impact threat (CSAF), no CycloneDX justification.
    expect(vulnOf(cdx, "CVE-2023-42795").analysis).toEqual({ state: "not_affected", detail: "jamais déployé" });
    expect(csafOf(csaf, "CVE-2023-42795").flags).toBeUndefined();
    expect(csafOf(csaf, "CVE-2023-42795").threats).toMatchObject([{ category: "impact", details: "jamais déployé" }]);
    expect(stmtOf(ovx, "CVE-2023-42795")).toMatchObject({ status: "not_affected", impact_statement: "jamais déployé" });
  });

  it("a project with no alert: an empty CycloneDX BOM (valid); 409 vex_vide for CSAF and OpenVEX, which need a statement", async () => {
    const e = await tenantWithScopes(t, "Empty VEX", ["cases-write"]);
    const c = await e.call("GET", "/vex");
    expect(c.statusCode).toBe(200);
    expect(await cycloneDxErrors(c.body)).toBeNull();
    expect(JSON.parse(c.body).vulnerabilities ?? []).toEqual([]);
    for (const format of ["csaf", "openvex"]) {
      const r = await e.call("GET", `/vex?format=${format}`);
      expect(r.statusCode).toBe(409);
      expect(r.json().detail).toMatchObject({ code: "vex_vide" });
    }
  });

  it("is read by a key without scope (viewer), refused for another organization's project (404), and 422 for an unknown format", async () => {
    expect((await a.call("GET", "/vex?format=openvex", undefined, a.readKey)).statusCode).toBe(200);
    const other = await tenantWithScopes(t, "Other VEX", []);
    const r = await t.app.inject({ method: "GET", url: `${a.base}/vex`, headers: bearer(other.key) });
    expect(r.statusCode).toBe(404);
    expect((await a.call("GET", "/vex?format=spdx")).statusCode).toBe(422);
  });
});

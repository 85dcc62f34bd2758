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
import { csafFailures, csafMandatoryTests, loadCsafValidator, csafWarnings, cycloneDxErrors, openVexErrors } from "./vex-validators.js";

// An https public address: the CSAF documents carry their canonical URL (and the project its address).
await loadCsafValidator();
const PUBLIC = "https://vigie.example.org";
const t = await createTestApp({ VIGIE_PUBLIC_URL: PUBLIC });
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
    source?: { name: string; url: string };
    references?: { id: string; source: { name: string; url: string } }[];
    analysis: { state: string; justification?: string; response?: string[]; detail?: string };
    affects: { ref: string }[];
    properties?: { name: string; value: string }[];
    ratings?: { score?: number; severity?: string; method?: string }[];
    cwes?: number[];
  }[];
};
type Csaf = {
  document: {
    category: string;
    publisher: { name: string };
    tracking: { id: string };
    distribution?: unknown;
    references?: { category: string; url: string }[];
  };
  product_tree: {
    full_product_names: { name: string; product_id: string; product_identification_helper?: Record<string, unknown> }[];
    relationships: { full_product_name: { product_id: string }; product_reference: string }[];
  };
  vulnerabilities: {
    cve?: string;
    ids?: { system_name: string; text: string }[];
    product_status: Record<string, string[]>;
    scores?: { products: string[]; cvss_v3: { version: string; vectorString: string; baseScore: number; baseSeverity: string } }[];
    flags?: { label: string; product_ids: string[] }[];
    threats?: { category: string; details: string; product_ids?: string[] }[];
    remediations?: { category: string; details: string; date?: string }[];
  }[];
};
type OpenVex = {
  "@id": string;
  author: string;
  statements: {
    vulnerability: { name: string; "@id"?: string; aliases?: string[] };
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
  // The recommended tests: all quiet but a missing score (6.2.3) where Vigie has no CVSS v3 vector for the record.
  const warnings = await csafWarnings(csaf);
  expect(
    Object.keys(warnings).filter((n) => n !== "optionalTest_6_2_3"),
    JSON.stringify(warnings).slice(0, 1500),
  ).toEqual([]);
  for (const w of (warnings.optionalTest_6_2_3 ?? []) as { instancePath: string }[]) {
    const i = Number(/^\/vulnerabilities\/(\d+)\//.exec(w.instancePath)![1]);
    expect(csaf.vulnerabilities[i]!.scores).toBeUndefined();
  }
  // The canonical URL (6.2.11) serves this very document.
  const self = (csaf.document.references ?? []).find((r) => r.category === "self")!;
  expect(self.url.startsWith(`${PUBLIC}${who.base}/vex/csaf/`)).toBe(true);
  const atUrl = await who.call("GET", self.url.slice(PUBLIC.length + who.base.length));
  expect(atUrl.statusCode, atUrl.body).toBe(200);
  expect(atUrl.json()).toEqual(csaf);
  const o = await exported("openvex", who);
  expect(o.statusCode).toBe(200);
  const ovx = o.json() as OpenVex;
  expect(openVexErrors(ovx)).toEqual([]);
  return { cdx: JSON.parse(c.body) as Cdx, csaf, ovx };
}

const vulnOf = (d: Cdx, cve: string) => d.vulnerabilities.find((v) => v.id === cve)!;
const csafOf = (d: Csaf, id: string, by: "cve" | "ids" = "cve") =>
  d.vulnerabilities.find((v) => (by === "cve" ? v.cve === id : v.ids?.some((i) => i.text === id)))!;
const stmtOf = (d: OpenVex, cve: string) => d.statements.find((s) => s.vulnerability.name === cve)!;

describe("VEX export", () => {
  it("the CSAF and CVSS schemas the import reads (assets/schemas) are the validator package's, unchanged", async () => {
    const lib = "@secvisogram/csaf-validator-lib";
    const asset = (n: string) => JSON.parse(readFileSync(`assets/schemas/${n}`, "utf8"));
    expect(asset("csaf_json_schema_2.0.json")).toEqual((await import(`${lib}/lib/schemaTests/csaf_2_0/schema.js`)).default);
    for (const v of ["2.0", "3.0", "3.1"]) expect(asset(`cvss-v${v}.json`)).toEqual((await import(`${lib}/schemas/cvss-v${v}.js`)).default);
  });

  it("runs the csaf_vex profile's mandatory tests (6.1.27.x) among the CSAF checks", async () => {
    const names = await csafMandatoryTests();
    for (const n of ["1", "4", "5", "6", "7", "8", "9", "10", "11"]) expect(names).toContain(`mandatoryTest_6_1_27_${n}`);
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
    expect(vulnOf(cdx, "CVE-2024-34750").source).toEqual({ name: "NVD", url: "https://nvd.nist.gov/vuln/detail/CVE-2024-34750" });
    // Log4Shell's GHSA is its alias: a reference in the GitHub Advisory Database, a CSAF id.
    expect(vulnOf(cdx, "CVE-2021-44228").references).toContainEqual({
      id: "GHSA-jfh8-c2jp-5v3q",
      source: { name: "GitHub Advisory Database", url: "https://github.com/advisories/GHSA-jfh8-c2jp-5v3q" },
    });
    expect(csafOf(csaf, "CVE-2021-44228").ids).toContainEqual({ system_name: "GitHub Advisory Database", text: "GHSA-jfh8-c2jp-5v3q" });
    expect(csaf.product_tree.full_product_names.find((p) => p.product_identification_helper?.purl === LOG4J)).toBeDefined();
    expect(csaf.product_tree.full_product_names.find((p) => p.product_identification_helper?.cpe === TOMCAT)).toBeDefined();
    expect(csaf.product_tree.full_product_names.find((p) => p.product_id === "VIGIE-PROJECT")?.product_identification_helper).toEqual({
      x_generic_uris: [{ namespace: `${PUBLIC}/api/v1`, uri: `${PUBLIC}${a.base.replace(/\/$/, "")}` }],
    });
    expect(csaf.document.distribution).toEqual({ tlp: { label: "AMBER", url: "https://www.first.org/tlp/" } });
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
    // CSAF: the same vector, its score computed from it (the mandatory tests check one against the other).
    expect(csafOf(csaf, "CVE-2021-44228").scores).toEqual([
      {
        products: csafOf(csaf, "CVE-2021-44228").product_status.known_affected,
        cvss_v3: { version: "3.1", vectorString: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H", baseScore: 10, baseSeverity: "CRITICAL" },
      },
    ]);
  });

  it("is deterministic: the same state gives the same bytes and ids; a change gives new ids", async () => {
    const one = await exported("cyclonedx");
    const two = await exported("cyclonedx");
    expect(two.body).toBe(one.body);
    const csaf1 = (await exported("csaf")).json() as Csaf;
    const ovx1 = (await exported("openvex")).json() as OpenVex;
    expect(JSON.parse(one.body).serialNumber).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const oldSelf = csaf1.document.references![0]!.url.slice(PUBLIC.length + a.base.length);
    await put("CVE-2023-42795", { status: "en_analyse" });
    // The earlier state's canonical URL names a document that is no more.
    const gone = await a.call("GET", oldSelf);
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toEqual({ detail: "Document VEX introuvable (l'état du projet a changé depuis : exporter à nouveau)" });
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

  it("ids outside the CVE list (GO, PYSEC, RUSTSEC) in their own database, and one statement naming every item a record matches", async () => {
    // Real advisories without a CVE id (test/fixtures/vex/SOURCES.md): the record is keyed by the advisory's id.
    for (const f of ["osv-GO-2022-0368.json", "osv-PYSEC-2023-184.jsonl", "osv-RUSTSEC-2025-0038.json"])
      expect((await importFeed(t.database.db, "osv", [`test/fixtures/vex/${f}`])).errors).toEqual([]);
    const g = await tenantWithScopes(t, "Gamma VEX", ["stacks-write", "cases-write"]);
    const coredns = ["v1.6.0", "v1.6.3", "v1.6.5"].map((v) => `pkg:golang/github.com/coredns/coredns@${v}`);
    // Log4Shell (its GHSA record, imported above) in three versions of log4j-core, one per stack.
    const log4j = ["2.14.1", "2.14.0", "2.12.1"].map((v) => `pkg:maven/org.apache.logging.log4j/log4j-core@${v}`);
    const stacks: [string, string[]][] = [
      ["API", [coredns[0]!, log4j[0]!, "pkg:pypi/opencv-python-headless@4.8.0.76"]],
      ["DNS", [coredns[1]!, log4j[1]!, "pkg:cargo/arrow2@0.17.0"]],
      ["Edge", [coredns[2]!, log4j[2]!]],
      // At the fixed version (1.6.6): not affected, so not named.
      ["Next", ["pkg:golang/github.com/coredns/coredns@v1.6.6"]],
    ];
    for (const [name, items] of stacks) {
      const r = await g.call("POST", "/stacks", { name, items: items.map(itemOf) });
      expect(r.statusCode, r.body).toBe(201);
    }
    // A case is opened on a CVE id only (the API's pattern): an advisory-keyed record stays under investigation.
    const go = "GO-2022-0368";
    expect((await g.call("PUT", `/cases/${go}`, {})).statusCode).toBe(422);
    const log4shell = await g.call("PUT", "/cases/CVE-2021-44228", {
      status: "non_concerne",
      justification_vex: "vulnerable_code_not_in_execute_path",
      notes: "JNDI désactivé (log4j2.formatMsgNoLookups)",
    });
    expect(log4shell.statusCode, log4shell.body).toBeLessThan(300);
    const { cdx, csaf, ovx } = await allThree(g);
    expect(cdx.vulnerabilities.map((v) => v.id).sort()).toEqual(["CVE-2021-44228", go, "PYSEC-2023-184", "RUSTSEC-2025-0038"]);

    // One CVE, three versions in three stacks: every format names the three, each with the case's status.
    const l = vulnOf(cdx, "CVE-2021-44228");
    expect(l.affects.map((x) => x.ref).sort()).toEqual(log4j.map((p) => cdx.components.find((c) => c.purl === p)?.["bom-ref"]).sort());
    expect(l.analysis).toMatchObject({ state: "not_affected", justification: "code_not_reachable" });
    const lc = csafOf(csaf, "CVE-2021-44228");
    expect(Object.keys(lc.product_status)).toEqual(["known_not_affected"]);
    expect(lc.product_status.known_not_affected).toHaveLength(3);
    expect(lc.flags).toMatchObject([{ label: "vulnerable_code_not_in_execute_path", product_ids: lc.product_status.known_not_affected }]);
    expect(lc.threats).toMatchObject([{ category: "impact", product_ids: lc.product_status.known_not_affected }]);
    const ls = stmtOf(ovx, "CVE-2021-44228");
    expect(ls.products[0]!.subcomponents.map((x) => x.identifiers?.purl).sort()).toEqual([...log4j].sort());
    expect(ls).toMatchObject({ status: "not_affected", justification: "vulnerable_code_not_in_execute_path" });

    // CycloneDX: the source is the id's own database, its aliases references in theirs.
    const v = vulnOf(cdx, go);
    expect(v.source).toEqual({ name: "Go Vulnerability Database", url: `https://pkg.go.dev/vuln/${go}` });
    expect(v.references).toEqual([
      {
        id: "GHSA-gv9j-4w24-q7vx",
        source: { name: "GitHub Advisory Database", url: "https://github.com/advisories/GHSA-gv9j-4w24-q7vx" },
      },
    ]);
    expect(vulnOf(cdx, "PYSEC-2023-184").source).toEqual({
      name: "PyPA Advisory Database",
      url: "https://osv.dev/vulnerability/PYSEC-2023-184",
    });
    expect(vulnOf(cdx, "RUSTSEC-2025-0038").source).toEqual({
      name: "RustSec Advisory Database",
      url: "https://rustsec.org/advisories/RUSTSEC-2025-0038.html",
    });
    // Every affected item, the fixed one left out; each with the case's analysis.
    const refOf = (purl: string) => cdx.components.find((c) => c.purl === purl)?.["bom-ref"];
    expect(v.affects.map((x) => x.ref).sort()).toEqual(coredns.map(refOf).sort());
    expect(v.analysis.state).toBe("in_triage");
    expect(cdx.components.map((c) => c.purl)).not.toContain("pkg:golang/github.com/coredns/coredns@v1.6.6");

    // CSAF: no cve (it holds CVE ids only), the ids with their databases, sorted; the three products.
    const c = csafOf(csaf, go, "ids");
    expect(c.cve).toBeUndefined();
    expect(c.ids).toEqual([
      { system_name: "GitHub Advisory Database", text: "GHSA-gv9j-4w24-q7vx" },
      { system_name: "Go Vulnerability Database", text: go },
    ]);
    expect(Object.keys(c.product_status)).toEqual(["under_investigation"]);
    expect(c.product_status.under_investigation).toHaveLength(3);
    const named = c.product_status.under_investigation!.map(
      (id) => csaf.product_tree.relationships.find((rel) => rel.full_product_name.product_id === id)!.product_reference,
    );
    const helpers = named.map(
      (ref) => csaf.product_tree.full_product_names.find((p) => p.product_id === ref)!.product_identification_helper?.purl,
    );
    expect(helpers.sort()).toEqual([...coredns].sort());
    expect(csafOf(csaf, "RUSTSEC-2025-0038", "ids").ids).toEqual([
      { system_name: "GitHub Advisory Database", text: "GHSA-wv8j-m3hx-924j" },
      { system_name: "RustSec Advisory Database", text: "RUSTSEC-2025-0038" },
    ]);

    // OpenVEX: the three as subcomponents of the project, the aliases on the vulnerability.
    const st = stmtOf(ovx, go);
    expect(st.vulnerability).toMatchObject({ "@id": `https://pkg.go.dev/vuln/${go}`, name: go, aliases: ["GHSA-gv9j-4w24-q7vx"] });
    expect(st.products[0]!.subcomponents.map((x) => x.identifiers?.purl).sort()).toEqual([...coredns].sort());
    expect(st.status).toBe("under_investigation");
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

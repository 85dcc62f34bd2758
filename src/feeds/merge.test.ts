import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { advisoryCvss, buildingAdvisories, mergeCve, osvAffected, type MergeAdvisory } from "./merge.js";
import { parseCertfrAvis } from "./certfr.js";
import { parseOsvRecord } from "./osv.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const ADV = resolve(ROOT, "test/fixtures/advisories");
const DATA = resolve(ROOT, "../shared/data/osv");

/** An OSV document as the store hands it to the merge (see importOsv and advisoriesNaming). */
function advisory(doc: unknown): MergeAdvisory {
  const o = parseOsvRecord(doc);
  return {
    id: o.id,
    source: o.source,
    url: o.url,
    aliases: o.aliases,
    summary: o.summary ?? o.details?.split("\n")[0] ?? null,
    published: o.published,
    modified: o.modified,
    cvss_score: o.cvss_score,
    data: { packages: o.packages, details: o.details, cvss_vector: o.cvss_vector, cwes: o.cwes, references: o.references },
  };
}
const json = (path: string) => JSON.parse(readFileSync(path, "utf8"));
const django = readFileSync(`${ADV}/osv-django-advisory-only.jsonl`, "utf8")
  .trim()
  .split("\n")
  .map((l) => advisory(JSON.parse(l)));
const pysec225 = django.find((a) => a.id === "PYSEC-2023-225")!;
const rustsec = advisory(json(`${ADV}/RUSTSEC-2022-0037.json`));
const ghsa = advisory(json(`${ROOT}/test/fixtures/feeds/osv/GHSA-jfh8-c2jp-5v3q.json`));

describe("records built from OSV advisories", () => {
  it("a CVE named only by a PYSEC advisory: description, date, packages as affected products, no invented score", () => {
    const m = mergeCve({ cve_id: "CVE-2023-41164", contributions: [], advisories: [pysec225] })!;
    expect(m.cve).toMatchObject({
      state: "PUBLISHED",
      vendor: "PyPI",
      product: "django",
      date_published: "2023-11-03T05:15:00.000Z",
      severity: "unknown",
      cvss_score: null,
      sources: ["pysec"],
      aliases: ["PYSEC-2023-225"],
      fusion_de: ["PYSEC-2023-225"],
    });
    expect(m.cve.description).toMatch(/^In Django 3\.2 before 3\.2\.21/);
    expect(m.affected.map((a) => [a.origin, a.product, a.version_from, a.version_to, a.version_to_inclusive, a.product_norm])).toEqual([
      ["osv", "django", "3.2", "3.2.21", false, null],
      ["osv", "django", "4.1", "4.1.11", false, null],
      ["osv", "django", "4.2", "4.2.5", false, null],
    ]);
  });

  it("an advisory naming no CVE is keyed by its own id; not when it names a CVE", () => {
    expect(buildingAdvisories("RUSTSEC-2022-0037", [rustsec])).toEqual([rustsec]);
    const m = mergeCve({ cve_id: "RUSTSEC-2022-0037", contributions: [], advisories: [rustsec] })!;
    expect(m.cve).toMatchObject({
      cve_id: "RUSTSEC-2022-0037",
      aliases: ["GHSA-xq3c-8gqm-v648"],
      fusion_de: [],
      severity: "high",
      cvss_score: 7.5,
      cvss_source: "rustsec:RUSTSEC-2022-0037",
    });
    expect(m.affected[0]).toMatchObject({ vendor: "crates.io", product: "async-graphql", version_from: null, version_to: "4.0.6" });
    expect(buildingAdvisories("GHSA-jfh8-c2jp-5v3q", [ghsa])).toEqual([]);
    expect(mergeCve({ cve_id: "PYSEC-2023-225", contributions: [], advisories: [pysec225] })).toBeNull();
  });

  it("a RustSec maintenance notice (unmaintained) builds no record", () => {
    const unmaintained = advisory(json(`${DATA}/rustsec/crates/RUSTSEC-2024-0381.json`));
    expect(buildingAdvisories(unmaintained.id, [unmaintained])).toEqual([]);
  });

  it("advisory CVSS only when no CVE-record source scores the CVE", () => {
    expect(advisoryCvss([ghsa])).toEqual({
      score: 10,
      vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H",
      version: "3.1",
      source: "ghsa:GHSA-jfh8-c2jp-5v3q",
    });
    const nvd = {
      cve_id: "CVE-2021-44228",
      state: "PUBLISHED",
      modified: null,
      published: null,
      description: "x",
      cwes: [],
      affected: [],
      references: [],
      cvss: [{ version: "3.1", score: 9.9, vector: null, severity: null, origin: "nvd", provider: "nvd@nist.gov" }],
    };
    const scored = mergeCve({
      cve_id: "CVE-2021-44228",
      contributions: [{ source: "nvd", data: nvd, source_modified: null }],
      advisories: [ghsa],
    })!;
    expect(scored.cve).toMatchObject({ cvss_score: 9.9, cvss_source: "nvd:nvd@nist.gov" });
  });

  it("OSV intervals: one row per introduced/fixed pair, introduced 0 unbounded, GIT ranges skipped", () => {
    const rows = osvAffected([ghsa]);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.origin === "osv" && r.version_type !== "git")).toBe(true);
    expect(rows).toContainEqual(
      expect.objectContaining({
        product: "org.apache.logging.log4j:log4j-core",
        version_from: "2.13.0",
        version_to: "2.15.0",
        version_to_inclusive: false,
      }),
    );
    expect(rows).toContainEqual(
      expect.objectContaining({ product: "org.apache.logging.log4j:log4j-core", version_from: null, version_to: "2.3.1" }),
    );
  });
});

/** A CERT-FR avis as the store hands it to the merge (see importCertfr and advisoriesNaming). */
function avis(doc: unknown): MergeAdvisory {
  const a = parseCertfrAvis(doc);
  return {
    id: a.reference,
    source: "certfr",
    url: a.url,
    aliases: a.cve_ids,
    summary: a.title,
    published: a.published,
    modified: a.modified,
    data: { mesures: a.mesures },
  };
}
const certfr = readFileSync(`${ADV}/certfr-avis-2024.jsonl`, "utf8")
  .trim()
  .split("\n")
  .map((l) => avis(JSON.parse(l)));

describe("records built from CERT-FR avis", () => {
  it("a CVE named only by avis: thin (id, earliest avis date, attributed text), never the avis' products", () => {
    const m = mergeCve({
      cve_id: "CVE-2024-9680",
      contributions: [],
      advisories: certfr.filter((a) => a.aliases.includes("CVE-2024-9680")).reverse(),
    })!;
    expect(m.affected).toEqual([]);
    expect(m.cve).toMatchObject({
      date_published: "2024-10-10",
      date_updated: "2024-10-11",
      sources: ["certfr"],
      vendor: null,
      product: null,
      severity: "unknown",
      cvss_score: null,
      aliases: ["CERTFR-2024-AVI-0865", "CERTFR-2024-AVI-0869"],
      fusion_de: [],
      description:
        "Mentionnée par l'avis CERT-FR CERTFR-2024-AVI-0865 (2024-10-10) : Vulnérabilité dans Mozilla Firefox ; également par 1 autre avis (voir aliases)",
    });
  });
});

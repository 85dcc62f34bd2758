import { createReadStream, existsSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { resolve } from "node:path";
import { createGunzip } from "node:zlib";
import { describe, it, expect } from "vitest";
import { esxiPatch, isReserved, normalizeTimestamp, parseCve5, splitByChanges, versionExpression } from "./cve5.js";
import type { AffectedEntry } from "../matching/affected.js";
import { RecordError, type CveContribution } from "./types.js";

const FIXTURES = new URL("../../test/fixtures/feeds/", import.meta.url);
const fixture = (rel: string): unknown => JSON.parse(readFileSync(new URL(rel, FIXTURES), "utf8"));
const REPO = fileURLToPath(new URL("../../", import.meta.url));
const SHARED = resolve(REPO, process.env.VIGIE_SHARED_DATA ?? "../shared/data");

function contribution(rel: string): CveContribution {
  const r = parseCve5(fixture(rel));
  if (isReserved(r)) throw new Error("unexpected RESERVED");
  return r;
}

/** Compact view of a row for exact comparisons. */
const row = (a: AffectedEntry) =>
  [
    a.origin,
    a.vendor,
    a.product,
    a.cpe,
    a.version_from,
    a.version_from_inclusive,
    a.version_to,
    a.version_to_inclusive,
    a.version_status,
    a.version_type,
    a.default_status,
  ] as const;

describe("parseCve5 — CVE-2024-3400 (PAN-OS, CVE 5.1, CNA + CVE Program + CISA ADP with kev)", () => {
  const r = contribution("cve5/CVE-2024-3400.json");

  it("reads metadata, description, dates", () => {
    expect(r.cve_id).toBe("CVE-2024-3400");
    expect(r.state).toBe("PUBLISHED");
    expect(r.published).toBe("2024-04-12T07:20:00.707Z");
    expect(r.modified).toBe("2024-08-01T20:12:06.667Z");
    expect(r.reserved).toBe("2024-04-05T17:40:30.117Z");
    expect(r.assigner).toBe("palo_alto");
    expect(r.description).toMatch(/^A command injection as a result of arbitrary file creation vulnerability in the GlobalProtect feature/);
    expect(r.description).toMatch(/Prisma Access are not impacted by this vulnerability\.$/);
  });

  it("takes the CNA CVSS 3.1 with its provider", () => {
    expect(r.cvss).toEqual([
      {
        version: "3.1",
        score: 10,
        vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H",
        severity: "critical",
        origin: "cna",
        provider: "palo_alto",
      },
    ]);
  });

  it("takes CWEs in order, KEV and SSVC from the CISA ADP", () => {
    expect(r.cwes).toEqual(["CWE-77", "CWE-20"]);
    expect(r.kev).toEqual({
      date_added: "2024-04-12",
      reference: "https://www.cisa.gov/known-exploited-vulnerabilities-catalog?search_api_fulltext=CVE-2024-3400",
    });
    // the source writes "Active" / "Yes" / "Total"
    expect(r.ssvc).toEqual({ exploitation: "active", automatable: "yes", technical_impact: "total" });
  });

  it("deduplicates references (the CVE Program container repeats the CNA's four)", () => {
    expect(r.references).toEqual([
      "https://security.paloaltonetworks.com/CVE-2024-3400",
      "https://unit42.paloaltonetworks.com/cve-2024-3400/",
      "https://www.volexity.com/blog/2024/04/12/zero-day-exploitation-of-unauthenticated-remote-code-execution-vulnerability-in-globalprotect-cve-2024-3400/",
      "https://www.paloaltonetworks.com/blog/2024/04/more-on-the-pan-os-cve/",
    ]);
  });

  it("turns CNA and ADP affected statements into rows with exact bounds", () => {
    const P = ["cna", "Palo Alto Networks", "PAN-OS", null] as const;
    expect(r.affected.map(row)).toEqual([
      [...P, "9.0.0", true, "9.0.0", true, "unaffected", null, "unaffected"],
      [...P, "9.1.0", true, "9.1.0", true, "unaffected", null, "unaffected"],
      [...P, "10.0.0", true, "10.0.0", true, "unaffected", null, "unaffected"],
      [...P, "10.1.0", true, "10.1.0", true, "unaffected", null, "unaffected"],
      // version 10.2.0, lessThan 10.2.9-h1 (changes[] ignored)
      [...P, "10.2.0", true, "10.2.9-h1", false, "affected", "custom", "unaffected"],
      [...P, "11.0.0", true, "11.0.4-h1", false, "affected", "custom", "unaffected"],
      [...P, "11.1.0", true, "11.1.2-h3", false, "affected", "custom", "unaffected"],
      // version "All" → no version constraint
      ["cna", "Palo Alto Networks", "Cloud NGFW", null, null, false, null, false, "unaffected", null, "unaffected"],
      ["cna", "Palo Alto Networks", "Prisma Access", null, null, false, null, false, "unaffected", null, "unaffected"],
      // CISA ADP: CPE-style names, lessThan "10.2.9-h1 " trimmed, cpes[0] carried
      [
        "adp",
        "paloaltonetworks",
        "pan-os",
        "cpe:2.3:o:paloaltonetworks:pan-os:10.2.0:*:*:*:*:*:*:*",
        "10.2.0",
        true,
        "10.2.9-h1",
        false,
        "affected",
        "custom",
        "unknown",
      ],
      [
        "adp",
        "paloaltonetworks",
        "pan-os",
        "cpe:2.3:o:paloaltonetworks:pan-os:11.0.0:*:*:*:*:*:*:*",
        "11.0.0",
        true,
        "11.0.4-h1",
        false,
        "affected",
        "custom",
        "unknown",
      ],
      [
        "adp",
        "paloaltonetworks",
        "pan-os",
        "cpe:2.3:o:paloaltonetworks:pan-os:11.1.0:-:*:*:*:*:*:*",
        "11.1.0",
        true,
        "11.1.2-h3",
        false,
        "affected",
        "custom",
        "unknown",
      ],
    ]);
    expect(r.affected.every((a) => a.vulnerable === undefined)).toBe(true);
  });
});

describe("parseCve5 — CVE-2024-6387 (OpenSSH regreSSHion, Red Hat CNA)", () => {
  const r = contribution("cve5/CVE-2024-6387.json");

  it("reads CVSS, CWE, SSVC and no KEV", () => {
    expect(r.cvss).toEqual([
      {
        version: "3.1",
        score: 8.1,
        vector: "CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H",
        severity: "high",
        origin: "cna",
        provider: "redhat",
      },
    ]);
    expect(r.cwes).toEqual(["CWE-364"]);
    expect(r.kev).toBeNull();
    expect(r.ssvc).toEqual({ exploitation: "poc", automatable: "no", technical_impact: "total" });
    expect(r.published).toBe("2024-07-01T12:37:25.431Z");
    expect(r.modified).toBe("2024-09-14T02:09:26.419Z");
    expect(r.description).toMatch(/^A security regression \(CVE-2006-5051\) was discovered in OpenSSH's server \(sshd\)\./);
  });

  it("deduplicates the 89 reference URLs of CNA + CVE Program container to 77", () => {
    expect(r.references).toHaveLength(77);
    expect(new Set(r.references).size).toBe(77);
    expect(r.references[0]).toBe("https://access.redhat.com/errata/RHSA-2024:4312");
  });

  it("handles lessThanOrEqual, lessThan '*', packageName, CPE 2.2 URIs and duplicate entries", () => {
    const rows = r.affected.map(row);
    // entry without vendor/product: product from packageName; 8.5p1 ≤ v ≤ 9.7p1
    expect(rows[0]).toEqual(["cna", null, "OpenSSH", null, "8.5p1", true, "9.7p1", true, "affected", "custom", "unaffected"]);
    // unaffected from 0:8.7p1-38.el9_4.1 upwards (lessThan "*" = unbounded); defaultStatus affected;
    // cpes ["cpe:/o:redhat:enterprise_linux:9::baseos", "cpe:/a:…:appstream"] = one product → first, converted
    expect(rows[1]).toEqual([
      "cna",
      "Red Hat",
      "Red Hat Enterprise Linux 9",
      "cpe:2.3:o:redhat:enterprise_linux:9:*:baseos:*:*:*:*:*",
      "0:8.7p1-38.el9_4.1",
      true,
      null,
      false,
      "unaffected",
      "rpm",
      "affected",
    ]);
    // the source lists RHEL 9 twice, identically: kept once
    expect(rows.filter((x) => x[2] === "Red Hat Enterprise Linux 9")).toHaveLength(1);
    // entry without versions → one row, status = defaultStatus
    expect(rows.find((x) => x[2] === "Red Hat Ceph Storage 6")).toEqual([
      "cna",
      "Red Hat",
      "Red Hat Ceph Storage 6",
      "cpe:2.3:a:redhat:ceph_storage:6:*:*:*:*:*:*:*",
      null,
      false,
      null,
      false,
      "affected",
      null,
      "affected",
    ]);
    expect(rows.find((x) => x[2] === "Red Hat Enterprise Linux 8")).toEqual([
      "cna",
      "Red Hat",
      "Red Hat Enterprise Linux 8",
      "cpe:2.3:o:redhat:enterprise_linux:8:*:*:*:*:*:*:*",
      null,
      false,
      null,
      false,
      "unaffected",
      null,
      "unaffected",
    ]);
    expect(rows).toHaveLength(14);
  });
});

describe("parseCve5 — other real shapes", () => {
  it("REJECTED (CVE 5.0, zone-less timestamps): description from rejectedReasons", () => {
    const r = contribution("cve5/CVE-2021-36593.json");
    expect(r).toEqual({
      cve_id: "CVE-2021-36593",
      state: "REJECTED",
      modified: "2024-05-02T21:17:22.890Z", // "2024-05-02T21:17:22.890858" is UTC
      published: null,
      reserved: "2021-07-12T00:00:00.000Z",
      description:
        "DO NOT USE THIS CANDIDATE NUMBER. ConsultIDs: none. Reason: This candidate was withdrawn by its CNA. Further investigation showed that it was not a security issue. Notes: none.",
      cvss: [],
      cwes: [],
      affected: [],
      references: [],
      kev: null,
      ssvc: null,
      assigner: "mitre",
    });
  });

  it("ADP kev metric and ADP-only CWE (CVE-2018-13374, Fortinet)", () => {
    const r = contribution("cve5/CVE-2018-13374.json");
    expect(r.kev).toEqual({
      date_added: "2022-09-08",
      reference: "https://www.cisa.gov/known-exploited-vulnerabilities-catalog?search_api_fulltext=CVE-2018-13374",
    });
    expect(r.ssvc).toEqual({ exploitation: "active", automatable: "no", technical_impact: "partial" });
    expect(r.cwes).toEqual(["CWE-732"]); // CNA problem type is text only
    expect(r.published).toBe("2019-01-22T14:00:00.000Z");
    expect(r.cvss).toEqual([
      {
        version: "3.1",
        score: 4.3,
        vector: "CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:L/I:N/A:N",
        severity: "medium",
        origin: "cna",
        provider: "fortinet",
      },
    ]);
    // free-text version kept as written (a lone version: from = to)
    const v = "FortiOS 6.0.2, 5.6.7 and before, FortiADC 6.1.0, 6.0.0 to 6.0.1, 5.4.0 to 5.4.4";
    expect(r.affected.map(row)).toEqual([
      ["cna", "Fortinet", "Fortinet FortiOS, fortiADC", null, v, true, v, true, "affected", null, null],
    ]);
  });

  it("Linux kernel ranges: git ranges, '0' lower bound, lessThanOrEqual '*' (CVE-2022-48959)", () => {
    const r = contribution("cve5/CVE-2022-48959.json");
    const L = ["cna", "Linux", "Linux", null] as const;
    expect(r.affected.map(row)).toEqual([
      [...L, "bf425b82059e", true, "4be43e46c3f9", false, "affected", "git", "unaffected"],
      [...L, "bf425b82059e", true, "f3b5dda26cd0", false, "affected", "git", "unaffected"],
      [...L, "bf425b82059e", true, "e5e59629654b", false, "affected", "git", "unaffected"],
      [...L, "bf425b82059e", true, "78a9ea43fc1a", false, "affected", "git", "unaffected"],
      [...L, "5.10", true, "5.10", true, "affected", null, "affected"],
      [...L, null, false, "5.10", false, "unaffected", "custom", "affected"], // version "0", lessThan "5.10"
      [...L, "5.10.159", true, "5.11", false, "unaffected", "custom", "affected"], // wildcard: the end of the 5.10 series
      [...L, "5.15.83", true, "5.16", false, "unaffected", "custom", "affected"],
      [...L, "6.0.13", true, "6.1", false, "unaffected", "custom", "affected"],
      [...L, "6.1", true, null, false, "unaffected", "original_commit_for_fix", "affected"], // lessThanOrEqual "*"
    ]);
    expect(r.cvss).toEqual([]);
    expect(r.cwes).toEqual([]);
    expect(r.assigner).toBe("Linux");
  });

  it("CVSS 4.0, and a stray '<' in lessThan (CVE-2024-6177)", () => {
    const r = contribution("cve5/CVE-2024-6177.json");
    expect(r.cvss).toEqual([
      {
        version: "4.0",
        score: 4.8,
        vector: "CVSS:4.0/AV:A/AC:L/AT:N/PR:N/UI:A/VC:N/VI:N/VA:N/SC:L/SI:N/SA:N",
        severity: "medium",
        origin: "cna",
        provider: "LGE",
      },
    ]);
    expect(r.cwes).toEqual(["CWE-79"]);
    // source: version "4.1.3", lessThan "< 4.3.1"
    expect(r.affected.map(row)).toEqual([
      ["cna", "LG Electronics", "SuperSign CMS", null, "4.1.3", true, "4.3.1", false, "affected", "custom", "unaffected"],
    ]);
  });

  it("CVSS 3.1 + 3.0 + 2.0 of one CNA; lone versions (CVE-2023-5222)", () => {
    const r = contribution("cve5/CVE-2023-5222.json");
    expect(r.cvss).toEqual([
      {
        version: "3.1",
        score: 6.3,
        vector: "CVSS:3.1/AV:A/AC:L/PR:N/UI:N/S:U/C:L/I:L/A:L",
        severity: "medium",
        origin: "cna",
        provider: "VulDB",
      },
      {
        version: "3.0",
        score: 6.3,
        vector: "CVSS:3.0/AV:A/AC:L/PR:N/UI:N/S:U/C:L/I:L/A:L",
        severity: "medium",
        origin: "cna",
        provider: "VulDB",
      },
      { version: "2.0", score: 5.8, vector: "AV:A/AC:L/Au:N/C:P/I:P/A:P", severity: null, origin: "cna", provider: "VulDB" },
    ]);
    expect(
      r.affected.map((a) => [a.version_from, a.version_to, a.version_from_inclusive, a.version_to_inclusive, a.default_status]),
    ).toEqual([
      ["2.1.0", "2.1.0", true, true, null],
      ["2.1.1", "2.1.1", true, true, null],
      ["2.1.2", "2.1.2", true, true, null],
      ["2.1.3", "2.1.3", true, true, null],
    ]);
    expect(r.ssvc).toEqual({ exploitation: "poc", automatable: "no", technical_impact: "partial" });
  });

  it("CVE JSON 5.2 (CVE-2026-0001): ADP CVSS with origin adp", () => {
    const r = contribution("cve5/CVE-2026-0001.json");
    expect(r.state).toBe("PUBLISHED");
    expect(r.modified).toBe("2026-09-08T14:36:37.191Z");
    expect(r.cvss).toEqual([
      {
        version: "3.1",
        score: 4.4,
        vector: "CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:L/I:L/A:N",
        severity: "medium",
        origin: "adp",
        provider: "CISA-ADP",
      },
    ]);
    expect(r.cwes).toEqual(["CWE-416"]);
    expect(r.affected).toHaveLength(11);
    expect(row(r.affected[0]!)).toEqual([
      "cna",
      "Arm Ltd",
      "Bifrost GPU Kernel Driver",
      null,
      "r41p0",
      true,
      "r49p5",
      true,
      "affected",
      "patch",
      "unaffected",
    ]);
    expect(row(r.affected[10]!)).toEqual([
      "cna",
      "Arm Ltd",
      "Arm 5th Gen GPU Architecture Kernel Driver",
      null,
      "r56p0",
      true,
      "r56p0",
      true,
      "unaffected",
      "patch",
      "unaffected",
    ]);
  });

  it("submission form (golang/vulndb GO-2020-0001: cveMetadata has only cveId)", () => {
    const r = contribution("cve5/GO-2020-0001.json");
    expect(r).toMatchObject({
      cve_id: "CVE-2020-36567",
      state: "PUBLISHED",
      modified: null,
      published: null,
      reserved: null,
      assigner: null,
      cvss: [],
      cwes: ["CWE-117"], // from "CWE-117 Improper Output Neutralization for Logs" (no cweId)
      kev: null,
      ssvc: null,
    });
    expect(r.description).toBe(
      "Unsanitized input in the default logger in github.com/gin-gonic/gin before v1.6.0 allows remote attackers to inject arbitrary log lines.",
    );
    // version "0" + lessThan → unbounded lower bound
    expect(r.affected.map(row)).toEqual([
      [
        "cna",
        "github.com/gin-gonic/gin",
        "github.com/gin-gonic/gin",
        null,
        null,
        false,
        "1.6.0",
        false,
        "affected",
        "semver",
        "unaffected",
      ],
    ]);
    expect(r.references).toHaveLength(3);
  });

  it("RESERVED → { reserved: cveId } (synthetic: no RESERVED record exists in the data set)", () => {
    const synthetic = {
      dataType: "CVE_RECORD",
      dataVersion: "5.1",
      cveMetadata: { cveId: "CVE-2024-99999", state: "RESERVED", assignerShortName: "mitre", dateReserved: "2024-10-01T00:00:00.000Z" },
    };
    const r = parseCve5(synthetic);
    expect(r).toEqual({ reserved: "CVE-2024-99999" });
    expect(isReserved(r)).toBe(true);
    expect(isReserved(parseCve5(fixture("cve5/CVE-2024-3400.json")))).toBe(false);
  });
});

describe("parseCve5 — not a CVE JSON 5 record", () => {
  const throwsRecordError = (v: unknown, msg: RegExp) => {
    let err: unknown;
    try {
      parseCve5(v);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RecordError);
    expect((err as Error).message).toMatch(msg);
  };

  it("throws RecordError with a short message", () => {
    throwsRecordError(fixture("nvd11/CVE-2021-31799.json"), /^not a CVE JSON 5 record: missing cveMetadata$/);
    throwsRecordError(fixture("nvd20/CVE-2024-3400.json"), /missing cveMetadata/);
    throwsRecordError(null, /not a JSON object/);
    throwsRecordError([1, 2], /not a JSON object/);
    throwsRecordError({ cveMetadata: {} }, /missing cveMetadata\.cveId/);
    throwsRecordError({ cveMetadata: { cveId: "GHSA-xxxx" } }, /bad cveId "GHSA-xxxx"/);
    throwsRecordError({ dataVersion: "4.0", cveMetadata: { cveId: "CVE-2020-0001" } }, /unsupported dataVersion "4.0"/);
    throwsRecordError({ cveMetadata: { cveId: "CVE-2020-0001", state: "DRAFT" }, containers: { cna: {} } }, /unknown state "DRAFT"/);
    throwsRecordError({ cveMetadata: { cveId: "CVE-2020-0001", state: "PUBLISHED" } }, /missing containers/);
    throwsRecordError({ cveMetadata: { cveId: "CVE-2020-0001", state: "PUBLISHED" }, containers: { adp: [] } }, /missing containers\.cna/);
  });
});

describe("normalizeTimestamp", () => {
  it("normalises the timestamp forms met in CVE 5 and NVD", () => {
    expect(normalizeTimestamp("2024-04-12T07:20:00.707Z")).toBe("2024-04-12T07:20:00.707Z");
    expect(normalizeTimestamp("2024-05-02T21:17:22.890858")).toBe("2024-05-02T21:17:22.890Z");
    expect(normalizeTimestamp("2019-01-22T14:00:00")).toBe("2019-01-22T14:00:00.000Z");
    expect(normalizeTimestamp("2024-07-01T08:00:00+00:00")).toBe("2024-07-01T08:00:00.000Z");
    expect(normalizeTimestamp("2024-07-01T10:00:00+02:00")).toBe("2024-07-01T08:00:00.000Z");
    expect(normalizeTimestamp("2018-04-19T20:29Z")).toBe("2018-04-19T20:29:00.000Z");
    expect(normalizeTimestamp("2024-04-12T08:15:06.230")).toBe("2024-04-12T08:15:06.230Z");
    expect(normalizeTimestamp("2024-01-01T00:00:00Z")).toBe("2024-01-01T00:00:00.000Z");
    expect(normalizeTimestamp(" 2024-04-12T07:20:00.707Z ")).toBe("2024-04-12T07:20:00.707Z");
    expect(normalizeTimestamp("2024-04-12")).toBe("2024-04-12T00:00:00.000Z");
    expect(normalizeTimestamp("not a date")).toBeNull();
    expect(normalizeTimestamp(undefined)).toBeNull();
  });
});

const YEAR_FILE = resolve(SHARED, "cve-json5/vulnrichment-2023.jsonl.gz");

describe.skipIf(!existsSync(YEAR_FILE))("parseCve5 — the whole vulnrichment-2023.jsonl.gz", () => {
  it("parses every one of its 12,028 records without a throw", { timeout: 180_000 }, async () => {
    const lines = createInterface({ input: createReadStream(YEAR_FILE).pipe(createGunzip()), crlfDelay: Infinity });
    let records = 0;
    let parseMs = 0;
    const failures: string[] = [];
    const states: Record<string, number> = {};
    let rows = 0;
    let kev = 0;
    const bad: string[] = [];
    const OPEN = new Set(["0", "*", "-", "n/a", "unspecified"]);
    const started = performance.now();
    for await (const line of lines) {
      if (line === "") continue;
      records++;
      const rec = JSON.parse(line) as unknown;
      const t = performance.now();
      let r: ReturnType<typeof parseCve5>;
      try {
        r = parseCve5(rec);
      } catch (e) {
        failures.push(`${records}: ${(e as Error).message}`);
        continue;
      } finally {
        parseMs += performance.now() - t;
      }
      if (isReserved(r)) {
        states.RESERVED = (states.RESERVED ?? 0) + 1;
        continue;
      }
      states[r.state] = (states[r.state] ?? 0) + 1;
      rows += r.affected.length;
      if (r.kev) kev++;
      // invariants over every record
      if (r.modified === null) bad.push(`${r.cve_id}: no modified`);
      for (const c of r.cwes) if (!/^CWE-\d+$/.test(c)) bad.push(`${r.cve_id}: cwe ${c}`);
      for (const m of r.cvss) if (!(m.score >= 0 && m.score <= 10)) bad.push(`${r.cve_id}: score ${m.score}`);
      for (const a of r.affected) {
        if (a.cpe !== null && !a.cpe.startsWith("cpe:2.3:")) bad.push(`${r.cve_id}: cpe ${a.cpe}`);
        if (a.version_to === "*" || (a.version_from !== null && OPEN.has(a.version_from.toLowerCase())))
          bad.push(`${r.cve_id}: bounds ${a.version_from}..${a.version_to}`);
        if ((a.version_from === null && a.version_from_inclusive) || (a.version_to === null && a.version_to_inclusive))
          bad.push(`${r.cve_id}: inclusive null`);
      }
    }
    const totalMs = performance.now() - started;
    console.log(
      `vulnrichment-2023: ${records} records, ${rows} affected rows, ${kev} kev; ` +
        `total ${totalMs.toFixed(0)} ms (gunzip + readline + JSON.parse + parse), parseCve5 alone ${parseMs.toFixed(0)} ms`,
    );
    expect(failures).toEqual([]);
    expect(bad.slice(0, 10)).toEqual([]);
    expect(records).toBe(12_028);
    expect((states.PUBLISHED ?? 0) + (states.REJECTED ?? 0)).toBe(12_028);
    expect(states.REJECTED).toBeGreaterThan(0);
  });
});

describe("version expressions in `version` (no lessThan), as CNAs write them", () => {
  const R = (from: string | null, fromInclusive: boolean, to: string | null, toInclusive: boolean) => ({
    from,
    fromInclusive,
    to,
    toInclusive,
  });
  it("reads the forms found in cisagov/vulnrichment (counts in the README)", () => {
    expect(versionExpression(">= 1.3.0, < 1.3.19")).toEqual(R("1.3.0", true, "1.3.19", false));
    expect(versionExpression(">=10.4, < 10.6.2")).toEqual(R("10.4", true, "10.6.2", false));
    expect(versionExpression(">= 6.0.0 < 6.7.3")).toEqual(R("6.0.0", true, "6.7.3", false));
    expect(versionExpression("=> 1.8.0, < 3.3.12")).toEqual(R("1.8.0", true, "3.3.12", false));
    expect(versionExpression("> 0.11.0, < 2.9.17")).toEqual(R("0.11.0", false, "2.9.17", false));
    expect(versionExpression(">= 1.8.0, <= 1.8.2")).toEqual(R("1.8.0", true, "1.8.2", true));
    expect(versionExpression("< 6.4")).toEqual(R(null, false, "6.4", false));
    expect(versionExpression("<2.8")).toEqual(R(null, false, "2.8", false));
    expect(versionExpression("<= 0.27.4")).toEqual(R(null, false, "0.27.4", true));
    expect(versionExpression(">= 7.20.2")).toEqual(R("7.20.2", true, null, false));
    expect(versionExpression("= 2.39.0")).toEqual(R("2.39.0", true, "2.39.0", true));
    expect(versionExpression("2.x")).toEqual(R("2", true, "3", false));
    expect(versionExpression("6.1.*")).toEqual(R("6.1", true, "6.2", false));
    expect(versionExpression("All versions < V01.01.01")).toEqual(R(null, false, "V01.01.01", false));
    expect(versionExpression("All versions < V4.5 HF1")).toEqual(R(null, false, "V4.5 HF1", false));
    expect(versionExpression("5.5.58 and prior")).toEqual(R(null, false, "5.5.58", true));
    expect(versionExpression("7.2.26 and earlier")).toEqual(R(null, false, "7.2.26", true));
    expect(versionExpression("prior to 5.0.32")).toEqual(R(null, false, "5.0.32", false));
    expect(versionExpression("before version 7.0")).toEqual(R(null, false, "7.0", false));
    expect(versionExpression("through 8.1.0")).toEqual(R(null, false, "8.1.0", true));
    expect(versionExpression("All versions prior to and including 3.2")).toEqual(R(null, false, "3.2", true));
    expect(versionExpression("5.0.0 <= version < 5.15.7")).toEqual(R("5.0.0", true, "5.15.7", false));
  });

  it("keeps plain versions, labels and commits as written", () => {
    for (const v of [
      "1.2.3",
      "10.2.9-h1",
      "RomePI 1.0.0.C",
      "stable < 3.0.5",
      "Tuleap Community Edition < 14.10.99.4",
      "< c40665f44509724b64938c85def9fb2e79f62ec8",
    ]) {
      expect(versionExpression(v), v).toBeNull();
    }
  });

  const records = readFileSync(new URL("../../test/fixtures/matching/cve5-expressions.jsonl", import.meta.url), "utf8")
    .split("\n")
    .filter(Boolean);
  const parsed = (id: string) => {
    const r = parseCve5(JSON.parse(records.find((l) => l.includes(`"cveId":"${id}"`))!));
    if (isReserved(r)) throw new Error("RESERVED");
    return r.affected.map(row);
  };

  it("stores them as bounds with their inclusiveness (real records)", () => {
    expect(parsed("CVE-2020-5245")[0]).toEqual([
      "cna",
      "dropwizard",
      "dropwizard-validation",
      null,
      "1.3.0",
      true,
      "1.3.19",
      false,
      "affected",
      null,
      null,
    ]);
    expect(parsed("CVE-2021-37615")[0]).toEqual(["cna", "Exiv2", "exiv2", null, null, false, "0.27.4", true, "affected", null, null]);
    expect(parsed("CVE-2017-10159")[1]!.slice(4, 8)).toEqual(["12", true, "13", false]);
    // Oracle: one "N and prior" per series → each from its series.
    expect(parsed("CVE-2018-2562").map((r) => r.slice(4, 8))).toEqual([
      ["5.5", true, "5.5.58", true],
      ["5.6", true, "5.6.38", true],
      ["5.7", true, "5.7.19", true],
    ]);
  });

  it("reads wildcard bounds as the end of a series: Jenkins lessThan 2.426.*, Linux lessThanOrEqual 5.4.*, QNAP 4.3.*", () => {
    const jenkins = parsed("CVE-2024-23897")
      .filter((r) => r[0] === "cna")
      .map((r) => r.slice(4, 9));
    expect(jenkins).toEqual([
      [null, false, "1.606", false, "unaffected"],
      ["2.442", true, null, false, "unaffected"],
      ["2.426.3", true, "2.427", false, "unaffected"],
      ["2.440.1", true, "2.441", false, "unaffected"],
    ]);
    expect(
      parsed("CVE-2020-36775")
        .filter((r) => r[9] !== "git")
        .map((r) => r.slice(4, 8)),
    ).toContainEqual(["5.4.189", true, "5.5", false]);
    expect(parsed("CVE-2023-23363")[0]!.slice(4, 8)).toEqual(["4.3", true, "4.3.6.2441 build 20230621", false]);
  });
});

describe("changes[] inside a range (splitByChanges)", () => {
  const range = (from: string | null, to: string | null, toInclusive = false) => ({
    from,
    fromInclusive: from !== null,
    to,
    toInclusive,
    status: "affected",
  });
  const text = (segments: ReturnType<typeof splitByChanges>) =>
    segments.map((s) => `${s.fromInclusive ? "[" : "]"}${s.from ?? "*"}, ${s.to ?? "*"}${s.toInclusive ? "]" : "["} ${s.status}`);

  it("the status changes at each `at`, in version order, until the end of the range (the schema's reading)", () => {
    // The F5 shape of the task (15.1.0 < 15.1.* → [15.1.0, 15.2[, unaffected from 15.1.10).
    expect(text(splitByChanges(range("15.1.0", "15.2"), [{ at: "15.1.10", status: "unaffected" }]))).toEqual([
      "[15.1.0, 15.1.10[ affected",
      "[15.1.10, 15.2[ unaffected",
    ]);
    // Alternating statuses, given out of order: re-sorted.
    const changes = [
      { at: "1.2.3", status: "unaffected" },
      { at: "1.1.5", status: "unaffected" },
      { at: "1.2.0", status: "affected" },
    ];
    expect(text(splitByChanges(range("1.0.0", "1.4.0"), changes)).join(" ; ")).toBe(
      "[1.0.0, 1.1.5[ affected ; [1.1.5, 1.2.0[ unaffected ; [1.2.0, 1.2.3[ affected ; [1.2.3, 1.4.0[ unaffected",
    );
  });

  it("a run of changes to one status is a fix per release line (HashiCorp Vault CVE-2024-5798)", () => {
    const changes = [
      { at: "1.15.9", status: "unaffected" },
      { at: "1.14.13", status: "unaffected" },
    ];
    expect(text(splitByChanges(range("0.11.0", "1.16.2"), changes))).toEqual([
      "[0.11.0, 1.14.13[ affected",
      "[1.14.13, 1.15[ unaffected",
      "[1.15, 1.15.9[ affected",
      "[1.15.9, 1.16[ unaffected",
      "[1.16, 1.16.2[ affected",
    ]);
  });

  it("changes nothing outside the range, at an exclusive end, or at what is no version", () => {
    const one = (r: ReturnType<typeof range>, at: string) => text(splitByChanges(r, [{ at, status: "unaffected" }]));
    expect(one(range(null, "1.14.11", true), "1.14.12")).toEqual(["]*, 1.14.11] affected"]); // Patchstack
    expect(one(range("10.2.0", "10.2.9-h1"), "10.2.9-h1")).toEqual(["[10.2.0, 10.2.9-h1[ affected"]); // PAN-OS CVE-2024-3400
    expect(one(range("11.0.0", "11.0.5"), "+security-01")).toEqual(["[11.0.0, 11.0.5[ affected"]); // Grafana CVE-2024-9264
    expect(one(range("3.11.0", "3.11.14", true), "3.11.14")).toEqual(["[3.11.0, 3.11.14[ affected", "[3.11.14, 3.11.14] unaffected"]);
  });

  it("parseCve5 splits the rows (GitHub Enterprise Server CVE-2024-6337), not git commit ranges", () => {
    const line = readFileSync(new URL("../../test/fixtures/matching/cve5-changes.jsonl", import.meta.url), "utf8")
      .split("\n")
      .find((l) => l.includes('"CVE-2024-6337"'))!;
    const r = parseCve5(JSON.parse(line)) as CveContribution;
    const ghes = r.affected.filter((a) => a.version_from?.startsWith("3.11"));
    expect(ghes.map((a) => [a.version_from, a.version_to, a.version_to_inclusive, a.version_status])).toEqual([
      ["3.11.0", "3.11.14", false, "affected"],
      ["3.11.14", "3.11.14", true, "unaffected"],
    ]);
  });
});

describe("VMware update-style bounds", () => {
  it("an ESXi image name reads as its update; its security-only variant (s) as the same patch", () => {
    expect(esxiPatch("ESXi80U2sb-23305545")).toBe("8.0 U2b");
    expect(esxiPatch("ESXi70U3p-23307199")).toBe("7.0 U3p");
    expect(esxiPatch("esxi70U3sq-23794019")).toBe("7.0 U3q");
    expect(esxiPatch("ESXi80U3-24022510")).toBe("8.0 U3");
    expect(esxiPatch("8.0 U2b")).toBeNull();
    expect(esxiPatch("esxi670-201806401-bg")).toBeNull();
  });

  it("ranges of one release ending in different update lines start at their own line (vCenter CVE-2024-37079)", () => {
    const line = readFileSync(new URL("../../test/fixtures/matching/cve5-cna-adp.jsonl", import.meta.url), "utf8")
      .split("\n")
      .find((l) => l.includes('"CVE-2024-37079"'))!;
    const r = parseCve5(JSON.parse(line)) as CveContribution;
    const cna = r.affected.filter((a) => a.origin === "cna" && a.product === "VMware vCenter Server");
    expect(cna.map((a) => `[${a.version_from}, ${a.version_to}[`)).toEqual(["[8.0 U2, 8.0 U2d[", "[8.0, 8.0 U1e[", "[7.0, 7.0 U3r["]);
  });
});

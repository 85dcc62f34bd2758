import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { resolve } from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, it, expect } from "vitest";
import { parseNvd11Item, parseNvd20 } from "./nvd.js";
import type { AffectedEntry } from "../matching/affected.js";
import { RecordError } from "./types.js";

const FIXTURES = new URL("../../test/fixtures/feeds/", import.meta.url);
const fixture = (rel: string): unknown => JSON.parse(readFileSync(new URL(rel, FIXTURES), "utf8"));
const REPO = fileURLToPath(new URL("../../", import.meta.url));
const SHARED = resolve(REPO, process.env.VIGIE_SHARED_DATA ?? "../shared/data");

const row = (a: AffectedEntry) =>
  [
    a.vendor,
    a.product,
    a.cpe,
    a.version_from,
    a.version_from_inclusive,
    a.version_to,
    a.version_to_inclusive,
    a.version_status,
    a.vulnerable,
  ] as const;

function throwsRecordError(fn: () => unknown, msg: RegExp): void {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(RecordError);
  expect((err as Error).message).toMatch(msg);
}

describe("parseNvd11Item — NVD JSON 1.1 feed items", () => {
  it("CVE-2021-31799 (RDoc): ranges, AND node with a non-vulnerable platform, CVSS 3.1 + 2.0", () => {
    const r = parseNvd11Item(fixture("nvd11/CVE-2021-31799.json"));
    expect(r.cve_id).toBe("CVE-2021-31799");
    expect(r.state).toBe("PUBLISHED");
    expect(r.published).toBe("2021-07-30T14:15:00.000Z"); // "2021-07-30T14:15Z"
    expect(r.modified).toBe("2021-09-02T09:15:00.000Z");
    expect(r.assigner).toBe("cve@mitre.org");
    expect(r.description).toBe(
      "In RDoc 3.11 through 6.x before 6.3.1, as distributed with Ruby through 3.0.1, it is possible to execute arbitrary code via | and tags in a filename.",
    );
    expect(r.cvss).toEqual([
      {
        version: "3.1",
        score: 7,
        vector: "CVSS:3.1/AV:L/AC:H/PR:L/UI:N/S:U/C:H/I:H/A:H",
        severity: "high",
        origin: "nvd",
        provider: "nvd@nist.gov",
      },
      { version: "2.0", score: 4.4, vector: "AV:L/AC:M/Au:N/C:P/I:P/A:P", severity: "medium", origin: "nvd", provider: "nvd@nist.gov" },
    ]);
    expect(r.cwes).toEqual(["CWE-77"]);
    expect(r.references).toEqual([
      "https://www.ruby-lang.org/en/news/2021/05/02/os-command-injection-in-rdoc/",
      "https://security-tracker.debian.org/tracker/CVE-2021-31799",
      "https://security.netapp.com/advisory/ntap-20210902-0004/",
    ]);
    expect(r.affected.map(row)).toEqual([
      // concrete CPE version, no range → from = to = 9.0
      ["debian", "debian_linux", "cpe:2.3:o:debian:debian_linux:9.0:*:*:*:*:*:*:*", "9.0", true, "9.0", true, "affected", true],
      ["debian", "debian_linux", "cpe:2.3:o:debian:debian_linux:10.0:*:*:*:*:*:*:*", "10.0", true, "10.0", true, "affected", true],
      // AND children: versionStartIncluding 3.11, versionEndExcluding 6.3.1
      ["ruby-lang", "rdoc", "cpe:2.3:a:ruby-lang:rdoc:*:*:*:*:*:ruby:*:*", "3.11", true, "6.3.1", false, "affected", true],
      // …running with Ruby ≤ 3.0.1: a platform condition, vulnerable false
      ["ruby-lang", "ruby", "cpe:2.3:a:ruby-lang:ruby:*:*:*:*:*:*:*:*", null, false, "3.0.1", true, "unaffected", false],
    ]);
    for (const a of r.affected) expect([a.origin, a.version_type, a.default_status]).toEqual(["nvd", null, null]);
    expect(r.kev).toBeUndefined(); // the 1.1 format has no KEV fields
  });

  it("CVE-2018-0257 (Cisco IOS XE): CVSS 3.0, versionStartExcluding, escaped CPE, NVD-CWE-noinfo dropped", () => {
    const r = parseNvd11Item(fixture("nvd11/CVE-2018-0257.json"));
    expect(r.cvss).toEqual([
      {
        version: "3.0",
        score: 4.3,
        vector: "CVSS:3.0/AV:A/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:L",
        severity: "medium",
        origin: "nvd",
        provider: "nvd@nist.gov",
      },
      { version: "2.0", score: 3.3, vector: "AV:A/AC:L/Au:N/C:N/I:N/A:P", severity: "low", origin: "nvd", provider: "nvd@nist.gov" },
    ]);
    expect(r.cwes).toEqual([]);
    expect(r.assigner).toBe("psirt@cisco.com");
    expect(r.published).toBe("2018-04-19T20:29:00.000Z");
    expect(r.modified).toBe("2019-10-09T23:31:00.000Z");
    const any = "cpe:2.3:o:cisco:ios_xe:*:*:*:*:*:*:*:*";
    expect(r.affected.map(row)).toEqual([
      ["cisco", "ios_xe", any, "16.7", false, "16.7.2", true, "affected", true],
      ["cisco", "ios_xe", any, "3.18", true, "3.18.4", true, "affected", true],
      ["cisco", "ios_xe", "cpe:2.3:o:cisco:ios_xe:16.5:*:*:*:*:*:*:*", "16.5", true, "16.5", true, "affected", true],
      // version unescaped from 15.6\(2\)sp
      ["cisco", "ios_xe", "cpe:2.3:o:cisco:ios_xe:15.6\\(2\\)sp:*:*:*:*:*:*:*", "15.6(2)sp", true, "15.6(2)sp", true, "affected", true],
      ["cisco", "ios_xe", "cpe:2.3:o:cisco:ios_xe:16.4:*:*:*:*:*:*:*", "16.4", true, "16.4", true, "affected", true],
      ["cisco", "ios_xe", any, "16.6", true, "16.6.3", true, "affected", true],
    ]);
  });

  it("CVE-2021-3419: ** REJECT ** → REJECTED", () => {
    const r = parseNvd11Item(fixture("nvd11/CVE-2021-3419.json"));
    expect(r).toEqual({
      cve_id: "CVE-2021-3419",
      state: "REJECTED",
      modified: "2021-03-03T16:15:00.000Z",
      published: "2021-03-03T16:15:00.000Z",
      description:
        "** REJECT ** DO NOT USE THIS CANDIDATE NUMBER. ConsultIDs: none. Reason: This candidate was withdrawn by its CNA. Notes: none.",
      cvss: [],
      cwes: [],
      affected: [],
      references: [],
      assigner: "cve@mitre.org",
    });
  });

  it("throws RecordError on anything else", () => {
    throwsRecordError(() => parseNvd11Item(fixture("nvd20/CVE-2023-4966.json")), /^not an NVD JSON 1\.1 CVE item: missing cve$/);
    throwsRecordError(() => parseNvd11Item(fixture("cve5/CVE-2024-3400.json")), /missing cve/);
    throwsRecordError(() => parseNvd11Item({ CVE_Items: [] }), /whole feed/);
    throwsRecordError(() => parseNvd11Item("CVE-2021-3419"), /not a JSON object/);
    throwsRecordError(() => parseNvd11Item({ cve: { CVE_data_meta: {} } }), /missing cve\.CVE_data_meta\.ID/);
    throwsRecordError(() => parseNvd11Item({ cve: { CVE_data_meta: { ID: "CVE-21-1" } } }), /bad ID/);
  });
});

describe("parseNvd20 — NVD API 2.0 cve objects", () => {
  it("CVE-2023-4966 (Citrix Bleed, Analyzed): Primary metric first, CPE ranges, KEV, CWE filter", () => {
    const r = parseNvd20(fixture("nvd20/CVE-2023-4966.json"));
    expect(r.cve_id).toBe("CVE-2023-4966");
    expect(r.state).toBe("PUBLISHED");
    expect(r.published).toBe("2023-10-10T14:15:10.977Z");
    expect(r.modified).toBe("2025-10-24T13:42:55.550Z");
    expect(r.assigner).toBe("secure@citrix.com");
    expect(r.description).toMatch(/^Sensitive information disclosure\u00a0in NetScaler ADC and NetScaler Gateway/); // "en", not "es"
    expect(r.cvss).toEqual([
      {
        version: "3.1",
        score: 7.5,
        vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N",
        severity: "high",
        origin: "nvd",
        provider: "nvd@nist.gov",
      },
      {
        version: "3.1",
        score: 9.4,
        vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:L",
        severity: "critical",
        origin: "nvd",
        provider: "secure@citrix.com",
      },
    ]);
    expect(r.cwes).toEqual(["CWE-119"]); // NVD-CWE-noinfo dropped
    expect(r.kev).toEqual({ date_added: "2023-10-18", reference: null });
    expect(r.references).toEqual([
      "http://packetstormsecurity.com/files/175323/Citrix-Bleed-Session-Token-Leakage-Proof-Of-Concept.html",
      "https://support.citrix.com/article/CTX579459",
      "https://www.cisa.gov/known-exploited-vulnerabilities-catalog?field_cve=CVE-2023-4966",
    ]);
    const adc = "netscaler_application_delivery_controller";
    expect(r.affected.map(row)).toEqual([
      ["citrix", adc, `cpe:2.3:a:citrix:${adc}:*:*:*:*:fips:*:*:*`, "12.1", true, "12.1-55.300", false, "affected", true],
      ["citrix", adc, `cpe:2.3:a:citrix:${adc}:*:*:*:*:ndcpp:*:*:*`, "12.1", true, "12.1-55.300", false, "affected", true],
      ["citrix", adc, `cpe:2.3:a:citrix:${adc}:*:*:*:*:-:*:*:*`, "13.0", true, "13.0-92.19", false, "affected", true],
      ["citrix", adc, `cpe:2.3:a:citrix:${adc}:*:*:*:*:fips:*:*:*`, "13.1", true, "13.1-37.164", false, "affected", true],
      ["citrix", adc, `cpe:2.3:a:citrix:${adc}:*:*:*:*:-:*:*:*`, "13.1", true, "13.1-49.15", false, "affected", true],
      ["citrix", adc, `cpe:2.3:a:citrix:${adc}:*:*:*:*:-:*:*:*`, "14.1", true, "14.1-8.50", false, "affected", true],
      [
        "citrix",
        "netscaler_gateway",
        "cpe:2.3:a:citrix:netscaler_gateway:*:*:*:*:*:*:*:*",
        "13.0",
        true,
        "13.0-92.19",
        false,
        "affected",
        true,
      ],
      [
        "citrix",
        "netscaler_gateway",
        "cpe:2.3:a:citrix:netscaler_gateway:*:*:*:*:*:*:*:*",
        "13.1",
        true,
        "13.1-49.15",
        false,
        "affected",
        true,
      ],
      [
        "citrix",
        "netscaler_gateway",
        "cpe:2.3:a:citrix:netscaler_gateway:*:*:*:*:*:*:*:*",
        "14.1",
        true,
        "14.1-8.50",
        false,
        "affected",
        true,
      ],
    ]);
  });

  it("CVE-2024-3400 (Awaiting Analysis): CNA metric only, no configurations, KEV fields", () => {
    const r = parseNvd20(fixture("nvd20/CVE-2024-3400.json"));
    expect(r).toMatchObject({
      cve_id: "CVE-2024-3400",
      state: "PUBLISHED",
      published: "2024-04-12T08:15:06.230Z",
      modified: "2024-04-13T01:00:01.407Z",
      cwes: ["CWE-77"],
      affected: [],
      references: ["https://security.paloaltonetworks.com/CVE-2024-3400"],
      kev: { date_added: "2024-04-12", reference: null },
      assigner: "psirt@paloaltonetworks.com",
    });
    expect(r.cvss).toEqual([
      {
        version: "3.1",
        score: 10,
        vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H",
        severity: "critical",
        origin: "nvd",
        provider: "psirt@paloaltonetworks.com",
      },
    ]);
    expect(r.description).toMatch(/All other versions of PAN-OS are also not impacted\.$/);
  });

  it("accepts the API response's vulnerabilities[] element ({ cve: … })", () => {
    const bare = fixture("nvd20/CVE-2023-4966.json");
    expect(parseNvd20({ cve: bare })).toEqual(parseNvd20(bare));
  });

  it("vulnStatus Rejected → REJECTED (field changed on the real object)", () => {
    const rec = fixture("nvd20/CVE-2024-3400.json") as Record<string, unknown>;
    expect(parseNvd20({ ...rec, vulnStatus: "Rejected" }).state).toBe("REJECTED");
  });

  it("throws RecordError on anything else", () => {
    throwsRecordError(() => parseNvd20(fixture("nvd11/CVE-2021-31799.json")), /^not an NVD API 2\.0 CVE object: missing id$/);
    throwsRecordError(() => parseNvd20(fixture("cve5/CVE-2024-3400.json")), /missing id/);
    throwsRecordError(() => parseNvd20({ vulnerabilities: [] }), /API response/);
    throwsRecordError(() => parseNvd20(42), /not a JSON object/);
    throwsRecordError(() => parseNvd20({ id: "CVE-2024-3400" }), /missing descriptions/);
  });
});

const FEED = resolve(SHARED, "nvd/json-1.1-feeds/nvdcve-1.1-2018.json.gz");

describe.skipIf(!existsSync(FEED))("parseNvd11Item — the whole nvdcve-1.1-2018.json.gz", () => {
  it("parses every item without a throw", { timeout: 180_000 }, () => {
    const t0 = performance.now();
    const feed = JSON.parse(gunzipSync(readFileSync(FEED)).toString("utf8")) as { CVE_data_numberOfCVEs: string; CVE_Items: unknown[] };
    const loadMs = performance.now() - t0;
    const failures: string[] = [];
    const bad: string[] = [];
    let rows = 0;
    let rejected = 0;
    let platformRows = 0;
    const t1 = performance.now();
    for (const item of feed.CVE_Items) {
      let r: ReturnType<typeof parseNvd11Item>;
      try {
        r = parseNvd11Item(item);
      } catch (e) {
        failures.push((e as Error).message);
        continue;
      }
      rows += r.affected.length;
      if (r.state === "REJECTED") rejected++;
      for (const c of r.cwes) if (!/^CWE-\d+$/.test(c)) bad.push(`${r.cve_id}: cwe ${c}`);
      for (const a of r.affected) {
        if (a.vulnerable === false) platformRows++;
        if (a.vendor === null || a.product === null || a.cpe === null) bad.push(`${r.cve_id}: cpe ${a.cpe}`);
        if (a.version_status !== (a.vulnerable ? "affected" : "unaffected")) bad.push(`${r.cve_id}: status`);
      }
    }
    const parseMs = performance.now() - t1;
    console.log(
      `nvdcve-1.1-2018: ${feed.CVE_Items.length} items, ${rows} affected rows (${platformRows} platform rows), ${rejected} rejected; ` +
        `gunzip + JSON.parse ${loadMs.toFixed(0)} ms, parseNvd11Item alone ${parseMs.toFixed(0)} ms`,
    );
    expect(failures).toEqual([]);
    expect(bad.slice(0, 10)).toEqual([]);
    expect(feed.CVE_Items.length).toBe(Number(feed.CVE_data_numberOfCVEs));
    expect(rejected).toBeGreaterThan(0);
    expect(platformRows).toBeGreaterThan(0);
  });
});

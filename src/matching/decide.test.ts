import { describe, expect, it } from "vitest";
import {
  cnaDecides,
  decideAffected,
  decideOsv,
  decidePackageCpe,
  describe as describeMatch,
  meetsSeverity,
  type AffectedRow,
} from "./decide.js";

const row = (r: Partial<AffectedRow>): AffectedRow => ({
  origin: "cna",
  vendor: null,
  product: null,
  vendor_norm: null,
  cpe: null,
  version_from: null,
  version_from_inclusive: true,
  version_to: null,
  version_to_inclusive: false,
  version_status: "affected",
  version_type: null,
  default_status: null,
  vulnerable: true,
  ...r,
});

// CVE-2024-3400 as Vigie stores it from the CVE 5 record (CNA Palo Alto Networks + CISA ADP), PAN-OS rows.
const cna = {
  origin: "cna",
  vendor: "Palo Alto Networks",
  product: "PAN-OS",
  vendor_norm: "palo_alto_networks",
  default_status: "unaffected",
};
const adp = { origin: "adp", vendor: "paloaltonetworks", product: "pan-os", vendor_norm: "paloaltonetworks", default_status: "unknown" };
const CVE_2024_3400 = [
  row({ ...cna, version_from: "10.2.0", version_to: "10.2.9-h1", version_type: "custom" }),
  row({ ...cna, version_from: "11.0.0", version_to: "11.0.4-h1", version_type: "custom" }),
  row({ ...cna, version_from: "11.1.0", version_to: "11.1.2-h3", version_type: "custom" }),
  row({ ...cna, version_from: "10.1.0", version_to: "10.1.0", version_to_inclusive: true, version_status: "unaffected" }),
  row({ ...cna, version_from: "9.1.0", version_to: "9.1.0", version_to_inclusive: true, version_status: "unaffected" }),
  row({
    ...adp,
    version_from: "10.2.0",
    version_to: "10.2.9-h1",
    version_type: "custom",
    cpe: "cpe:2.3:o:paloaltonetworks:pan-os:10.2.0:*:*:*:*:*:*:*",
  }),
];

describe("affected products against an item's version", () => {
  it("PAN-OS 10.2.5 is hit by CVE-2024-3400, 10.2.9-h1 and 10.1.x are not", () => {
    expect(decideAffected(CVE_2024_3400, "paloaltonetworks", "10.2.5")).toMatchObject({
      rule: "version_range",
      range: "[10.2.0, 10.2.9-h1[",
    });
    // The CNA writes "Palo Alto Networks", the ADP "paloaltonetworks": the same vendor.
    expect(decideAffected(CVE_2024_3400, "palo_alto_networks", "11.1.2")).toMatchObject({ rule: "version_range", origin: "cna" });
    expect(decideAffected(CVE_2024_3400, "paloaltonetworks", "10.2.9-h1")).toBeNull();
    expect(decideAffected(CVE_2024_3400, "paloaltonetworks", "10.1.0")).toBeNull();
    expect(decideAffected(CVE_2024_3400, "paloaltonetworks", "10.1.14-h4")).toBeNull();
    expect(decideAffected(CVE_2024_3400, "cisco", "10.2.5")).toBeNull();
    // Every version watched: some version is affected.
    expect(decideAffected(CVE_2024_3400, "paloaltonetworks", null)).toMatchObject({ rule: "all_versions" });
  });

  it("OpenSSH 9.6p1 is hit by CVE-2024-6387 (a CNA row that names no vendor), 9.8p1 is not", () => {
    // Red Hat's CNA entry: product OpenSSH, 8.5p1 to 9.7p1 inclusive, no vendor.
    const rows = [
      row({
        product: "OpenSSH",
        version_from: "8.5p1",
        version_to: "9.7p1",
        version_to_inclusive: true,
        version_type: "custom",
        default_status: "unaffected",
      }),
    ];
    expect(decideAffected(rows, "openbsd", "9.6p1")).toMatchObject({ rule: "version_range", range: "[8.5p1, 9.7p1]" });
    expect(decideAffected(rows, "openbsd", "9.8p1")).toBeNull();
  });

  it("an NVD row without bounds is no statement about a version (CVE-2008-3844 does not hit OpenSSH 9.6p1)", () => {
    const nvd = [
      row({
        origin: "nvd",
        vendor: "openbsd",
        product: "openssh",
        vendor_norm: "openbsd",
        cpe: "cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*",
      }),
    ];
    expect(decideAffected(nvd, "openbsd", "9.6p1")).toBeNull();
    expect(decideAffected(nvd, "openbsd", null)).toMatchObject({ rule: "all_versions", origin: "nvd" });
    // The CNA's own "every version" does count.
    expect(decideAffected([row({ vendor_norm: "openbsd" })], "openbsd", "9.6p1")).toMatchObject({ rule: "all_versions", origin: "cna" });
  });

  it("an inclusive upper bound covers the release's patch levels, an exact version does not (NVD CVE-2025-26465)", () => {
    const nvd = { origin: "nvd", vendor_norm: "openbsd" };
    const range = [row({ ...nvd, version_from: "6.9", version_to: "9.8", version_to_inclusive: true })];
    expect(decideAffected(range, "openbsd", "9.8p1")).toMatchObject({ rule: "version_range" });
    expect(decideAffected(range, "openbsd", "9.9p1")).toBeNull();
    const exact = [row({ ...nvd, version_from: "9.9", version_to: "9.9", version_to_inclusive: true })];
    expect(decideAffected(exact, "openbsd", "9.9")).toMatchObject({ range: "= 9.9" });
    expect(decideAffected(exact, "openbsd", "9.9p2")).toBeNull();
    // NVD lists OpenSSH releases as version + update (CVE-2025-26465: cpe:2.3:a:openbsd:openssh:9.9:p1): that release only.
    const p1 = [
      row({
        ...nvd,
        cpe: "cpe:2.3:a:openbsd:openssh:9.9:p1:*:*:*:*:*:*",
        version_from: "9.9",
        version_to: "9.9",
        version_to_inclusive: true,
      }),
    ];
    expect(decideAffected(p1, "openbsd", "9.9p1")).toMatchObject({ rule: "version_range", range: "= 9.9-p1" });
    expect(decideAffected(p1, "openbsd", "9.9")).toBeNull();
    expect(decideAffected(p1, "openbsd", "9.9p2")).toBeNull();
  });

  it("defaultStatus affected decides only when no row gives a range", () => {
    const rows = [row({ vendor_norm: "acme", version_status: "unknown", default_status: "affected" })];
    expect(decideAffected(rows, "acme", "1.0")).toMatchObject({ rule: "default_status" });
    expect(decideAffected([...rows, row({ vendor_norm: "acme", version_from: "2.0", version_to: "3.0" })], "acme", "1.0")).toBeNull();
  });
});

describe("a versioned package against CPE data naming its product", () => {
  // NVD 1.1 feed 2021, CVE-2021-35042 (Django): djangoproject:django 3.1 ≤ v < 3.1.13 and 3.2 ≤ v < 3.2.5.
  const nvd = { origin: "nvd", vendor: "djangoproject", product: "django", vendor_norm: "djangoproject" };
  const rows = [row({ ...nvd, version_from: "3.1", version_to: "3.1.13" }), row({ ...nvd, version_from: "3.2", version_to: "3.2.5" })];

  const linked = () => true;

  it("only version ranges count", () => {
    expect(decidePackageCpe(rows, "3.2.4", linked)).toMatchObject({ rule: "version_range", origin: "nvd", range: "[3.2, 3.2.5[" });
    expect(decidePackageCpe(rows, "3.2.5", linked)).toBeNull();
    expect(decidePackageCpe(rows, null, linked)).toBeNull();
    // CVE-2023-36053's ADP entry: djangoproject:django, every version — too weak a link for a package.
    expect(decidePackageCpe([row({ ...nvd, origin: "adp" }), row({ ...nvd, origin: "cna" })], "4.2.1", linked)).toBeNull();
  });

  it("only the rows linked to the package count", () => {
    expect(decidePackageCpe(rows, "3.2.4", () => false)).toBeNull();
  });
});

describe("OSV packages and severity thresholds", () => {
  // PYSEC-2023-100 (CVE-2023-36053), Django.
  const django = [
    {
      advisory: "PYSEC-2023-100",
      ecosystem: "PyPI",
      name: "django",
      versions: [],
      ranges: [
        {
          type: "ECOSYSTEM",
          events: [
            { introduced: "0" },
            { fixed: "3.2.20" },
            { introduced: "4.0" },
            { fixed: "4.1.10" },
            { introduced: "4.2" },
            { fixed: "4.2.3" },
          ],
        },
      ],
    },
  ];

  it("Django 4.2.1 is hit, 4.2.3 is not; an unversioned package item is hit", () => {
    const hit = decideOsv(django, "4.2.1");
    expect(hit).toMatchObject({ rule: "osv_range", origin: "PYSEC-2023-100", version: "4.2.1" });
    expect(describeMatch("purl", "pkg:pypi/django@4.2.1", hit!)).toBe(
      "purl pkg:pypi/django@4.2.1 : version 4.2.1 dans [4.2, 4.2.3[ (PYSEC-2023-100)",
    );
    expect(decideOsv(django, "3.2.19")).toMatchObject({ range: "[0, 3.2.20[" });
    expect(decideOsv(django, "4.2.3")).toBeNull();
    expect(decideOsv(django, null)).toMatchObject({ rule: "osv_range" });
  });

  it("min_severity: an unscored CVE passes no threshold (it alerts once scored)", () => {
    expect(meetsSeverity("critical", "high")).toBe(true);
    expect(meetsSeverity("medium", "high")).toBe(false);
    expect(meetsSeverity("unknown", "low")).toBe(false);
    expect(meetsSeverity("unknown", null)).toBe(true);
  });
});

describe("defaultStatus: affected holds for every version no listed range covers", () => {
  it("an entry listing affected ranges keeps them as its statement (synthetic rows: affected [1.0, 1.5[, default affected)", () => {
    const rows = [row({ vendor_norm: "x", product: "p", version_from: "1.0", version_to: "1.5", default_status: "affected" })];
    expect(decideAffected(rows, "x", "1.2")).toMatchObject({ rule: "version_range" });
    expect(decideAffected(rows, "x", "2.0")).toBeNull();
  });
});

describe("cnaDecides: the CNA's versions of a product set the ADP's aside", () => {
  // dapr CVE-2024-35223 (vulnrichment-2024): CNA ">= 1.13.0, < 1.13.3", CISA ADP 1.11.2 ≤ 1.13.3.
  const dapr = { vendor: "dapr", product: "dapr", vendor_norm: "dapr" };
  const cnaRow = row({ ...dapr, version_from: "1.13.0", version_to: "1.13.3" });
  const adpRow = row({ ...dapr, origin: "adp", version_from: "1.11.2", version_to: "1.13.3", version_to_inclusive: true });
  const nvdRow = row({ ...dapr, origin: "nvd", version_from: "1.11.2", version_to: "1.13.3" });

  it("drops the ADP rows (not NVD's) when a CNA row states readable versions", () => {
    expect(cnaDecides([cnaRow, adpRow, nvdRow])).toEqual([cnaRow, nvdRow]);
    expect(decideAffected([cnaRow, adpRow], "dapr", "1.13.3")).toBeNull();
    expect(decideAffected([adpRow], "dapr", "1.13.3")).toMatchObject({ origin: "adp" });
  });

  it("keeps them when the CNA gives no version, a text, or a range that holds nothing", () => {
    const noVersion = row({ ...dapr });
    const text = row({ ...dapr, version_from: "10.4.1, 10.4.2, 11.0.0", version_to: "10.4.1, 10.4.2, 11.0.0", version_to_inclusive: true });
    const empty = row({ ...dapr, version_from: "126.0.6478.54", version_to: "126.0.6478.54" });
    for (const c of [noVersion, text, empty]) expect(cnaDecides([c, adpRow])).toEqual([c, adpRow]);
    // A text beside readable rows: the CNA's statement is partly unreadable, the ADP's restatement stays.
    expect(cnaDecides([cnaRow, text, adpRow])).toHaveLength(3);
  });

  it("update-style bounds are versions: 8.0 U2d, 7.0 Update 3q, 2019.4 HF 5", () => {
    // Also service packs and cumulative updates as CNAs write them (vulnrichment): Siemens "V2010 SP3"
    // (CVE-2017-2680), Trend Micro "9.1 Service Pack 3" (CVE-2024-45504), Ivanti "2022 SU5" (CVE-2024-29824),
    // Microsoft "8.2 CU8" (CVE-2023-21531).
    for (const to of [
      "8.0 U2d",
      "7.0 Update 3q",
      "2019.4 HF 5",
      "V223.0 Update 4",
      "V2010 SP3",
      "9.1 Service Pack 3",
      "2022 SU5",
      "8.2 CU8",
    ])
      expect(cnaDecides([row({ ...dapr, version_from: "0.1", version_to: to }), adpRow]), to).toHaveLength(1);
  });
});

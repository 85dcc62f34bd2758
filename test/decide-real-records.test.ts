// Matching decisions on real records (test/fixtures/matching/cve5-expressions.jsonl, from
// cisagov/vulnrichment), parsed and merged as stored: the feed parsers and matching together.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseCve5 } from "../src/feeds/cve5.js";
import { mergeCve } from "../src/feeds/merge.js";
import { decideAffected, type AffectedRow } from "../src/matching/decide.js";

const REAL = new Map(
  readFileSync(new URL("./fixtures/matching/cve5-expressions.jsonl", import.meta.url), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const data = parseCve5(JSON.parse(line)) as { cve_id: string };
      const m = mergeCve({ cve_id: data.cve_id, contributions: [{ source: "cve5", data, source_modified: null }], advisories: [] })!;
      return [data.cve_id, m.affected as unknown as AffectedRow[]];
    }),
);
const real = (id: string, product?: string) => REAL.get(id)!.filter((r) => !product || r.product === product);

describe("defaultStatus: affected holds for every version no listed range covers", () => {
  it("Jenkins CVE-2024-23897 lists only unaffected lines: 2.426.2 and 2.441 are hit, 2.426.3, 2.440.1, 2.442 and 1.600 are not", () => {
    const rows = real("CVE-2024-23897");
    expect(decideAffected(rows, "jenkins", "2.426.2")).toMatchObject({ rule: "default_status" });
    expect(decideAffected(rows, "jenkins_project", "2.441")).toMatchObject({ rule: "default_status" });
    expect(decideAffected(rows, "jenkins", "2.300")).toMatchObject({ rule: "default_status" });
    for (const v of ["2.426.3", "2.426.9", "2.440.1", "2.442", "2.450", "1.600"]) expect(decideAffected(rows, "jenkins", v), v).toBeNull();
  });

  it("Linux CVE-2020-36775: 5.4.100 (before the 5.4.189 fix) is hit, 5.4.200, 5.6.7 and 6.1 are not", () => {
    const rows = real("CVE-2020-36775");
    expect(decideAffected(rows, "linux", "5.4.100")).toMatchObject({ rule: "default_status" });
    for (const v of ["5.4.189", "5.4.200", "5.6.7", "5.7", "6.1"]) expect(decideAffected(rows, "linux", v), v).toBeNull();
  });

  it('Linux CVE-2022-48959 ("5.10" affected, unaffected below it and from each fix): 5.10.100 is hit, 5.4 and 5.10.159 are not', () => {
    const data = parseCve5(JSON.parse(readFileSync(new URL("./fixtures/feeds/cve5/CVE-2022-48959.json", import.meta.url), "utf8"))) as {
      cve_id: string;
    };
    const rows = mergeCve({ cve_id: data.cve_id, contributions: [{ source: "cve5", data, source_modified: null }], advisories: [] })!
      .affected as unknown as AffectedRow[];
    expect(decideAffected(rows, "linux", "5.10.100")).toMatchObject({ rule: "default_status" });
    expect(decideAffected(rows, "linux", "5.10")).toMatchObject({ rule: "version_range" });
    for (const v of ["5.4", "5.10.159", "5.15.90", "6.1.2"]) expect(decideAffected(rows, "linux", v), v).toBeNull();
  });
});

describe("version expressions read as ranges (real records)", () => {
  it('dropwizard CVE-2020-5245 ">= 1.3.0, < 1.3.19": 1.3.5 hit, 1.3.19 not', () => {
    expect(decideAffected(real("CVE-2020-5245"), "dropwizard", "1.3.5")).toMatchObject({ rule: "version_range", range: "[1.3.0, 1.3.19[" });
    expect(decideAffected(real("CVE-2020-5245"), "dropwizard", "1.3.19")).toBeNull();
  });

  it('MySQL CVE-2018-2562 "5.5.58 and prior" (one per series): 5.5.40 hit, 5.5.59 not', () => {
    expect(decideAffected(real("CVE-2018-2562"), "oracle_corporation", "5.5.40")).toMatchObject({
      rule: "version_range",
      range: "[5.5, 5.5.58]",
    });
    expect(decideAffected(real("CVE-2018-2562"), "oracle_corporation", "5.5.59")).toBeNull();
  });

  it('Oracle CVE-2017-10159 "12.x": 12.1.2 hit, 13.0 not', () => {
    expect(decideAffected(real("CVE-2017-10159"), "oracle_corporation", "12.1.2")).toMatchObject({
      rule: "version_range",
      range: "[12, 13[",
    });
    expect(decideAffected(real("CVE-2017-10159"), "oracle_corporation", "13.0")).toBeNull();
  });

  it("the item's vendor meets the CNA's display name: its words within it (oracle in Oracle Corporation), or a learned equivalence", () => {
    expect(decideAffected(real("CVE-2017-10159"), "oracle", "12.1.2")).toMatchObject({ rule: "version_range", range: "[12, 13[" });
    expect(decideAffected(real("CVE-2017-10159"), "orcl", "12.1.2")).toBeNull();
    expect(decideAffected(real("CVE-2017-10159"), "oracle_america", "12.1.2")).toBeNull();
    expect(decideAffected(real("CVE-2017-10159"), "orcl", "12.1.2", ["oracle_corporation"])).toMatchObject({
      rule: "version_range",
      range: "[12, 13[",
    });
  });

  it('exiv2 CVE-2021-37615 "<= 0.27.4": 0.27.4 hit, 0.27.5 not', () => {
    expect(decideAffected(real("CVE-2021-37615"), "exiv2", "0.27.4")).toMatchObject({ rule: "version_range" });
    expect(decideAffected(real("CVE-2021-37615"), "exiv2", "0.27.5")).toBeNull();
  });
});

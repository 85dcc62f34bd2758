import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { cvss3BaseScore, roundup, severityFromScore } from "./cvss.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const FIX = resolve(ROOT, "test/fixtures/feeds/cvss/nvd-1.1-v3-vector-scores.json");
const NVD = resolve(ROOT, "../shared/data/nvd/json-1.1-feeds");

interface Pair {
  vector: string;
  baseScore: number;
  cve: string;
  feed: string;
}
const pairs = JSON.parse(readFileSync(FIX, "utf8")) as Pair[];

describe("cvss3BaseScore", () => {
  it("scores well-known vectors", () => {
    expect(cvss3BaseScore("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H")).toBe(10); // Log4Shell (GHSA-jfh8-c2jp-5v3q)
    expect(cvss3BaseScore("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H")).toBe(9.8);
    expect(cvss3BaseScore("CVSS:3.0/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H")).toBe(8.1); // RUSTSEC-2016-0001
    expect(cvss3BaseScore("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:H/A:N")).toBe(7.5); // PYSEC-2023-246
    expect(cvss3BaseScore("CVSS:3.1/AV:N/AC:L/PR:L/UI:R/S:C/C:L/I:L/A:N")).toBe(5.4);
    expect(cvss3BaseScore("CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H")).toBe(7.8);
    expect(cvss3BaseScore("CVSS:3.1/AV:P/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N")).toBe(1.6);
    expect(cvss3BaseScore("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N")).toBe(0);
    expect(cvss3BaseScore("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:N/I:N/A:N")).toBe(0);
  });

  it("accepts metrics in any order and ignores (validated) temporal/environmental ones", () => {
    expect(cvss3BaseScore("CVSS:3.1/A:H/I:H/C:H/S:U/UI:N/PR:N/AC:L/AV:N")).toBe(9.8);
    expect(cvss3BaseScore("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/E:P/RL:O/RC:C/CR:H/MAV:L")).toBe(9.8);
    expect(cvss3BaseScore("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/E:Z")).toBeNull();
  });

  it("returns null for anything that is not a complete v3.x vector", () => {
    for (const bad of [
      "",
      "AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", // no prefix
      "AV:N/AC:L/Au:N/C:P/I:P/A:P", // CVSS v2
      "CVSS:4.0/AV:N/AC:L/AT:P/PR:L/UI:N/VC:L/VI:L/VA:L/SC:N/SI:N/SA:N", // RUSTSEC-2024-0445
      "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H", // A missing
      "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:X",
      "CVSS:3.1/AV:N/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", // repeated
      "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/", // empty component
      "CVSS:3.2/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H",
    ]) {
      expect(cvss3BaseScore(bad), bad).toBeNull();
    }
  });

  it(`matches NVD's baseScore for all ${pairs.length} distinct vectors of the NVD 1.1 feeds`, () => {
    expect(pairs.length).toBe(1188);
    expect(pairs.filter((p) => p.vector.startsWith("CVSS:3.0/")).length).toBeGreaterThan(200);
    expect(pairs.filter((p) => p.vector.startsWith("CVSS:3.1/")).length).toBeGreaterThan(200);
    const wrong = pairs.filter((p) => cvss3BaseScore(p.vector) !== p.baseScore);
    expect(wrong).toEqual([]);
  });
});

describe("roundup (CVSS v3.1 Appendix A)", () => {
  it("rounds up to one decimal without floating-point artefacts", () => {
    expect(roundup(4.0)).toBe(4.0);
    expect(roundup(4.000000000000001)).toBe(4.0);
    expect(roundup(4.02)).toBe(4.1);
    expect(roundup(4.1)).toBe(4.1);
    expect(roundup(9.9999)).toBe(10);
    expect(roundup(0)).toBe(0);
  });
});

describe("severityFromScore", () => {
  it("maps the CVSS qualitative bands", () => {
    expect(severityFromScore(10)).toBe("critical");
    expect(severityFromScore(9.0)).toBe("critical");
    expect(severityFromScore(8.9)).toBe("high");
    expect(severityFromScore(7.0)).toBe("high");
    expect(severityFromScore(6.9)).toBe("medium");
    expect(severityFromScore(4.0)).toBe("medium");
    expect(severityFromScore(3.9)).toBe("low");
    expect(severityFromScore(0.1)).toBe("low");
    expect(severityFromScore(0)).toBe("none");
    expect(severityFromScore(null)).toBe("unknown");
    expect(severityFromScore(Number.NaN)).toBe("unknown");
    expect(severityFromScore(11)).toBe("unknown");
    expect(severityFromScore(-1)).toBe("unknown");
  });
});

const feed2018 = resolve(NVD, "nvdcve-1.1-2018.json.gz");
describe.skipIf(!existsSync(feed2018))("whole NVD 1.1 2018 feed (shared/data)", () => {
  it("recomputes every CVSS v3 baseScore of the feed", () => {
    const t0 = performance.now();
    const doc = JSON.parse(gunzipSync(readFileSync(feed2018)).toString("utf8")) as {
      CVE_Items: { impact?: { baseMetricV3?: { cvssV3: { vectorString: string; baseScore: number } } } }[];
    };
    let n = 0;
    const wrong: string[] = [];
    for (const item of doc.CVE_Items) {
      const m = item.impact?.baseMetricV3?.cvssV3;
      if (!m) continue;
      n++;
      if (cvss3BaseScore(m.vectorString) !== m.baseScore) wrong.push(`${m.vectorString} ${m.baseScore}`);
    }
    console.log(`CVSS: NVD 1.1 2018 feed, ${n} v3 metrics checked in ${(performance.now() - t0).toFixed(0)} ms`);
    expect(n).toBeGreaterThan(10_000);
    expect(wrong).toEqual([]);
  });
});

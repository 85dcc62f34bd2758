import { describe, expect, it } from "vitest";
import { osvAffects, osvIntervals, type OsvAffectedPackage, type OsvEvent } from "./osv-range.js";

// Ranges below are copied verbatim from the cited records (paths relative to ../shared/data);
// `versions: []` unless the test is about the enumerated list, so the range logic is what is tested.

const eco = (events: OsvEvent[], versions: string[] = []): OsvAffectedPackage => ({
  ranges: [{ type: "ECOSYSTEM", events }],
  versions,
});
const semver = (events: OsvEvent[]): OsvAffectedPackage => ({ ranges: [{ type: "SEMVER", events }], versions: [] });

describe("osvAffects: PyPI (Django)", () => {
  // PYSEC-2023-100 / CVE-2023-36053 (Django EmailValidator ReDoS) — osv/pypa/pypa-osv.jsonl.gz
  // (also osv/osv-combined.jsonl.gz, vulns/django/PYSEC-2023-100.yaml in pypa-vulns-yaml.tar.gz).
  const PYSEC_2023_100_EVENTS: OsvEvent[] = [
    { introduced: "4.2" },
    { fixed: "4.2.3" },
    { introduced: "4.0" },
    { fixed: "4.1.10" },
    { introduced: "3.2" },
    { fixed: "3.2.20" },
  ];
  const PYSEC_2023_100_VERSIONS = [
    "3.2",
    "3.2.1",
    "3.2.10",
    "3.2.11",
    "3.2.12",
    "3.2.13",
    "3.2.14",
    "3.2.15",
    "3.2.16",
    "3.2.17",
    "3.2.18",
    "3.2.19",
    "3.2.2",
    "3.2.3",
    "3.2.4",
    "3.2.5",
    "3.2.6",
    "3.2.7",
    "3.2.8",
    "3.2.9",
    "4.0",
    "4.0.1",
    "4.0.10",
    "4.0.2",
    "4.0.3",
    "4.0.4",
    "4.0.5",
    "4.0.6",
    "4.0.7",
    "4.0.8",
    "4.0.9",
    "4.1",
    "4.1.1",
    "4.1.2",
    "4.1.3",
    "4.1.4",
    "4.1.5",
    "4.1.6",
    "4.1.7",
    "4.1.8",
    "4.1.9",
    "4.1a1",
    "4.1b1",
    "4.1rc1",
    "4.2",
    "4.2.1",
    "4.2.2",
  ];

  it("PYSEC-2023-100: Django 4.2.1 is affected, the fixed 4.2.3 is not", () => {
    const pkg = eco(PYSEC_2023_100_EVENTS);
    expect(osvAffects("4.2.1", pkg)).toBe(true);
    expect(osvAffects("4.2.2", pkg)).toBe(true);
    expect(osvAffects("4.2.3", pkg)).toBe(false);
    expect(osvAffects("4.1.10", pkg)).toBe(false);
    expect(osvAffects("3.2.20", pkg)).toBe(false);
    expect(osvAffects("3.1.14", pkg)).toBe(false);
    // Pre-releases sort before their release: 4.1a1 is in [4.0, 4.1.10), 4.2rc1 below "introduced 4.2".
    expect(osvAffects("4.1a1", pkg)).toBe(true);
    expect(osvAffects("4.2rc1", pkg)).toBe(false);
  });

  it("PYSEC-2023-100: the ranges agree with the record's enumerated versions", () => {
    for (const v of PYSEC_2023_100_VERSIONS) expect([v, osvAffects(v, eco(PYSEC_2023_100_EVENTS))]).toEqual([v, true]);
  });

  it("PYSEC-2023-100: a version in `versions` is affected even without ranges", () => {
    const listOnly: OsvAffectedPackage = { ranges: [], versions: PYSEC_2023_100_VERSIONS };
    expect(osvAffects("4.2.1", listOnly)).toBe(true);
    expect(osvAffects("4.2.3", listOnly)).toBe(false);
  });

  it("PYSEC-2023-61 / CVE-2023-31047: 4.2.1 is the fix there", () => {
    const pkg = eco([
      { introduced: "3.2" },
      { fixed: "3.2.19" },
      { introduced: "4.0" },
      { fixed: "4.1.9" },
      { introduced: "4.2" },
      { fixed: "4.2.1" },
    ]);
    expect(osvAffects("4.2", pkg)).toBe(true);
    expect(osvAffects("4.2.1", pkg)).toBe(false);
    expect(osvAffects("4.1.8", pkg)).toBe(true);
  });

  it("PYSEC-2024-102 / CVE-2024-45230: events listed newest branch first are sorted before evaluation", () => {
    const pkg = eco([
      { introduced: "5.1" },
      { fixed: "5.1.1" },
      { introduced: "5.0" },
      { fixed: "5.0.9" },
      { introduced: "4.2" },
      { fixed: "4.2.16" },
    ]);
    expect(osvAffects("4.2.15", pkg)).toBe(true);
    expect(osvAffects("4.2.16", pkg)).toBe(false);
    expect(osvAffects("5.0.8", pkg)).toBe(true);
    expect(osvAffects("5.0.9", pkg)).toBe(false);
    expect(osvAffects("5.1", pkg)).toBe(true);
    expect(osvAffects("5.1.1", pkg)).toBe(false);
    expect(osvAffects("4.1.13", pkg)).toBe(false);
  });

  it("PYSEC-2015-9 / CVE-2015-2317: PEP 440 pre-release bounds 1.8a0 .. 1.8c1", () => {
    const pkg = eco([
      { introduced: "0" },
      { fixed: "1.4.20" },
      { introduced: "1.5" },
      { fixed: "1.6.11" },
      { introduced: "1.7" },
      { fixed: "1.7.7" },
      { introduced: "1.8a0" },
      { fixed: "1.8c1" },
    ]);
    expect(osvAffects("1.8a1", pkg)).toBe(true);
    expect(osvAffects("1.8b2", pkg)).toBe(true);
    expect(osvAffects("1.8c1", pkg)).toBe(false);
    expect(osvAffects("1.8rc1", pkg)).toBe(false); // "c" is PEP 440's spelling of "rc"
    expect(osvAffects("1.8", pkg)).toBe(false);
    expect(osvAffects("1.4.19", pkg)).toBe(true);
  });

  it("PYSEC-2012-7 / CVE-2012-4520: the GIT range (introduced 0, fixed commits) is ignored", () => {
    const pkg: OsvAffectedPackage = {
      ranges: [
        {
          type: "GIT",
          events: [
            { introduced: "0" },
            { fixed: "9305c0e12d43c4df999c3301a1f0c742264a657e" },
            { fixed: "b45c377f8f488955e0c7069cad3f3dd21910b071" },
            { fixed: "92d3430f12171f16f566c9050c40feefb830a4a3" },
          ],
        },
        { type: "ECOSYSTEM", events: [{ introduced: "1.3" }, { fixed: "1.3.4" }, { introduced: "1.4" }, { fixed: "1.4.2" }] },
      ],
      versions: [],
    };
    expect(osvAffects("1.4.1", pkg)).toBe(true);
    expect(osvAffects("1.5", pkg)).toBe(false);
    expect(osvAffects("1.2.7", pkg)).toBe(false);
  });
});

describe("osvAffects: other PyPI event kinds", () => {
  it("PYSEC-2022-42969 / CVE-2022-42969 (py): last_affected is inclusive", () => {
    const pkg = eco([{ introduced: "0" }, { last_affected: "1.11.0" }]);
    expect(osvAffects("1.11.0", pkg)).toBe(true);
    expect(osvAffects("1.4.7.dev3", pkg)).toBe(true); // listed in the record's versions
    expect(osvAffects("1.11.1", pkg)).toBe(false);
  });

  it("PYSEC-2024-17 (pyload-ng) and PYSEC-2022-300 (label-studio): dev and post fixed versions", () => {
    const pyload = eco([{ introduced: "0" }, { fixed: "0.5.0b3.dev78" }]);
    expect(osvAffects("0.5.0a5.dev528", pyload)).toBe(true);
    expect(osvAffects("0.5.0b3.dev77", pyload)).toBe(true);
    expect(osvAffects("0.5.0b3", pyload)).toBe(false);
    const labelStudio = eco([{ introduced: "0" }, { fixed: "1.5.0.post0" }]);
    expect(osvAffects("1.5.0", labelStudio)).toBe(true);
    expect(osvAffects("1.5.0.post0", labelStudio)).toBe(false);
  });
});

describe("osvAffects: Go (SEMVER ranges)", () => {
  // GO-2022-0969 / CVE-2022-27664 — osv/go-vulndb/osv/GO-2022-0969.json.
  const stdlib = semver([{ introduced: "0" }, { fixed: "1.18.6" }, { introduced: "1.19.0-0" }, { fixed: "1.19.1" }]);
  const xnet = semver([{ introduced: "0" }, { fixed: "0.0.0-20220906165146-f3363e06e74c" }]);

  it("GO-2022-0969: stdlib branches, including the '1.19.0-0' lower bound", () => {
    expect(osvAffects("1.18.5", stdlib)).toBe(true);
    expect(osvAffects("1.18.6", stdlib)).toBe(false);
    expect(osvAffects("1.18.10", stdlib)).toBe(false);
    expect(osvAffects("1.19.0-rc.1", stdlib)).toBe(true);
    expect(osvAffects("1.19.0", stdlib)).toBe(true);
    expect(osvAffects("1.19.1", stdlib)).toBe(false);
  });

  it("GO-2022-0969: golang.org/x/net pseudo-versions", () => {
    // The x/net fix of GO-2022-0236 (osv/go-vulndb/osv/GO-2022-0236.json) is an older commit.
    expect(osvAffects("v0.0.0-20210428140749-89ef3d95e781", xnet)).toBe(true);
    expect(osvAffects("0.0.0-20220906165146-f3363e06e74c", xnet)).toBe(false);
    expect(osvAffects("v0.7.0", xnet)).toBe(false);
  });

  it("GO-2023-1571 / CVE-2022-41723: x/net fixed in 0.7.0 catches the 2022 pseudo-version", () => {
    const pkg = semver([{ introduced: "0" }, { fixed: "0.7.0" }]);
    expect(osvAffects("v0.0.0-20220906165146-f3363e06e74c", pkg)).toBe(true);
    expect(osvAffects("v0.6.0", pkg)).toBe(true);
    expect(osvAffects("v0.7.0", pkg)).toBe(false);
  });
});

describe("osvAffects: Maven (GHSA)", () => {
  // GHSA-jfh8-c2jp-5v3q / CVE-2021-44228 (Log4Shell) — osv/ghsa-sample/advisories/github-reviewed/
  // 2021/12/GHSA-jfh8-c2jp-5v3q/GHSA-jfh8-c2jp-5v3q.json: three affected[] entries for log4j-core.
  const entries = [
    eco([{ introduced: "2.13.0" }, { fixed: "2.15.0" }]),
    eco([{ introduced: "0" }, { fixed: "2.3.1" }]),
    eco([{ introduced: "2.4" }, { fixed: "2.12.2" }]),
  ];
  const affected = (v: string) => entries.some((p) => osvAffects(v, p));

  it("affects 2.0-beta9 .. 2.14.1 except the backport fixes", () => {
    for (const v of ["2.0-beta9", "2.0-rc1", "2.0", "2.3", "2.4", "2.12.1", "2.13.0", "2.14.1"])
      expect([v, affected(v)]).toEqual([v, true]);
    for (const v of ["2.3.1", "2.12.2", "2.12.4", "2.15.0", "2.17.1"]) expect([v, affected(v)]).toEqual([v, false]);
  });
});

describe("osvAffects: evaluation details", () => {
  // No record in shared/data uses `limit` outside GIT ranges; these follow the schema's BeforeLimits
  // (https://ossf.github.io/osv-schema/#evaluation) on the GO-2022-0969 stdlib events.
  const stdlibEvents: OsvEvent[] = [{ introduced: "0" }, { fixed: "1.18.6" }, { introduced: "1.19.0-0" }, { fixed: "1.19.1" }];

  it("limit: only versions below one of the limits count; '*' is infinity", () => {
    const limited = semver([...stdlibEvents, { limit: "1.19.0" }]);
    expect(osvAffects("1.18.5", limited)).toBe(true);
    expect(osvAffects("1.19.0", limited)).toBe(false);
    expect(osvAffects("1.19.0", semver([...stdlibEvents, { limit: "1.19.0" }, { limit: "*" }]))).toBe(true);
  });

  it("'introduced: 0' is below everything, including pseudo-versions of v0.0.0", () => {
    const pkg = semver([{ introduced: "0" }]);
    expect(osvAffects("0.0.0-20210428140749-89ef3d95e781", pkg)).toBe(true);
    expect(osvAffects("0", pkg)).toBe(true);
  });

  it("an empty range (introduced == fixed) affects nothing, whatever the event order", () => {
    expect(osvAffects("1.0", eco([{ fixed: "1.0" }, { introduced: "1.0" }]))).toBe(false);
    expect(osvAffects("1.0", eco([{ introduced: "1.0" }, { fixed: "1.0" }]))).toBe(false);
  });

  it("placeholders are never affected; unknown range types are skipped", () => {
    expect(osvAffects("*", semver([{ introduced: "0" }]))).toBe(false);
    expect(osvAffects("", eco([{ introduced: "0" }], [""]))).toBe(false);
    expect(osvAffects("1.0", { ranges: [{ type: "OTHER", events: [{ introduced: "0" }] }], versions: [] })).toBe(false);
  });
});

describe("osvIntervals (the events read as intervals, for affected rows and alert sources)", () => {
  it("pairs each introduced with the next end; a second introduced before any end opens nothing new", () => {
    // PYSEC-2023-61 (osv/pypa, django), verbatim.
    expect(
      osvIntervals([
        { introduced: "3.2" },
        { fixed: "3.2.19" },
        { introduced: "4.0" },
        { fixed: "4.1.9" },
        { introduced: "4.2" },
        { fixed: "4.2.1" },
      ]),
    ).toEqual([
      { introduced: "3.2", end: "3.2.19", endInclusive: false },
      { introduced: "4.0", end: "4.1.9", endInclusive: false },
      { introduced: "4.2", end: "4.2.1", endInclusive: false },
    ]);
    // Event shapes: last_affected closes inclusively; an introduced left open runs to infinity.
    expect(osvIntervals([{ introduced: "1.0" }, { last_affected: "1.4" }])).toEqual([
      { introduced: "1.0", end: "1.4", endInclusive: true },
    ]);
    // Before, the merge wrote [1.0, ∞[ and [2.0, 2.5[ here: versions past the fix shown affected.
    expect(osvIntervals([{ introduced: "1.0" }, { introduced: "2.0" }, { fixed: "2.5" }])).toEqual([
      { introduced: "1.0", end: "2.5", endInclusive: false },
    ]);
    expect(osvIntervals([{ introduced: "0" }])).toEqual([{ introduced: "0", end: null, endInclusive: false }]);
    expect(osvIntervals([{ fixed: "1.0" }])).toEqual([]);
  });
});

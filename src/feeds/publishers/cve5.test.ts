import { describe, expect, it } from "vitest";
import { type Cve5Checkpoint, parseRelease, planSync, type Release } from "./cve5.js";

const GH = "https://github.com/CVEProject/cvelistV5/releases/download";

/** A release as the GitHub API lists it (names as cvelistV5 publishes them). */
function raw(date: string, at: string, published?: string) {
  const tag = at === "end_of_day" ? `cve_${date}_at_end_of_day` : `cve_${date}_${at}Z`;
  const delta = `${date}_delta_CVEs_at_${at === "end_of_day" ? "end_of_day" : `${at}Z`}.zip`;
  const baseline = `${date}_all_CVEs_at_midnight.zip.zip`;
  return {
    tag_name: tag,
    published_at: published ?? (at === "end_of_day" ? `${date}T23:59:30Z` : `${date}T${at.slice(0, 2)}:${at.slice(2)}:40Z`),
    assets: [
      { name: baseline, browser_download_url: `${GH}/${tag}/${baseline}` },
      { name: delta, browser_download_url: `${GH}/${tag}/${delta}` },
      { name: "release_notes.md", browser_download_url: `${GH}/${tag}/release_notes.md` },
    ],
  };
}
const rel = (date: string, at: string) => parseRelease(raw(date, at))!;
const day = (date: string, hours: number[], endOfDay = false) => [
  ...hours.map((h) => rel(date, `${String(h).padStart(2, "0")}00`)),
  ...(endOfDay ? [rel(date, "end_of_day")] : []),
];
const cp = (covered: string): Cve5Checkpoint => ({ covered, baseline: covered.slice(0, 10), tag: "t", published: covered });
const plan = (c: Cve5Checkpoint | null, releases: Release[]) => planSync(c, releases).map((s) => `${s.kind} ${s.asset.name}`);

describe("cvelistV5 releases: reading the listing", () => {
  it("finds the baseline and the delta of a release and the instant the delta covers", () => {
    expect(rel("2024-06-01", "0800")).toEqual({
      tag: "cve_2024-06-01_0800Z",
      published: "2024-06-01T08:00:40.000Z",
      baseline: {
        name: "2024-06-01_all_CVEs_at_midnight.zip.zip",
        url: `${GH}/cve_2024-06-01_0800Z/2024-06-01_all_CVEs_at_midnight.zip.zip`,
        date: "2024-06-01",
      },
      delta: {
        name: "2024-06-01_delta_CVEs_at_0800Z.zip",
        url: `${GH}/cve_2024-06-01_0800Z/2024-06-01_delta_CVEs_at_0800Z.zip`,
        date: "2024-06-01",
        covered: "2024-06-01T08:00:00.000Z",
      },
    });
    // The end-of-day delta covers the day up to the next midnight.
    expect(rel("2024-06-30", "end_of_day").delta?.covered).toBe("2024-07-01T00:00:00.000Z");
  });

  it("ignores what is not a release of the protocol", () => {
    expect(parseRelease(null)).toBeNull();
    expect(parseRelease({ tag_name: "x" })).toBeNull();
    expect(parseRelease({ tag_name: "x", published_at: "soon", assets: [] })).toBeNull();
    expect(
      parseRelease({ tag_name: "x", published_at: "2024-06-01T00:00:00Z", assets: [{ name: "notes.md", browser_download_url: "u" }, 3] }),
    ).toEqual({
      tag: "x",
      published: "2024-06-01T00:00:00.000Z",
      baseline: null,
      delta: null,
    });
  });
});

describe("cvelistV5 releases: what a sync applies", () => {
  const june1 = day("2024-06-01", [0, 1, 2, 3, 4, 5, 6], true);
  const june2 = day("2024-06-02", [0, 1, 2, 3]);

  it("the first time: the newest baseline, then that day's newest delta", () => {
    expect(plan(null, [...june1, ...june2].reverse())).toEqual([
      "baseline 2024-06-02_all_CVEs_at_midnight.zip.zip",
      "delta 2024-06-02_delta_CVEs_at_0300Z.zip",
    ]);
    // A baseline released at midnight: its delta covers nothing more.
    expect(plan(null, day("2024-06-02", [0]))).toEqual(["baseline 2024-06-02_all_CVEs_at_midnight.zip.zip"]);
    expect(plan(null, [])).toEqual([]);
  });

  it("within a day: only the newest delta (each holds the day's earlier ones); nothing when nothing is newer", () => {
    expect(plan(cp("2024-06-01T02:00:00.000Z"), day("2024-06-01", [0, 1, 2, 3, 4]))).toEqual(["delta 2024-06-01_delta_CVEs_at_0400Z.zip"]);
    expect(plan(cp("2024-06-01T04:00:00.000Z"), day("2024-06-01", [0, 1, 2, 3, 4]))).toEqual([]);
  });

  it("after downtime: each day's newest delta in order, the days over through their end-of-day delta", () => {
    const june3 = day("2024-06-03", [0, 1]);
    expect(plan(cp("2024-06-01T03:00:00.000Z"), [...june1, { ...rel("2024-06-02", "end_of_day") }, ...june2, ...june3])).toEqual([
      "delta 2024-06-01_delta_CVEs_at_end_of_day.zip",
      "delta 2024-06-02_delta_CVEs_at_end_of_day.zip",
      "delta 2024-06-03_delta_CVEs_at_0100Z.zip",
    ]);
  });

  it("falls back to the newest baseline when the deltas do not follow on", () => {
    // A day over without its end-of-day delta: its last hour is in no delta, only in the next baseline.
    expect(plan(cp("2024-06-01T03:00:00.000Z"), [...day("2024-06-01", [4, 5]), ...june2])).toEqual([
      "baseline 2024-06-02_all_CVEs_at_midnight.zip.zip",
      "delta 2024-06-02_delta_CVEs_at_0300Z.zip",
    ]);
    // A checkpoint older than the releases still listed.
    expect(plan(cp("2024-05-20T10:00:00.000Z"), [...june1, ...june2])).toEqual([
      "baseline 2024-06-02_all_CVEs_at_midnight.zip.zip",
      "delta 2024-06-02_delta_CVEs_at_0300Z.zip",
    ]);
  });
});

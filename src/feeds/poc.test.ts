import { createReadStream, existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createGunzip } from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  AGGREGATOR_REPOS,
  exploitMaturity,
  FUNCTIONAL_POC_THRESHOLD,
  githubRepoKey,
  isAggregatorRepo,
  parseNomiSecFile,
  parseNomiSecLine,
  parseTrickestLine,
  type PocRecord,
} from "./poc.js";
import { RecordError } from "./types.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const FIX = resolve(ROOT, "test/fixtures/feeds/poc");
const DATA = resolve(ROOT, "../shared/data/poc");

const trickest = new Map(
  readFileSync(resolve(FIX, "trickest-sample.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { cve: string; github_pocs: string[]; reference_pocs: string[] })
    .map((o) => [o.cve, o] as const),
);

async function* gzLines(path: string): AsyncIterable<string> {
  const rl = createInterface({ input: createReadStream(path).pipe(createGunzip()), crlfDelay: Infinity });
  for await (const line of rl) if (line.trim() !== "") yield line;
}

describe("aggregator repositories", () => {
  it("holds the known CVE mirrors and PoC indexes, case-insensitively", () => {
    for (const repo of [
      "https://github.com/nomi-sec/PoC-in-GitHub",
      "https://github.com/fkie-cad/nvd-json-data-feeds",
      "https://github.com/trickest/cve",
      "https://github.com/CVEProject/cvelistV5",
      "https://github.com/ARPSyndicate/cvemon",
      "https://github.com/20142995/nuclei-templates",
      "https://github.com/Ostorlab/KEV",
      "https://github.com/someone/PoC-in-GitHub", // a copy under another owner
      "https://github.com/nomi-sec/PoC-in-GitHub/blob/master/2024/CVE-2024-3400.json",
    ]) {
      expect(isAggregatorRepo(repo), repo).toBe(true);
    }
    for (const repo of [
      "https://github.com/h4x0r-dz/CVE-2024-3400",
      "https://github.com/Chocapikk/CVE-2024-3400",
      "https://www.exploit-db.com/exploits/1",
    ]) {
      expect(isAggregatorRepo(repo), repo).toBe(false);
    }
    expect(AGGREGATOR_REPOS.size).toBe(235);
    expect(githubRepoKey("https://github.com/KaanSK/go-epss.git")).toBe("kaansk/go-epss");
    expect(githubRepoKey("https://gist.github.com/x/1")).toBeNull();
  });
});

describe("parseTrickestLine", () => {
  it("CVE-2024-3400: drops the 31 aggregators of its 122 GitHub links, keeps the PoCs and the references", () => {
    const raw = trickest.get("CVE-2024-3400")!;
    const r = parseTrickestLine(raw);
    expect(raw.github_pocs).toHaveLength(122);
    expect(r.cve_id).toBe("CVE-2024-3400");
    expect(r.source).toBe("trickest");
    expect(r.first_seen).toBeNull();
    expect(r.urls).toHaveLength(91);
    expect(r.urls).toContain("https://github.com/h4x0r-dz/CVE-2024-3400");
    expect(r.urls).toContain("https://github.com/W01fh4cker/CVE-2024-3400-RCE-Scan");
    expect(r.urls).toContain("https://github.com/Chocapikk/CVE-2024-3400");
    for (const gone of [
      "https://github.com/nomi-sec/PoC-in-GitHub",
      "https://github.com/fkie-cad/nvd-json-data-feeds",
      "https://github.com/20142995/nuclei-templates",
      "https://github.com/ARPSyndicate/cve-scores",
      "https://github.com/Ostorlab/KEV",
      "https://github.com/GhostTroops/TOP",
    ]) {
      expect(raw.github_pocs).toContain(gone);
      expect(r.urls).not.toContain(gone);
    }
    expect(r.references).toEqual([
      "https://security.paloaltonetworks.com/CVE-2024-3400",
      "https://unit42.paloaltonetworks.com/cve-2024-3400/",
    ]);
  });

  it("CVE-1999-0001: only CVE-data tools are left once the three aggregators are gone (documented long-tail noise)", () => {
    const r = parseTrickestLine(trickest.get("CVE-1999-0001")!);
    expect(r.urls).toHaveLength(17);
    expect(r.urls).not.toContain("https://github.com/fkie-cad/nvd-json-data-feeds");
    expect(r.urls).not.toContain("https://github.com/ARPSyndicate/cvemon");
    expect(r.urls).not.toContain("https://github.com/CVEDB/awesome-cve-repo");
    expect(r.references).toEqual([]);
  });

  it("CVE-2021-44228: counts Exploit-DB / Packet Storm references as PoCs, others as references", () => {
    const raw = trickest.get("CVE-2021-44228")!;
    const r = parseTrickestLine(raw);
    expect(raw.github_pocs).toHaveLength(2188);
    expect(raw.reference_pocs).toHaveLength(23);
    expect(r.urls).toHaveLength(2126);
    expect(r.references).toHaveLength(6);
    const exploitRefs = r.urls.filter((u) => !u.startsWith("https://github.com/"));
    // 16 Packet Storm files + 6 other references + nu11secur1ty/CVE-mitre (an aggregator, dropped) = 23
    expect(exploitRefs.length).toBe(16);
    expect(exploitRefs.every((u) => /exploit-db\.com\/exploits\/|packetstormsecurity\.(com|org)\/files\//.test(u))).toBe(true);
  });

  it("de-duplicates GitHub repositories case-insensitively and rejects bad lines", () => {
    const r = parseTrickestLine({
      cve: "cve-1999-0002",
      reference_pocs: [],
      github_pocs: [
        "https://github.com/KaanSK/go-epss",
        "https://github.com/kaansk/go-epss",
        "https://github.com/fkie-cad/nvd-json-data-feeds",
      ],
    });
    expect(r).toEqual({
      cve_id: "CVE-1999-0002",
      source: "trickest",
      urls: ["https://github.com/KaanSK/go-epss"],
      first_seen: null,
      references: [],
    });
    expect(() => parseTrickestLine({ cve: "nope" })).toThrow(RecordError);
    expect(() => parseTrickestLine({ cve: "CVE-2024-3400", github_pocs: "x" })).toThrow(/not an array/);
  });
});

describe("nomi-sec", () => {
  it("parses the byte-exact PoC-in-GitHub file 2024/CVE-2024-0001.json (CVE id from the file name)", () => {
    const v = JSON.parse(readFileSync(resolve(FIX, "nomi-sec/2024/CVE-2024-0001.json"), "utf8")) as unknown;
    expect(parseNomiSecFile("2024/CVE-2024-0001.json", v)).toEqual({
      cve_id: "CVE-2024-0001",
      source: "nomi-sec",
      urls: ["https://github.com/RobloxSecurityResearcher/RobloxVulnerabilityCVE-2024-0001"],
      first_seen: "2024-03-04T05:40:39.000Z",
      references: [],
      // Its stargazers_count, shown in the CVE's PoC list.
      stars: { "https://github.com/RobloxSecurityResearcher/RobloxVulnerabilityCVE-2024-0001": 0 },
    } satisfies PocRecord);
    expect(() => parseNomiSecFile("README.md", v)).toThrow(RecordError);
  });

  it("parses the JSONL form: earliest created_at, forks skipped", () => {
    const repo = (name: string, created_at: string, fork = false) => ({
      full_name: `someone/${name}`,
      html_url: `https://github.com/someone/${name}`,
      created_at,
      fork,
    });
    const r = parseNomiSecLine({
      cve: "CVE-1999-0016",
      repos: [repo("b", "2022-05-01T00:00:00Z"), repo("a", "2021-04-01T21:00:13Z"), repo("c", "2020-01-01T00:00:00Z", true)],
    });
    expect(r).toEqual({
      cve_id: "CVE-1999-0016",
      source: "nomi-sec",
      urls: ["https://github.com/someone/b", "https://github.com/someone/a"],
      first_seen: "2021-04-01T21:00:13.000Z",
      references: [],
    });
    expect(parseNomiSecLine({ cve: "CVE-1999-0016", repos: [] })).toEqual({
      cve_id: "CVE-1999-0016",
      source: "nomi-sec",
      urls: [],
      first_seen: null,
      references: [],
    });
    expect(() => parseNomiSecLine({ cve: "CVE-1999-0016", repos: {} })).toThrow(RecordError);
  });
});

describe("exploitMaturity", () => {
  it("orders the evidence: KEV > exploit framework > ≥3 PoCs > ≥1 PoC > none", () => {
    expect(FUNCTIONAL_POC_THRESHOLD).toBe(3);
    expect(exploitMaturity({ is_kev: true, poc_count: 0 })).toBe("in_the_wild");
    expect(exploitMaturity({ is_kev: true, poc_count: 50, has_metasploit_or_weaponized: true })).toBe("in_the_wild");
    expect(exploitMaturity({ is_kev: false, poc_count: 0, has_metasploit_or_weaponized: true })).toBe("weaponised");
    expect(exploitMaturity({ is_kev: false, poc_count: 3 })).toBe("functional");
    expect(exploitMaturity({ is_kev: false, poc_count: 2 })).toBe("poc");
    expect(exploitMaturity({ is_kev: false, poc_count: 1 })).toBe("poc");
    expect(exploitMaturity({ is_kev: false, poc_count: 0 })).toBe("none");
    expect(exploitMaturity({ is_kev: false, poc_count: Number.NaN })).toBe("none");
  });
});

const trickestFile = resolve(DATA, "trickest/trickest-cve-poc.jsonl.gz");
describe.skipIf(!existsSync(trickestFile))("whole trickest file (shared/data)", () => {
  it("parses the 167,093 CVE lines", async () => {
    const t0 = performance.now();
    let n = 0;
    let rawGithub = 0;
    let rawRefs = 0;
    let urls = 0;
    let refs = 0;
    let withPoc = 0;
    let pan: PocRecord | undefined;
    for await (const line of gzLines(trickestFile)) {
      const o = JSON.parse(line) as { github_pocs: string[]; reference_pocs: string[] };
      const r = parseTrickestLine(o);
      n++;
      rawGithub += o.github_pocs.length;
      rawRefs += o.reference_pocs.length;
      urls += r.urls.length;
      refs += r.references.length;
      if (r.urls.length > 0) withPoc++;
      if (r.cve_id === "CVE-2024-3400") pan = r;
    }
    console.log(`PoC: trickest 167,093 lines in ${(performance.now() - t0).toFixed(0)} ms`);
    expect(n).toBe(167_093);
    expect(rawGithub).toBe(274_676);
    expect(rawRefs).toBe(152_729);
    expect(urls).toBe(148_249); // GitHub links minus aggregators, plus exploit-host references
    expect(refs).toBe(129_242);
    expect(withPoc).toBe(48_629);
    expect(pan).toEqual(parseTrickestLine(trickest.get("CVE-2024-3400")!));
  }, 60_000);
});

const nomiFile = resolve(DATA, "openpoc/nomisec-poc-in-github-2025-05-10.jsonl.gz");
describe.skipIf(!existsSync(nomiFile))("whole nomi-sec JSONL (shared/data; absent from the current copy)", () => {
  it("parses the 6,772 CVE lines", async () => {
    const t0 = performance.now();
    let n = 0;
    for await (const line of gzLines(nomiFile)) {
      parseNomiSecLine(JSON.parse(line));
      n++;
    }
    console.log(`PoC: nomi-sec 6,772 lines in ${(performance.now() - t0).toFixed(0)} ms`);
    expect(n).toBe(6772);
  });
});

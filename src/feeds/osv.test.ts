import { createReadStream, existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createGunzip } from "node:zlib";
import { describe, expect, it } from "vitest";
import { osvDate, osvSource, osvUrl, parseOsvRecord, type OsvRecord } from "./osv.js";
import { RecordError } from "./types.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const FIX = resolve(ROOT, "test/fixtures/feeds/osv");
const DATA = resolve(ROOT, "../shared/data/osv");

const fixture = (name: string) => parseOsvRecord(JSON.parse(readFileSync(resolve(FIX, name), "utf8")));

async function* gzLines(path: string): AsyncIterable<string> {
  const rl = createInterface({ input: createReadStream(path).pipe(createGunzip()), crlfDelay: Infinity });
  for await (const line of rl) if (line.trim() !== "") yield line;
}

describe("parseOsvRecord", () => {
  it("parses Log4Shell GHSA-jfh8-c2jp-5v3q: aliases, CVSS, CWEs, the three Maven ranges", () => {
    const r = fixture("GHSA-jfh8-c2jp-5v3q.json");
    const maven = (introduced: string, fixed: string) => ({
      ecosystem: "Maven",
      name: "org.apache.logging.log4j:log4j-core",
      purl: null,
      ranges: [{ type: "ECOSYSTEM", events: [{ introduced }, { fixed }] }],
      versions: [],
    });
    expect({ ...r, details: undefined, references: undefined }).toEqual({
      id: "GHSA-jfh8-c2jp-5v3q",
      source: "ghsa",
      url: "https://github.com/advisories/GHSA-jfh8-c2jp-5v3q",
      summary: "Remote code injection in Log4j",
      details: undefined,
      aliases: ["CVE-2021-44228"],
      published: "2021-12-10T00:40:56.000Z",
      modified: "2022-03-25T20:56:18.000Z",
      severity: "critical",
      cvss_score: 10,
      cvss_vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H",
      cwes: ["CWE-20", "CWE-400", "CWE-502", "CWE-917"],
      packages: [maven("2.13.0", "2.15.0"), maven("0", "2.3.1"), maven("2.4", "2.12.2")],
      references: undefined,
      withdrawn: null,
    } satisfies Record<keyof OsvRecord, unknown>);
    expect(r.details).toMatch(/^# Summary\n\nLog4j versions prior to 2\.16\.0 are subject to a remote code execution/);
    expect(r.references).toHaveLength(62);
    expect(r.references[0]).toBe("https://nvd.nist.gov/vuln/detail/CVE-2021-44228");
    expect(r.references).toContain("https://github.com/advisories/GHSA-7rjr-3q55-vv33");
  });

  it("parses a Go vulndb entry: database_specific.url, SEMVER events, placeholder modified → null", () => {
    expect(fixture("GO-2022-0191.json")).toEqual({
      id: "GO-2022-0191",
      source: "go",
      url: "https://pkg.go.dev/vuln/GO-2022-0191",
      summary: "Denial of service in chain verification in crypto/x509",
      details:
        "The crypto/x509 package does not limit the amount of work performed for each chain verification, which might allow attackers to craft pathological inputs leading to a CPU denial of service. Go TLS servers accepting client certificates and TLS clients verifying certificates are affected.",
      aliases: ["CVE-2018-16875"],
      published: "2022-07-15T23:03:26.000Z",
      modified: null,
      severity: null,
      cvss_score: null,
      cvss_vector: null,
      cwes: [],
      packages: [
        {
          ecosystem: "Go",
          name: "stdlib",
          purl: null,
          ranges: [{ type: "SEMVER", events: [{ introduced: "0" }, { fixed: "1.10.6" }, { introduced: "1.11.0-0" }, { fixed: "1.11.3" }] }],
          versions: [],
        },
      ],
      references: [
        "https://go.dev/cl/154105",
        "https://go.googlesource.com/go/+/770130659b6fb2acf271476579a3644e093dda7f",
        "https://go.dev/issue/29233",
        "https://groups.google.com/g/golang-announce/c/Kw31K8G7Fi0",
      ],
      withdrawn: null,
    });
  });

  it("keeps the withdrawal date of a withdrawn Go entry (published and modified are placeholders)", () => {
    const r = fixture("GO-2022-0617.json");
    expect(r.withdrawn).toBe("2024-08-21T16:25:56.000Z");
    expect(r.published).toBeNull();
    expect(r.modified).toBeNull();
    expect(r.aliases).toEqual(["CVE-2020-8562", "GHSA-qh36-44jv-c8xj"]);
  });

  it("computes the CVSS 3.0 score of RUSTSEC-2016-0001 and builds the rustsec.org URL", () => {
    const r = fixture("RUSTSEC-2016-0001.json");
    expect(r.source).toBe("rustsec");
    expect(r.url).toBe("https://rustsec.org/advisories/RUSTSEC-2016-0001.html");
    expect(r.cvss_vector).toBe("CVSS:3.0/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H");
    expect(r.cvss_score).toBe(8.1);
    expect(r.severity).toBe("high");
    expect(r.aliases).toEqual(["CVE-2016-10931", "GHSA-34p9-f4q3-c4r7"]);
    expect(r.packages).toEqual([
      {
        ecosystem: "crates.io",
        name: "openssl",
        purl: "pkg:cargo/openssl",
        ranges: [{ type: "SEMVER", events: [{ introduced: "0.0.0-0" }, { fixed: "0.9.0" }] }],
        versions: [],
      },
    ]);
  });

  it("keeps a CVSS 4.0 vector without inventing a score (RUSTSEC-2024-0445)", () => {
    const r = fixture("RUSTSEC-2024-0445.json");
    expect(r.cvss_vector).toBe("CVSS:4.0/AV:N/AC:L/AT:P/PR:L/UI:N/VC:L/VI:L/VA:L/SC:N/SI:N/SA:N");
    expect(r.cvss_score).toBeNull();
    expect(r.severity).toBeNull();
  });

  it("parses a PyPA entry with GIT and ECOSYSTEM ranges and an explicit version list", () => {
    const r = fixture("PYSEC-2023-246.jsonl");
    expect(r.source).toBe("pysec");
    expect(r.url).toBe("https://osv.dev/vulnerability/PYSEC-2023-246");
    expect(r.summary).toBeNull();
    expect(r.modified).toBe("2023-11-22T23:23:57.547Z"); // microseconds in the source
    expect(r.cvss_score).toBe(7.5);
    expect(r.severity).toBe("high");
    expect(r.aliases).toEqual(["CVE-2023-47627", "GHSA-gfw2-4jvh-wgfg"]);
    const pkg = r.packages[0]!;
    expect(pkg.purl).toBe("pkg:pypi/aiohttp");
    expect(pkg.ranges).toEqual([
      {
        type: "GIT",
        repo: "https://github.com/aio-libs/aiohttp",
        events: [{ introduced: "0" }, { fixed: "d5c12ba890557a575c313bb3017910d7616fce3d" }],
      },
      { type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed: "3.8.6" }] },
    ]);
    expect(pkg.versions).toHaveLength(220);
    expect(pkg.versions.at(-1)).toBe("3.8.5");
  });

  it("rejects documents without an id", () => {
    expect(() => parseOsvRecord(null)).toThrow(RecordError);
    expect(() => parseOsvRecord({ summary: "x" })).toThrow(/without id/);
  });

  it("maps GitHub's MODERATE to medium and skips unknown range types", () => {
    const r = parseOsvRecord({
      id: "GHSA-xxxx-xxxx-xxxx",
      database_specific: { severity: "MODERATE" },
      affected: [
        {
          package: { ecosystem: "npm", name: "x" },
          ranges: [
            { type: "FOO", events: [] },
            { type: "SEMVER", events: [{ introduced: "0" }, { last_affected: "1.2.3" }] },
          ],
        },
      ],
    });
    expect(r.severity).toBe("medium");
    expect(r.packages[0]!.ranges).toEqual([{ type: "SEMVER", events: [{ introduced: "0" }, { last_affected: "1.2.3" }] }]);
  });
});

describe("helpers", () => {
  it("osvSource / osvUrl / osvDate", () => {
    expect(osvSource("MAL-2024-1")).toBe("osv");
    expect(osvUrl("MAL-2024-1")).toBe("https://osv.dev/vulnerability/MAL-2024-1");
    expect(osvUrl("GO-2022-0191", "https://pkg.go.dev/vuln/GO-2022-0191")).toBe("https://pkg.go.dev/vuln/GO-2022-0191");
    expect(osvDate("0001-01-01T00:00:00Z")).toBeNull();
    expect(osvDate("2021-07-05T00:01:17.000324Z")).toBe("2021-07-05T00:01:17.000Z");
    expect(osvDate("2022-05-24T17:55:00.000000Z")).toBe("2022-05-24T17:55:00.000Z");
    expect(osvDate("not a date")).toBeNull();
    expect(osvDate(undefined)).toBeNull();
  });
});

const combined = resolve(DATA, "osv-combined.jsonl.gz");
describe.skipIf(!existsSync(combined))("whole OSV files (shared/data)", () => {
  it("parses the 8,159 advisories of osv-combined.jsonl.gz", async () => {
    const t0 = performance.now();
    const bySource: Record<string, number> = {};
    let withAliases = 0;
    let scored = 0;
    let withdrawn = 0;
    let log4shell: OsvRecord | undefined;
    for await (const line of gzLines(combined)) {
      const r = parseOsvRecord(JSON.parse(line));
      bySource[r.source] = (bySource[r.source] ?? 0) + 1;
      if (r.aliases.length > 0) withAliases++;
      if (r.cvss_score !== null) scored++;
      if (r.withdrawn) withdrawn++;
      if (r.id === "GHSA-jfh8-c2jp-5v3q") log4shell = r;
    }
    console.log(`OSV: osv-combined.jsonl.gz 8,159 records in ${(performance.now() - t0).toFixed(0)} ms`);
    expect(bySource).toEqual({ go: 4291, pysec: 2661, rustsec: 1206, ghsa: 1 });
    expect(withAliases).toBe(7726);
    expect(scored).toBe(563); // every CVSS_V3 vector (RustSec 360, PyPA 202, GHSA 1)
    expect(withdrawn).toBe(40);
    expect(log4shell).toEqual(fixture("GHSA-jfh8-c2jp-5v3q.json"));
  });

  it("parses the per-file Go (4,291) and RustSec (1,206) directories and the PyPA JSONL (2,661)", async () => {
    const t0 = performance.now();
    const dir = (d: string) =>
      readdirSync(d)
        .filter((f) => f.endsWith(".json"))
        .map((f) => parseOsvRecord(JSON.parse(readFileSync(resolve(d, f), "utf8"))));
    const go = dir(resolve(DATA, "go-vulndb/osv"));
    const rust = dir(resolve(DATA, "rustsec/crates"));
    const pypa: OsvRecord[] = [];
    for await (const line of gzLines(resolve(DATA, "pypa/pypa-osv.jsonl.gz"))) pypa.push(parseOsvRecord(JSON.parse(line)));
    console.log(`OSV: Go + RustSec files and PyPA JSONL (8,158 records) in ${(performance.now() - t0).toFixed(0)} ms`);
    expect(go).toHaveLength(4291);
    expect(go.every((r) => r.source === "go" && r.url === `https://pkg.go.dev/vuln/${r.id}`)).toBe(true);
    expect(go.filter((r) => r.modified === null)).toHaveLength(4291); // placeholder everywhere
    expect(rust).toHaveLength(1206);
    expect(rust.every((r) => r.url === `https://rustsec.org/advisories/${r.id}.html`)).toBe(true);
    expect(pypa).toHaveLength(2661);
    expect(pypa.every((r) => r.source === "pysec")).toBe(true);
  });
});

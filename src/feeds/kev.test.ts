import { createReadStream, existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { csvRecords, parseCsvLine, parseKevCsvRow, parseKevJsonEntry, type KevRecord } from "./kev.js";
import { RecordError } from "./types.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const FIX = resolve(ROOT, "test/fixtures/feeds/kev");
const DATA = resolve(ROOT, "../shared/data/kev");

async function* fromArray(lines: string[]): AsyncIterable<string> {
  for (const l of lines) yield l;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

function fileLines(path: string): AsyncIterable<string> {
  return createInterface({ input: createReadStream(path, "utf8"), crlfDelay: Infinity });
}

const entries = JSON.parse(readFileSync(resolve(FIX, "kev-entries.json"), "utf8")) as Record<string, unknown>[];
const entry = (id: string) => entries.find((e) => e.cveID === id)!;

const PAN_OS: KevRecord = {
  cve_id: "CVE-2024-3400",
  date_added: "2024-04-12",
  due_date: "2024-04-19",
  ransomware: "Known",
  required_action:
    "Apply mitigations per vendor instructions as they become available. Otherwise, users with vulnerable versions of affected devices should enable Threat Prevention IDs available from the vendor. See the vendor bulletin for more details and a patch release schedule.",
  name: "Palo Alto Networks PAN-OS Command Injection Vulnerability",
  vendor: "Palo Alto Networks",
  product: "PAN-OS",
  cwes: ["CWE-20", "CWE-77"],
  notes: "https://security.paloaltonetworks.com/CVE-2024-3400 ;   https://nvd.nist.gov/vuln/detail/CVE-2024-3400",
  short_description:
    "Palo Alto Networks PAN-OS GlobalProtect feature contains a command injection vulnerability that allows an unauthenticated attacker to execute commands with root privileges on the firewall.",
};

describe("parseKevJsonEntry", () => {
  it("parses CVE-2024-3400 (PAN-OS, ransomware Known)", () => {
    expect(parseKevJsonEntry(entry("CVE-2024-3400"))).toEqual(PAN_OS);
  });

  it("keeps both CWEs and the notes of CVE-2025-48384", () => {
    const r = parseKevJsonEntry(entry("CVE-2025-48384"));
    expect(r.cwes).toEqual(["CWE-59", "CWE-436"]);
    expect(r.ransomware).toBe("Unknown");
    expect(r.date_added).toBe("2025-08-25");
    expect(r.due_date).toBe("2025-09-15");
    expect(r.notes).toMatch(/^This vulnerability affects a common open-source component/);
    expect(r.short_description).toBe(
      "Git contains a link following vulnerability that stems from Git\u2019s inconsistent handling of carriage return characters in configuration files.",
    );
  });

  it("trims the catalog's stray spaces (vendorProject 'SimpleHelp ', product '… (RS) ')", () => {
    expect(parseKevJsonEntry(entry("CVE-2024-57727")).vendor).toBe("SimpleHelp");
    const bt = parseKevJsonEntry(entry("CVE-2024-12356"));
    expect(bt.product).toBe("Privileged Remote Access (PRA) and Remote Support (RS)");
    expect(bt.name).toBe("BeyondTrust Privileged Remote Access (PRA) and Remote Support (RS) Command Injection Vulnerability");
  });

  it("rejects unusable entries with RecordError", () => {
    expect(() => parseKevJsonEntry(null)).toThrow(RecordError);
    expect(() => parseKevJsonEntry([])).toThrow(RecordError);
    expect(() => parseKevJsonEntry({ dateAdded: "2024-01-01" })).toThrow(/missing cveID/);
    expect(() => parseKevJsonEntry({ cveID: "CVE-24-1", dateAdded: "2024-01-01" })).toThrow(/invalid cveID/);
    expect(() => parseKevJsonEntry({ cveID: "CVE-2024-3400" })).toThrow(/missing dateAdded/);
    expect(() => parseKevJsonEntry({ cveID: "CVE-2024-3400", dateAdded: "12/04/2024" })).toThrow(/invalid dateAdded/);
    expect(() => parseKevJsonEntry({ cveID: "CVE-2024-3400", dateAdded: "2024-04-12", cwes: ["XSS"] })).toThrow(/invalid CWE/);
  });

  it("accepts a minimal entry (optional fields null, cwes empty)", () => {
    expect(parseKevJsonEntry({ cveID: "cve-2024-3400", dateAdded: "2024-04-12" })).toEqual({
      cve_id: "CVE-2024-3400",
      date_added: "2024-04-12",
      due_date: null,
      ransomware: null,
      required_action: null,
      name: null,
      vendor: null,
      product: null,
      cwes: [],
      notes: null,
      short_description: null,
    });
  });
});

describe("parseKevCsvRow", () => {
  it("gives the same records as the JSON catalog for the fixture rows", async () => {
    const rows = await collect(csvRecords(fileLines(resolve(FIX, "kev-rows.csv"))));
    expect(rows.map((r) => r.line)).toEqual([2, 3, 4, 5, 6]);
    for (const { row } of rows) {
      expect(parseKevCsvRow(row)).toEqual(parseKevJsonEntry(entry(row.cveID!)));
    }
    expect(parseKevCsvRow(rows.find((r) => r.row.cveID === "CVE-2024-3400")!.row)).toEqual(PAN_OS);
  });

  it("splits the CSV cwes column ('CWE-20, CWE-400, CWE-502')", async () => {
    const rows = await collect(csvRecords(fileLines(resolve(FIX, "kev-rows.csv"))));
    const log4j = rows.find((r) => r.row.cveID === "CVE-2021-44228")!.row;
    expect(log4j.cwes).toBe("CWE-20, CWE-400, CWE-502");
    expect(parseKevCsvRow(log4j).cwes).toEqual(["CWE-20", "CWE-400", "CWE-502"]);
  });
});

describe("parseCsvLine (RFC 4180)", () => {
  it("splits plain, quoted, empty and quote-escaped fields", () => {
    expect(parseCsvLine("a,b,c")).toEqual(["a", "b", "c"]);
    expect(parseCsvLine('CVE-2024-8068,Citrix,"Session Recording","a, b",x')).toEqual([
      "CVE-2024-8068",
      "Citrix",
      "Session Recording",
      "a, b",
      "x",
    ]);
    expect(parseCsvLine('"say ""hi""",2')).toEqual(['say "hi"', "2"]);
    expect(parseCsvLine('""')).toEqual([""]);
    expect(parseCsvLine("")).toEqual([""]);
    expect(parseCsvLine("a,,c,")).toEqual(["a", "", "c", ""]);
    expect(parseCsvLine('a,""')).toEqual(["a", ""]);
    expect(parseCsvLine('"a",')).toEqual(["a", ""]);
    expect(parseCsvLine(" a , b ")).toEqual([" a ", " b "]);
    expect(parseCsvLine("a,b\r")).toEqual(["a", "b"]);
    expect(parseCsvLine('"line1\nline2",z')).toEqual(["line1\nline2", "z"]);
  });

  it("splits a real KEV line with quoted commas and URLs", () => {
    const line = readFileSync(resolve(FIX, "kev-rows.csv"), "utf8")
      .split("\n")
      .find((l) => l.startsWith("CVE-2024-3400,"))!;
    const f = parseCsvLine(line);
    expect(f).toHaveLength(11);
    expect(f[1]).toBe("Palo Alto Networks");
    expect(f[3]).toBe("Palo Alto Networks PAN-OS Command Injection Vulnerability");
    expect(f[8]).toBe("Known");
    expect(f[10]).toBe("CWE-20, CWE-77");
  });

  it("rejects an unterminated quote and text after a closing quote", () => {
    expect(() => parseCsvLine('"abc,d')).toThrow(RecordError);
    expect(() => parseCsvLine('"abc"d,e')).toThrow(RecordError);
  });
});

describe("csvRecords", () => {
  it("joins quoted fields spanning lines, skips a leading # comment, CRLF, BOM and blank lines", async () => {
    const rows = await collect(
      csvRecords(
        fromArray([
          "\uFEFF#model_version:v2025.03.14,score_date:2025-03-09T00:00:00Z",
          "id,text,n\r",
          'a,"first\r',
          "second, with comma",
          'third ""quoted""",1',
          "",
          "b,plain,2",
        ]),
      ),
    );
    expect(rows).toEqual([
      { line: 3, row: { id: "a", text: 'first\nsecond, with comma\nthird "quoted"', n: "1" } },
      { line: 7, row: { id: "b", text: "plain", n: "2" } },
    ]);
  });

  it("reports field-count mismatches and an unterminated record with their line", async () => {
    await expect(collect(csvRecords(fromArray(["a,b", "1,2,3"])))).rejects.toThrow(/line 2: 3 fields, the header has 2/);
    await expect(collect(csvRecords(fromArray(["a,b", "1,2", '"x,3', "y"])))).rejects.toThrow(/line 3: unterminated/);
  });
});

const json = resolve(DATA, "known_exploited_vulnerabilities.json");
describe.skipIf(!existsSync(json))("whole KEV catalog (shared/data)", () => {
  it("parses the 1,404 JSON entries and the 1,404 CSV rows identically", async () => {
    const t0 = performance.now();
    const doc = JSON.parse(readFileSync(json, "utf8")) as { count: number; catalogVersion: string; vulnerabilities: unknown[] };
    const fromJson = doc.vulnerabilities.map(parseKevJsonEntry);
    const t1 = performance.now();
    const fromCsv: KevRecord[] = [];
    for await (const { row } of csvRecords(fileLines(resolve(DATA, "known_exploited_vulnerabilities.csv")))) {
      fromCsv.push(parseKevCsvRow(row));
    }
    const t2 = performance.now();
    console.log(`KEV: JSON 1,404 entries ${(t1 - t0).toFixed(0)} ms, CSV ${(t2 - t1).toFixed(0)} ms`);
    expect(doc.catalogVersion).toBe("2025.08.25");
    expect(doc.count).toBe(1404);
    expect(fromJson).toHaveLength(1404);
    expect(fromCsv).toEqual(fromJson);
    expect(new Set(fromJson.map((r) => r.cve_id)).size).toBe(1404);
    expect(fromJson.filter((r) => r.ransomware === "Known")).toHaveLength(293);
    expect(fromJson.filter((r) => r.cwes.length === 0)).toHaveLength(152);
    expect(fromJson.find((r) => r.cve_id === "CVE-2024-3400")).toEqual(PAN_OS);
  });

  it("parses the history catalogs (1,252 / 1,312 / 1,370 / 1,400 entries, 2025-11 CSV 1,460 rows)", async () => {
    const counts: Record<string, number> = {};
    for (const v of ["2025.01.24", "2025.03.31", "2025.06.25", "2025.08.18"]) {
      const doc = JSON.parse(gunzipSync(readFileSync(resolve(DATA, `history/kev-${v}.json.gz`))).toString("utf8")) as {
        vulnerabilities: unknown[];
      };
      counts[v] = doc.vulnerabilities.map(parseKevJsonEntry).length;
    }
    expect(counts).toEqual({ "2025.01.24": 1252, "2025.03.31": 1312, "2025.06.25": 1370, "2025.08.18": 1400 });
    let rows = 0;
    let newest = "";
    for await (const { row } of csvRecords(
      fileLines(resolve(DATA, "history/known_exploited_vulnerabilities-2025-11-csv-from-bhojwani-lobstr.csv")),
    )) {
      const r = parseKevCsvRow(row);
      rows++;
      if (r.date_added > newest) newest = r.date_added;
    }
    expect(rows).toBe(1460);
    expect(newest).toBe("2025-11-14");
  });
});

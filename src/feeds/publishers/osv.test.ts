import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { osv } from "../importers/osv.js";
import { RecordError } from "../types.js";
import { appliedUntil, checkAdvisory, ecosystemPath, later, parseCsvRow, rowsSince, timeKey } from "./osv-index.js";

async function* linesOf(text: string): AsyncIterable<string> {
  yield* text.split("\n");
}

// The head of a real per-ecosystem index, in the exporter's order: newest first by the time's text.
const INDEX = [
  "2026-08-21T10:00:05Z,GHSA-b",
  "2026-08-21T10:00:05.5Z,GHSA-a", // text order puts ".5Z" after "Z": misordered within the second
  "2026-08-21T10:00:05.123456789Z,GHSA-c",
  "2026-08-21T09:00:00Z,PYSEC-2",
  "2026-08-21T09:00:00Z,PYSEC-1",
  "2026-08-20T00:00:00Z,PYSEC-0",
  "",
].join("\n");

describe("OSV timestamps", () => {
  it("compares to the nanosecond, whatever the fraction's length or the zone", () => {
    expect(timeKey("2023-07-11T16:37:11.407533Z")).toBe("2023-07-11T16:37:11.407533000Z");
    expect(timeKey("2023-07-11T16:37:11Z")).toBe("2023-07-11T16:37:11.000000000Z");
    expect(timeKey("2023-07-11T18:37:11.5+02:00")).toBe("2023-07-11T16:37:11.500000000Z");
    expect(timeKey("0001-01-01T00:00:00Z")).toBe("0001-01-01T00:00:00.000000000Z");
    expect(timeKey("2023-07-11")).toBeNull();
    expect(timeKey("yesterday")).toBeNull();
    expect(later("2023-07-11T16:37:11Z", "2023-07-11T16:37:11.1Z")).toBe("2023-07-11T16:37:11.1Z");
    expect(later(null, "2023-07-11T16:37:11Z")).toBe("2023-07-11T16:37:11Z");
  });

  it("encodes ecosystem names as OSV's bucket paths", () => {
    expect(ecosystemPath("crates.io")).toBe("crates.io");
    expect(ecosystemPath("Rocky Linux")).toBe("Rocky%20Linux");
    expect(ecosystemPath("Debian:12")).toBe("Debian%3A12");
  });
});

describe("modified_id.csv", () => {
  it("parses rows, refusing lines that are none", () => {
    expect(parseCsvRow("2026-08-21T10:00:05.5Z,GHSA-a\r")).toEqual({
      key: "2026-08-21T10:00:05.500000000Z",
      modified: "2026-08-21T10:00:05.5Z",
      id: "GHSA-a",
    });
    expect(parseCsvRow("modified,id")).toBeNull();
    expect(parseCsvRow("2026-08-21T10:00:05Z,../etc/passwd")).toBeNull();
    expect(parseCsvRow("2026-08-21T10:00:05Z,")).toBeNull();
  });

  it("lists every row the first time, oldest first", async () => {
    const { rows, reached } = await rowsSince(linesOf(INDEX), null);
    expect(rows.map((r) => r.id)).toEqual(["PYSEC-0", "PYSEC-1", "PYSEC-2", "GHSA-b", "GHSA-c", "GHSA-a"]);
    expect(reached).toBe(false);
  });

  it("lists the rows after the checkpoint and stops at the first row of an earlier second", async () => {
    const seen: string[] = [];
    async function* counted() {
      for await (const l of linesOf(INDEX)) {
        seen.push(l);
        yield l;
      }
    }
    const found = await rowsSince(counted(), "2026-08-21T10:00:05.2Z");
    // GHSA-a (.5) comes after GHSA-b (.0) in the text yet is newer than the checkpoint: not missed.
    expect(found.rows.map((r) => r.id)).toEqual(["GHSA-a"]);
    expect(found.reached).toBe(true);
    // Stopped at the 09:00 row: the rest of a large index is never read.
    expect(seen).toHaveLength(4);
    expect((await rowsSince(linesOf(INDEX), "2026-08-21T09:00:00Z")).rows.map((r) => r.id)).toEqual(["GHSA-b", "GHSA-c", "GHSA-a"]);
    expect((await rowsSince(linesOf(INDEX), "2026-08-21T10:00:05.5Z")).rows).toEqual([]);
  });

  it("reports lines that are no row, with their number, and goes on", async () => {
    const found = await rowsSince(linesOf("2026-08-21T10:00:00Z,A\nnot a row\n2026-08-21T09:00:00Z,B\n"), null);
    expect(found.rows.map((r) => r.id)).toEqual(["B", "A"]);
    expect(found.bad).toEqual([{ line: 2, text: "not a row" }]);
  });

  it("moves the checkpoint only past times whose every row is applied", async () => {
    const { rows } = await rowsSince(linesOf(INDEX), null);
    // rows: PYSEC-0 (20th), PYSEC-1 and PYSEC-2 (both 09:00), GHSA-b, GHSA-c, GHSA-a
    expect(appliedUntil(rows, 0, "prev")).toBe("prev");
    expect(appliedUntil(rows, 1, "prev")).toBe("2026-08-20T00:00:00Z");
    // PYSEC-1 applied, PYSEC-2 (same time) not yet: the checkpoint stays before 09:00.
    expect(appliedUntil(rows, 2, "prev")).toBe("2026-08-20T00:00:00Z");
    expect(appliedUntil(rows, 3, "prev")).toBe("2026-08-21T09:00:00Z");
    expect(appliedUntil(rows, 6, "prev")).toBe("2026-08-21T10:00:05.5Z");
  });
});

describe("checkAdvisory", () => {
  const go = readFileSync("test/fixtures/sync/osv/osv/go-vulndb/osv/GO-2022-0191.json", "utf8");

  it("keeps a real advisory as one compact line", () => {
    const a = checkAdvisory(go, "GO-2022-0191");
    expect(a).toMatchObject({ id: "GO-2022-0191", modified: "0001-01-01T00:00:00Z" });
    expect(a.line).not.toContain("\n");
    expect(JSON.parse(a.line)).toEqual(JSON.parse(go));
  });

  it("refuses what fails OSV's schema, with the reason", () => {
    const refused = (text: string, id?: string) => {
      try {
        checkAdvisory(text, id);
      } catch (err) {
        expect(err).toBeInstanceOf(RecordError);
        return (err as Error).message;
      }
      throw new Error("accepted");
    };
    expect(refused(go.slice(0, 200))).toMatch(/JSON invalide/);
    expect(refused("[]")).toMatch(/pas un objet/);
    expect(refused('{"modified":"2024-01-01T00:00:00Z"}')).toMatch(/sans id/);
    expect(refused('{"id":"GO-1"}')).toMatch(/GO-1 : modified absent/);
    expect(refused('{"id":"GO-1","modified":"2024-01-01"}')).toMatch(/modified absent ou invalide/);
    expect(refused(go, "GO-2022-0192")).toMatch(/document de GO-2022-0191 à l'adresse de GO-2022-0192/);
    expect(refused('{"id":"GO-1","modified":"2024-01-01T00:00:00Z","affected":[{"ranges":[{"type":"SEMVER"}]}]}')).toMatch(
      /range without events/,
    );
  });
});

describe("the archive's JSON Lines", () => {
  it("are taken by the OSV importer even when an advisory's text names a CVE 5 key; a CVE 5 record is not", () => {
    const go = JSON.parse(readFileSync("test/fixtures/sync/osv/osv/go-vulndb/osv/GO-2022-0191.json", "utf8"));
    const line = JSON.stringify({ ...go, details: 'The parser trusts "cveMetadata": {...} blindly.' });
    expect(osv.sniff.test(`${line}\n`, "all.jsonl")).toBe(true);
    const cve5 = readFileSync("test/fixtures/import/cve5-sample.jsonl", "utf8").split("\n")[0]!;
    expect(osv.sniff.test(cve5, "x.jsonl")).toBe(false);
  });
});

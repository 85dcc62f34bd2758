import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { COMPARE_FILE_LIMIT, cveOfPath, nomiSecFileProblem, planCompare, pocPublisher, repoOf, singleFileDue } from "./poc.js";

describe("repoOf: a GitHub-like repository address, or a single file", () => {
  it("takes …/repos/<owner>/<name> (GitHub, GitHub Enterprise's /api/v3, a mirror)", () => {
    expect(repoOf("https://api.github.com/repos/nomi-sec/PoC-in-GitHub")).toEqual({
      api: "https://api.github.com/repos/nomi-sec/PoC-in-GitHub",
      owner: "nomi-sec",
      name: "PoC-in-GitHub",
    });
    expect(repoOf("https://ghe.example.org/api/v3/repos/sec/poc/")?.api).toBe("https://ghe.example.org/api/v3/repos/sec/poc");
    expect(repoOf("http://127.0.0.1:8080/repos/trickest/cve")?.owner).toBe("trickest");
    expect(pocPublisher.defaultAddresses.map(repoOf).every(Boolean)).toBe(true);
  });

  it("leaves files and anything else to the single-file protocol", () => {
    expect(repoOf("https://mirror.example.org/poc/trickest-cve-poc.jsonl.gz")).toBeNull();
    expect(repoOf("https://api.github.com/repos/nomi-sec/PoC-in-GitHub/contents/2024")).toBeNull();
    expect(repoOf("https://api.github.com/repos/nomi-sec/PoC-in-GitHub?ref=x")).toBeNull();
    expect(repoOf("not a url")).toBeNull();
  });
});

describe("cveOfPath: the CVE id is the file's name", () => {
  it("reads <year>/CVE-….json, inside an archive's top directory too", () => {
    expect(cveOfPath("2024/CVE-2024-0001.json")).toBe("CVE-2024-0001");
    expect(cveOfPath("nomi-sec-PoC-in-GitHub-02bfa29/2021/CVE-2021-44228.json")).toBe("CVE-2021-44228");
    // A real oddity of the repository (2024/CVE-2024-06666.json): kept as named.
    expect(cveOfPath("2024/CVE-2024-06666.json")).toBe("CVE-2024-06666");
  });

  it("ignores the README, directories and other files", () => {
    for (const p of ["README.md", "2024/", "2024/CVE-2024-0001.md", ".github/workflows/x.json", "CVE-2024-0001.json"])
      expect(cveOfPath(p)).toBeNull();
  });
});

describe("planCompare: what a comparison asks to apply", () => {
  const raw = (p: string) => `https://github.com/nomi-sec/PoC-in-GitHub/raw/abc/${p}`;
  it("fetches added and modified CVE files, clears removed ones, in path order, without the README", () => {
    expect(
      planCompare([
        { filename: "README.md", status: "modified", raw_url: raw("README.md") },
        { filename: "2025/CVE-2025-0002.json", status: "added", raw_url: raw("2025/CVE-2025-0002.json") },
        { filename: "2024/CVE-2024-0001.json", status: "modified", raw_url: raw("2024/CVE-2024-0001.json") },
        { filename: "2023/CVE-2023-9999.json", status: "removed", raw_url: raw("2023/CVE-2023-9999.json") },
      ]),
    ).toEqual([
      { path: "2023/CVE-2023-9999.json", cve: "CVE-2023-9999", url: null },
      { path: "2024/CVE-2024-0001.json", cve: "CVE-2024-0001", url: raw("2024/CVE-2024-0001.json") },
      { path: "2025/CVE-2025-0002.json", cve: "CVE-2025-0002", url: raw("2025/CVE-2025-0002.json") },
    ]);
  });

  it("a renamed file: the new name fetched, the old CVE cleared", () => {
    expect(
      planCompare([
        {
          filename: "2024/CVE-2024-1234.json",
          status: "renamed",
          previous_filename: "2024/CVE-2024-01234.json",
          raw_url: raw("2024/CVE-2024-1234.json"),
        },
      ]),
    ).toEqual([
      { path: "2024/CVE-2024-01234.json", cve: "CVE-2024-01234", url: null },
      { path: "2024/CVE-2024-1234.json", cve: "CVE-2024-1234", url: raw("2024/CVE-2024-1234.json") },
    ]);
    expect(COMPARE_FILE_LIMIT).toBe(300);
  });
});

describe("nomiSecFileProblem", () => {
  it("accepts the publisher's real file and an empty array", () => {
    expect(nomiSecFileProblem(readFileSync("test/fixtures/feeds/poc/nomi-sec/2024/CVE-2024-0001.json", "utf8"))).toBeNull();
    expect(nomiSecFileProblem("[]")).toBeNull();
  });

  it("refuses a truncated file, an object, an HTML error page", () => {
    const real = readFileSync("test/fixtures/feeds/poc/nomi-sec/2024/CVE-2024-0001.json", "utf8");
    expect(nomiSecFileProblem(real.slice(0, 600))).toMatch(/JSON illisible/);
    expect(nomiSecFileProblem('{"message":"Not Found"}')).toMatch(/pas un tableau/);
    expect(nomiSecFileProblem("<html>rate limited</html>")).toMatch(/JSON illisible/);
  });
});

describe("singleFileDue: a file without an incremental form is asked at most daily", () => {
  const now = new Date("2026-11-26T04:00:00Z");
  it("due when never asked, a day after, or with an unreadable date", () => {
    expect(singleFileDue({}, now)).toBe(true);
    expect(singleFileDue({ checkedAt: "2026-11-25T04:00:00Z" }, now)).toBe(true);
    expect(singleFileDue({ checkedAt: "yesterday" }, now)).toBe(true);
  });
  it("not due within the day", () => {
    expect(singleFileDue({ checkedAt: "2026-11-25T04:00:01Z" }, now)).toBe(false);
  });
});

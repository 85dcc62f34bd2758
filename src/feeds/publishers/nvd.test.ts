import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkpointUntil, NVD_EPOCH, nvdDate, pageDefect, pageHead, pageUrl, windowsBetween } from "./nvd.js";

const DAY = 86_400_000;

describe("NVD API 2.0 publisher helpers", () => {
  it("splits a span into consecutive windows of at most 120 days", () => {
    const from = new Date("2024-01-01T00:00:00.000Z");
    const to = new Date(from.getTime() + 250 * DAY + 5000);
    const ws = windowsBetween(from, to);
    expect(ws.map((w) => (w.end.getTime() - w.start.getTime()) / DAY)).toEqual([120, 120, 10 + 5000 / DAY]);
    expect(ws[0]!.start).toEqual(from);
    for (let i = 1; i < ws.length; i++) expect(ws[i]!.start).toEqual(ws[i - 1]!.end);
    expect(ws.at(-1)!.end).toEqual(to);
    // Exactly 120 days is one window; nothing to do when the checkpoint is now.
    expect(windowsBetween(from, new Date(from.getTime() + 120 * DAY))).toHaveLength(1);
    expect(windowsBetween(to, to)).toEqual([]);
    // The first sync from NVD_EPOCH to late 2026: 119 windows.
    expect(windowsBetween(NVD_EPOCH, new Date("2026-11-26T00:00:00Z"))).toHaveLength(119);
  });

  it("writes NVD's extended ISO-8601 with an offset, its + encoded", () => {
    const d = new Date("2024-03-05T07:08:09.010Z");
    expect(nvdDate(d)).toBe("2024-03-05T07:08:09.010+00:00");
    const url = pageUrl("https://services.nvd.nist.gov/rest/json/cves/2.0", { start: d, end: new Date(d.getTime() + DAY) }, 4000);
    expect(url).toBe(
      "https://services.nvd.nist.gov/rest/json/cves/2.0?lastModStartDate=2024-03-05T07:08:09.010%2B00:00&lastModEndDate=2024-03-06T07:08:09.010%2B00:00&resultsPerPage=2000&startIndex=4000",
    );
    const parsed = new URL(url).searchParams;
    expect(new Date(parsed.get("lastModStartDate")!)).toEqual(d);
    expect(pageUrl("http://m/api?x=1", { start: d, end: d }, 0)).toMatch(/^http:\/\/m\/api\?x=1&lastModStartDate=/);
  });

  it("reads the checkpoint, ignoring one it cannot read", () => {
    expect(checkpointUntil({ until: "2025-05-19T04:15:00.000Z" })).toEqual(new Date("2025-05-19T04:15:00.000Z"));
    expect(checkpointUntil(null)).toBeNull();
    expect(checkpointUntil({ until: "soon" })).toBeNull();
    expect(checkpointUntil({ etag: "x" })).toBeNull();
  });

  it("reads a page's counts and finds a page cut short", async () => {
    const head =
      '{"resultsPerPage":2,"startIndex":4,"totalResults":6,"format":"NVD_CVE","version":"2.0","timestamp":"2026-01-01T00:00:00.000",';
    expect(pageHead(head)).toEqual({ resultsPerPage: 2, startIndex: 4, totalResults: 6 });
    expect(pageHead('{"format":"NVD_CVE"}')).toBeNull();
    const dir = mkdtempSync(join(tmpdir(), "nvd-page-"));
    const page = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    const rec = (id: string) => `{"cve":{"id":"${id}","descriptions":[{"lang":"en","value":"a ] } [ {"}]}}`;
    const whole = page("whole.json", `${head}"vulnerabilities":[${rec("CVE-2024-1")},${rec("CVE-2024-2")}]}`);
    expect(await pageDefect(whole, 4)).toEqual({ defect: null, head: pageHead(head), count: 2 });
    const cut = page("cut.json", `${head}"vulnerabilities":[${rec("CVE-2024-1")},{"cve":{"id":"CVE-2024-2","desc`);
    expect((await pageDefect(cut, 4)).defect).toMatch(/tronquée : 1 enregistrements sur 2/);
    expect((await pageDefect(whole, 2)).defect).toMatch(/startIndex 4 au lieu de 2/);
    expect((await pageDefect(page("html.json", "<html>busy</html>"), 0)).defect).toMatch(/sans resultsPerPage/);
    const empty = page("empty.json", '{"resultsPerPage":0,"startIndex":0,"totalResults":0,"format":"NVD_CVE","vulnerabilities":[]}');
    expect(await pageDefect(empty, 0)).toMatchObject({ defect: null, count: 0 });
  });
});

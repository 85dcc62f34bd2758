import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { serveMirrors } from "../scripts/mirror/mirror.js";
import { nvdMirror } from "../scripts/mirror/nvd.js";
import { nvd11To20 } from "../scripts/mirror/nvd-convert.js";
import { loadConfig, type FeedSettings } from "../src/config.js";
import { FeedsService } from "../src/feeds/feeds.service.js";
import { parseNvd11Item, parseNvd20 } from "../src/feeds/nvd.js";
import { NVD_EPOCH, NVD_OVERLAP_MS } from "../src/feeds/publishers/nvd.js";
import { bearer, createTenant, createTestApp } from "./helpers.js";
import { capturedLogger } from "./notify-fixtures.js";

// A local NVD CVE API 2.0 over 32 real NVD 1.1 items (31 CVEs) converted to API 2.0 objects
// (test/fixtures/sync/nvd/SOURCES.md), paged 4 records at a time so that windows span pages.
const FIX = "test/fixtures/sync/nvd";
const FEEDS = [`${FIX}/nvdcve-1.1-sample.json.gz`, `${FIX}/nvdcve-1.1-recent-sample.json.gz`];
const KEY = "nvd-secret-key-1f2e3d4c";
const DAY = 86_400_000;

const t = await createTestApp();
const tenant = await createTenant(t);
const cacheDir = mkdtempSync(join(tmpdir(), "vigie-nvd-mirror-"));
const mirror = await nvdMirror({ feeds: FEEDS, cacheDir, apiKey: KEY, pageSize: 4 });
const other = await nvdMirror({ feeds: FEEDS, cacheDir, apiKey: KEY, pageSize: 4, prefix: "/other" });
const third = await nvdMirror({ feeds: FEEDS, cacheDir, pageSize: 4, prefix: "/third" });
const served = await serveMirrors([mirror, other, third]);
afterAll(async () => {
  await served.close();
  mirror.close();
  other.close();
  third.close();
});
const address = mirror.addresses(served.origin)[0]!;
const off = { cve5: [], nvd: [], kev: [], epss: [], poc: [], osv: [], certfr: [], rss: [], eol: [] };
function settings(more: Partial<FeedSettings> = {}): FeedSettings {
  return {
    ...loadConfig({}).feeds,
    cacheDir: mkdtempSync(join(tmpdir(), "vigie-sync-nvd-")),
    retryBaseMs: 1,
    nvdPauseMs: 0,
    nvdApiKey: KEY,
    urls: { ...off, nvd: [address] },
    ...more,
  };
}
const captured = capturedLogger();
const feeds = new FeedsService(t.database.db, settings(), captured.logger);

const items = FEEDS.flatMap(
  (f) => (JSON.parse(gunzipSync(readFileSync(f)).toString()) as { CVE_Items: Record<string, unknown>[] }).CVE_Items,
);
const params = (query: string) => new URLSearchParams(query);
const windowOf = (query: string) => ({ start: params(query).get("lastModStartDate")!, end: params(query).get("lastModEndDate")! });
async function nvdRows(): Promise<number> {
  const r = await t.database.db.execute(sql`select count(*)::int as n from cve_sources where source = 'nvd'`);
  return (r as unknown as { rows: { n: number }[] }).rows[0]!.n;
}
async function checkpoint(addr = address): Promise<{ until: string } | null> {
  const nvd = (await feeds.status()).find((s) => s.source === "nvd")!;
  return nvd.addresses.find((a) => a.address === addr)?.checkpoint as { until: string } | null;
}
const cve = async (id: string) =>
  (await t.app.inject({ method: "GET", url: `/api/v1/cves/${id}`, headers: bearer(tenant.readKey) })).json();
/** Nothing a user or an operator can read holds the key. */
async function expectKeyHidden(...values: unknown[]) {
  const status = await feeds.status();
  for (const v of [...values, status, captured.raw.join("\n")]) expect(JSON.stringify(v)).not.toContain(KEY);
}

describe("NVD API 2.0 from the local publisher (records derived from NVD 1.1 items)", () => {
  it("converts 1.1 items to API 2.0 objects of the samples' shape, read by the importer as the 1.1 items", () => {
    const sampleDir = "../shared/data/nvd/api-2.0-sample";
    const samples = ["CVE-2023/CVE-2023-49xx/CVE-2023-4966.json", "CVE-2024/CVE-2024-34xx/CVE-2024-3400.json"].map(
      (p) => JSON.parse(readFileSync(join(sampleDir, p), "utf8")) as Record<string, unknown>,
    );
    const sampleKeys = Object.keys(samples[0]!).filter((k) => !k.startsWith("cisa"));
    for (const item of items) {
      const v20 = nvd11To20(item);
      // Top-level keys: those of NVD's own objects, in their order.
      const keys = Object.keys(v20);
      expect(keys).toEqual(sampleKeys.filter((k) => keys.includes(k)));
      expect(v20.lastModified).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/);
      const metric = Object.values(v20.metrics as Record<string, Record<string, unknown>[]>)[0]?.[0];
      if (metric)
        expect(Object.keys(metric).slice(0, 3)).toEqual(
          Object.keys((samples[0]!.metrics as { cvssMetricV31: object[] }).cvssMetricV31[0]!).slice(0, 3),
        );
      // What Vigie reads from both is the same (the 1.1 format has no KEV fields).
      const { kev: _a, ...from11 } = parseNvd11Item(item);
      const { kev: _b, ...from20 } = parseNvd20(v20);
      expect(from20).toEqual(from11);
    }
    const match = (samples[0]!.configurations as { nodes: { cpeMatch: Record<string, unknown>[] }[] }[])[0]!.nodes[0]!.cpeMatch[0]!;
    const converted = items.map(nvd11To20).find((v) => v.configurations)!.configurations as {
      nodes: { cpeMatch: Record<string, unknown>[] }[];
    }[];
    expect(Object.keys(converted[0]!.nodes[0]!.cpeMatch[0]!).sort()).toEqual(
      expect.arrayContaining(["criteria", "matchCriteriaId", "vulnerable"].filter((k) => k in match)),
    );
    expect(mirror.size).toBe(31);
  });

  it("keeps NVD's rules: both dates, ISO-8601 with an encoded offset, 120 days at most, 2,000 per page, the apiKey", async () => {
    const api = (q: string, key: string | null = KEY) => fetch(`${address}?${q}`, { headers: key ? { apiKey: key } : {} });
    const ok = await api(
      "lastModStartDate=2021-01-01T00:00:00.000%2B00:00&lastModEndDate=2021-05-01T00:00:00.000%2B00:00&resultsPerPage=2000",
    );
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ startIndex: 0, totalResults: 2, resultsPerPage: 2, format: "NVD_CVE", version: "2.0" });
    const refused = async (q: string, message: RegExp, key: string | null = KEY) => {
      const res = await api(q, key);
      expect(res.status).toBe(404);
      expect(res.headers.get("message")).toMatch(message);
    };
    await refused("lastModStartDate=2021-01-01T00:00:00.000%2B00:00&lastModEndDate=2021-05-01T00:00:01.000%2B00:00", /120 days/);
    await refused("lastModStartDate=2021-01-01T00:00:00.000+00:00&lastModEndDate=2021-02-01T00:00:00.000+00:00", /ISO 8601/);
    await refused("lastModStartDate=2021-01-01T00:00:00.000%2B00:00", /required/);
    await refused("resultsPerPage=2001", /2000/);
    await refused("resultsPerPage=1", /apiKey/, "wrong");
    // Without a key the API still answers (NVD only slows keyless clients down).
    expect((await api("resultsPerPage=1", null)).status).toBe(200);
    mirror.log.length = 0;
  });

  it("a first sync killed mid-window resumes at the end of the last window applied, losing nothing", async () => {
    // 503 and 429 on the way (retried with backoff), then the sync is stopped after the first
    // page of the first window that spans several pages.
    mirror.faults.statuses.push(503, 429);
    const stop = new AbortController();
    mirror.faults.afterPage = () => {
      const last = mirror.log.at(-1)!;
      if (last.records === 4 && params(last.query).get("startIndex") === "0") stop.abort(new Error("arrêt du processus"));
    };
    const killed = (await feeds.sync(["nvd"], stop.signal))[0]!;
    mirror.faults.afterPage = null;
    expect(killed).toMatchObject({ status: "failed", addresses: [{ status: "failed", error: expect.stringMatching(/interrompu/) }] });
    const first = mirror.log.splice(0);
    expect(first.slice(0, 3).map((r) => r.status)).toEqual([503, 429, 200]);
    // The key went in the apiKey header of every request, never in an address.
    expect(first.every((r) => r.apiKey === KEY && !r.query.includes(KEY))).toBe(true);
    // The checkpoint is the start of the window being paged when the sync stopped: the end of the last one applied.
    const pages = first.filter((r) => r.status === 200);
    const stoppedIn = windowOf(pages.at(-1)!.query);
    expect(pages.at(-1)!.records).toBe(4);
    const saved = await checkpoint();
    expect(new Date(saved!.until)).toEqual(new Date(stoppedIn.start));
    expect(await nvdRows()).toBeLessThan(31);

    const resumed = (await feeds.sync(["nvd"]))[0]!;
    expect(resumed).toMatchObject({ status: "synced", addresses: [{ status: "synced", problems: [], errors: [] }] });
    const second = mirror.log.splice(0);
    // It starts again at that window's start (less the overlap of every later sync), from its first
    // page, and asks no window applied before (but the overlap's two hours).
    const resumeAt = new Date(new Date(stoppedIn.start).getTime() - NVD_OVERLAP_MS);
    expect(new Date(windowOf(second[0]!.query).start)).toEqual(resumeAt);
    expect(params(second[0]!.query).get("startIndex")).toBe("0");
    expect(second.every((r) => new Date(windowOf(r.query).start) >= resumeAt)).toBe(true);
    expect(await nvdRows()).toBe(31);
    expect(await cve("CVE-2021-27485")).toMatchObject({ cvss_score: 7.5 });
    expect(await cve("CVE-2025-3742")).toBeTruthy();

    // Window splitting: from 1988 to now in consecutive windows of 120 days at most, each paged from 0.
    const windowsOf = (log: typeof first) => [
      ...new Map(log.filter((r) => r.status === 200).map((r) => [windowOf(r.query).start, windowOf(r.query)])).values(),
    ];
    const windows = windowsOf(first);
    expect(new Date(windows[0]!.start)).toEqual(NVD_EPOCH);
    for (const ws of [windows, windowsOf(second)])
      for (let i = 0; i < ws.length; i++) {
        const span = new Date(ws[i]!.end).getTime() - new Date(ws[i]!.start).getTime();
        expect(span).toBeLessThanOrEqual(120 * DAY);
        if (i) expect(ws[i]!.start).toBe(ws[i - 1]!.end);
      }
    const last = windowsOf(second).at(-1)!;
    expect(Date.now() - new Date(last.end).getTime()).toBeLessThan(60_000);
    expect(windows.length + windowsOf(second).length).toBeGreaterThan(115);
    const cp = await checkpoint();
    expect(cp!.until).toBe(new Date(last.end).toISOString());
    await expectKeyHidden(killed, resumed, cp);
  });

  it("a second sync asks only the window since the checkpoint (and its overlap) and transfers no page already applied", async () => {
    const before = await checkpoint();
    const [again] = await feeds.sync(["nvd"]);
    expect(again).toMatchObject({ status: "synced", applied: 0 });
    expect(mirror.log).toHaveLength(1);
    expect(mirror.log[0]).toMatchObject({ status: 200, records: 0 });
    expect(new Date(windowOf(mirror.log[0]!.query).start)).toEqual(new Date(new Date(before!.until).getTime() - NVD_OVERLAP_MS));
    mirror.log.length = 0;
  });

  it("a CVE re-scored at the publisher arrives in the next window with its new score", async () => {
    mirror.rescore("CVE-2021-27485", {
      baseScore: 9.1,
      baseSeverity: "CRITICAL",
      vectorString: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:N",
    });
    const [sync] = await feeds.sync(["nvd"]);
    expect(sync).toMatchObject({ status: "synced", applied: 1 });
    expect(mirror.log.map((r) => r.records)).toEqual([1]);
    expect(await cve("CVE-2021-27485")).toMatchObject({ cvss_score: 9.1, severity: "critical" });
    mirror.log.length = 0;
  });

  it("a page cut short is fetched again; one that stays bad is reported, later windows still applied, the checkpoint held before it", async () => {
    // Cut once: fetched again, applied, nothing to report (the page also holds the record re-scored
    // above, read again in the two hours of overlap, unchanged).
    mirror.rescore("CVE-2018-0146", { baseScore: 6.5, baseSeverity: "MEDIUM" });
    mirror.faults.truncate = 1;
    const [once] = await feeds.sync(["nvd"]);
    expect(once).toMatchObject({ status: "synced", applied: 1, addresses: [{ problems: [] }] });
    expect(mirror.log.map((r) => r.records)).toEqual([2, 2]);
    expect(await cve("CVE-2018-0146")).toMatchObject({ cvss_score: 6.5 });
    mirror.log.length = 0;

    // A connection dropped in the middle of a page: the page is fetched again.
    mirror.rescore("CVE-2018-0146", { baseScore: 6.1, baseSeverity: "MEDIUM" });
    mirror.faults.drop = 1;
    const [dropped] = await feeds.sync(["nvd"]);
    expect(dropped).toMatchObject({ status: "synced", applied: 1, addresses: [{ problems: [] }] });
    expect(mirror.log.map((r) => r.records)).toEqual([2, 2]);
    expect(await cve("CVE-2018-0146")).toMatchObject({ cvss_score: 6.1 });
    expect(captured.lines.some((l) => String(l.defect).startsWith("transfert interrompu"))).toBe(true);
    mirror.log.length = 0;

    // Cut at every attempt: reported, the source fails, the checkpoint stays; the next sync applies it.
    const held = await checkpoint();
    mirror.rescore("CVE-2018-0146", { baseScore: 4.3, baseSeverity: "MEDIUM" });
    mirror.faults.truncate = 3;
    const [bad] = await feeds.sync(["nvd"]);
    expect(bad).toMatchObject({
      status: "failed",
      addresses: [
        {
          status: "failed",
          error: expect.stringMatching(/non appliquée en entier/),
          problems: [{ message: expect.stringMatching(/tronquée/) }],
        },
      ],
    });
    expect(bad!.addresses[0]!.problems[0]!.where).toMatch(/^lastModStartDate=.* startIndex=0$/);
    expect(await checkpoint()).toEqual(held);
    expect(await cve("CVE-2018-0146")).toMatchObject({ cvss_score: 6.1 });
    mirror.log.length = 0;
    const [fixed] = await feeds.sync(["nvd"]);
    expect(fixed).toMatchObject({ status: "synced", applied: 1 });
    expect(await cve("CVE-2018-0146")).toMatchObject({ cvss_score: 4.3 });
    expect(new Date((await checkpoint())!.until).getTime()).toBeGreaterThan(new Date(held!.until).getTime());
    await expectKeyHidden(once, dropped, bad, fixed);
    mirror.log.length = 0;

    // A first sync whose first page with records stays cut: every later window is still applied,
    // and the checkpoint stays before that page's window.
    const thirdAddress = third.addresses(served.origin)[0]!;
    const fresh = new FeedsService(t.database.db, settings({ urls: { ...off, nvd: [thirdAddress] } }), captured.logger);
    third.faults.truncate = 3;
    const [cut] = await fresh.sync(["nvd"]);
    const firstWithRecords = third.log.find((r) => r.records > 0)!;
    expect(cut).toMatchObject({ status: "failed", addresses: [{ problems: [{ where: expect.stringContaining("startIndex=0") }] }] });
    expect(cut!.addresses[0]!.read).toBe(31 - firstWithRecords.records);
    const cp = (await fresh.status()).find((s) => s.source === "nvd")!.addresses[0]!.checkpoint as { until: string };
    expect(cp.until).toBe(new Date(windowOf(firstWithRecords.query).start).toISOString());
  });

  it("a window whose records change while it is paged is paged again from its start", async () => {
    const fresh = new FeedsService(t.database.db, settings({ urls: { ...off, nvd: other.addresses(served.origin) } }), captured.logger);
    // After the first page of a window of several pages, one of its records is modified: it
    // leaves the window (its lastModified is now), and the next page's offsets shift.
    let moved: { id: string; window: string } | null = null;
    other.faults.afterPage = () => {
      const last = other.log.at(-1)!;
      if (moved || last.records !== 4 || params(last.query).get("startIndex") !== "0") return;
      const w = windowOf(last.query);
      const item = items.find((i) => {
        const at = new Date(String(i.lastModifiedDate)).getTime();
        const id = (i.cve as { CVE_data_meta: { ID: string } }).CVE_data_meta.ID;
        return id !== "CVE-2025-3742" && at >= new Date(w.start).getTime() && at <= new Date(w.end).getTime();
      })!;
      moved = { id: (item.cve as { CVE_data_meta: { ID: string } }).CVE_data_meta.ID, window: w.start };
      other.rescore(moved.id, { baseScore: 5.4, baseSeverity: "MEDIUM", vectorString: "CVSS:3.1/AV:N/AC:L/PR:L/UI:R/S:C/C:L/I:L/A:N" });
    };
    const [sync] = await fresh.sync(["nvd"]);
    other.faults.afterPage = null;
    expect(sync).toMatchObject({ status: "synced", addresses: [{ problems: [] }] });
    const { id, window } = moved!;
    const paged = other.log.filter((r) => windowOf(r.query).start === window).map((r) => params(r.query).get("startIndex"));
    // Its first page, the second one (whose total differs), then the window again from its start.
    expect(paged.slice(0, 3)).toEqual(["0", "4", "0"]);
    // Modified after this sync's end, the record comes with the next one.
    const [next] = await fresh.sync(["nvd"]);
    expect(next).toMatchObject({ status: "synced", applied: 1 });
    expect(await cve(id)).toMatchObject({ cvss_score: 5.4 });
  });

  it("a refusal of the publisher (a wrong key) fails the source with NVD's reason, never with the key", async () => {
    const wrong = new FeedsService(t.database.db, settings({ nvdApiKey: "not-the-key" }), captured.logger);
    const [out] = await wrong.sync(["nvd"]);
    expect(out).toMatchObject({ status: "failed", addresses: [{ error: "HTTP 404 : Invalid apiKey" }] });
    expect(JSON.stringify(out)).not.toContain("not-the-key");
    expect(captured.raw.join("\n")).not.toContain("not-the-key");
    expect(readdirSync(cacheDir).length).toBeGreaterThan(0);
  });
});

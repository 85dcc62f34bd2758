import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig, type FeedSettings } from "../src/config.js";
import { FeedsService } from "../src/feeds/feeds.service.js";
import { feedUrls } from "../src/feeds/importers/index.js";
import { FeedScheduler } from "../src/feeds/sync/scheduler.js";
import { SyncState } from "../src/feeds/sync/state.js";
import { executeCommand } from "../src/main.js";
import { bearer, createTenant, createTestApp } from "./helpers.js";
import { capturedLogger } from "./notify-fixtures.js";

const t = await createTestApp();
const tenant = await createTenant(t);
const FIX = "test/fixtures/import";

// A local stand-in for the publishers of single files (KEV, EPSS): validators, a failing address,
// a file of another format, and an address answering 503 then 429 before it serves.
const files: Record<string, Buffer> = {
  "/kev.json": readFileSync(`${FIX}/kev-sample.json`),
  "/epss/epss_scores-2026-08-16.csv": readFileSync(`${FIX}/epss_scores-2026-08-16.csv`),
  "/nvd": readFileSync(`${FIX}/nvd2-CVE-2024-3400.json`),
  "/not-kev.json": readFileSync(`${FIX}/cve5-sample.jsonl`),
  "/busy/kev.json": readFileSync("test/fixtures/feeds/kev/kev-entries.json"),
};
const seen: { url: string; ifNoneMatch?: string; ifModifiedSince?: string }[] = [];
const lastModified = new Date("2026-08-25T00:00:00Z").toUTCString();
const busyAnswers = [503, 429];
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  seen.push({ url: req.url!, ifNoneMatch: req.headers["if-none-match"], ifModifiedSince: req.headers["if-modified-since"] });
  // NVD's API (test/sync-nvd.test.ts tests its publisher): the record in the window of its lastModified.
  if (req.url!.startsWith("/nvd?")) {
    const q = new URL(req.url!, "http://x").searchParams;
    const at = Date.parse("2024-04-13T01:00:01.407Z");
    const hit = Date.parse(q.get("lastModStartDate")!) <= at && at <= Date.parse(q.get("lastModEndDate")!);
    const vulnerabilities = hit ? [{ cve: JSON.parse(files["/nvd"]!.toString()) }] : [];
    const n = vulnerabilities.length;
    const page = { resultsPerPage: n, startIndex: 0, totalResults: n, format: "NVD_CVE", version: "2.0", vulnerabilities };
    return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(page));
  }
  if (req.url === "/broken") return void res.writeHead(500).end("oops");
  if (req.url === "/busy/kev.json" && busyAnswers.length) return void res.writeHead(busyAnswers.shift()!, { "retry-after": "0" }).end();
  const body = files[req.url!];
  if (!body) return void res.writeHead(404).end();
  const etag = `"${createHash("sha1").update(body).digest("hex")}"`;
  if (req.headers["if-none-match"] === etag) return void res.writeHead(304).end();
  res.writeHead(200, { etag, "last-modified": lastModified, "content-type": "application/octet-stream" }).end(body);
});
await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
afterAll(() => server.close());

/** The sync's settings as loaded from the environment, pointed at the local publisher. */
function settings(urls: Record<string, string[]>, more: Partial<FeedSettings> = {}): FeedSettings {
  return { ...loadConfig({}).feeds, cacheDir: mkdtempSync(join(tmpdir(), "vigie-sync-")), retryBaseMs: 1, urls, ...more };
}
const off = { cve5: [], nvd: [], kev: [], epss: [], poc: [], osv: [], certfr: [], rss: [], eol: [] };
const captured = capturedLogger();
const config = settings(
  {
    ...off,
    kev: [`${base}/kev.json`, `${base}/broken`, `${base}/not-kev.json`],
    epss: [`${base}/epss/epss_scores-2026-08-16.csv`],
    nvd: [`${base}/nvd`],
  },
  { nvdPauseMs: 0 },
);
const feeds = new FeedsService(t.database.db, config, captured.logger);

describe("feed sync: each source from its publisher, checkpoints in the database", () => {
  it("applies each address, reports a failing one without stopping the others, and records the state", async () => {
    const first = await feeds.sync();
    const kev = first.find((o) => o.source === "kev")!;
    const at = (path: string) => kev.addresses.find((a) => a.address === `${base}${path}`)!;
    expect(at("/kev.json")).toMatchObject({ status: "synced", read: 3, applied: 3 });
    // 500 is retried (VIGIE_FEEDS_RETRIES), then the address fails with the status.
    expect(at("/broken")).toMatchObject({ status: "failed", error: "HTTP 500" });
    expect(seen.filter((s) => s.url === "/broken")).toHaveLength(config.retries + 1);
    // A file of another format is refused by the importer, changing nothing.
    expect(at("/not-kev.json")).toMatchObject({ status: "failed", error: expect.stringMatching(/pas au format kev/) });
    expect(kev.status).toBe("failed");
    expect(first.find((o) => o.source === "epss")).toMatchObject({ status: "synced", applied: 5 });
    expect(first.find((o) => o.source === "nvd")).toMatchObject({ status: "synced", applied: 1 });
    const cve = (await t.app.inject({ method: "GET", url: "/api/v1/cves/CVE-2024-3400", headers: bearer(tenant.readKey) })).json();
    expect(cve).toMatchObject({ is_kev: true, epss_publie: true });
    // Downloads are removed once imported.
    expect(readdirSync(config.cacheDir, { recursive: true }).filter((f) => String(f).includes("."))).toEqual([]);

    const status = await feeds.status();
    const kevState = status.find((s) => s.source === "kev")!;
    expect(kevState).toMatchObject({ enabled: true, failures: 1, stale: false, last_success_at: null });
    expect(kevState.last_error).toMatch(/\/broken : HTTP 500 ; .*\/not-kev\.json : .*pas au format kev/);
    // A failed source comes back after the first backoff (one minute), not its whole rhythm.
    expect(kevState.next_run_at!.getTime() - kevState.last_attempt_at!.getTime()).toBe(60_000);
    expect(kevState.addresses.find((a) => a.address === `${base}/kev.json`)).toMatchObject({
      checkpoint: { etag: expect.stringMatching(/^"/), lastModified },
      applied_until: new Date(lastModified),
      records_applied: 3,
    });
    // The failed addresses keep no checkpoint: fetched again in full.
    expect(kevState.addresses.find((a) => a.address === `${base}/broken`)).toMatchObject({ checkpoint: null, records_applied: 0 });
    const epss = status.find((s) => s.source === "epss")!;
    expect(epss).toMatchObject({ failures: 0, last_error: null, last_applied: 5, running: false });
    expect(epss.next_run_at!.getTime() - epss.last_attempt_at!.getTime()).toBe(3600_000);
    expect(status.find((s) => s.source === "rss")).toMatchObject({ enabled: false, next_run_at: null, addresses: [] });
    // The first failure of a source is a warning with the reason; the next ones are quiet.
    const warned = () => captured.lines.filter((l) => l.level === 40 && l.source === "kev" && String(l.msg).includes("échec de la source"));
    expect(warned()).toHaveLength(1);
    await feeds.sync(["kev"]);
    expect(warned()).toHaveLength(1);
    const again = (await feeds.status()).find((s) => s.source === "kev")!;
    expect(again.failures).toBe(2);
    expect(again.next_run_at!.getTime() - again.last_attempt_at!.getTime()).toBe(120_000);
  });

  it("asks again with the validators: a 304 transfers and applies nothing", async () => {
    seen.length = 0;
    const [epss] = await feeds.sync(["epss"]);
    expect(epss).toMatchObject({ status: "synced", applied: 0, addresses: [{ read: 0 }] });
    expect(seen).toEqual([
      { url: "/epss/epss_scores-2026-08-16.csv", ifNoneMatch: expect.stringMatching(/^"/), ifModifiedSince: lastModified },
    ]);
    // A new file at the address is applied, and its checkpoint moves.
    files["/kev.json"] = readFileSync("test/fixtures/feeds/kev/kev-entries.json");
    const [kev] = await feeds.sync(["kev"]);
    expect(kev!.addresses[0]).toMatchObject({ status: "synced", read: expect.any(Number) });
    expect(kev!.addresses[0]!.applied).toBeGreaterThan(0);
  });

  it("retries 503 and 429 (Retry-After) before the publisher serves", async () => {
    const busy = new FeedsService(t.database.db, settings({ ...off, kev: [`${base}/busy/kev.json`] }));
    seen.length = 0;
    const [kev] = await busy.sync();
    expect(kev).toMatchObject({ status: "synced", addresses: [{ status: "synced" }] });
    expect(seen.map((s) => s.url)).toEqual(["/busy/kev.json", "/busy/kev.json", "/busy/kev.json"]);
  });

  it("never syncs a source that another process holds, and takes it over once that lease ran out", async () => {
    const state = new SyncState(t.database.db);
    expect(await state.acquire("epss", "other-process", 60)).toBe(true);
    seen.length = 0;
    expect(await feeds.sync(["epss"])).toEqual([{ source: "epss", status: "busy", applied: 0, seconds: 0, addresses: [] }]);
    expect(seen).toEqual([]);
    expect((await feeds.status()).find((s) => s.source === "epss")?.running).toBe(true);
    // The other process was killed: its lease ends, and the source is synced again.
    await t.database.db.execute("update feed_sources set lease_until = now() - interval '1 second' where source = 'epss'" as never);
    expect((await feeds.sync(["epss"]))[0]).toMatchObject({ status: "synced" });
  });

  it("a sync stopped by the service's shutdown is not a failure: the lease is given back, the source stays as it was", async () => {
    const before = (await feeds.status()).find((s) => s.source === "epss")!;
    const stop = new AbortController();
    stop.abort(new Error("arrêt du service"));
    const [out] = await feeds.sync(["epss"], stop.signal);
    expect(out!.status).toBe("failed");
    const after = (await feeds.status()).find((s) => s.source === "epss")!;
    expect(after).toMatchObject({
      running: false,
      failures: before.failures,
      last_attempt_at: before.last_attempt_at,
      last_error: before.last_error,
    });
  });

  it("the scheduler syncs what is due on its rhythm (VIGIE_FEEDS_EVERY_<SOURCE>) and nothing else", async () => {
    const quick = new FeedsService(
      t.database.db,
      settings({ ...off, epss: [`${base}/epss/epss_scores-2026-08-16.csv`] }, { every: { epss: 1 } }),
    );
    const due = (await quick.nextDue())!;
    expect(await quick.syncDue(new Date(due.getTime() - 1000))).toEqual([]);
    seen.length = 0;
    const scheduler = new FeedScheduler(quick, captured.logger);
    scheduler.start();
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    await scheduler.stop();
    expect(new Set(seen.map((s) => s.url))).toEqual(new Set(["/epss/epss_scores-2026-08-16.csv"]));
  });

  it("is a command: feeds sync [--source S]... and feeds status, refusing an unknown source", async () => {
    const res = await executeCommand({ ...t.services, feeds }, t.database, ["feeds", "sync", "--source", "epss", "--json"]);
    expect(res).toMatchObject({ ok: true, result: { sources: [{ source: "epss", status: "synced" }] } });
    const bad = await executeCommand(t.services, t.database, ["feeds", "sync", "--source", "mitre"]);
    expect(bad).toMatchObject({ ok: false, message: expect.stringMatching(/mitre inconnue/) });
    const st = await executeCommand({ ...t.services, feeds }, t.database, ["feeds", "status", "--json"]);
    expect(st).toMatchObject({
      ok: true,
      result: { sources: expect.arrayContaining([expect.objectContaining({ source: "epss", last_applied: 0 })]) },
    });
  });

  it("GET /api/v1/feeds: every source with its official addresses, for any API key", async () => {
    const res = await t.app.inject({ method: "GET", url: "/api/v1/feeds", headers: bearer(tenant.readKey) });
    expect(res.statusCode).toBe(200);
    const { sources } = res.json() as { sources: Record<string, unknown>[] };
    expect(sources.map((s) => s.source)).toEqual(["cve5", "nvd", "kev", "epss", "poc", "osv", "certfr", "rss", "eol"]);
    expect(sources.find((s) => s.source === "kev")).toMatchObject({
      enabled: true,
      every_seconds: 3600,
      addresses: [{ address: "https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json" }],
    });
    expect((await t.app.inject({ method: "GET", url: "/api/v1/feeds" })).statusCode).toBe(401);
  });

  it("takes addresses from VIGIE_FEED_URLS_<SOURCE> (empty: off), rhythms from VIGIE_FEEDS_EVERY_<SOURCE>, and refuses bad ones", () => {
    const c = loadConfig({ VIGIE_FEED_URLS_KEV: `${base}/a.json, ${base}/b.json`, VIGIE_FEED_URLS_RSS: "", VIGIE_FEEDS_EVERY_NVD: "15m" });
    const urls = feedUrls(c.feeds.urls);
    expect(urls.kev).toEqual([`${base}/a.json`, `${base}/b.json`]);
    expect(urls.rss).toBeUndefined();
    expect(urls.epss?.[0]).toMatch(/^https:\/\/epss\./);
    expect(c.feeds.every).toEqual({ nvd: 900 });
    expect(loadConfig({}).feeds.sync).toBe(true);
    expect(loadConfig({ VIGIE_FEEDS_SYNC: "off" }).feeds.sync).toBe(false);
    expect(loadConfig({}).feeds.nvdPauseMs).toBe(6000);
    expect(loadConfig({ VIGIE_NVD_API_KEY: "k" }).feeds.nvdPauseMs).toBe(600);
    expect(() => loadConfig({ VIGIE_FEED_URLS_KEV: "ftp://example.org/kev.json" })).toThrow(/http\(s\)/);
    expect(() => loadConfig({ VIGIE_FEEDS_EVERY_KEV: "soon" })).toThrow(/VIGIE_FEEDS_EVERY_KEV : durée attendue/);
  });
});

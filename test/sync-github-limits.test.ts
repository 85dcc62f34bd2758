import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as wait } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { cve5Mirror } from "../scripts/mirror/cve5.js";
import type { Mirror } from "../scripts/mirror/mirror.js";
import { serveMirrors } from "../scripts/mirror/mirror.js";
import { pocMirror } from "../scripts/mirror/poc.js";
import { loadConfig, type FeedSettings } from "../src/config.js";
import { FeedsService } from "../src/feeds/feeds.service.js";
import { addressHoldKey, githubRefusal, Holds } from "../src/feeds/sync/holds.js";
import { bearer, createTestApp, tenantWithScopes } from "./helpers.js";

// GitHub's rate limits (REST API docs, "Rate limits" and "Best practices") against the local
// GitHub-speaking publishers of the other sync tests: cvelistV5's releases (real CVE List records,
// test/fixtures/sync/cve5/SOURCES.md) and nomi-sec's repository (real files, test/fixtures/sync/poc),
// both behind one API host, as api.github.com serves both. In front of them, GitHub's refusals as
// GitHub answers them: a primary limit (403, x-ratelimit-remaining: 0, x-ratelimit-reset), a
// secondary one with retry-after, or a 403 with neither.
const cve5 = cve5Mirror({
  records: readdirSync("test/fixtures/sync/cve5/records").map((f) => readFileSync(join("test/fixtures/sync/cve5/records", f), "utf8")),
  cacheDir: mkdtempSync(join(tmpdir(), "vigie-ghlimit-mirror-")),
  date: "2024-07-01",
});
const poc = await pocMirror({
  files: { "2024/CVE-2024-0001.json": readFileSync("test/fixtures/sync/poc/2024/CVE-2024-0001.json", "utf8") },
});

type Refusal = { status: number; headers: Record<string, string> };
const refusals: Refusal[] = [];
/** Run when the next API request arrives, before it is answered (another process meeting the limit meanwhile). */
let beforeNext: (() => Promise<void>) | null = null;
/** Each GitHub API request that reached the host (refused or served), with when. */
const apiRequests: { path: string; at: number }[] = [];
const github: Mirror = {
  source: "github",
  addresses: () => [],
  handle(req, res) {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (!path.includes("/repos/")) return false;
    apiRequests.push({ path, at: Date.now() });
    const then = beforeNext;
    beforeNext = null;
    if (then) return then().then(() => false);
    const r = refusals.shift();
    if (!r) return false;
    res.writeHead(r.status, { "content-type": "application/json", ...r.headers }).end(
      JSON.stringify({
        message: "API rate limit exceeded",
        documentation_url: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
      }),
    );
    return true;
  },
};
const server = await serveMirrors([github, cve5, poc]);
afterAll(() => server.close());
const addresses = { cve5: cve5.addresses(server.origin), poc: poc.addresses(server.origin) };

const primary = (resetIn: number): Refusal => ({
  status: 403,
  headers: {
    "x-ratelimit-limit": "5000",
    "x-ratelimit-remaining": "0",
    "x-ratelimit-used": "5000",
    "x-ratelimit-resource": "core",
    "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + resetIn),
  },
});

const off = { cve5: [], nvd: [], kev: [], epss: [], poc: [], osv: [], certfr: [], rss: [], eol: [] };
// Each scenario asks with its own token: GitHub counts per token, and so do the holds.
const TOKEN = "ghp_not-a-real-token-hour";
const t = await createTestApp({
  VIGIE_GITHUB_TOKEN: TOKEN,
  ...Object.fromEntries(Object.keys(off).map((s) => [`VIGIE_FEED_URLS_${s.toUpperCase()}`, ""])),
  VIGIE_FEED_URLS_CVE5: addresses.cve5.join(","),
  VIGIE_FEED_URLS_POC: addresses.poc.join(","),
});
const tenant = await tenantWithScopes(t, "Limits", []);
function feeds(githubToken: string, more: Partial<FeedSettings> = {}): FeedsService {
  const settings: FeedSettings = {
    ...loadConfig({}).feeds,
    cacheDir: mkdtempSync(join(tmpdir(), "vigie-ghlimit-")),
    retryBaseMs: 1,
    githubToken,
    urls: { ...off, ...addresses },
    ...more,
  };
  return new FeedsService(t.database.db, settings);
}
const apiCount = () => apiRequests.length;
const holdOf = async (f: FeedsService, source: string) => (await f.status()).find((s) => s.source === source)!;

describe("GitHub's rate limits: no request to the API host before the limit's end", () => {
  it("primary limit (403, remaining 0, reset in an hour): one request, then none from either source, nor after a restart", async () => {
    const f = feeds(TOKEN);
    refusals.push(primary(3600));
    const before = apiCount();
    const [out] = await f.sync(["cve5"]);
    expect(out).toMatchObject({
      status: "failed",
      addresses: [
        { error: expect.stringMatching(/limite de requêtes de l'API GitHub atteinte jusqu'à .*x-ratelimit-reset.*VIGIE_GITHUB_TOKEN/) },
      ],
    });
    // The refusal was the only request: no retry, no backoff storm.
    expect(apiCount() - before).toBe(1);
    const reset = new Date(Number(primary(3600).headers["x-ratelimit-reset"]) * 1000);

    // The PoC source shares the host and the token: held too, nothing sent, nothing recorded as an attempt.
    const [p] = await f.sync(["poc"]);
    expect(p).toMatchObject({ status: "held", addresses: [], error: expect.stringMatching(/jusqu'à/) });
    expect(apiCount() - before).toBe(1);

    // GET /api/v1/feeds says so for both, until when and why; the scheduler waits for it.
    const res = await t.app.inject({ method: "GET", url: "/api/v1/feeds", headers: bearer(tenant.readKey) });
    expect(res.statusCode).toBe(200);
    const sources = (res.json() as { sources: Record<string, unknown>[] }).sources;
    for (const s of ["cve5", "poc"]) {
      const row = sources.find((x) => x.source === s)!;
      expect(Math.abs(Date.parse(row.held_until as string) - reset.getTime())).toBeLessThanOrEqual(1000);
      expect(row.held_reason).toMatch(/limite de requêtes de l'API GitHub/);
      expect(Date.parse(row.next_run_at as string)).toBeGreaterThanOrEqual(Date.parse(row.held_until as string));
    }
    expect(sources.find((x) => x.source === "nvd")).not.toHaveProperty("held_until");

    // A restart (another service over the same database): the hold is read back, nothing is sent.
    const restarted = feeds(TOKEN);
    expect((await restarted.sync()).map((o) => o.status)).toEqual(["held", "held"]);
    expect(await restarted.syncDue(new Date())).toEqual([]);
    expect((await restarted.nextDue())!.getTime()).toBeGreaterThanOrEqual(reset.getTime() - 1000);
    expect(apiCount() - before).toBe(1);
    // Another token is counted apart by GitHub: it is not held.
    expect((await holdOf(feeds("ghp_not-a-real-token-other"), "poc")).held_until).toBeUndefined();
  });

  it("primary limit with a reset seconds away: nothing before it, then both sources sync again", async () => {
    const f = feeds("ghp_not-a-real-token-seconds", { retries: 0 });
    refusals.push(primary(2));
    const before = apiCount();
    expect((await f.sync(["cve5"]))[0]).toMatchObject({ status: "failed" });
    const until = (await holdOf(f, "cve5")).held_until!;
    expect((await f.sync()).map((o) => o.status)).toEqual(["held", "held"]);
    expect(apiCount() - before).toBe(1);
    while (Date.now() < until.getTime()) await wait(100);
    const outs = await f.sync();
    expect(outs.map((o) => o.status)).toEqual(["synced", "synced"]);
    const after = apiRequests.slice(before + 1);
    expect(after.length).toBeGreaterThan(0);
    for (const r of after) expect(r.at).toBeGreaterThanOrEqual(until.getTime());
    expect((await holdOf(f, "poc")).held_until).toBeUndefined();
  });

  it("secondary limit with retry-after: the next request waits that long, then the sync goes on", async () => {
    const f = feeds("ghp_not-a-real-token-retry");
    refusals.push({ status: 429, headers: { "retry-after": "1" } });
    const before = apiCount();
    const [out] = await f.sync(["cve5"]);
    expect(out).toMatchObject({ status: "synced" });
    const [refused, next] = apiRequests.slice(before);
    expect(next!.at - refused!.at).toBeGreaterThanOrEqual(1000);
    expect((await holdOf(f, "cve5")).held_until).toBeUndefined();
  });

  it("a 403 with neither remaining 0 nor retry-after: a minute without requests, held in GET /api/v1/feeds", async () => {
    const f = feeds("ghp_not-a-real-token-minute");
    refusals.push({ status: 403, headers: { "x-ratelimit-remaining": "4990" } });
    const before = apiCount();
    const start = Date.now();
    const [out] = await f.sync(["poc"]);
    expect(out).toMatchObject({ status: "failed", addresses: [{ error: expect.stringMatching(/limite secondaire de l'API GitHub/) }] });
    expect((await f.sync(["cve5"]))[0]).toMatchObject({ status: "held" });
    expect(apiCount() - before).toBe(1);
    const held = await holdOf(f, "cve5");
    expect(held.held_until!.getTime() - start).toBeGreaterThanOrEqual(59_000);
    expect(held.held_until!.getTime() - start).toBeLessThanOrEqual(61_000 + (Date.now() - start));
    expect(held.held_reason).toMatch(/1ᵉ refus de suite/);
  });

  it("another process meets the limit during a sync: this sync's next API request is not sent", async () => {
    const token = "ghp_not-a-real-token-other-process";
    const f = feeds(token);
    expect((await f.sync(["poc"]))[0]).toMatchObject({ status: "synced" });
    poc.publish({ "2024/CVE-2024-3400.json": readFileSync("test/fixtures/sync/poc/2024/CVE-2024-3400.json", "utf8") });
    // While this sync asks for the head, another process records a primary limit on the same host and token.
    beforeNext = () =>
      new Holds(t.database.db).hold(addressHoldKey(addresses.poc[0]!, token)!, {
        until: new Date(Date.now() + 3_600_000),
        reason: "limite de requêtes de l'API GitHub atteinte (autre processus)",
        strikes: 0,
      });
    const before = apiCount();
    const [out] = await f.sync(["poc"]);
    expect(out).toMatchObject({ status: "failed", addresses: [{ error: expect.stringMatching(/autre processus/) }] });
    // The head was asked (before the hold); the comparison that follows was not.
    expect(apiRequests.slice(before).map((r) => r.path)).toEqual([expect.stringMatching(/\/commits\/HEAD$/)]);
  });

  it("secondary refusals in a row wait one minute, then twice as long each time (GitHub: exponential backoff)", () => {
    const res = new Response(null, { status: 403 });
    const now = Date.parse("2026-11-28T10:00:00Z");
    expect([0, 1, 2, 3].map((s) => githubRefusal(res, s, now)!.until.getTime() - now)).toEqual([60_000, 120_000, 240_000, 480_000]);
    expect(githubRefusal(new Response(null, { status: 503 }), 0, now)).toBeNull();
    // Both said: the later end wins.
    const both = new Response(null, {
      status: 429,
      headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(now / 1000 + 10), "retry-after": "30" },
    });
    expect(githubRefusal(both, 0, now)!.until.getTime() - now).toBe(30_000);
  });
});

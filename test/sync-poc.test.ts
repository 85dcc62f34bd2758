import { createHash } from "node:crypto";
import { createReadStream, existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createGunzip } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig, type FeedSettings } from "../src/config.js";
import { FeedsService } from "../src/feeds/feeds.service.js";
import { importFeed } from "../src/feeds/import.js";
import { pocTuning, type RepoCheckpoint } from "../src/feeds/publishers/poc.js";
import { SyncState } from "../src/feeds/sync/state.js";
import type { Mirror } from "../scripts/mirror/mirror.js";
import { serveMirrors } from "../scripts/mirror/mirror.js";
import { nomiSecText, pocMirror, reposOfLinks } from "../scripts/mirror/poc.js";
import { bearer, createTestApp, tenantWithScopes } from "./helpers.js";
import { capturedLogger } from "./notify-fixtures.js";

const FIX = "test/fixtures/sync/poc";
const TRICKEST = "../shared/data/poc/trickest/trickest-cve-poc.jsonl.gz";
const t = await createTestApp();
const db = t.database.db;
const tenant = await tenantWithScopes(t, "PoC", ["stacks-write", "alerts-write"]);
const fixture = (p: string) => readFileSync(join(FIX, p), "utf8");

// The publisher: nomi-sec's repository with two CVE files; CVE-2024-3400's is published later.
const mirror = await pocMirror({
  files: { "2024/CVE-2024-0001.json": fixture("2024/CVE-2024-0001.json"), "1999/CVE-1999-0001.json": fixture("1999/CVE-1999-0001.json") },
});
// A JSONL mirror (trickest's parsed form): a single file, no incremental form.
const jsonl = readFileSync("test/fixtures/feeds/poc/trickest-sample.jsonl");
const seenFile: { ifNoneMatch?: string }[] = [];
const fileMirror: Mirror = {
  source: "poc-file",
  addresses: (origin) => [`${origin}/files/trickest-cve-poc.jsonl`],
  handle(req, res) {
    if (req.url !== "/files/trickest-cve-poc.jsonl") return false;
    seenFile.push({ ifNoneMatch: req.headers["if-none-match"] });
    const etag = `"${createHash("sha1").update(jsonl).digest("hex")}"`;
    if (req.headers["if-none-match"] === etag) res.writeHead(304).end();
    else res.writeHead(200, { etag, "content-type": "application/octet-stream" }).end(jsonl);
    return true;
  },
};
const served = await serveMirrors([mirror, fileMirror]);
afterAll(() => served.close());
const address = mirror.addresses(served.origin)[0]!;
const api = new URL(address).pathname;

const off = { cve5: [], nvd: [], kev: [], epss: [], poc: [], osv: [], certfr: [], rss: [], eol: [] };
function settings(poc: string[]): FeedSettings {
  return { ...loadConfig({}).feeds, cacheDir: mkdtempSync(join(tmpdir(), "vigie-sync-poc-")), retryBaseMs: 1, urls: { ...off, poc } };
}
const feeds = new FeedsService(db, settings([address]));
const state = new SyncState(db);

/** The requests a call made at the mirror. */
async function requestsOf<T>(f: () => Promise<T>): Promise<{ result: T; paths: string[] }> {
  const from = served.requests.length;
  const result = await f();
  return { result, paths: served.requests.slice(from) };
}
const checkpoint = async () => (await state.checkpoint("poc", address))?.checkpoint as RepoCheckpoint;
const cve = async (id: string) =>
  (await t.app.inject({ method: "GET", url: `/api/v1/cves/${id}`, headers: bearer(tenant.readKey) })).json();
/** The PoC URLs stored from nomi-sec for a CVE (null: none stored). */
async function pocUrls(id: string): Promise<string[] | null> {
  const { rows } = (await t.database.executeSql("select data from cve_sources where source = 'poc:nomi-sec' and cve_id = $1", [id])) as {
    rows: { data: { urls: string[] } }[];
  };
  return rows[0]?.data.urls ?? null;
}
async function events(): Promise<[string, string][]> {
  const { rows } = (await t.database.executeSql("select event, cve_id from outbox_events where project_id = $1 order by id", [
    tenant.projectId,
  ])) as { rows: { event: string; cve_id: string }[] };
  return rows.map((r) => [r.event, r.cve_id]);
}

describe("nomi-sec's file format, as the mirror writes it", () => {
  it("writes the raw sample back byte for byte (4-space indent, escaped slashes)", () => {
    const raw = readFileSync("test/fixtures/feeds/poc/nomi-sec/2024/CVE-2024-0001.json", "utf8");
    expect(nomiSecText(JSON.parse(raw))).toBe(raw);
    expect(fixture("2024/CVE-2024-0001.json")).toBe(raw);
  });
});

describe("PoC sync from nomi-sec/PoC-in-GitHub (GitHub API: commits/HEAD, zipball, compare, raw files)", () => {
  it("first sync: the head's SHA, then the archive of that commit, every CVE file applied", async () => {
    // A stack alerting on CVE-2024-3400 before any PoC is known.
    expect(
      (await tenant.call("POST", "/stacks", { name: "Edge", items: [{ item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" }] }))
        .statusCode,
    ).toBe(201);
    for (const [source, path] of [
      ["cve5", "test/fixtures/import/cve5-sample.jsonl"],
      ["nvd", "test/fixtures/import/nvd2-CVE-2024-3400.json"],
    ] as const)
      expect((await importFeed(db, source, [path])).errors).toEqual([]);
    expect(await cve("CVE-2024-3400")).toMatchObject({ has_poc: false });

    const { result, paths } = await requestsOf(() => feeds.sync(["poc"]));
    expect(result[0]).toMatchObject({ status: "synced", applied: 2, addresses: [{ read: 2, errors: [], problems: [] }] });
    const head = mirror.head();
    expect(paths).toEqual([`${api}/commits/HEAD`, `${api}/zipball/${head}`, `/codeload/nomi-sec/PoC-in-GitHub/zip/${head}`]);
    expect(await checkpoint()).toEqual({ sha: head, etag: `"${head}"` });
    // The CVE id comes from the file name: the byte-exact nomi-sec file gives CVE-2024-0001 its PoC.
    const rows = (await t.database.executeSql("select cve_id, data from cve_sources where source = 'poc:nomi-sec' order by cve_id")) as {
      rows: { cve_id: string; data: { urls: string[]; first_seen: string | null } }[];
    };
    expect(rows.rows.map((r) => r.cve_id)).toEqual(["CVE-1999-0001", "CVE-2024-0001"]);
    expect(rows.rows[1]!.data).toEqual({
      urls: ["https://github.com/RobloxSecurityResearcher/RobloxVulnerabilityCVE-2024-0001"],
      first_seen: "2024-03-04T05:40:39.000Z",
      stars: { "https://github.com/RobloxSecurityResearcher/RobloxVulnerabilityCVE-2024-0001": 0 },
    });
    const status = (await feeds.status()).find((s) => s.source === "poc")!;
    expect(status.addresses[0]).toMatchObject({ records_applied: 2, applied_until: new Date("2025-05-10T00:00:00Z") });
  });

  it("nothing new: one conditional request answered 304, nothing downloaded or applied", async () => {
    const { result, paths } = await requestsOf(() => feeds.sync(["poc"]));
    expect(result[0]).toMatchObject({ status: "synced", applied: 0 });
    expect(paths).toEqual([`${api}/commits/HEAD`]);
  });

  it("a PoC published at the mirror arrives through the comparison alone: has_poc, the alert, cve.poc_published", async () => {
    const before = mirror.head();
    const head = mirror.publish({ "2024/CVE-2024-3400.json": fixture("2024/CVE-2024-3400.json") }, new Date("2026-11-26T03:00:00Z"));
    const { result, paths } = await requestsOf(() => feeds.sync(["poc"]));
    expect(result[0]).toMatchObject({ status: "synced", applied: 1 });
    expect(paths).toEqual([
      `${api}/commits/HEAD`,
      `${api}/compare/${before}...${head}?per_page=1`,
      `/nomi-sec/PoC-in-GitHub/raw/${head}/2024/CVE-2024-3400.json`,
    ]);
    expect(await cve("CVE-2024-3400")).toMatchObject({ has_poc: true });
    const alerts = (await tenant.call("GET", "/alerts?page_size=100")).json() as { items: { cve_id: string; has_poc: boolean }[] };
    expect(alerts.items.find((a) => a.cve_id === "CVE-2024-3400")).toMatchObject({ has_poc: true });
    expect((await events()).filter(([e]) => e === "cve.poc_published")).toEqual([["cve.poc_published", "CVE-2024-3400"]]);
    expect(await checkpoint()).toEqual({ sha: head, etag: `"${head}"` });
    expect((await feeds.status()).find((s) => s.source === "poc")!.addresses[0]!.applied_until).toEqual(new Date("2026-11-26T03:00:00Z"));
  });

  it("503 and 429 are retried; a corrupt file is reported and the others applied; a removed file clears the CVE's PoCs", async () => {
    mirror.publish({ "2024/CVE-2024-0001.json": null });
    const head = mirror.publish({
      "1999/CVE-1999-0002.json": fixture("1999/CVE-1999-0001.json"),
      "1999/CVE-1999-0003.json": fixture("1999/CVE-1999-0001.json"),
    });
    mirror.corrupt("1999/CVE-1999-0003.json");
    mirror.failNext(503, 429);
    const { result, paths } = await requestsOf(() => feeds.sync(["poc"]));
    expect(paths.slice(0, 3)).toEqual([`${api}/commits/HEAD`, `${api}/commits/HEAD`, `${api}/commits/HEAD`]);
    const out = result[0]!.addresses[0]!;
    expect(out).toMatchObject({ status: "synced", errors: [] });
    expect(out.problems).toEqual([{ where: "1999/CVE-1999-0003.json", message: expect.stringMatching(/JSON illisible/) }]);
    expect(await pocUrls("CVE-1999-0002")).toHaveLength(17);
    expect(await pocUrls("CVE-1999-0003")).toBeNull();
    expect(await pocUrls("CVE-2024-0001")).toEqual([]);
    expect((await checkpoint()).sha).toBe(head);
  });

  it("a sync stopped mid-way resumes at the next file: the files applied are not downloaded again", async () => {
    pocTuning.batch = 2;
    try {
      const base = JSON.parse(fixture("1999/CVE-1999-0001.json")) as unknown[];
      const five = Object.fromEntries([10, 11, 12, 13, 14].map((n) => [`1999/CVE-1999-00${n}.json`, base.slice(0, n - 8)]));
      const head = mirror.publish(five);
      mirror.breakRawAfter(3);
      const first = await feeds.sync(["poc"]);
      expect(first[0]).toMatchObject({ status: "failed", applied: 2 });
      expect(await checkpoint()).toMatchObject({ pending: { head, done: 2 } });
      mirror.heal();
      const { result, paths } = await requestsOf(() => feeds.sync(["poc"]));
      expect(result[0]).toMatchObject({ status: "synced", applied: 3 });
      expect(paths.filter((p) => p.includes("/raw/")).map((p) => p.slice(-18))).toEqual([
        "CVE-1999-0012.json",
        "CVE-1999-0013.json",
        "CVE-1999-0014.json",
      ]);
      expect(await checkpoint()).toEqual({ sha: head, etag: expect.any(String) });
      for (const n of [10, 14]) expect(await pocUrls(`CVE-1999-00${n}`)).toHaveLength(n - 8);

      // Stopped by its signal (a shutdown) while fetching the third file: the next sync fetches the third and fourth only.
      const four = Object.fromEntries([20, 21, 22, 23].map((n) => [`1999/CVE-1999-00${n}.json`, base.slice(0, n - 18)]));
      const next = mirror.publish(four);
      const abort = new AbortController();
      let raws = 0;
      mirror.onRequest((p) => {
        if (p.includes("/raw/") && ++raws === 3) abort.abort(new Error("arrêt du service"));
      });
      const stopped = await feeds.sync(["poc"], abort.signal);
      mirror.onRequest(null);
      expect(stopped[0]).toMatchObject({ status: "failed", applied: 2, addresses: [{ error: expect.stringMatching(/interrompu/) }] });
      expect(await checkpoint()).toMatchObject({ pending: { head: next, done: 2 } });
      const after = await requestsOf(() => feeds.sync(["poc"]));
      expect(after.result[0]).toMatchObject({ status: "synced", applied: 2 });
      expect(after.paths.filter((p) => p.includes("/raw/")).map((p) => p.slice(-18))).toEqual(["CVE-1999-0022.json", "CVE-1999-0023.json"]);

      // Stopped between two units of the archive: the next sync reads the same commit's archive from the next file on.
      const size = mirror.size();
      await state.save("poc", address, { pending: { head: next, from: null, done: size - 3, until: null } }, null, 0);
      const resumed = await feeds.sync(["poc"]);
      expect(resumed[0]).toMatchObject({ status: "synced", addresses: [{ read: 3 }] });
      expect(await checkpoint()).toEqual({ sha: next, etag: `"${next}"` });
    } finally {
      pocTuning.batch = 2000;
    }
  });

  it("a base commit the publisher no longer has (history rewritten) falls back to the head's archive", async () => {
    await state.save("poc", address, { sha: "f".repeat(40) }, null, 0);
    const { result, paths } = await requestsOf(() => feeds.sync(["poc"]));
    expect(result[0]).toMatchObject({ status: "synced" });
    expect(paths).toEqual([
      `${api}/commits/HEAD`,
      `${api}/compare/${"f".repeat(40)}...${mirror.head()}?per_page=1`,
      `${api}/zipball/${mirror.head()}`,
      `/codeload/nomi-sec/PoC-in-GitHub/zip/${mirror.head()}`,
    ]);
    expect(await checkpoint()).toEqual({ sha: mirror.head(), etag: `"${mirror.head()}"` });
  });

  it.skipIf(!existsSync(TRICKEST))("a comparison of 300 files or more (GitHub lists no more) falls back to the archive", async () => {
    // 310 real CVEs of trickest's corpus (shared/data) with GitHub PoCs, in nomi-sec's layout.
    const changes: Record<string, unknown[]> = {};
    for await (const line of createInterface({ input: createReadStream(TRICKEST).pipe(createGunzip()) })) {
      const o = JSON.parse(line) as { cve: string; github_pocs: string[] };
      const repos = reposOfLinks(o.github_pocs);
      if (repos.length) changes[`${o.cve.slice(4, 8)}/${o.cve}.json`] = repos;
      if (Object.keys(changes).length === 310) break;
    }
    const head = mirror.publish(changes);
    const { result, paths } = await requestsOf(() => feeds.sync(["poc"]));
    expect(result[0]).toMatchObject({ status: "synced" });
    expect(result[0]!.addresses[0]!.read).toBeGreaterThanOrEqual(300);
    expect(paths.some((p) => p.includes("/raw/"))).toBe(false);
    expect(paths).toContain(`${api}/zipball/${head}`);
  });

  it("an unreadable answer or a corrupt archive fails the address; nothing is recorded and the next attempt starts over", async () => {
    await state.save("poc", address, {}, null, 0);
    mirror.failNext(200);
    const bad = await feeds.sync(["poc"]);
    expect(bad[0]).toMatchObject({ status: "failed", addresses: [{ error: expect.stringMatching(/SHA illisible/) }] });
    mirror.truncateArchives(true);
    const corrupt = await feeds.sync(["poc"]);
    expect(corrupt[0]).toMatchObject({ status: "failed", applied: 0, addresses: [{ error: expect.stringMatching(/archive endommagée/) }] });
    expect(await checkpoint()).toEqual({});
    mirror.truncateArchives(false);
    expect((await feeds.sync(["poc"]))[0]).toMatchObject({ status: "synced" });
    expect(await checkpoint()).toEqual({ sha: mirror.head(), etag: `"${mirror.head()}"` });
  });

  it("the GitHub token (VIGIE_GITHUB_TOKEN) goes to the API only, never to the raw files, and is never logged", async () => {
    const token = "ghp_vigieTestToken0123456789abcdefABCDEF";
    const captured = capturedLogger();
    const withToken = new FeedsService(db, { ...settings([address]), githubToken: token }, captured.logger);
    const head = mirror.publish({ "2024/CVE-2024-3400.json": JSON.parse(fixture("2024/CVE-2024-3400.json")).slice(0, 3) });
    mirror.failNext(503);
    const from = mirror.seen.length;
    expect((await withToken.sync(["poc"]))[0]).toMatchObject({ status: "synced", applied: 1 });
    const seen = mirror.seen.slice(from);
    expect(seen.filter((s) => s.path.startsWith(api)).map((s) => s.authorization)).toEqual([
      `Bearer ${token}`,
      `Bearer ${token}`,
      `Bearer ${token}`,
    ]);
    expect(seen.filter((s) => s.path.includes("/raw/"))).toEqual([{ path: `/nomi-sec/PoC-in-GitHub/raw/${head}/2024/CVE-2024-3400.json` }]);
    expect(captured.raw.length).toBeGreaterThan(0);
    expect(captured.raw.join("")).not.toContain(token);
  });

  it("a JSONL mirror (no incremental form) is fetched at most once a day, then with its validators", async () => {
    const fileAddress = fileMirror.addresses(served.origin)[0]!;
    const daily = new FeedsService(db, settings([fileAddress]));
    const first = await daily.sync(["poc"]);
    expect(first[0]).toMatchObject({ status: "synced", addresses: [{ read: 3 }] });
    expect(await cve("CVE-2024-3400")).toMatchObject({ has_poc: true });
    const again = await requestsOf(() => daily.sync(["poc"]));
    expect(again.paths).toEqual([]);
    // A day later: a conditional request, answered 304.
    const cp = (await state.checkpoint("poc", fileAddress))!.checkpoint as { etag: string; checkedAt: string };
    await state.save("poc", fileAddress, { ...cp, checkedAt: new Date(Date.now() - 86_400_001).toISOString() }, null, 0);
    seenFile.length = 0;
    await daily.sync(["poc"]);
    expect(seenFile).toEqual([{ ifNoneMatch: cp.etag }]);
  });
});

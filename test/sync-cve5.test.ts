import { copyFileSync, createWriteStream, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { afterAll, describe, expect, it } from "vitest";
import yazl from "yazl";
import { cve5Mirror } from "../scripts/mirror/cve5.js";
import { serveMirrors } from "../scripts/mirror/mirror.js";
import { loadConfig, type FeedSettings } from "../src/config.js";
import { FeedsService } from "../src/feeds/feeds.service.js";
import { type Cve5Checkpoint, cve5Publisher } from "../src/feeds/publishers/cve5.js";
import { SyncState } from "../src/feeds/sync/state.js";
import { bearer, createTestApp, tenantWithScopes } from "./helpers.js";
import { capturedLogger } from "./notify-fixtures.js";

// Real CVE List records (test/fixtures/sync/cve5/SOURCES.md), packed by the local mirror into the
// cvelistV5 releases' layout. Two are held out of the baseline, to be published later in deltas.
const FIX = "test/fixtures/sync/cve5";
const text = (id: string, dir = "records") => readFileSync(join(FIX, dir, `${id}.json`), "utf8");
const NEW_HIT = "CVE-2024-23112"; // Fortinet FortiOS 7.4.0 to 7.4.1
const NEW_LATER = "CVE-2024-9944"; // WooCommerce, published in the corrupt delta
const RESCORED = "CVE-2024-37890"; // ws 7.5, re-scored 9.1 in a later delta (synthetic, see SOURCES.md)
const baseline = readdirSync(join(FIX, "records"))
  .filter((f) => ![NEW_HIT, NEW_LATER].some((id) => f.startsWith(id)))
  .map((f) => readFileSync(join(FIX, "records", f), "utf8"));

const t = await createTestApp();
const tenant = await tenantWithScopes(t, "Sync", ["stacks-write", "alerts-write"]);
const cacheDir = mkdtempSync(join(tmpdir(), "vigie-cve5-mirror-"));
const mirror = cve5Mirror({ records: baseline, cacheDir, date: "2024-07-01" });
// A second publisher at another address: its own checkpoint, for the interrupted sync.
const other = cve5Mirror({ records: baseline, cacheDir, date: "2024-07-02", prefix: "/other" });
const server = await serveMirrors([mirror, other]);
afterAll(() => server.close());
const address = mirror.addresses(server.origin)[0]!;

const off = { cve5: [], nvd: [], kev: [], epss: [], poc: [], osv: [], certfr: [], rss: [], eol: [] };
function settings(addresses: string[], more: Partial<FeedSettings> = {}): FeedSettings {
  return {
    ...loadConfig({}).feeds,
    cacheDir: mkdtempSync(join(tmpdir(), "vigie-sync-")),
    retryBaseMs: 1,
    urls: { ...off, cve5: addresses },
    ...more,
  };
}
const captured = capturedLogger();
const TOKEN = "ghp_not-a-real-token-0123456789";
const feeds = new FeedsService(t.database.db, settings([address], { githubToken: TOKEN }), captured.logger);

const cve = async (id: string) => t.app.inject({ method: "GET", url: `/api/v1/cves/${id}`, headers: bearer(tenant.readKey) });
const alerts = async () => ((await tenant.call("GET", "/alerts?page_size=100")).json() as { items: { cve_id: string }[] }).items;
const state = new SyncState(t.database.db);
const checkpoint = async (addr = address) => ((await state.checkpoint("cve5", addr))?.checkpoint ?? null) as Cve5Checkpoint | null;
/** The paths the mirror served since `from`. */
const served = (from: number) =>
  server.requests
    .slice(from)
    .map((u) => u.replace(/\?.*$/, (q) => (q.includes("page=") ? `?page=${new URLSearchParams(q.slice(1)).get("page")}` : q)));

describe("CVE List sync: cvelistV5 releases, a baseline then the deltas", () => {
  it("first sync: retries a 503 and a 429 on the listing, applies the baseline once, checkpoints its midnight", async () => {
    const res = await tenant.call("POST", "/stacks", { name: "Edge", items: [{ item_type: "product", value: "fortinet:fortios@7.4.1" }] });
    expect(res.statusCode).toBe(201);
    mirror.failListing([503, 429]);
    const from = server.requests.length;
    const [out] = await feeds.sync(["cve5"]);
    expect(out).toMatchObject({ status: "synced", applied: 10, addresses: [{ status: "synced", read: 10, problems: [] }] });
    const base = "/cve5/repos/CVEProject/cvelistV5/releases?page=1";
    expect(served(from)).toEqual([base, base, base, "/cve5/download/cve_2024-07-01_0000Z/2024-07-01_all_CVEs_at_midnight.zip.zip"]);
    expect(await checkpoint()).toEqual({
      covered: "2024-07-01T00:00:00.000Z",
      baseline: "2024-07-01",
      tag: "cve_2024-07-01_0000Z",
      published: expect.any(String),
    });
    expect((await cve(RESCORED)).json()).toMatchObject({ cvss_score: 7.5 });
    expect((await cve(NEW_HIT)).statusCode).toBe(404);
    // The token goes to the API listing only (never to the asset hosts), and is never logged.
    const auth = mirror.authorizations.filter((a) => a.path.endsWith("/releases"));
    expect(auth.every((a) => a.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(mirror.authorizations.filter((a) => a.path.includes("/download/")).map((a) => a.authorization)).toEqual([undefined]);
    expect(captured.raw.join("")).not.toContain(TOKEN);
  });

  it("a second sync with nothing new reads the first listing page and downloads nothing", async () => {
    const from = server.requests.length;
    const [out] = await feeds.sync(["cve5"]);
    expect(out).toMatchObject({ status: "synced", applied: 0 });
    expect(served(from)).toEqual(["/cve5/repos/CVEProject/cvelistV5/releases?page=1"]);
  });

  it("a new CVE in the next delta raises its alert; a re-scored record later arrives, only the newest delta fetched", async () => {
    await mirror.publishDelta([text(NEW_HIT)]);
    expect(await alerts()).toEqual([]);
    const [first] = await feeds.sync(["cve5"]);
    expect(first).toMatchObject({ status: "synced", applied: 1 });
    expect((await alerts()).map((a) => a.cve_id)).toEqual([NEW_HIT]);

    // Two more releases before the next sync: deltas are cumulative over the day, so only the newest is fetched.
    await mirror.publishDelta([text(RESCORED, "modified")]);
    const tag = await mirror.publishDelta([]);
    const from = server.requests.length;
    const [second] = await feeds.sync(["cve5"]);
    // NEW_HIT again in the cumulative delta: unchanged, not applied twice.
    expect(second).toMatchObject({ status: "synced", applied: 1, addresses: [{ read: 2 }] });
    expect(served(from)).toEqual([
      "/cve5/repos/CVEProject/cvelistV5/releases?page=1",
      `/cve5/download/${tag}/2024-07-01_delta_CVEs_at_0003Z.zip`,
    ]);
    expect((await cve(RESCORED)).json()).toMatchObject({ cvss_score: 9.1 });
    expect(await checkpoint()).toMatchObject({ covered: "2024-07-01T00:03:00.000Z", baseline: "2024-07-01", tag });
  });

  it("a corrupt delta is reported and not applied; the next delta of the day carries its records again", async () => {
    const before = await checkpoint();
    const bad = await mirror.publishDelta([text(NEW_LATER)], { corrupt: true });
    const [out] = await feeds.sync(["cve5"]);
    expect(out).toMatchObject({
      status: "synced",
      applied: 0,
      addresses: [{ problems: [{ where: "2024-07-01_delta_CVEs_at_0004Z.zip", message: expect.stringMatching(/archive illisible/) }] }],
    });
    expect(bad).toBe("cve_2024-07-01_0004Z");
    expect(await checkpoint()).toEqual(before);
    expect((await cve(NEW_LATER)).statusCode).toBe(404);

    await mirror.publishDelta([]);
    const [next] = await feeds.sync(["cve5"]);
    expect(next).toMatchObject({ status: "synced", applied: 1, addresses: [{ problems: [] }] });
    expect((await cve(NEW_LATER)).statusCode).toBe(200);
  });

  it("GitHub's rate limit: one whose reset has come is asked again; one an hour away fails the source at once with the reason, checkpoint kept", async () => {
    const before = await checkpoint();
    mirror.failListing([403]);
    expect((await feeds.sync(["cve5"]))[0]).toMatchObject({ status: "synced" });
    mirror.failListing([403], 3600);
    const from = server.requests.length;
    const [out] = await feeds.sync(["cve5"]);
    // No retry against a primary limit (GitHub: nothing before x-ratelimit-reset; test/sync-github-limits.test.ts).
    expect(server.requests.length - from).toBe(1);
    expect(out).toMatchObject({
      status: "failed",
      addresses: [{ error: expect.stringMatching(/limite de requêtes de l'API GitHub atteinte jusqu'à .*VIGIE_GITHUB_TOKEN/) }],
    });
    expect(await checkpoint()).toEqual(before);
  });

  it("a sync interrupted after the baseline resumes from it: the baseline is not downloaded again, no record lost", async () => {
    const addr = other.addresses(server.origin)[0]!;
    const once = new FeedsService(t.database.db, settings([addr], { retries: 1 }));
    await other.publishDelta([text(NEW_HIT), text(RESCORED, "modified")]);
    // The delta's host fails (every try): the baseline is applied and checkpointed, the delta not.
    other.failDownloads(2, /delta/);
    const [cut] = await once.sync(["cve5"]);
    expect(cut).toMatchObject({ status: "failed", addresses: [{ error: expect.stringMatching(/delta_CVEs_at_0001Z\.zip : HTTP 500/) }] });
    // Every release carries the day's baseline: it was taken from the newest one.
    expect(await checkpoint(addr)).toMatchObject({ covered: "2024-07-02T00:00:00.000Z", tag: "cve_2024-07-02_0001Z" });
    const from = server.requests.length;
    const [resumed] = await once.sync(["cve5"]);
    expect(resumed).toMatchObject({ status: "synced", addresses: [{ read: 2 }] });
    expect(served(from)).toEqual([
      "/other/repos/CVEProject/cvelistV5/releases?page=1",
      "/other/download/cve_2024-07-02_0001Z/2024-07-02_delta_CVEs_at_0001Z.zip",
    ]);
    expect(await checkpoint(addr)).toMatchObject({ covered: "2024-07-02T00:01:00.000Z", tag: "cve_2024-07-02_0001Z" });
  });

  it("a sync aborted (shutdown) mid-download stops there and resumes from the last archive applied", async () => {
    const addr = other.addresses(server.origin)[0]!;
    const sync = new FeedsService(t.database.db, settings([addr]));
    const tag = await other.publishDelta([text(NEW_LATER)]);
    const quit = new AbortController();
    const onRequest = (req: { url?: string }) => req.url?.includes(`/other/download/${tag}/`) && quit.abort(new Error("arrêt du service"));
    server.server.prependListener("request", onRequest);
    const [stopped] = await sync.sync(["cve5"], quit.signal);
    server.server.off("request", onRequest);
    expect(stopped).toMatchObject({ status: "failed", addresses: [{ error: expect.stringMatching(/interrompu : arrêt du service/) }] });
    expect(await checkpoint(addr)).toMatchObject({ tag: "cve_2024-07-02_0001Z" });
    const [resumed] = await sync.sync(["cve5"]);
    expect(resumed).toMatchObject({ status: "synced", addresses: [{ read: 3 }] });
    expect(await checkpoint(addr)).toMatchObject({ tag, covered: "2024-07-02T00:02:00.000Z" });
  });
});

/** A zip file of these entries (name → text), for the publisher driven directly. */
async function zipFile(path: string, entries: Record<string, string | Buffer>): Promise<string> {
  const zip = new yazl.ZipFile();
  for (const [name, body] of Object.entries(entries)) zip.addBuffer(Buffer.isBuffer(body) ? body : Buffer.from(body), name);
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(path));
  return path;
}

describe("CVE List sync over several days (the publisher driven with a scripted listing)", () => {
  it("a corrupt end-of-day delta is replaced by the next day's baseline, then the chain goes on", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vigie-cve5-days-"));
    const rec = (id: string) => text(id);
    // Day 1 closed by a corrupt end-of-day delta; day 2's baseline holds everything at its midnight.
    const files: Record<string, string> = {
      "d1-eod.zip": join(dir, "d1-eod.zip"),
      "base2.zip.zip": await zipFile(join(dir, "base2.zip.zip"), {}),
      "d2-0100.zip": await zipFile(join(dir, "d2-0100.zip"), { [`deltaCves/${NEW_LATER}.json`]: rec(NEW_LATER) }),
    };
    writeFileSync(files["d1-eod.zip"]!, "PK\u0003\u0004 truncated");
    // base2's outer zip holds cves.zip holding the records.
    const inner = await zipFile(join(dir, "cves.zip"), { [`cves/2024/23xxx/${NEW_HIT}.json`]: rec(NEW_HIT) });
    await zipFile(files["base2.zip.zip"]!, { "cves.zip": readFileSync(inner) });
    const release = (tag: string, published: string, assets: [string, string][]) => ({
      tag_name: tag,
      published_at: published,
      assets: assets.map(([name, file]) => ({ name, browser_download_url: `mem:${file}` })),
    });
    const listing = [
      release("cve_2024-06-02_0100Z", "2024-06-02T01:00:30Z", [
        ["2024-06-02_all_CVEs_at_midnight.zip.zip", "base2.zip.zip"],
        ["2024-06-02_delta_CVEs_at_0100Z.zip", "d2-0100.zip"],
      ]),
      release("cve_2024-06-01_at_end_of_day", "2024-06-01T23:59:30Z", [["2024-06-01_delta_CVEs_at_end_of_day.zip", "d1-eod.zip"]]),
    ];
    writeFileSync(join(dir, "releases.json"), JSON.stringify(listing));
    const fetched: string[] = [];
    const imported: string[][] = [];
    const saved: Cve5Checkpoint[] = [];
    const problems: string[] = [];
    const ctx = {
      source: "cve5",
      address: "http://mirror/repos/CVEProject/cvelistV5",
      checkpoint: {
        covered: "2024-06-01T22:00:00.000Z",
        baseline: "2024-05-30",
        tag: "cve_2024-06-01_2200Z",
        published: "2024-06-01T22:00:30.000Z",
      },
      settings: { ...loadConfig({}).feeds, githubToken: null },
      db: t.database.db,
      log: capturedLogger().logger,
      signal: new AbortController().signal,
      async fetch(url: string) {
        fetched.push(url);
        const file = url.includes("/releases?") ? join(dir, "releases.json") : files[url.slice(4)]!;
        const copy = join(mkdtempSync(join(dir, "dl-")), basename(file));
        copyFileSync(file, copy);
        return { status: 200, headers: new Headers(), file: copy };
      },
      json: async () => null as never,
      tempDir: () => mkdtempSync(join(dir, "t-")),
      async import(paths: string[]) {
        imported.push(
          readdirSync(paths[0]!, { recursive: true })
            .map(String)
            .filter((f) => f.endsWith(".json"))
            .map((f) => basename(f)),
        );
        return { read: 1, inserted: 1, updated: 0, unchanged: 0, skipped: 0, errors: [], files: 1 } as never;
      },
      async save(cp: unknown) {
        saved.push(cp as Cve5Checkpoint);
      },
      problem: (where: string, message: string) => problems.push(`${where}: ${message}`),
      sleep: async () => undefined,
    };
    await cve5Publisher.sync(ctx as never);
    expect(problems).toEqual([expect.stringMatching(/^2024-06-01_delta_CVEs_at_end_of_day\.zip: archive illisible/)]);
    expect(fetched.map((u) => u.replace(/^(mem:|.*\/)/, ""))).toEqual([
      "releases?per_page=100&page=1",
      "d1-eod.zip",
      "base2.zip.zip",
      "d2-0100.zip",
    ]);
    expect(imported).toEqual([[`${NEW_HIT}.json`], [`${NEW_LATER}.json`]]);
    expect(saved.map((c) => c.covered)).toEqual(["2024-06-02T00:00:00.000Z", "2024-06-02T01:00:00.000Z"]);
    expect(saved.at(-1)).toMatchObject({ baseline: "2024-06-02", tag: "cve_2024-06-02_0100Z" });
  });
});

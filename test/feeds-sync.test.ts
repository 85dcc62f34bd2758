import { createHash } from "node:crypto";
import { readFileSync, mkdtempSync, readdirSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FeedsService } from "../src/feeds/feeds.service.js";
import { feedUrls } from "../src/feeds/importers/index.js";
import { loadConfig } from "../src/config.js";
import { executeCommand } from "../src/main.js";
import { bearer, createTenant, createTestApp } from "./helpers.js";

const t = await createTestApp();
const tenant = await createTenant(t);
const FIX = "test/fixtures/import";

// A local stand-in for the official servers, serving the shared data subsets with validators.
const files: Record<string, Buffer> = {
  "/kev.json": readFileSync(`${FIX}/kev-sample.json`),
  "/epss/epss_scores-2026-08-16.csv": readFileSync(`${FIX}/epss_scores-2026-08-16.csv`),
  "/nvd": readFileSync(`${FIX}/nvd2-CVE-2024-3400.json`),
  "/not-kev.json": readFileSync(`${FIX}/cve5-sample.jsonl`),
};
const seen: { url: string; ifNoneMatch?: string; ifModifiedSince?: string }[] = [];
const lastModified = new Date("2026-08-25T00:00:00Z").toUTCString();
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  seen.push({ url: req.url!, ifNoneMatch: req.headers["if-none-match"], ifModifiedSince: req.headers["if-modified-since"] });
  const body = files[req.url!];
  if (req.url === "/broken") return void res.writeHead(500).end("oops");
  if (!body) return void res.writeHead(404).end();
  const etag = `"${createHash("sha1").update(body).digest("hex")}"`;
  if (req.headers["if-none-match"] === etag) return void res.writeHead(304).end();
  res.writeHead(200, { etag, "last-modified": lastModified, "content-type": "application/octet-stream" }).end(body);
});
await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
afterAll(() => server.close());

const cache = mkdtempSync(join(tmpdir(), "vigie-sync-"));
const feeds = new FeedsService(t.database.db, {
  feedsCacheDir: cache,
  feedUrls: {
    kev: [`${base}/kev.json`, `${base}/broken`, `${base}/not-kev.json`],
    epss: [`${base}/epss/epss_scores-2026-08-16.csv`],
    nvd: [`${base}/nvd`],
  },
});

describe("feeds sync (conditional downloads, then import)", () => {
  it("imports each address, reports failures without stopping, then sends validators and imports nothing unchanged", async () => {
    const first = await feeds.sync();
    const by = (o: typeof first, path: string) => o.find((x) => x.url === `${base}${path}`)!;
    expect(by(first, "/kev.json")).toMatchObject({ source: "kev", status: "imported", http_status: 200, result: { read: 3, inserted: 3 } });
    expect(by(first, "/broken")).toMatchObject({ status: "failed", http_status: 500, error: "HTTP 500" });
    // A file of another format is refused by the importer, changing nothing.
    expect(by(first, "/not-kev.json")).toMatchObject({
      status: "failed",
      http_status: 200,
      error: expect.stringMatching(/pas au format kev/),
    });
    expect(by(first, "/epss/epss_scores-2026-08-16.csv")).toMatchObject({ status: "imported", result: { inserted: 5 } });
    expect(by(first, "/nvd")).toMatchObject({ status: "imported", result: { inserted: 1 } });
    const cve = (await t.app.inject({ method: "GET", url: "/api/v1/cves/CVE-2024-3400", headers: bearer(tenant.readKey) })).json();
    expect(cve).toMatchObject({ is_kev: true, epss_publie: true });
    // Downloads are removed once imported.
    expect(readdirSync(cache, { recursive: true }).filter((f) => String(f).includes("."))).toEqual([]);

    seen.length = 0;
    const second = await feeds.sync(["kev"]);
    expect(by(second, "/kev.json")).toMatchObject({ status: "not_modified", http_status: 304 });
    expect(seen.find((s) => s.url === "/kev.json")).toMatchObject({
      ifNoneMatch: expect.stringMatching(/^"/),
      ifModifiedSince: lastModified,
    });
    // A failed address keeps no validators: it is fetched again in full.
    expect(seen.find((s) => s.url === "/not-kev.json")?.ifNoneMatch).toBeUndefined();

    files["/kev.json"] = readFileSync("test/fixtures/feeds/kev/kev-entries.json");
    const third = await feeds.sync(["kev"]);
    expect(by(third, "/kev.json")).toMatchObject({ status: "imported", http_status: 200 });
  });

  it("is a command: feeds sync [--source S]... --json, refusing an unknown source", async () => {
    const res = await executeCommand({ ...t.services, feeds }, t.database, ["feeds", "sync", "--source", "epss", "--json"]);
    expect(res).toMatchObject({ ok: true, result: { sources: [{ source: "epss", status: "not_modified" }] } });
    const bad = await executeCommand(t.services, t.database, ["feeds", "sync", "--source", "mitre"]);
    expect(bad).toMatchObject({ ok: false, message: expect.stringMatching(/mitre inconnue/) });
  });

  it("takes its addresses from VIGIE_FEED_URLS_<SOURCE> (empty: the source is off) and refuses a bad one", () => {
    const config = loadConfig({ VIGIE_FEED_URLS_KEV: `${base}/a.json, ${base}/b.json`, VIGIE_FEED_URLS_RSS: "" });
    const urls = feedUrls(config.feedUrlSettings);
    expect(urls.kev).toEqual([`${base}/a.json`, `${base}/b.json`]);
    expect(urls.rss).toBeUndefined();
    expect(urls.epss?.[0]).toMatch(/^https:\/\/epss\./);
    expect(config.feedsCron).toBeNull();
    expect(loadConfig({ VIGIE_FEEDS_SYNC: "on" }).feedsCron).toBe("23 */6 * * *");
    expect(() => loadConfig({ VIGIE_FEED_URLS_KEV: "ftp://example.org/kev.json" })).toThrow(/http\(s\)/);
  });
});

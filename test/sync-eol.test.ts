import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { eolMirror } from "../scripts/mirror/eol.js";
import { type Mirror, serveMirrors } from "../scripts/mirror/mirror.js";
import { loadConfig, type FeedSettings } from "../src/config.js";
import { FeedsService } from "../src/feeds/feeds.service.js";
import { feedUrls } from "../src/feeds/importers/index.js";
import { REST_EVERY_MS } from "../src/feeds/publishers/eol.js";
import { productsNamed } from "../src/modules/eol/eol.stack.js";
import { createTestApp, tenantWithScopes } from "./helpers.js";

/**
 * End of life kept current from endoflife.date's API v1 (issue 22), against a local publisher
 * (scripts/mirror/eol.ts) serving documents derived from real front matters
 * (test/fixtures/sync/eol: angular, django, nginx, nodejs, php, python, ubuntu).
 */
const t = await createTestApp();
const db = t.database.db;
// biome-ignore lint/suspicious/noExplicitAny: rows read field by field by the assertions.
const q = async (text: string, params: unknown[] = []): Promise<any[]> =>
  ((await t.database.executeSql(text, params)) as { rows: unknown[] }).rows;
const DATA = "test/fixtures/sync/eol/products-frontmatter.json";
const ALL = ["angular", "django", "nginx", "nodejs", "php", "python", "ubuntu"];

/** Each answer of the local publisher: path and status (a 304 transfers no document). */
const answers: { path: string; status: number }[] = [];
const recorder: Mirror = {
  source: "recorder",
  addresses: () => [],
  handle(req, res) {
    res.on("finish", () => answers.push({ path: req.url ?? "", status: res.statusCode }));
    return false;
  },
};
const a = eolMirror({ data: DATA, faults: { "/products": [503, 429], "/products/ubuntu": [503] } });
const b = eolMirror({ data: DATA, prefix: "/b/api/v1" });
const server = await serveMirrors([recorder, a, b]);
afterAll(() => server.close());
const A = `${server.origin}/eol/api/v1`;
const B = `${server.origin}/b/api/v1`;

const off = { cve5: [], nvd: [], kev: [], epss: [], poc: [], osv: [], certfr: [], rss: [], eol: [] };
function feedsAt(address: string): FeedsService {
  const settings: FeedSettings = {
    ...loadConfig({}).feeds,
    cacheDir: mkdtempSync(join(tmpdir(), "vigie-sync-eol-")),
    retryBaseMs: 1,
    urls: { ...off, eol: [address] },
  };
  return new FeedsService(db, settings, undefined, { eol: productsNamed });
}
const feeds = feedsAt(A);
const sync = async (f = feeds) => {
  answers.length = 0;
  const [out] = await f.sync(["eol"]);
  return out!;
};
const paths = (prefix: string, status?: number) =>
  answers.filter((x) => status === undefined || x.status === status).map((x) => x.path.replace(prefix, ""));
/** The address's checkpoint as if its last checks were a day old (the rest is due again). */
async function dayLater(address: string) {
  const [row] = await q("select checkpoint from feed_checkpoints where source = 'eol' and address = $1", [address]);
  const cp = row.checkpoint as { products: Record<string, { checked: string }> };
  for (const p of Object.values(cp.products)) p.checked = new Date(Date.parse(p.checked) - REST_EVERY_MS).toISOString();
  await q("update feed_checkpoints set checkpoint = $1::jsonb where source = 'eol' and address = $2", [JSON.stringify(cp), address]);
}
const c = await tenantWithScopes(t, "EOL sync", ["eol-write", "stacks-write"]);
const product = async (id: string) =>
  (await t.app.inject({ method: "GET", url: `/api/v1/eol/products/${id}`, headers: { authorization: `Bearer ${c.key}` } })).json();

describe("EOL sync from endoflife.date's API v1 (local publisher)", () => {
  it("the official API by default; the first sync applies every product (the list after a 503 and a 429, a document after a 503)", async () => {
    expect(feedUrls({}).eol).toEqual(["https://endoflife.date/api/v1"]);
    const out = await sync();
    expect(out).toMatchObject({
      status: "synced",
      applied: 7,
      addresses: [{ status: "synced", read: 7, applied: 7, problems: [], errors: [] }],
    });
    expect(paths("/eol/api/v1").slice(0, 3)).toEqual(["/products", "/products", "/products"]);
    expect(paths("/eol/api/v1", 200).sort()).toEqual(["/products", ...ALL.map((n) => `/products/${n}`)].sort());
    expect(paths("/eol/api/v1", 503)).toEqual(["/products", "/products/ubuntu"]);
    expect(await q("select id, name from eol_products order by id")).toHaveLength(7);
    expect((await product("nginx")).cycles[0]).toMatchObject({ cycle: "1.31", eol: false, latest: "1.31.4" });
    expect((await product("ubuntu")).cycles.find((x: { cycle: string }) => x.cycle === "24.04")).toMatchObject({
      lts: true,
      support: "2029-05-31",
      eol: "2029-05-31",
      extended_support: "2036-05-31",
    });
    // Checkpoint: the list's validators and names, each product's validators and last_modified.
    const st = (await feeds.status()).find((s) => s.source === "eol")!;
    expect(st).toMatchObject({ enabled: true, every_seconds: 86_400, failures: 0, last_applied: 7 });
    const cp = st.addresses[0]!.checkpoint as { list: { etag: string; names: string[] }; products: Record<string, Record<string, string>> };
    expect(cp.list).toMatchObject({ etag: expect.stringMatching(/^"/), lastModified: expect.any(String), names: ALL });
    expect(cp.products.nginx).toMatchObject({
      etag: expect.stringMatching(/^"/),
      modified: "2026-08-19T00:00:00Z",
      checked: expect.any(String),
    });
    // The newest last_modified applied (the stand-in's: the newest date a page names).
    expect(st.addresses[0]!.applied_until).toEqual(
      new Date(
        Object.values(cp.products)
          .map((p) => p.modified!)
          .sort()
          .pop()!,
      ),
    );
  });

  it("a stack's and a subscription's products come first at every sync; the rest once a day; nothing is transferred again (304)", async () => {
    const stack = await c.call("POST", "/stacks", {
      name: "Prod",
      items: [
        { item_type: "purl", value: "pkg:deb/debian/nginx@1.28.2-1" },
        { item_type: "purl", value: "pkg:pypi/django" }, // no version: still names the product
      ],
    });
    expect(stack.statusCode).toBe(201);
    expect((await c.call("POST", "/eol-subscriptions", { product_id: "php", cycle: "8.3", notify_before_eol_days: 30 })).statusCode).toBe(
      201,
    );

    // The same day: the list and the named products only, each a 304.
    let out = await sync();
    expect(out).toMatchObject({ status: "synced", applied: 0, addresses: [{ read: 0 }] });
    expect(paths("/eol/api/v1")[0]).toBe("/products");
    expect(paths("/eol/api/v1").slice(1).sort()).toEqual(["/products/django", "/products/nginx", "/products/php"]);
    expect(answers.every((x) => x.status === 304)).toBe(true);
    // A day later: the named first, then the rest — every answer a 304.
    await dayLater(A);
    out = await sync();
    expect(out).toMatchObject({ status: "synced", applied: 0 });
    expect(paths("/eol/api/v1")[0]).toBe("/products");
    expect(paths("/eol/api/v1").slice(1, 4).sort()).toEqual(["/products/django", "/products/nginx", "/products/php"]);
    expect(paths("/eol/api/v1").slice(4).sort()).toEqual(["/products/angular", "/products/nodejs", "/products/python", "/products/ubuntu"]);
    expect(answers.every((x) => x.status === 304)).toBe(true);
  });

  it("a change published at the publisher arrives: a new cycle and a moved end of life on the stack, and the subscribed cycle's notice", async () => {
    // nginx: a new cycle 1.32, and 1.28's end of life moved from 2026-04-14 to 2027-01-15 (a product the stack names).
    a.publish("nginx", (fm) => {
      fm.releases.unshift({
        releaseCycle: "1.32",
        releaseDate: "2026-11-18",
        eol: false,
        latest: "1.32.0",
        latestReleaseDate: "2026-11-18",
      });
      const r128 = fm.releases.find((r) => r.releaseCycle === "1.28")!;
      r128.eol = "2027-01-15";
    });
    // php 8.3 (subscribed): its end of life moved from 2027-12-31 to 2026-12-31.
    a.publish("php", (fm) => {
      fm.releases.find((r) => r.releaseCycle === "8.3")!.eol = "2026-12-31";
    });
    const out = await sync();
    expect(out).toMatchObject({ status: "synced", applied: 2 });
    expect(paths("/eol/api/v1", 200).sort()).toEqual(["/products/nginx", "/products/php"]);
    const nginx = await product("nginx");
    expect(nginx.cycles[0]).toMatchObject({ cycle: "1.32", release_date: "2026-11-18", eol: false, latest: "1.32.0" });
    expect(nginx.cycles.find((x: { cycle: string }) => x.cycle === "1.28")).toMatchObject({ eol: "2027-01-15" });
    // The stack item in 1.28 shows the new date.
    const items = (await c.call("GET", "/stacks")).json()[0].items as { value: string; eol: { cycle: string; eol: unknown } | null }[];
    expect(items.find((i) => i.value.startsWith("pkg:deb/debian/nginx"))!.eol).toMatchObject({ cycle: "1.28", eol: "2027-01-15" });
    // The subscribed cycle: warned 30 days before its new end of life.
    await t.services.eolNotices.run(new Date("2026-12-05T12:00:00Z"));
    const notices = (await c.call("GET", "/eol-notices")).json().items as {
      product_id: string;
      cycle: string;
      stage: string;
      due_on: string;
    }[];
    expect(notices.map((n) => `${n.stage} ${n.product_id} ${n.cycle} ${n.due_on}`)).toEqual(["approaching php 8.3 2026-12-31"]);
    // The checkpoint follows: last_modified is the publication's.
    const cp = (await feeds.status()).find((s) => s.source === "eol")!.addresses[0]!.checkpoint as {
      products: Record<string, { modified: string }>;
    };
    expect(Date.parse(cp.products.nginx!.modified)).toBeGreaterThan(Date.parse("2026-11-01"));
  });

  it("a broken document is reported and keeps its old validators, the rest is applied; fixed, it arrives at the next sync", async () => {
    a.publish("django", (fm) => {
      fm.releases.unshift({ releaseCycle: "7.0", releaseDate: "2026-12-02", eol: "2028-04-01", eoas: "2027-08-01" });
    });
    a.publish("python", (fm) => {
      fm.releases.unshift({ releaseCycle: "3.15", releaseDate: "2026-10-01", eol: "2031-10-31", eoas: "2028-10-01" });
    });
    a.corrupt.add("django");
    await dayLater(A);
    const before = (await q("select checkpoint from feed_checkpoints where source = 'eol' and address = $1", [A]))[0].checkpoint;
    let out = await sync();
    expect(out).toMatchObject({ status: "synced", applied: 1 });
    expect(out.addresses[0]!.problems).toEqual([{ where: `${A}/products/django`, message: expect.stringMatching(/JSON illisible/) }]);
    expect((await product("python")).cycles[0]).toMatchObject({ cycle: "3.15" });
    expect((await product("django")).cycles[0].cycle).not.toBe("7.0");
    const after = (await q("select checkpoint from feed_checkpoints where source = 'eol' and address = $1", [A]))[0].checkpoint;
    expect(after.products.django).toEqual(before.products.django);
    // Fixed upstream: asked again at the next sync (django is named), and applied.
    a.corrupt.delete("django");
    out = await sync();
    expect(out).toMatchObject({ status: "synced", applied: 1, addresses: [{ problems: [] }] });
    expect(paths("/eol/api/v1", 200)).toEqual(["/products/django"]);
    expect((await product("django")).cycles[0]).toMatchObject({ cycle: "7.0", eol: "2028-04-01", support: "2027-08-01" });
  });

  it("a publisher failing mid-way: the named products' unit stays applied; the next sync asks only the rest, nothing lost", async () => {
    const other = feedsAt(B);
    b.publish("angular", (fm) => {
      fm.releases.unshift({ releaseCycle: "23", releaseDate: "2026-11-19", eol: "2028-05-19", eoas: "2027-05-19" });
    });
    // Three documents (the named django, nginx, php), then 503 on every document.
    b.failAfter(3);
    let out = await sync(other);
    expect(out).toMatchObject({ status: "failed", addresses: [{ status: "failed", error: expect.stringMatching(/HTTP 503/) }] });
    expect(paths("/b/api/v1", 200).sort()).toEqual(["/products", "/products/django", "/products/nginx", "/products/php"]);
    const cp = (await q("select checkpoint from feed_checkpoints where source = 'eol' and address = $1", [B]))[0].checkpoint;
    expect(Object.keys(cp.products).sort()).toEqual(["django", "nginx", "php"]);
    expect((await product("angular")).cycles[0].cycle).not.toBe("23");

    b.failAfter(null);
    out = await sync(other);
    expect(out).toMatchObject({ status: "synced" });
    // The list and the named ones answer 304; only the rest is transferred.
    expect(paths("/b/api/v1", 304).sort()).toEqual(["/products", "/products/django", "/products/nginx", "/products/php"]);
    expect(paths("/b/api/v1", 200).sort()).toEqual(["/products/angular", "/products/nodejs", "/products/python", "/products/ubuntu"]);
    expect((await product("angular")).cycles[0]).toMatchObject({ cycle: "23", eol: "2028-05-19" });
  });

  it("a product the list no longer names is no longer asked (its rows stay); one whose document is gone is reported", async () => {
    a.remove("nodejs");
    await dayLater(A);
    let out = await sync();
    expect(out).toMatchObject({ status: "synced", addresses: [{ problems: [] }] });
    expect(paths("/eol/api/v1").filter((p) => p.includes("nodejs"))).toEqual([]);
    const cp = (await q("select checkpoint from feed_checkpoints where source = 'eol' and address = $1", [A]))[0].checkpoint;
    expect(cp.list.names).not.toContain("nodejs");
    expect(Object.keys(cp.products)).not.toContain("nodejs");
    expect((await product("nodejs")).id).toBe("nodejs");
    // The list still names python, but its document is gone (404): reported, the rest goes on.
    a.remove("python", { listed: true });
    await dayLater(A);
    out = await sync();
    expect(out.addresses[0]!.problems).toEqual([{ where: `${A}/products/python`, message: expect.stringMatching(/HTTP 404/) }]);
    expect(out.status).toBe("synced");
  });

  it("the importer reads API v1 answers: a product, /products/full (its entries), the summary list left", async () => {
    const { importFeed } = await import("../src/feeds/import.js");
    const { writeFileSync } = await import("node:fs");
    const dir = mkdtempSync(join(tmpdir(), "vigie-eol-v1-"));
    const get = async (path: string) => (await fetch(`${B}${path}`)).text();
    const nodejs = JSON.parse(await get("/products/nodejs"));
    writeFileSync(join(dir, "nodejs.json"), JSON.stringify(nodejs));
    writeFileSync(join(dir, "products.json"), await get("/products"));
    const full = {
      schema_version: "1.0.0",
      generated_at: nodejs.generated_at,
      total: 1,
      result: [{ ...nodejs.result, name: "nodejs-copy" }],
    };
    writeFileSync(join(dir, "full.json"), JSON.stringify(full));
    writeFileSync(join(dir, "broken.json"), '{"schema_version":"1.0.0","result":{"name":"x"}}');
    const r = await importFeed(db, "eol", [dir]);
    expect(r).toMatchObject({
      read: 3,
      inserted: 1,
      unchanged: 1,
      skipped: 1,
      errors: [{ file: "broken.json", message: expect.stringMatching(/label/) }],
    });
    expect(await q("select count(*)::int as n from eol_cycles where product_id = 'nodejs-copy'")).toEqual([
      { n: nodejs.result.releases.length },
    ]);
  });
});

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { eolMirror } from "../scripts/mirror/eol.js";
import { serveMirrors } from "../scripts/mirror/mirror.js";
import { FeedsService } from "../src/feeds/feeds.service.js";
import { feedUrls, SOURCES } from "../src/feeds/importers/index.js";
import { loadConfig } from "../src/config.js";
import type { ActionContext, ActionHandler } from "../src/engine/actions.js";
import { importFeed } from "../src/feeds/import.js";
import { importSnapshotIfEmpty } from "../src/feeds/snapshot.js";
import { createLogger } from "../src/platform/log.js";
import { executeCommand } from "../src/main.js";
import { EolService } from "../src/modules/eol/eol.service.js";
import { bearer, createTestApp, createWorkflow, tenantWithScopes } from "./helpers.js";

/**
 * End of life: the importer on real endoflife.date pages (test/fixtures/eol, the shared data
 * directory's layout), the product routes, the project's subscriptions, the eol-notices job at
 * chosen instants on both sides of 00:00 Paris, EOL facts on stack items, and a workflow run
 * triggered by eol.approaching.
 */
const hooks: { node: string; project: string; title: string }[] = [];
const hook: ActionHandler = async (ctx: ActionContext) => {
  hooks.push({ node: ctx.nodeId, project: ctx.project.id, title: ctx.message.title });
  return { detail: "envoyé" };
};
const t = await createTestApp({}, { notify: { notify_webhook: hook, notify_email: hook, notify_slack: hook, notify_teams: hook } });
const db = t.database.db;
const FIX = "test/fixtures/eol";
// biome-ignore lint/suspicious/noExplicitAny: rows read field by field by the assertions.
const q = async (text: string, params: unknown[] = []): Promise<any[]> =>
  ((await t.database.executeSql(text, params)) as { rows: unknown[] }).rows;
const get = async (url: string, key: string) => t.app.inject({ method: "GET", url, headers: bearer(key) });

const first = await importFeed(db, "eol", [FIX]);
const a = await tenantWithScopes(t, "EOL A", ["eol-write", "stacks-write", "workflows-write"]);
const b = await tenantWithScopes(t, "EOL B", ["eol-write"]);
/** Subscriptions made on 2026-01-01 (Paris): notices concern the dates from that day on. */
const jan = new EolService(db, () => new Date("2026-01-01T12:00:00Z"));

/** A copy of the fixtures' nginx page where cycle 1.29's end of life moved from 2026-05-13 to `eol`. */
function nginxWithEol(eol: string): string {
  const dir = mkdtempSync(join(tmpdir(), "vigie-eol-"));
  const page = readFileSync(`${FIX}/products-md/nginx.md`, "utf8");
  const changed = page.replace(/(releaseCycle: "1\.29"\n\s+releaseDate: 2025-06-24\n\s+eol: )2026-05-13/, `$1${eol}`);
  expect(changed).not.toBe(page);
  writeFileSync(join(dir, "nginx.md"), changed);
  return dir;
}

describe("importer (feeds import --source eol)", () => {
  it("takes the data directory as it is: the pages, plus the JSON export's products without a page; api-like and release-data left", () => {
    // 4 pages + angular from products-frontmatter.json (its nginx entry has a page: not read twice).
    expect(first).toMatchObject({ source: "eol", read: 5, inserted: 5, updated: 0, unchanged: 0, skipped: 0, errors: [] });
  });

  it("stores products, cycles with upstream's types, and identifier keys", async () => {
    expect(await q("select id, name, category from eol_products order by id")).toEqual([
      { id: "angular", name: "Angular", category: "framework" },
      { id: "django", name: "Django", category: "framework" },
      { id: "nginx", name: "nginx", category: "server-app" },
      { id: "php", name: "PHP", category: "lang" },
      { id: "ubuntu", name: "Ubuntu", category: "os" },
    ]);
    const cycles = (readFileSync(`${FIX}/products-md/nginx.md`, "utf8").match(/releaseCycle:/g) ?? []).length;
    expect((await q("select count(*)::int as n from eol_cycles where product_id = 'nginx'"))[0].n).toBe(cycles);
    expect(await q("select eol, lts, support from eol_cycles where product_id = 'ubuntu' and cycle = '24.04'")).toEqual([
      { eol: "2029-05-31", lts: true, support: "2029-05-31" },
    ]);
    expect(await q("select product_id from eol_identifiers where key = 'pkg:pypi/django'")).toEqual([{ product_id: "django" }]);
  });

  it("re-importing unchanged data changes nothing; a changed page is updated, and only it", async () => {
    const before = await q("select id, updated_at from eol_products order by id");
    expect(await importFeed(db, "eol", [FIX])).toMatchObject({ read: 5, inserted: 0, updated: 0, unchanged: 5, skipped: 0 });
    expect(await q("select id, updated_at from eol_products order by id")).toEqual(before);
    expect(await importFeed(db, "eol", [nginxWithEol("2026-06-13")])).toMatchObject({ read: 1, updated: 1, inserted: 0 });
    expect(await q("select eol from eol_cycles where product_id = 'nginx' and cycle = '1.29'")).toEqual([{ eol: "2026-06-13" }]);
    expect(await importFeed(db, "eol", [FIX])).toMatchObject({ updated: 1, unchanged: 4 });
    expect(await q("select eol from eol_cycles where product_id = 'nginx' and cycle = '1.29'")).toEqual([{ eol: "2026-05-13" }]);
  });

  it("a bad page is reported with its file and skipped; a file that is not of the format stops the import before any write", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vigie-eol-"));
    writeFileSync(join(dir, "broken.md"), "---\ntitle: Broken\nreleases:\n  - eol: true\n---\n");
    const r = await importFeed(db, "eol", [dir]);
    expect(r).toMatchObject({
      read: 1,
      skipped: 1,
      errors: [{ file: "broken.md", index: 0, message: expect.stringContaining("releaseCycle") }],
    });
    writeFileSync(join(dir, "notes.md"), "# not a product page\n");
    await expect(importFeed(db, "eol", [dir])).rejects.toThrow(/n'est pas au format eol/);
  });
});

describe("feeds sync from configured addresses (VIGIE_FEED_URLS_EOL)", () => {
  it("syncs from a mirror of endoflife.date's API v1 (the official API by default), under the products' own ids", async () => {
    expect(feedUrls({}).eol).toEqual(["https://endoflife.date/api/v1"]);
    // The API v1 derived from the fixtures' JSON export (nginx and angular), as scripts/mirror/eol.ts serves it.
    const server = await serveMirrors([eolMirror({ data: `${FIX}/products-frontmatter.json` })]);
    afterAll(() => server.close());
    const urls = feedUrls({ eol: server.env().VIGIE_FEED_URLS_EOL!.split(",") }).eol!;
    const feeds = new FeedsService(db, {
      ...loadConfig({}).feeds,
      cacheDir: mkdtempSync(join(tmpdir(), "vigie-eol-sync-")),
      urls: Object.fromEntries(SOURCES.map((s) => [s, s === "eol" ? urls : []])),
    });
    const out = await feeds.sync();
    // Both products read; both rewritten (the API writes lts: false where the page leaves it out), nothing added.
    expect(out[0]!.addresses.map((o) => [o.status, o.read, o.applied])).toEqual([["synced", 2, 2]]);
    expect(server.requests.map((r) => r.replace(/^\/eol\/api\/v1/, "")).sort()).toEqual([
      "/products",
      "/products/angular",
      "/products/nginx",
    ]);
    expect(await q("select count(*)::int as n from eol_products")).toEqual([{ n: 5 }]);
    expect(await q("select lts from eol_cycles where product_id = 'nginx' and cycle = '1.28'")).toEqual([{ lts: false }]);
    // The API has no description: the page's is kept.
    expect((await q("select description from eol_products where id = 'nginx'"))[0].description).toMatch(/^NGINX is/);
    // Again: every answer a 304, nothing read.
    expect((await feeds.sync())[0]!.addresses.map((o) => [o.status, o.read])).toEqual([["synced", 0]]);
    await importFeed(db, "eol", [FIX]);
  });
});

describe("GET /api/v1/eol/products", () => {
  const list = async (qs: string) => (await get(`/api/v1/eol/products${qs}`, a.readKey)).json();

  it("lists by id with q (id or name, case-insensitive), category and paging", async () => {
    expect(await list("")).toMatchObject({ total: 5, page: 1, page_size: 20 });
    expect((await list("?q=NGI")).items).toEqual([
      {
        id: "nginx",
        name: "nginx",
        category: "server-app",
        description: "NGINX is an HTTP and reverse proxy server, a mail proxy server, and a generic TCP/UDP proxy server.",
      },
    ]);
    expect((await list("?q=hp")).items.map((p: { id: string }) => p.id)).toEqual(["php"]);
    expect((await list("?q=%25")).total).toBe(0); // % is taken literally
    expect((await list("?category=framework")).items.map((p: { id: string }) => p.id)).toEqual(["angular", "django"]);
    expect(await list("?page=2&page_size=2")).toMatchObject({ total: 5, page: 2, page_size: 2, items: [{ id: "nginx" }, { id: "php" }] });
    expect(await list("?page=4&page_size=2")).toMatchObject({ total: 5, items: [] });
    expect((await get("/api/v1/eol/products?page_size=101", a.readKey)).statusCode).toBe(422);
    expect((await t.app.inject({ method: "GET", url: "/api/v1/eol/products" })).statusCode).toBe(401);
  });

  it("one product: every cycle newest first (release date, then cycle version), upstream's types kept; unknown → 404", async () => {
    const res = await get("/api/v1/eol/products/nginx", a.readKey);
    expect(res.statusCode).toBe(200);
    const p = res.json();
    expect(p.identifiers).toContainEqual({ cpe: "cpe:2.3:a:f5:nginx" });
    expect(p.cycles.slice(0, 3).map((c: { cycle: string }) => c.cycle)).toEqual(["1.31", "1.30", "1.29"]);
    expect(p.cycles[0]).toEqual({
      cycle: "1.31",
      release_date: "2026-05-13",
      eol: false,
      lts: null,
      support: null,
      latest: "1.31.4",
      link: "https://nginx.org/en/CHANGES",
      extended_support: null,
      latest_release_date: "2026-08-19",
    });
    const dates = p.cycles.map((c: { release_date: string }) => c.release_date);
    expect(dates).toEqual([...dates].sort().reverse());
    const ubuntu = (await get("/api/v1/eol/products/ubuntu", a.readKey)).json();
    expect(ubuntu.cycles.find((c: { cycle: string }) => c.cycle === "24.04")).toMatchObject({ lts: true, extended_support: "2036-05-31" });
    const missing = await get("/api/v1/eol/products/windows-95", a.readKey);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ detail: "Produit introuvable dans les données de fin de vie" });
  });
});

describe("subscriptions (…/projects/{project_id}/eol-subscriptions)", () => {
  it("creates with defaults (90 and 30 days), lists, reads; writes need eol-write; counted in the project's stats", async () => {
    const denied = await a.call("POST", "/eol-subscriptions", { product_id: "ubuntu" }, a.readKey);
    expect(denied.statusCode).toBe(403);
    const res = await a.call("POST", "/eol-subscriptions", { product_id: "ubuntu" });
    expect(res.statusCode).toBe(201);
    const sub = res.json();
    expect(sub).toEqual({
      id: expect.any(String),
      product_id: "ubuntu",
      cycle: null,
      notify_before_eol_days: 90,
      notify_before_support_days: 30,
      created_at: expect.any(String),
    });
    const two = (
      await a.call("POST", "/eol-subscriptions", {
        product_id: "php",
        cycle: "8.3",
        notify_before_eol_days: 0,
        notify_before_support_days: null,
      })
    ).json();
    expect(two).toMatchObject({ cycle: "8.3", notify_before_eol_days: 0, notify_before_support_days: null });
    expect((await a.call("GET", "/eol-subscriptions", undefined, a.readKey)).json()).toEqual([sub, two]);
    expect((await a.call("GET", `/eol-subscriptions/${sub.id}`, undefined, a.readKey)).json()).toEqual(sub);
    expect((await a.call("GET", "/stats")).json().eol_subscriptions).toBe(2);
    expect((await b.call("GET", "/stats")).json().eol_subscriptions).toBe(0);
  });

  it("the same product and cycle twice: 409 abonnement_existant with the existing id, nothing created", async () => {
    const sub = (await a.call("POST", "/eol-subscriptions", { product_id: "django", cycle: "4.2" })).json();
    const again = await a.call("POST", "/eol-subscriptions", { product_id: "django", cycle: "4.2", notify_before_eol_days: 10 });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({
      detail: { code: "abonnement_existant", message: "Le projet est déjà abonné à django 4.2", subscription_id: sub.id },
    });
    // Every cycle is another subscription than one cycle.
    expect((await a.call("POST", "/eol-subscriptions", { product_id: "django" })).statusCode).toBe(201);
    expect((await a.call("POST", "/eol-subscriptions", { product_id: "django", cycle: null })).statusCode).toBe(409);
  });

  it("unknown product or cycle, days out of 0–3650, a missing product_id: 422 on the field, nothing created", async () => {
    const before = (await a.call("GET", "/eol-subscriptions")).json().length;
    const product = await a.call("POST", "/eol-subscriptions", { product_id: "windows-95" });
    expect(product.statusCode).toBe(422);
    expect(product.json().detail).toEqual([
      expect.objectContaining({ loc: ["body", "product_id"], input: "windows-95", msg: expect.stringContaining("windows-95") }),
    ]);
    const cycle = await a.call("POST", "/eol-subscriptions", { product_id: "nginx", cycle: "0.1" });
    expect(cycle.statusCode).toBe(422);
    expect(cycle.json().detail).toEqual([expect.objectContaining({ loc: ["body", "cycle"], input: "0.1" })]);
    const days = await a.call("POST", "/eol-subscriptions", { product_id: "nginx", notify_before_eol_days: 3651 });
    expect(days.json().detail).toEqual([
      expect.objectContaining({ type: "less_than_equal", loc: ["body", "notify_before_eol_days"], ctx: { le: 3650 } }),
    ]);
    const neg = await a.call("POST", "/eol-subscriptions", { product_id: "nginx", notify_before_support_days: -1 });
    expect(neg.json().detail[0]).toMatchObject({ type: "greater_than_equal", loc: ["body", "notify_before_support_days"] });
    expect((await a.call("POST", "/eol-subscriptions", {})).json().detail[0]).toMatchObject({
      type: "missing",
      loc: ["body", "product_id"],
    });
    expect((await a.call("GET", "/eol-subscriptions")).json().length).toBe(before);
  });

  it("another tenant cannot see or touch a subscription (404); delete is 204 then 404", async () => {
    const sub = (await a.call("POST", "/eol-subscriptions", { product_id: "angular" })).json();
    expect((await b.call("GET", `/eol-subscriptions/${sub.id}`)).statusCode).toBe(404);
    expect((await b.call("DELETE", `/eol-subscriptions/${sub.id}`)).statusCode).toBe(404);
    expect((await b.call("GET", "/eol-subscriptions")).json()).toEqual([]);
    // B's key on A's project: the project is not found.
    const cross = await t.app.inject({ method: "GET", url: `${a.base}/eol-subscriptions`, headers: bearer(b.key) });
    expect(cross.statusCode).toBe(404);
    expect((await a.call("DELETE", `/eol-subscriptions/${sub.id}`, undefined, a.readKey)).statusCode).toBe(403);
    expect((await a.call("DELETE", `/eol-subscriptions/${sub.id}`)).statusCode).toBe(204);
    const gone = await a.call("GET", `/eol-subscriptions/${sub.id}`);
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toEqual({ detail: "Abonnement de fin de vie introuvable" });
  });
});

describe("the eol-notices job (Paris days)", () => {
  const notices = async (x: { call: typeof a.call }) =>
    (
      (await x.call("GET", "/eol-notices")).json().items as {
        product_id: string;
        cycle: string;
        kind: string;
        stage: string;
        due_on: string;
        days_left: number;
      }[]
    ).map((n) => `${n.stage} ${n.kind} ${n.product_id} ${n.cycle} ${n.due_on} ${n.days_left}`);

  it("summer (CEST): nginx 1.29 ends 2026-05-13 — warned from 00:00 Paris on 2026-04-13 (30 days), reached at 00:00 Paris on 2026-05-13, once each", async () => {
    const c = await tenantWithScopes(t, "EOL summer", ["eol-write"]);
    await jan.subscribe(c.project, { product_id: "nginx", cycle: "1.29", notify_before_eol_days: 30, notify_before_support_days: 30 });
    const run = (iso: string) => t.services.eolNotices.run(new Date(iso));
    expect(await run("2026-04-13T00:59:59+02:00")).toMatchObject({ today: "2026-04-13" });
    await run("2026-04-12T23:59:59+02:00");
    expect(await notices(c)).toEqual(["approaching eol nginx 1.29 2026-05-13 30"]);
    await run("2026-04-13T00:00:00+02:00"); // the same day again: nothing more
    await run("2026-05-12T23:59:59+02:00");
    expect(await notices(c)).toEqual(["approaching eol nginx 1.29 2026-05-13 30"]);
    const reached = await run("2026-05-13T00:00:00+02:00");
    expect(reached.today).toBe("2026-05-13");
    expect(await notices(c)).toEqual(["reached eol nginx 1.29 2026-05-13 0", "approaching eol nginx 1.29 2026-05-13 30"]);
    await run("2026-05-20T12:00:00Z");
    expect((await notices(c)).length).toBe(2);
    // One outbox event per notice, with what the workflows read.
    expect(await q("select event, payload from outbox_events where project_id = $1 order by id", [c.projectId])).toEqual([
      {
        event: "eol.approaching",
        payload: expect.objectContaining({
          product: "nginx",
          product_name: "nginx",
          cycle: "1.29",
          kind: "eol",
          date: "2026-05-13",
          days_left: 30,
        }),
      },
      { event: "eol.reached", payload: expect.objectContaining({ product: "nginx", cycle: "1.29", kind: "eol", days_left: 0 }) },
    ]);
    // Upstream moves the date: warned again for the new one.
    await importFeed(db, "eol", [nginxWithEol("2026-06-30")]);
    await run("2026-06-01T00:00:00+02:00");
    expect((await notices(c))[0]).toBe("approaching eol nginx 1.29 2026-06-30 29");
    await importFeed(db, "eol", [FIX]);
  });

  it("winter (CET): PHP 8.3 active support ends 2025-12-31 — reached at 00:00 Paris (23:00 UTC the day before), not a second earlier", async () => {
    const c = await tenantWithScopes(t, "EOL winter", ["eol-write"]);
    const june = new EolService(db, () => new Date("2025-06-01T12:00:00Z"));
    await june.subscribe(c.project, { product_id: "php", cycle: "8.3", notify_before_eol_days: null, notify_before_support_days: 0 });
    const r1 = await t.services.eolNotices.run(new Date("2025-12-30T22:59:59Z"));
    expect(r1.today).toBe("2025-12-30");
    expect(await notices(c)).toEqual([]);
    const r2 = await t.services.eolNotices.run(new Date("2025-12-30T23:00:00Z"));
    expect(r2.today).toBe("2025-12-31");
    expect(await notices(c)).toEqual(["reached support php 8.3 2025-12-31 0"]);
    // notify_before_eol_days null: no warning before the end of life (2027-12-31), only the day itself.
    await t.services.eolNotices.run(new Date("2027-12-01T12:00:00Z"));
    expect((await notices(c)).length).toBe(1);
    await t.services.eolNotices.run(new Date("2027-12-31T00:00:00+01:00"));
    expect((await notices(c))[0]).toBe("reached eol php 8.3 2027-12-31 0");
  });

  it("jobs run eol-notices --now runs it at that instant (the command of the CLI and the admin socket); another tenant's notices are a 404", async () => {
    const c = await tenantWithScopes(t, "EOL cli", ["eol-write"]);
    await jan.subscribe(c.project, { product_id: "ubuntu", cycle: "24.04", notify_before_eol_days: 30, notify_before_support_days: null });
    const res = await executeCommand(t.services, t.database, [
      "jobs",
      "run",
      "eol-notices",
      "--now",
      "2029-05-31T00:00:00+02:00",
      "--json",
    ]);
    expect(res.ok && res.result).toMatchObject({ job: "eol-notices", now: "2029-05-30T22:00:00.000Z", today: "2029-05-31" });
    // Ubuntu 24.04's standard support (eoas) ends the same day: reached too (no warning before: null).
    expect(await notices(c)).toEqual(["reached support ubuntu 24.04 2029-05-31 0", "reached eol ubuntu 24.04 2029-05-31 0"]);
    const cross = await t.app.inject({ method: "GET", url: `${c.base}/eol-notices`, headers: bearer(b.key) });
    expect(cross.statusCode).toBe(404);
  });

  it("a cycle already past when subscribed is not announced; every cycle (null) covers the cycles to come; two runs at once write once", async () => {
    const c = await tenantWithScopes(t, "EOL all", ["eol-write"]);
    await jan.subscribe(c.project, { product_id: "nginx", cycle: null, notify_before_eol_days: 30, notify_before_support_days: 30 });
    await Promise.all([
      t.services.eolNotices.run(new Date("2026-04-20T12:00:00Z")),
      t.services.eolNotices.run(new Date("2026-04-20T12:00:00Z")),
    ]);
    // 1.28 ended 2026-04-14 (after the subscription: reached), 1.29 ends 2026-05-13 (warned); 1.27 and older ended before 2026-01-01.
    expect(await notices(c)).toEqual(["approaching eol nginx 1.29 2026-05-13 23", "reached eol nginx 1.28 2026-04-14 -6"]);
  });
});

describe("EOL on the stack", () => {
  it("items whose CPE, purl or vendor:product and version fall in a cycle show its facts; from-stack subscribes to each cycle once", async () => {
    const c = await tenantWithScopes(t, "EOL stack", ["eol-write", "stacks-write"]);
    const stack = await c.call("POST", "/stacks", {
      name: "Prod",
      items: [
        { item_type: "cpe", value: "cpe:2.3:a:f5:nginx:1.28.0:*:*:*:*:*:*:*" },
        { item_type: "purl", value: "pkg:deb/debian/nginx@1.28.2-1" },
        { item_type: "purl", value: "pkg:pypi/Django@4.2.11" },
        { item_type: "product", value: "php:php@8.3.10" },
        { item_type: "purl", value: "pkg:pypi/django@0.9" },
        { item_type: "cpe", value: "cpe:2.3:a:f5:nginx:*:*:*:*:*:*:*:*" },
      ],
    });
    expect(stack.statusCode).toBe(201);
    const items = (await c.call("GET", "/stacks")).json()[0].items as { value: string; eol: Record<string, unknown> | null }[];
    expect(items.map((i) => i.eol && `${i.eol.product_id} ${i.eol.cycle}`)).toEqual([
      "nginx 1.28",
      "nginx 1.28",
      "django 4.2",
      "php 8.3",
      null,
      null,
    ]);
    expect(items[0]!.eol).toEqual({
      product_id: "nginx",
      product_name: "nginx",
      cycle: "1.28",
      release_date: "2025-04-23",
      eol: "2026-04-14",
      lts: null,
      support: null,
      extended_support: null,
      latest: "1.28.3",
      link: "https://nginx.org/en/CHANGES-1.28",
    });
    // An item added alone shows it too.
    const added = await c.call("POST", `/stacks/${stack.json().id}/items`, { item_type: "purl", value: "pkg:deb/ubuntu/nginx@1.31.1" });
    expect(added.json().eol).toMatchObject({ product_id: "nginx", cycle: "1.31", eol: false });

    const pre = (await c.call("POST", "/eol-subscriptions", { product_id: "php", cycle: "8.3" })).json();
    const res = await c.call("POST", "/eol-subscriptions/from-stack");
    expect(res.statusCode).toBe(200);
    const r = res.json() as { created: { product_id: string; cycle: string }[]; existing: { id: string }[] };
    expect(r.created.map((s) => `${s.product_id} ${s.cycle}`).sort()).toEqual(["django 4.2", "nginx 1.28", "nginx 1.31"]);
    expect(r.created[0]).toMatchObject({ notify_before_eol_days: 90, notify_before_support_days: 30 });
    expect(r.existing.map((s) => s.id)).toEqual([pre.id]);
    const again = (await c.call("POST", "/eol-subscriptions/from-stack")).json();
    expect(again.created).toEqual([]);
    expect(again.existing.length).toBe(4);
    expect((await c.call("POST", "/eol-subscriptions/from-stack", undefined, c.readKey)).statusCode).toBe(403);
  });
});

describe("EOL already reached (eol-past-due)", () => {
  it("lists the subscribed and the stack's cycles whose end of life has come, oldest first, in Paris days; tenancy", async () => {
    const c = await tenantWithScopes(t, "EOL past", ["eol-write", "stacks-write"]);
    const stack = await c.call("POST", "/stacks", {
      name: "Prod",
      items: [
        { item_type: "purl", value: "pkg:pypi/Django@4.2.11" },
        { item_type: "purl", value: "pkg:pypi/django@4.2.20" },
        { item_type: "purl", value: "pkg:deb/debian/nginx@1.28.2-1" },
        { item_type: "product", value: "php:php@8.3.10" },
      ],
    });
    expect(stack.statusCode).toBe(201);
    // A subscription to nginx 1.28 made in January: a subscribed cycle is past due once its day has come.
    await jan.subscribe(c.project, { product_id: "nginx", cycle: "1.28", notify_before_eol_days: 30, notify_before_support_days: 30 });
    const at = (iso: string) => new EolService(db, () => new Date(iso)).pastDue(c.project);
    // 2026-04-13 Paris: Django 4.2 ended 2026-04-07; nginx 1.28 ends the next day; PHP 8.3 in 2027.
    expect(await at("2026-04-13T12:00:00Z")).toEqual({
      today: "2026-04-13",
      items: [
        {
          product_id: "django",
          product_name: "Django",
          cycle: "4.2",
          eol: "2026-04-07",
          link: expect.any(String),
          subscribed: false,
          stack_items: 2,
        },
      ],
    });
    // 22:30 UTC on 2026-04-13 is already 2026-04-14 in Paris: nginx 1.28 has reached its end.
    const later = await at("2026-04-13T22:30:00Z");
    expect(later.today).toBe("2026-04-14");
    expect(later.items.map((i) => `${i.product_id} ${i.cycle} ${i.eol} ${i.subscribed} ${i.stack_items}`)).toEqual([
      "django 4.2 2026-04-07 false 2",
      "nginx 1.28 2026-04-14 true 1",
    ]);
    // The route (today's clock: both dates are past by now) and another tenant's 404.
    const res = await c.call("GET", "/eol-past-due");
    expect(res.statusCode).toBe(200);
    expect(
      res
        .json()
        .items.slice(0, 2)
        .map((i: { product_id: string }) => i.product_id),
    ).toEqual(["django", "nginx"]);
    expect((await t.app.inject({ method: "GET", url: `${c.base}/eol-past-due`, headers: bearer(b.key) })).statusCode).toBe(404);
  });
});

describe("workflows on EOL events", () => {
  it("eol.approaching runs the project's workflow, whose conditions read eol.product, eol.cycle and eol.days_left", async () => {
    const c = await tenantWithScopes(t, "EOL runs", ["eol-write", "workflows-write"]);
    const graph = (product: string) => ({
      graph: {
        nodes: [
          { id: "t", type: "trigger", event: "eol.approaching", params: {} },
          {
            id: "c",
            type: "condition",
            match: "all",
            rules: [
              { field: "eol.product", op: "eq", value: product },
              { field: "eol.cycle", op: "eq", value: "1.29" },
              { field: "eol.days_left", op: "lte", value: 30 },
            ],
          },
          { id: "n", type: "action", action: "notify_webhook", params: { url: "https://example.test/eol" }, on_error: "continue" },
        ],
        edges: [
          { from: "t", to: "c" },
          { from: "c", to: "n", when: "true" },
        ],
      },
    });
    const yes = await createWorkflow(t, c, { name: "EOL nginx", ...graph("nginx") });
    expect(yes.statusCode).toBe(201);
    const no = await createWorkflow(t, c, { name: "EOL php", ...graph("php") });
    expect(no.statusCode).toBe(201);
    // Fires only at 7 days or fewer: the notice, 30 days before, leaves it silent.
    const week = graph("nginx").graph;
    const late = await createWorkflow(t, c, {
      name: "EOL nginx J-7",
      graph: {
        ...week,
        nodes: [{ id: "t", type: "trigger", event: "eol.approaching", params: { days_before: 7 } }, ...week.nodes.slice(1)],
      },
    });
    expect(late.statusCode).toBe(201);
    await jan.subscribe(c.project, { product_id: "nginx", cycle: "1.29", notify_before_eol_days: 30, notify_before_support_days: null });
    await t.services.eolNotices.run(new Date("2026-04-13T00:00:00+02:00"));
    await t.services.runs.dispatchAll();
    const runs = await q("select workflow_id, trigger_event, status from workflow_runs where project_id = $1 order by workflow_id", [
      c.projectId,
    ]);
    expect(runs).toEqual(
      [
        { workflow_id: yes.json().id, trigger_event: "eol.approaching", status: "success" },
        { workflow_id: no.json().id, trigger_event: "eol.approaching", status: "success" },
        { workflow_id: late.json().id, trigger_event: "eol.approaching", status: "success" },
      ].sort((x, y) => (x.workflow_id < y.workflow_id ? -1 : 1)),
    );
    const [lateRun] = await q("select report from workflow_runs where workflow_id = $1", [late.json().id]);
    expect(lateRun!.report.steps.map((s: { outcome: string }) => s.outcome)).toEqual(["non_declenche", "non_atteint", "non_atteint"]);
    expect(lateRun!.report.steps[0].detail).toBe("échéance dans 30 jour(s), au-delà du seuil days_before 7");
    expect(hooks.filter((h) => h.project === c.projectId).map((h) => [h.node, h.title])).toEqual([
      ["n", "nginx 1.29 (fin de vie le 2026-05-13) touche Production"],
    ]);
  });
});

describe("the first-start snapshot", () => {
  it("holds every endoflife.date page; a database whose snapshot predates them gets them at its next start", async () => {
    // As a database that completed the snapshot's other sources before eol existed.
    for (const source of ["cve5", "nvd", "kev", "epss", "poc", "osv", "certfr", "rss"])
      await q("insert into snapshot_progress (source, started_at, completed_at) values ($1, now(), now())", [source]);
    const results = await importSnapshotIfEmpty(db, createLogger("silent"));
    expect(results!.map((r) => [r.source, r.read, r.skipped])).toEqual([["eol", 464, 0]]);
    expect(await q("select count(*)::int as n from eol_products")).toEqual([{ n: 464 }]);
    expect(await importSnapshotIfEmpty(db, createLogger("silent"))).toBeNull();
  });
});

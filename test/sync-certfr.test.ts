import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { certfrMirror } from "../scripts/mirror/certfr.js";
import { serveMirrors } from "../scripts/mirror/mirror.js";
import { loadConfig, type FeedSettings } from "../src/config.js";
import { FeedsService } from "../src/feeds/feeds.service.js";
import type { CertfrCheckpoint } from "../src/feeds/publishers/certfr.js";
import { bearer, createTenant, createTestApp } from "./helpers.js";

/**
 * CERT-FR's avis kept current from the site's own publication (issue 22): the avis feed, then each
 * new or revised avis's JSON document, against a local site (scripts/mirror/certfr.ts) serving real
 * documents (test/fixtures/sync/certfr, see SOURCES.md) under a derived feed.
 */
const t = await createTestApp();
const FIX = "test/fixtures/sync/certfr";
const files = readdirSync(FIX)
  .filter((f) => f.endsWith(".json"))
  .map((f) => join(FIX, f));
// The newest avis (Traefik, 2026-02-20) is published at the mirror after start; the feed lists 7.
const TRAEFIK = join(FIX, "CERTFR-2026-AVI-0191.json");
const mirror = certfrMirror({
  files: files.filter((f) => f !== TRAEFIK),
  count: 7,
  faults: {
    feed: [503, 429],
    documents: { "CERTFR-2026-AVI-0190": ["corrupt"], "CERTFR-2026-AVI-0189": [404], "CERTFR-2026-AVI-0187": ["invalid"] },
  },
});
const served = await serveMirrors([mirror]);
afterAll(() => served.close());

const off = { cve5: [], nvd: [], kev: [], epss: [], poc: [], osv: [], certfr: [], rss: [], eol: [] };
function settings(certfr: string[]): FeedSettings {
  return { ...loadConfig({}).feeds, cacheDir: mkdtempSync(join(tmpdir(), "vigie-sync-certfr-")), retryBaseMs: 1, urls: { ...off, certfr } };
}
const address = mirror.addresses(served.origin)[0]!;
const feeds = new FeedsService(t.database.db, settings([address]));
const reader = await createTenant(t, { name: "Reader" });
const get = async (url: string) => (await t.app.inject({ method: "GET", url, headers: bearer(reader.readKey) })).json();

/** The requests of the mirror made by `run`, the documents by reference. */
async function requests<T>(run: () => Promise<T>): Promise<{ result: T; feed: number; documents: string[] }> {
  const from = served.requests.length;
  const result = await run();
  const made = served.requests.slice(from);
  return {
    result,
    feed: made.filter((p) => p.endsWith("/avis/feed/")).length,
    documents: made
      .map((p) => /\/avis\/([^/]+)\/json\/$/.exec(p)?.[1])
      .filter((r): r is string => !!r)
      .sort(),
  };
}
const checkpoint = async () => (await feeds.status()).find((s) => s.source === "certfr")!.addresses[0]!.checkpoint as CertfrCheckpoint;

describe("CERT-FR sync: the avis feed, then each new or revised avis's document", () => {
  it("first sync: the feed retried after 503 and 429; a missing, a corrupt and a schema-failing document reported, the others applied", async () => {
    const { result, feed, documents } = await requests(() => feeds.sync(["certfr"]));
    expect(feed).toBe(3);
    expect(documents).toEqual(mirror.listed().slice().sort());
    const [outcome] = result;
    expect(outcome).toMatchObject({ source: "certfr", status: "synced", applied: 4 });
    expect(outcome!.addresses[0]!.errors).toEqual([]);
    expect([...outcome!.addresses[0]!.problems].sort((a, b) => a.where.localeCompare(b.where))).toEqual([
      { where: `${address}/avis/CERTFR-2026-AVI-0187/json/`, message: "CERT-FR avis without reference" },
      { where: `${address}/avis/CERTFR-2026-AVI-0189/json/`, message: "HTTP 404" },
      { where: `${address}/avis/CERTFR-2026-AVI-0190/json/`, message: expect.stringMatching(/^JSON invalide/) },
    ]);
    // Applied: an avis of 2026, and the one whose reference lies after 73 kB of content (the importer's check reads 64 KiB).
    expect(await get("/api/v1/cves/CVE-2026-26119")).toMatchObject({ sources: ["certfr"], aliases: ["CERTFR-2026-AVI-0185"] });
    expect((await get("/api/v1/cves/CVE-2023-6610")).aliases).toContain("CERTFR-2025-AVI-0022");
    expect((await get("/api/v1/cves/CVE-2026-2507")).detail).toMatch(/introuvable|not found/i);
    // The failed documents are not checkpointed, nor the feed's validators: the next sync reads the feed again.
    const cp = await checkpoint();
    expect(cp.etag).toBeUndefined();
    const failed = ["CERTFR-2026-AVI-0187", "CERTFR-2026-AVI-0189", "CERTFR-2026-AVI-0190"];
    expect(cp.avis.map((a) => a.ref)).toEqual(mirror.listed().filter((r) => !failed.includes(r)));
    expect(cp.avis.find((a) => a.ref === "CERTFR-2025-AVI-0030")).toEqual({
      ref: "CERTFR-2025-AVI-0030",
      date: "2025-01-14T00:00:00.000Z",
      rev: "2025-02-12",
    });
  });

  it("the next sync fetches the three failed documents only, then keeps the feed's validators", async () => {
    const { result, feed, documents } = await requests(() => feeds.sync(["certfr"]));
    expect(feed).toBe(1);
    expect(documents).toEqual(["CERTFR-2026-AVI-0187", "CERTFR-2026-AVI-0189", "CERTFR-2026-AVI-0190"]);
    expect(result[0]).toMatchObject({ status: "synced", applied: 3, addresses: [{ problems: [] }] });
    expect(await get("/api/v1/cves/CVE-2026-2507")).toMatchObject({ aliases: ["CERTFR-2026-AVI-0189"] });
    const cp = await checkpoint();
    expect(cp).toMatchObject({ etag: expect.stringMatching(/^"/), lastModified: expect.any(String), newest: "2026-02-19T00:00:00.000Z" });
    expect(cp.avis.map((a) => a.ref)).toEqual(mirror.listed());
  });

  it("with nothing new, a sync costs one conditional request", async () => {
    const { result, feed, documents } = await requests(() => feeds.sync(["certfr"]));
    expect([feed, documents]).toEqual([1, []]);
    expect(result[0]).toMatchObject({ status: "synced", applied: 0 });
  });

  it("a revision published at the site arrives: its new CVE alerts a stack naming it", async () => {
    const tn = await createTenant(t, { name: "Watching" });
    const { key } = await t.services.apiKeys.create({ orgId: tn.orgId, scopes: ["stacks-write"], projectIds: [] });
    const base = `/api/v1/organizations/${tn.orgId}/projects/${tn.projectId}`;
    const stack = await t.app.inject({
      method: "POST",
      url: `${base}/stacks`,
      headers: bearer(key),
      payload: { name: "Production", items: [{ item_type: "cve", value: "CVE-2026-21933" }] },
    });
    expect(stack.statusCode).toBe(201);
    const alerts = async () =>
      (
        (await t.app.inject({ method: "GET", url: `${base}/alerts`, headers: bearer(key) })).json() as {
          items: { cve_id: string; aliases: string[] }[];
        }
      ).items;
    expect(await alerts()).toEqual([]);

    // CERTFR-2026-AVI-0185 (Windows, 2026-02-18) gains a CVE on 2026-02-21: it moves to the feed's
    // newest end with its pubDate unchanged, as the site lists revised avis.
    const before = mirror.listed();
    mirror.revise("CERTFR-2026-AVI-0185", {
      date: "2026-02-21",
      description: "Ajout de l'identifiant CVE-2026-21933.",
      cves: ["CVE-2026-21933"],
    });
    expect(mirror.listed()).toEqual([...before.filter((r) => r !== "CERTFR-2026-AVI-0185"), "CERTFR-2026-AVI-0185"]);
    const { result, feed, documents } = await requests(() => feeds.sync(["certfr"]));
    expect([feed, documents]).toEqual([1, ["CERTFR-2026-AVI-0185"]]);
    expect(result[0]).toMatchObject({ status: "synced", applied: 1 });

    const cve = await get("/api/v1/cves/CVE-2026-21933");
    expect(cve).toMatchObject({ sources: ["certfr"], aliases: ["CERTFR-2026-AVI-0185"] });
    expect(cve.mesures_provisoires[0]).toMatchObject({
      reference: "CERTFR-2026-AVI-0185",
      republication: expect.stringMatching(/^2026-02-21/),
    });
    expect(await alerts()).toMatchObject([{ cve_id: "CVE-2026-21933", aliases: ["CERTFR-2026-AVI-0185"] }]);
    const cp = await checkpoint();
    expect(cp.avis.at(-1)).toEqual({ ref: "CERTFR-2026-AVI-0185", date: "2026-02-18T00:00:00.000Z", rev: "2026-02-21" });
  });

  it("a new avis arrives; the oldest leaves the feed and the checkpoint (only what the feed lists)", async () => {
    mirror.publish(JSON.parse(readFileSync(TRAEFIK, "utf8")));
    expect(mirror.listed()).not.toContain("CERTFR-2025-AVI-0022");
    const { result, documents } = await requests(() => feeds.sync(["certfr"]));
    expect(documents).toEqual(["CERTFR-2026-AVI-0191"]);
    expect(result[0]).toMatchObject({ status: "synced", applied: 1 });
    expect(await get("/api/v1/cves/CVE-2025-68121")).toMatchObject({ aliases: ["CERTFR-2026-AVI-0191"] });
    const cp = await checkpoint();
    expect(cp.avis.map((a) => a.ref)).toEqual(mirror.listed());
    expect(cp.newest).toBe("2026-02-21");
    expect((await feeds.status()).find((s) => s.source === "certfr")!.addresses[0]!.applied_until).toEqual(new Date(cp.lastModified!));
  });

  it("a sync killed mid-way resumes: the documents applied are not fetched again, none is lost", async () => {
    const other = certfrMirror({ files, count: 8, prefix: "/killed" });
    let documents = 0;
    const abort = new AbortController();
    const killing = {
      ...other,
      handle: (req: Parameters<typeof other.handle>[0], res: Parameters<typeof other.handle>[1], origin: string) => {
        if (req.url?.endsWith("/json/") && ++documents === 5) abort.abort(new Error("arrêt du service"));
        return other.handle(req, res, origin);
      },
    };
    const site = await serveMirrors([killing]);
    const db = (await createTestApp()).database.db;
    const sync = new FeedsService(db, settings(other.addresses(site.origin)));
    try {
      const [killed] = await sync.sync(["certfr"], abort.signal);
      expect(killed).toMatchObject({ status: "failed", addresses: [{ error: expect.stringMatching(/^interrompu/) }] });
      const cp = (await sync.status()).find((s) => s.source === "certfr")!.addresses[0]!.checkpoint as CertfrCheckpoint;
      const applied = cp.avis.map((a) => a.ref);
      expect(applied.length).toBeGreaterThan(0);
      expect(applied.length).toBeLessThan(8);
      const from = site.requests.length;
      const [resumed] = await sync.sync(["certfr"]);
      expect(resumed).toMatchObject({ status: "synced", applied: 8 - applied.length });
      const again = site.requests.slice(from).filter((p) => p.endsWith("/json/"));
      expect(again).toHaveLength(8 - applied.length);
      for (const ref of applied) expect(again.join()).not.toContain(ref);
      const rows = await db.execute("select count(*)::int as n from public_vulns where source = 'certfr'" as never);
      expect((rows as unknown as { rows: { n: number }[] }).rows[0]!.n).toBe(8);
    } finally {
      await site.close();
    }
  });

  it("a feed that re-dates revised avis works the same (pubDate: revision)", async () => {
    const redating = certfrMirror({ files, count: 8, prefix: "/redating", pubDate: "revision" });
    const site = await serveMirrors([redating]);
    const db = (await createTestApp()).database.db;
    const sync = new FeedsService(db, settings(redating.addresses(site.origin)));
    try {
      expect((await sync.sync(["certfr"]))[0]).toMatchObject({ status: "synced", applied: 8 });
      // Revised on its last day: its place stays the newest, only its pubDate tells.
      redating.revise("CERTFR-2026-AVI-0191", { date: "2026-02-22", cves: ["CVE-2026-21933"] });
      const from = site.requests.length;
      expect((await sync.sync(["certfr"]))[0]).toMatchObject({ status: "synced", applied: 1 });
      expect(site.requests.slice(from).filter((p) => p.endsWith("/json/"))).toEqual(["/redating/avis/CERTFR-2026-AVI-0191/json/"]);
    } finally {
      await site.close();
    }
  });
});

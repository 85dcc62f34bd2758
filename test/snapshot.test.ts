import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { importFeed } from "../src/feeds/import.js";
import { SOURCES } from "../src/feeds/importers/index.js";
import { importSnapshotIfEmpty } from "../src/feeds/snapshot.js";
import type { Database } from "../src/platform/db/client.js";
import { rowsOf } from "../src/platform/db/sql.js";
import { createLogger } from "../src/platform/log.js";
import { sql } from "drizzle-orm";
import { runWalkthrough } from "./doc-blocks.js";
import { bearer, createTenant, createTestApp, openTestDatabase } from "./helpers.js";
import { freshStore, keepImportedSnapshot, startServer } from "./server-process.js";

/**
 * The snapshot is imported once in this file, as a user's first start does it: by a server on an
 * empty store, killed mid-import and started again. Every check of the imported data then reads that
 * store (an import takes half a minute or more of the suite's two workers).
 */
const store = await freshStore({ empty: true });
afterAll(() => store.remove());

const TABLES = ["cves", "cve_sources", "cve_affected", "public_vulns", "articles", "epss_current"] as const;
/** Row counts of the tables the snapshot fills. */
async function counts(database: Database): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of TABLES)
    out[table] = Number((await rowsOf<{ n: string }>(database.db, sql.raw(`select count(*) as n from ${table}`)))[0]!.n);
  return out;
}
/** What an uninterrupted import of the bundled snapshot leaves (the same on both databases). */
const CLEAN = { cves: 27219, cve_sources: 12484, cve_affected: 20741, public_vulns: 3198, articles: 72, epss_current: 7130 };

// The first start, killed while the second source (NVD) is being imported (the CVE List recorded
// complete), then the second, which resumes: checked by the first test below.
const env = { ...store.env, VIGIE_JOBS: "off" };
const first = startServer(env);
await first.waitForLog((l) => l.msg === "instantané importé" && l.source === "cve5", 240_000);
await new Promise((r) => setTimeout(r, 500));
await first.stop("SIGKILL");
const second = startServer(env);
await second.ready(240_000);
await second.stop();
// The store as the README's `npm start` leaves it, for the documentation's walk-through (below),
// before this file's checks add their own tenants to it.
const asStarted = await store.copy();
afterAll(() => asStarted.remove());
// And for the first-day end-to-end file, which starts from it instead of importing again.
await keepImportedSnapshot(store);
const database = await store.open();
afterAll(() => database.close());
const t = await createTestApp({}, undefined, database);
const tenant = await createTenant(t);
const get = async (url: string) => (await t.app.inject({ method: "GET", url, headers: bearer(tenant.readKey) })).json();

describe("first start: the bundled snapshot of real data", () => {
  it("a server killed mid-snapshot resumes it at the next start, says so, and ends with a clean run's data", async () => {
    expect(first.logs.some((l) => l.msg === "instantané importé" && l.source === "rss")).toBe(false);
    const resumed = second.logs.find((l) => typeof l.msg === "string" && l.msg.startsWith("instantané interrompu : reprise"));
    expect(resumed, JSON.stringify(second.logs.map((l) => l.msg))).toBeDefined();
    expect(resumed!.completed).toContain("cve5");
    expect(second.logs.some((l) => l.msg === "instantané importé" && l.source === "cve5")).toBe(false);
    // Every source imported once, over the two starts, each record read and none skipped.
    const imported = [...first.logs, ...second.logs].filter((l) => l.msg === "instantané importé");
    expect(imported.map((l) => l.source)).toEqual(["cve5", "nvd", "kev", "epss", "poc", "osv", "certfr", "rss", "eol"]);
    for (const l of imported) {
      expect(l.read, l.source).toBeGreaterThan(0);
      expect(l.inserted, l.source).toBeGreaterThan(0);
      expect(l.skipped, l.source).toBe(0);
    }
    // The first start generated the secrets key into the data directory, readable by its owner only;
    // under PostgreSQL the server says every process needs the same VIGIE_SECRET_KEY.
    expect(statSync(join(store.env.VIGIE_DATA_DIR!, "secret.key")).mode & 0o777).toBe(0o600);
    const keyWarning = second.logs.some((l) => l.level === 40 && String(l.msg).startsWith("VIGIE_SECRET_KEY n'est pas défini"));
    expect(keyWarning).toBe(Boolean(store.env.DATABASE_URL));
    expect(await counts(database)).toEqual(CLEAN);
    const progress = await rowsOf<{ source: string; completed_at: unknown }>(
      database.db,
      sql`select source, completed_at from snapshot_progress`,
    );
    expect(progress).toHaveLength(SOURCES.length);
    expect(progress.every((p) => p.completed_at)).toBe(true);
  });

  it("holds every source's real data, and is not imported a second time", async () => {
    const panos = await get("/api/v1/cves/CVE-2024-3400");
    expect(panos).toMatchObject({ is_kev: true, epss_publie: true, has_poc: true, cvss_score: 10, severity: "critical" });
    expect(panos.affected.length).toBeGreaterThan(0);
    // Its vendor's own workaround from the CVE 5 record (issue 34): Threat Prevention IDs.
    expect(panos.mesures_provisoires[0]).toMatchObject({ source: "palo_alto", reference: "CVE-2024-3400", categorie: "contournement" });
    expect(panos.mesures_provisoires[0].texte).toMatch(/Threat IDs 95187, 95189, and 95191/);
    expect(panos.contournement_disponible).toBe(true);
    // The feeds say where their data came from until a first sync: the snapshot, its date.
    const feeds = await get("/api/v1/feeds");
    const snap = Object.fromEntries(
      feeds.sources.map((f: { source: string; snapshot: { records: number; data_until: string | null; imported_at: string } }) => [
        f.source,
        `${f.snapshot.records} ${f.snapshot.data_until}`,
      ]),
    );
    expect(snap).toEqual({
      cve5: "3669 2024-10-24",
      nvd: "2002 2025-10-24",
      kev: "1404 2025-08-25",
      epss: "7130 2026-08-16",
      poc: "5409 null",
      osv: "1698 2024-12-04",
      certfr: "1500 2026-02-20",
      rss: "72 2025-07-25",
      eol: "464 2026-08-21",
    });
    expect(Date.parse(feeds.sources[0].snapshot.imported_at)).toBeGreaterThan(Date.now() - 600_000);
    expect(feeds.sources[0].last_success_at).toBeNull();
    expect(feeds.sync_scheduled).toBe(false);
    // 8,665 CVEs of the CVE List, NVD, KEV and OSV subsets, listed by default, and 18,546 thin records
    // from the avis (below), reference-only: listed on request.
    expect((await get("/api/v1/cves?page_size=1")).total).toBe(8665);
    expect((await get("/api/v1/cves?page_size=1&state=reference_only")).total).toBe(18546);
    expect((await get("/api/v1/articles")).total).toBeGreaterThan(50);
    expect((await get("/api/v1/vulnerabilities?source=certfr")).total).toBe(1500);
    // CVEs the snapshot knows only from its CERT-FR avis (mostly 2025–2026, after its CVE List subset): thin records.
    const thin = await rowsOf<{ n: number; dated: number; affected: number; scored: number }>(
      t.database.db,
      sql`
      select count(*)::int as n, count(date_published)::int as dated, count(*) filter (where cvss_score is not null)::int as scored,
        (select count(*)::int from cve_affected a join cves c2 on c2.cve_id = a.cve_id where c2.sources = array['certfr']) as affected
      from cves where sources = array['certfr']`,
    );
    expect(thin[0]).toEqual({ n: 18546, dated: 18546, scored: 0, affected: 0 });
    expect(await importSnapshotIfEmpty(t.database.db, createLogger("silent"))).toBeNull();
  });

  it("migration 0036: the next start imports the snapshot's CVE List files again, and only them, changing no count", async () => {
    await t.database.executeSql(readFileSync("src/platform/db/migrations/0036_cve5_measures_reimport.sql", "utf8"));
    const again = await importSnapshotIfEmpty(t.database.db, createLogger("silent"));
    expect(again!.map((r) => [r.source, r.errors.length])).toEqual([["cve5", 0]]);
    expect(await counts(t.database)).toEqual(CLEAN);
    expect((await get("/api/v1/cves/CVE-2024-3400")).mesures_provisoires[0]).toMatchObject({ source: "palo_alto" });
    expect(await importSnapshotIfEmpty(t.database.db, createLogger("silent"))).toBeNull();
  }, 180_000);

  it("the README's stack example raises the alerts of the versions it names, whatever their age", async () => {
    const { key } = await t.services.apiKeys.create({ orgId: tenant.orgId, scopes: ["stacks-write"], projectIds: [] });
    const base = `/api/v1/organizations/${tenant.orgId}/projects/${tenant.projectId}`;
    const res = await t.app.inject({
      method: "POST",
      url: `${base}/stacks`,
      headers: bearer(key),
      payload: {
        name: "Production",
        items: [
          { item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" },
          { item_type: "purl", value: "pkg:pypi/django@4.2.1", min_severity: "high" },
        ],
      },
    });
    expect(res.statusCode).toBe(201);
    // The README's figure: 18 PAN-OS alerts (12 by a range holding 10.2.5, 6 KEV-only "non vérifiable") and 7 Django
    // ones; the snapshot's 18,546 thin CERT-FR records name no product and add none.
    expect(res.json().alertes_creees).toBe(25);
    const alerts = (await t.app.inject({ method: "GET", url: `${base}/alerts?page_size=100`, headers: bearer(key) })).json() as {
      items: { cve_id: string; source: string }[];
      total: number;
    };
    const ids = alerts.items.map((a) => a.cve_id);
    // PAN-OS 10.2.5: CVE-2024-3400 and the later CVE-2024-9468 (< 10.2.9-h11), published long before this run.
    expect(ids).toEqual(expect.arrayContaining(["CVE-2024-3400", "CVE-2024-9468"]));
    // Django 4.2.1, high or critical, from the PyPI advisories in the snapshot (PYSEC-2023-100: 4.2 ≤ v < 4.2.3).
    expect(ids).toContain("CVE-2023-36053");
    expect(alerts.items.filter((a) => a.source.startsWith("purl pkg:pypi/django@4.2.1")).length).toBeGreaterThan(1);
    // KEV-only PAN-OS CVEs (no CVE List or NVD record in the snapshot): told, the version unchecked.
    for (const id of ["CVE-2024-0012", "CVE-2024-9474"]) {
      expect(alerts.items.find((a) => a.cve_id === id)?.source, id).toContain("10.2.5 non vérifiable");
    }
  }, 60_000);
});

describe("the documentation's examples work as written", () => {
  it("the walk-throughs of README.md and docs/ run in order against a fresh server with the bundled snapshot", async () => {
    const server = startServer({ ...asStarted.env, VIGIE_SNAPSHOT: "auto" });
    try {
      await runWalkthrough(await server.ready(120_000), asStarted.env);
      // The snapshot was already imported: this start found it complete, as a user's second start does.
      expect(server.logs.some((l) => l.msg === "instantané importé")).toBe(false);
    } finally {
      await server.stop();
    }
  }, 600_000);
});

describe("a database filled before the snapshot's progress was recorded (CVEs, no progress rows)", () => {
  it("is left alone when its data came from elsewhere, and imported again in full when it came from the snapshot's files", async () => {
    const database = await openTestDatabase();
    const fixture = "test/fixtures/feeds/cve5/CVE-2024-3400.json";
    await importFeed(database.db, "cve5", [fixture]);
    const dir = mkdtempSync(join(tmpdir(), "vigie-snap-"));
    try {
      // A snapshot whose files are not where the data came from: the data is the user's own.
      mkdirSync(join(dir, "other", "cve5"), { recursive: true });
      copyFileSync(fixture, join(dir, "other", "cve5", "CVE-2024-0001.json"));
      expect(await importSnapshotIfEmpty(database.db, createLogger("silent"), join(dir, "other"))).toBeNull();
      expect(await rowsOf(database.db, sql`select * from snapshot_progress`)).toHaveLength(0);
      // The data came from the snapshot's own file: an old, perhaps interrupted, snapshot, imported again.
      mkdirSync(join(dir, "same", "cve5"), { recursive: true });
      copyFileSync(fixture, join(dir, "same", "cve5", "CVE-2024-3400.json"));
      const results = await importSnapshotIfEmpty(database.db, createLogger("silent"), join(dir, "same"));
      expect(results!.map((r) => [r.source, r.read, r.unchanged])).toEqual([["cve5", 1, 1]]);
      const progress = await rowsOf<{ completed_at: unknown }>(database.db, sql`select completed_at from snapshot_progress`);
      expect(progress.length === SOURCES.length && progress.every((p) => p.completed_at)).toBe(true);
      expect(await importSnapshotIfEmpty(database.db, createLogger("silent"), join(dir, "same"))).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

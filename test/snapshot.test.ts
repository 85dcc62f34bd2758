import { describe, expect, it } from "vitest";
import { importSnapshotIfEmpty } from "../src/feeds/snapshot.js";
import { createLogger } from "../src/platform/log.js";
import { bearer, createTenant, createTestApp } from "./helpers.js";

const t = await createTestApp();
const tenant = await createTenant(t);
const get = async (url: string) => (await t.app.inject({ method: "GET", url, headers: bearer(tenant.readKey) })).json();

describe("first start: the bundled snapshot of real data", () => {
  it("is imported into an empty database, every source, and only once", async () => {
    const results = await importSnapshotIfEmpty(t.database.db, createLogger("silent"));
    expect(results!.map((r) => r.source)).toEqual(["cve5", "nvd", "kev", "epss", "poc", "osv", "certfr", "rss"]);
    for (const r of results!) {
      expect(r.read, r.source).toBeGreaterThan(0);
      expect(r.inserted, r.source).toBeGreaterThan(0);
      expect(r.skipped, r.source).toBe(0);
    }
    const panos = await get("/api/v1/cves/CVE-2024-3400");
    expect(panos).toMatchObject({ is_kev: true, epss_publie: true, has_poc: true, cvss_score: 10, severity: "critical" });
    expect(panos.affected.length).toBeGreaterThan(0);
    expect((await get("/api/v1/cves?page_size=1")).total).toBeGreaterThan(5000);
    expect((await get("/api/v1/articles")).total).toBeGreaterThan(50);
    expect((await get("/api/v1/vulnerabilities?source=certfr")).total).toBe(1500);
    expect(await importSnapshotIfEmpty(t.database.db, createLogger("silent"))).toBeNull();
  }, 180_000);
});

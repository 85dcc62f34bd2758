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

  it("the README's stack example raises the alerts of the versions it names, whatever their age", async () => {
    const { key } = await t.services.apiKeys.create({ orgId: tenant.orgId, scopes: ["stacks-write"], projectIds: [] });
    const base = `/api/v1/organizations/${tenant.orgId}/projects/${tenant.projectId}`;
    const res = await t.app.inject({ method: "POST", url: `${base}/stacks`, headers: bearer(key), payload: { name: "Production", items: [
      { item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" },
      { item_type: "purl", value: "pkg:pypi/django@4.2.1", min_severity: "high" },
    ] } });
    expect(res.statusCode).toBe(201);
    const alerts = (await t.app.inject({ method: "GET", url: `${base}/alerts?page_size=100`, headers: bearer(key) })).json() as { items: { cve_id: string; source: string }[]; total: number };
    const ids = alerts.items.map((a) => a.cve_id);
    // PAN-OS 10.2.5: CVE-2024-3400 and the later CVE-2024-9468 (< 10.2.9-h11), published long before this run.
    expect(ids).toEqual(expect.arrayContaining(["CVE-2024-3400", "CVE-2024-9468"]));
    // Django 4.2.1, high or critical, from the PyPI advisories in the snapshot (PYSEC-2023-100: 4.2 ≤ v < 4.2.3).
    expect(ids).toContain("CVE-2023-36053");
    expect(alerts.items.filter((a) => a.source.startsWith("purl pkg:pypi/django@4.2.1")).length).toBeGreaterThan(1);
  }, 60_000);
});

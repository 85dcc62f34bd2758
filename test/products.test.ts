import { describe, expect, it } from "vitest";
import { importFeed } from "../src/feeds/import.js";
import { bearer, createTenant, createTestApp } from "./helpers.js";

// Real records (test/fixtures/matching/SOURCES.md): PAN-OS and Django from the CVE List and OSV.
const t = await createTestApp();
for (const [source, path] of [
  ["cve5", "test/fixtures/matching/cve5-panos.jsonl"],
  ["cve5", "test/fixtures/matching/cve5-django.jsonl"],
  ["cve5", "test/fixtures/matching/cve5-tomcat.jsonl"],
] as const) {
  expect((await importFeed(t.database.db, source, [path])).errors).toEqual([]);
}
const tenant = await createTenant(t);
const suggest = (q: string) =>
  t.app.inject({ method: "GET", url: `/api/v1/products?q=${encodeURIComponent(q)}`, headers: bearer(tenant.readKey) });

async function expected(prefix: string): Promise<{ vendor: string; product: string; cve_count: number }[]> {
  const { rows } = (await t.database.executeSql(
    `select vendor_norm as vendor, product_norm as product, count(distinct cve_id)::int as cve_count from cve_affected
     where vendor_norm is not null and product_norm is not null and (left(product_norm, $2) = $1 or left(vendor_norm, $2) = $1)
     group by 1, 2 order by 3 desc, 1, 2`,
    [prefix, prefix.length],
  )) as { rows: { vendor: string; product: string; cve_count: number }[] };
  return rows;
}

describe("GET /api/v1/products (stack item suggestions)", () => {
  it("finds the corpus's products by the start of their vendor or product name, most CVEs first, with the item to add", async () => {
    for (const q of ["pan", "PAN-OS", "django", "apache", "tom"]) {
      const res = await suggest(q);
      expect(res.statusCode).toBe(200);
      const want = (await expected(q.toLowerCase())).slice(0, 20);
      expect(want.length).toBeGreaterThan(0);
      expect(res.json().map((p: { vendor: string; product: string; cve_count: number }) => [p.vendor, p.product, p.cve_count])).toEqual(
        want.map((p) => [p.vendor, p.product, p.cve_count]),
      );
    }
    const [panos] = (await suggest("pan-os")).json();
    expect(panos).toMatchObject({
      vendor: "palo_alto_networks",
      product: "pan-os",
      item: { item_type: "product", value: "palo_alto_networks:pan-os" },
    });
    // What each spelling covers (issue 34): the sources naming it and its highest CVE ids, as the rows say.
    for (const p of (await suggest("pan-os")).json() as { vendor: string; product: string; origins: string[]; latest_cves: string[] }[]) {
      const { rows } = (await t.database.executeSql(
        `select array_agg(distinct origin order by origin) as origins, (array_agg(distinct cve_id order by cve_id desc))[1:3] as latest
         from cve_affected where vendor_norm = $1 and product_norm = $2`,
        [p.vendor, p.product],
      )) as { rows: { origins: string[]; latest: string[] }[] };
      expect([p.origins, p.latest_cves]).toEqual([rows[0]!.origins, rows[0]!.latest]);
      expect(p.origins.length).toBeGreaterThan(0);
      expect(p.latest_cves.length).toBeGreaterThan(0);
    }
  });

  it("takes LIKE's wildcards literally and validates its query", async () => {
    expect((await suggest("p%")).json()).toEqual([]);
    expect((await suggest("pan%")).json()).toEqual([]);
    expect((await suggest("a")).statusCode).toBe(422);
    expect((await t.app.inject({ method: "GET", url: "/api/v1/products?q=pan&limit=0", headers: bearer(tenant.readKey) })).statusCode).toBe(
      422,
    );
  });
});

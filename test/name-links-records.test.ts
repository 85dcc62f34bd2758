// Issue 33 §3, on real records (test/fixtures/matching/SOURCES.md: cve5-repositories, osv-repositories,
// cve5-editions, cve5-display-names, kev-display-names): a repository's record names its package; a CNA
// display name with edition words is its CPE product; a KEV product a CNA gives versions of under its
// display name (vendor "n/a") is decided on them, update-style versions included.
import { describe, expect, it } from "vitest";
import { importFeed } from "../src/feeds/import.js";
import { nameTails, productBase } from "../src/matching/names.js";
import { createTestApp, tenantWithScopes } from "./helpers.js";

const t = await createTestApp();
const db = t.database.db;
const MATCH = "test/fixtures/matching";

interface Alert {
  cve_id: string;
  source: string;
  correspondance: { rule: string; origin: string | null; range: string | null; value: string };
}

async function load(source: "cve5" | "kev" | "osv", file: string) {
  expect((await importFeed(db, source, [`${MATCH}/${file}`])).errors).toEqual([]);
}

/** A fresh organization whose project watches these items; its alerts by "item CVE". */
async function watching(name: string, items: { item_type: string; value: string }[]) {
  const tenant = await tenantWithScopes(t, name, ["stacks-write"]);
  const res = await tenant.call("POST", "/stacks", { name: "s", items });
  expect(res.statusCode).toBe(201);
  const r = await tenant.call("GET", "/alerts?page_size=100");
  expect(r.statusCode).toBe(200);
  return new Map((r.json() as { items: Alert[] }).items.map((a) => [`${a.correspondance.value} ${a.cve_id}`, a]));
}
const keys = (m: Map<string, Alert>) => [...m.keys()].sort();

// Items watched before the records arrive: the changed CVEs find them (the other side of each link).
const early = await watching("Early", [
  { item_type: "purl", value: "pkg:pypi/urllib3@2.1.0" },
  { item_type: "product", value: "f5:nginx@1.26.1" },
  { item_type: "cpe", value: "cpe:2.3:a:vmware:vcenter_server:7.0:update3r:*:*:*:*:*:*" },
]);
expect(early.size).toBe(0);
await load("cve5", "cve5-repositories.jsonl");
await load("cve5", "cve5-editions.jsonl");
await load("cve5", "cve5-display-names.jsonl");
await load("kev", "kev-display-names.json");

describe("a package meets the record of its GitHub repository (GitHub's CNA names owner:repository and links its advisory)", () => {
  it("requests, urllib3 and a Go module alert within the CNA's ranges only, whichever side arrives first", async () => {
    // CVE-2024-35195 psf:requests "< 2.32.0"; CVE-2024-37891 urllib3:urllib3 "< 1.26.19", ">= 2.0.0, < 2.2.2";
    // CVE-2023-44399 zitadel:zitadel "< 2.37.3". No advisory of these packages is loaded.
    const hits = await watching("Repositories", [
      { item_type: "purl", value: "pkg:pypi/requests@2.31.0" },
      { item_type: "purl", value: "pkg:pypi/urllib3@1.26.18" },
      { item_type: "purl", value: "pkg:golang/github.com/zitadel/zitadel/v2@v2.37.2" },
    ]);
    expect(keys(hits)).toEqual([
      "pkg:golang/github.com/zitadel/zitadel/v2@v2.37.2 CVE-2023-44399",
      "pkg:pypi/requests@2.31.0 CVE-2024-35195",
      "pkg:pypi/urllib3@1.26.18 CVE-2024-37891",
    ]);
    expect(hits.get("pkg:pypi/requests@2.31.0 CVE-2024-35195")!.correspondance).toMatchObject({
      rule: "version_range",
      origin: "cna",
      range: "]*, 2.32.0[",
    });
    expect(
      keys(
        await watching("Repositories fixed", [
          { item_type: "purl", value: "pkg:pypi/requests@2.32.0" },
          { item_type: "purl", value: "pkg:pypi/urllib3@2.2.2" },
          { item_type: "purl", value: "pkg:pypi/urllib3@1.26.19" },
          { item_type: "purl", value: "pkg:golang/github.com/zitadel/zitadel/v2@v2.37.3" },
        ]),
      ),
    ).toEqual([]);
    // The item was there first: the CVE's arrival found it.
    const r = await t.database.executeSql("select a.cve_id, a.source from alerts a where a.source like $1", [
      "purl pkg:pypi/urllib3@2.1.0%",
    ]);
    expect((r as { rows: { cve_id: string }[] }).rows.map((x) => x.cve_id)).toEqual(["CVE-2024-37891"]);
  });

  it("a package of the same name that lives elsewhere is not the repository's: another ecosystem, another Go module, PyPI redis (redis-py)", async () => {
    // The npm request, the crate urllib3 and the Go module github.com/ory/hydra are not these repositories;
    // CVE-2023-38701 is input-output-hk/hydra (< 0.12.0), CVE-2022-24834 the Redis server ([7.0.0, 7.0.12[…).
    await load("osv", "osv-repositories.jsonl");
    const hits = await watching("Same names", [
      { item_type: "purl", value: "pkg:golang/github.com/ory/hydra@v0.11.0" },
      { item_type: "purl", value: "pkg:pypi/redis@7.0.5" },
      { item_type: "purl", value: "pkg:pypi/requests@2.31.0" },
    ]);
    // PYSEC-2023-45 links redis/redis-py: PyPI redis is not redis/redis. PYSEC-2023-74 links psf/requests: the
    // record still names requests' repository (and that advisory, fixed in 2.31.0, does not hold 2.31.0).
    expect(keys(hits)).toEqual(["pkg:pypi/requests@2.31.0 CVE-2024-35195"]);
  });

  it("the CISA ADP's npm request (node.js) range does not reach the PyPI package; the CNA's does", async () => {
    const hits = await watching("Requests old", [{ item_type: "purl", value: "pkg:pypi/requests@2.3.0" }]);
    expect(keys(hits)).toEqual(["pkg:pypi/requests@2.3.0 CVE-2023-32681", "pkg:pypi/requests@2.3.0 CVE-2024-35195"]);
    expect(hits.get("pkg:pypi/requests@2.3.0 CVE-2023-32681")!.correspondance).toMatchObject({ rule: "osv_range" });
  });
});

describe("a CNA display name that is the CPE product and edition words, under the same vendor", () => {
  it('"NGINX Open Source" of F5 is f5:nginx: CVE-2024-7347 [1.5.13, 1.26.2[ and [1.27.0, 1.27.1[; NGINX Plus keeps its own rows', async () => {
    // CVE-2024-7347 has no CPE of nginx (no ADP, no NVD); CVE-2024-31079 [1.25.0, 1.26.1[ has the ADP's f5:nginx.
    const r = await t.database.executeSql("select a.cve_id from alerts a where a.source like $1 order by 1", ["product f5:nginx@1.26.1%"]);
    expect((r as { rows: { cve_id: string }[] }).rows.map((x) => x.cve_id)).toEqual(["CVE-2024-7347"]);
    const hits = await watching("NGINX", [{ item_type: "product", value: "f5:nginx@1.25.3" }]);
    expect(keys(hits)).toEqual(["f5:nginx@1.25.3 CVE-2024-31079", "f5:nginx@1.25.3 CVE-2024-7347"]);
    expect(hits.get("f5:nginx@1.25.3 CVE-2024-31079")!.correspondance).toMatchObject({ origin: "cna", range: "[1.25.0, 1.26.1[" });
    expect(keys(await watching("NGINX 1.27.0", [{ item_type: "cpe", value: "cpe:2.3:a:f5:nginx:1.27.0:*:*:*:*:*:*:*" }]))).toEqual([
      "cpe:2.3:a:f5:nginx:1.27.0:*:*:*:*:*:*:* CVE-2024-7347",
    ]);
    for (const v of ["1.26.2", "1.27.1", "1.5.12"])
      expect(keys(await watching(`NGINX ${v}`, [{ item_type: "product", value: `f5:nginx@${v}` }])), v).toEqual([]);
    // NGINX Plus's own rows are its own: R30 is in CVE-2024-31079's [R30, R32[ and CVE-2024-7347's [R4, R31 P3[.
    expect(keys(await watching("NGINX Plus", [{ item_type: "product", value: "f5:nginx_plus@r30" }]))).toEqual([
      "f5:nginx_plus@r30 CVE-2024-31079",
      "f5:nginx_plus@r30 CVE-2024-7347",
    ]);
  });

  it('"Jira Service Management Server" is jira_service_management, "UvDesk Community" uvdesk; another vendor\'s or a vendor-less one is not', async () => {
    // CVE-2021-43943: < 4.21.0 (no CPE in the record); CVE-2024-0916: [1.0.0, 1.1.3].
    const hits = await watching("Editions", [
      { item_type: "product", value: "atlassian:jira_service_management@4.20.0" },
      { item_type: "product", value: "webkul:uvdesk@1.1.3" },
    ]);
    expect(keys(hits)).toEqual(["atlassian:jira_service_management@4.20.0 CVE-2021-43943", "webkul:uvdesk@1.1.3 CVE-2024-0916"]);
    // One project each: a project has one alert per CVE, whichever item raised it.
    for (const value of [
      "atlassian:jira_service_management@4.21.0",
      "acme:jira_service_management@4.20.0",
      "jira_service_management@4.20.0",
      "webkul:uvdesk@1.1.4",
    ])
      expect(keys(await watching(`Editions ${value}`, [{ item_type: "product", value }])), value).toEqual([]);
  });

  it("the SQL twins fold every name of these records as names.ts does", async () => {
    const { rows } = (await t.database.executeSql(
      "select vendor_norm, product_norm, vigie_product_base(vendor_norm, product_norm) as base, vigie_name_tails(product_norm) as tails from cve_affected where product_norm is not null",
    )) as { rows: { vendor_norm: string | null; product_norm: string; base: string | null; tails: string[] }[] };
    expect(rows.filter((r) => r.base !== null).length).toBeGreaterThan(3);
    for (const r of rows) {
      expect(r.base, `${r.vendor_norm} / ${r.product_norm}`).toBe(productBase(r.vendor_norm, r.product_norm));
      expect(r.tails, r.product_norm).toEqual(nameTails(r.product_norm));
    }
  });
});

describe("KEV decides nothing where a CNA gives versions under the display name (vendor n/a)", () => {
  it("vCenter CVE-2024-38812/38813: 7.0 U3r and 8.0 U3a (CPE update field) are in the CNA's ranges, 8.0 U3b and 7.0 U3s are not", async () => {
    // The early item (7.0 update3r) was found when the records arrived, by the CNA's range, not "non vérifiable".
    const r = await t.database.executeSql(
      "select a.cve_id, a.match->>'rule' as rule, a.match->>'range' as range from alerts a where a.source like $1 order by 1",
      ["cpe cpe:2.3:a:vmware:vcenter_server:7.0:update3r%"],
    );
    expect((r as { rows: unknown[] }).rows).toEqual([
      { cve_id: "CVE-2024-38812", rule: "version_range", range: "[7.0, 7.0 U3s[" },
      { cve_id: "CVE-2024-38813", rule: "version_range", range: "[7.0, 7.0 U3s[" },
    ]);
    const hits = await watching("vCenter", [{ item_type: "cpe", value: "cpe:2.3:a:vmware:vcenter_server:8.0:update3a:*:*:*:*:*:*" }]);
    expect(keys(hits)).toEqual([
      "cpe:2.3:a:vmware:vcenter_server:8.0:update3a:*:*:*:*:*:* CVE-2024-38812",
      "cpe:2.3:a:vmware:vcenter_server:8.0:update3a:*:*:*:*:*:* CVE-2024-38813",
    ]);
    for (const a of hits.values())
      expect(a.correspondance).toMatchObject({ rule: "version_range", origin: "cna", range: "[8.0, 8.0 U3b[" });
    for (const v of ["8.0:update3b", "7.0:update3s", "6.7:update3t"])
      expect(
        keys(await watching(`vCenter ${v}`, [{ item_type: "cpe", value: `cpe:2.3:a:vmware:vcenter_server:${v}:*:*:*:*:*:*` }])),
        v,
      ).toEqual([]);
  });

  it("DrayTek VigorConnect CVE-2021-20123: 1.6.0 beta 3 is the version the CNA names; the 1.6.0 release is not, and is not told unchecked", async () => {
    const hits = await watching("VigorConnect", [{ item_type: "cpe", value: "cpe:2.3:a:draytek:vigorconnect:1.6.0:beta3:*:*:*:*:*:*" }]);
    expect(keys(hits)).toEqual(["cpe:2.3:a:draytek:vigorconnect:1.6.0:beta3:*:*:*:*:*:* CVE-2021-20123"]);
    expect([...hits.values()][0]!.correspondance).toMatchObject({ rule: "version_range", origin: "cna" });
    expect(keys(await watching("VigorConnect 1.6.0", [{ item_type: "product", value: "draytek:vigorconnect@1.6.0" }]))).toEqual([]);
  });
});

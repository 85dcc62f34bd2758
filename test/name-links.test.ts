// Names linked without learned evidence, packages linked only through evidence of their ecosystem,
// and the "unversioned" rule kept for products no source gives a range for — on real records
// (test/fixtures/matching/SOURCES.md: cve5-names, nvdcve-1.1-*-names, kev-names, cve5/osv-django).
import { describe, expect, it } from "vitest";
import { importFeed } from "../src/feeds/import.js";
import { MATCH_RULES } from "../src/matching/decide.js";
import { productCore } from "../src/matching/names.js";
import { bearer, createTestApp, tenantWithScopes } from "./helpers.js";

const t = await createTestApp();
const db = t.database.db;
const MATCH = "test/fixtures/matching";

interface Alert {
  cve_id: string;
  source: string;
  correspondance: { rule: string; origin: string | null; range: string | null; value: string };
}

async function load(source: "cve5" | "nvd" | "kev" | "osv", file: string) {
  expect((await importFeed(db, source, [`${MATCH}/${file}`])).errors).toEqual([]);
}

/** A fresh organization whose project watches these items; returns its alerts by CVE. */
async function watching(name: string, items: { item_type: string; value: string }[]) {
  const tenant = await tenantWithScopes(t, name, ["stacks-write"]);
  const res = await tenant.call("POST", "/stacks", { name: "s", items });
  expect(res.statusCode).toBe(201);
  const alerts = async (query = "") => {
    const r = await tenant.call("GET", `/alerts?page_size=100${query}`);
    expect(r.statusCode).toBe(200);
    return r.json() as { items: Alert[]; total: number };
  };
  const byCve = async () => new Map((await alerts()).items.map((a) => [`${a.correspondance.value} ${a.cve_id}`, a]));
  return { tenant, alerts, byCve };
}

// Airflow: the item is there before the records (the CVE side finds it), FortiClient EMS after (the item side).
const early = await watching("Airflow early", [{ item_type: "product", value: "apache:airflow@2.7.1" }]);
await load("cve5", "cve5-names.jsonl");
await load("nvd", "nvdcve-1.1-2018-names.json");
await load("nvd", "nvdcve-1.1-2021-names.json");
await load("nvd", "nvdcve-1.1-2025-names.json");
await load("kev", "kev-names.json");

describe("a CNA display name carrying its vendor meets the CPE-style item", () => {
  it('"Apache Airflow" of "Apache Software Foundation" is apache:airflow, from either side, within its ranges only', async () => {
    // CVE-2023-45348: [2.7.0, 2.7.2[; CVE-2024-27906: < 2.8.2. No CPE data names airflow in these records.
    const hits = await early.byCve();
    expect([...hits.keys()].sort()).toEqual(["apache:airflow@2.7.1 CVE-2023-45348", "apache:airflow@2.7.1 CVE-2024-27906"]);
    expect(hits.get("apache:airflow@2.7.1 CVE-2023-45348")!.correspondance).toMatchObject({
      rule: "version_range",
      origin: "cna",
      range: "[2.7.0, 2.7.2[",
    });
    // One project each: alerts are one per project and CVE.
    const late = async (value: string, item_type = "product") => [
      ...(await (await watching(`Airflow ${value}`, [{ item_type, value }])).byCve()).keys(),
    ];
    expect((await late("apache:airflow@2.7.1")).sort()).toEqual([
      "apache:airflow@2.7.1 CVE-2023-45348",
      "apache:airflow@2.7.1 CVE-2024-27906",
    ]);
    expect(await late("cpe:2.3:a:apache:airflow:2.8.1:*:*:*:*:*:*:*", "cpe")).toEqual([
      "cpe:2.3:a:apache:airflow:2.8.1:*:*:*:*:*:*:* CVE-2024-27906",
    ]);
    expect(await late("apache:airflow@2.8.2")).toEqual([]);
  });

  it("a bare product follows a folded name only when it lost no vendor word; another vendor's product of that name is not it", async () => {
    const bare = await watching("Airflow bare", [
      { item_type: "product", value: "airflow@2.7.1" },
      { item_type: "product", value: "forticlient-ems@7.0.5" },
      { item_type: "product", value: "google:airflow@2.7.1" },
    ]);
    expect([...(await bare.byCve()).keys()]).toEqual(["forticlient-ems@7.0.5 CVE-2023-48788"]);
  });

  it("the SQL twin folds every name of these records as names.ts does", async () => {
    const { rows } = (await t.database.executeSql(
      "select vendor_norm, product_norm, vigie_product_core(vendor_norm, product_norm) as core from cve_affected where product_norm is not null",
    )) as { rows: { vendor_norm: string | null; product_norm: string; core: string | null }[] };
    expect(rows.length).toBeGreaterThan(50);
    for (const r of rows) expect(r.core, `${r.vendor_norm} / ${r.product_norm}`).toBe(productCore(r.vendor_norm, r.product_norm));
  });
});

describe("a package meets CPE data only through evidence of its ecosystem", () => {
  it("the crate tar is not GNU tar nor the npm tar; the crate office is not Microsoft Office", async () => {
    // CVE-2021-38511: tar_project:tar < 0.4.36, target_sw rust; CVE-2018-20482: gnu:tar ≤ 1.30;
    // CVE-2021-37701: npmjs:tar < 4.4.17, [5.0.0, 5.0.9[, [6.0.0, 6.1.8[, node.js; CVE-2025-21338: microsoft:office < 16.93… (macOS).
    const w = await watching("Crates", [
      { item_type: "purl", value: "pkg:cargo/tar@0.4.26" },
      { item_type: "purl", value: "pkg:cargo/office@0.8.1" },
    ]);
    const hits = await w.byCve();
    expect([...hits.keys()]).toEqual(["pkg:cargo/tar@0.4.26 CVE-2021-38511"]);
    expect(hits.get("pkg:cargo/tar@0.4.26 CVE-2021-38511")!.correspondance).toMatchObject({ rule: "version_range", origin: "nvd" });
    const npm = await watching("npm tar", [{ item_type: "purl", value: "pkg:npm/tar@6.1.0" }]);
    expect([...(await npm.byCve()).keys()]).toEqual(["pkg:npm/tar@6.1.0 CVE-2021-37701"]);
  });

  it("Django's CPE ranges count once an advisory of the PyPI package stands beside djangoproject:django in a record", async () => {
    // CVE-2021-35042 (NVD djangoproject:django [3.2, 3.2.5[) has no advisory here: the name alone links nothing.
    const before = await watching("Django before", [{ item_type: "purl", value: "pkg:pypi/django@3.2.4" }]);
    expect((await before.alerts()).total).toBe(0);
    // PYSEC-2023-100 names CVE-2023-36053, whose CISA ADP entry gives cpe djangoproject:django.
    await load("cve5", "cve5-django.jsonl");
    await load("osv", "osv-django.jsonl");
    const after = await watching("Django after", [{ item_type: "purl", value: "pkg:pypi/django@3.2.4" }]);
    const hits = await after.byCve();
    // Beside the advisories' own CVEs (CVE-2023-36053: 3.2 < 3.2.20, CVE-2023-31047: 3.2 < 3.2.19).
    expect([...hits.keys()].sort()).toEqual([
      "pkg:pypi/django@3.2.4 CVE-2021-35042",
      "pkg:pypi/django@3.2.4 CVE-2023-31047",
      "pkg:pypi/django@3.2.4 CVE-2023-36053",
    ]);
    expect(hits.get("pkg:pypi/django@3.2.4 CVE-2023-36053")!.correspondance).toMatchObject({ rule: "osv_range" });
    expect(hits.get("pkg:pypi/django@3.2.4 CVE-2021-35042")!.correspondance).toMatchObject({
      rule: "version_range",
      range: "[3.2, 3.2.5[",
    });
  });
});

describe("KEV's version-less statement decides only when no source, under any linked name, gives a range", () => {
  it("Sudo CVE-2021-3156: NVD's sudo_project:sudo < 1.9.5 decides for sudo:sudo; FortiClient EMS CVE-2023-48788: the CNA's FortiClientEMS ranges", async () => {
    const w = await watching("KEV", [
      { item_type: "product", value: "sudo:sudo@1.9.4" },
      { item_type: "product", value: "sudo:sudo@1.9.12" },
      { item_type: "product", value: "fortinet:forticlient_ems@7.0.5" },
      { item_type: "product", value: "fortinet:forticlient_ems@7.2.4" },
    ]);
    const hits = await w.byCve();
    expect([...hits.keys()].sort()).toEqual(["fortinet:forticlient_ems@7.0.5 CVE-2023-48788", "sudo:sudo@1.9.4 CVE-2021-3156"]);
    expect(hits.get("sudo:sudo@1.9.4 CVE-2021-3156")!.correspondance).toMatchObject({ rule: "version_range", origin: "nvd" });
    expect(hits.get("fortinet:forticlient_ems@7.0.5 CVE-2023-48788")!.correspondance).toMatchObject({
      rule: "version_range",
      origin: "cna",
      range: "[7.0.1, 7.0.10]",
    });
  });

  it("a product KEV alone names is still told, its version unchecked (CVE-2024-0012: no record but KEV's here)", async () => {
    const w = await watching("KEV alone", [{ item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" }]);
    const [alert, ...rest] = (await w.alerts()).items;
    expect(rest).toEqual([]);
    expect(alert).toMatchObject({ cve_id: "CVE-2024-0012", correspondance: { rule: "unversioned", origin: "kev" } });
    expect(alert!.source).toContain("version 10.2.5 non vérifiable — KEV (exploitée) nomme le produit sans versions");
  });
});

describe("GET alerts?rule=", () => {
  it("selects the alerts of these rules, only the project's; an unknown rule is a 422", async () => {
    const a = await watching("Rules A", [
      { item_type: "product", value: "apache:airflow@2.7.1" },
      { item_type: "purl", value: "pkg:cargo/tar@0.4.26" },
      { item_type: "cve", value: "CVE-2021-3156" },
      { item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" },
    ]);
    const b = await watching("Rules B", [{ item_type: "product", value: "apache:airflow@2.7.1" }]);
    const ids = (x: { items: Alert[] }) => x.items.map((i) => i.cve_id).sort();
    expect(ids(await a.alerts("&rule=version_range"))).toEqual(["CVE-2021-38511", "CVE-2023-45348", "CVE-2024-27906"]);
    expect(ids(await a.alerts("&rule=cve"))).toEqual(["CVE-2021-3156"]);
    expect(ids(await a.alerts("&rule=cve&rule=version_range"))).toHaveLength(4);
    expect(ids(await a.alerts("&rule=unversioned"))).toEqual(["CVE-2024-0012"]);
    expect(await a.alerts("&rule=default_status")).toMatchObject({ items: [], total: 0 });
    // Another organization's alerts of the same rule and CVEs never appear.
    expect(ids(await b.alerts("&rule=version_range"))).toEqual(["CVE-2023-45348", "CVE-2024-27906"]);
    const other = await t.app.inject({
      method: "GET",
      url: `/api/v1/organizations/${b.tenant.orgId}/projects/${b.tenant.projectId}/alerts?rule=version_range`,
      headers: bearer(a.tenant.key),
    });
    expect(other.statusCode).toBe(404);
    const bad = await a.tenant.call("GET", "/alerts?rule=exact");
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0]).toMatchObject({ type: "literal_error", loc: ["query", "rule", 0], input: "exact" });
    expect(bad.json().detail[0].msg).toBe(
      `Input should be ${MATCH_RULES.slice(0, -1)
        .map((r) => `'${r}'`)
        .join(", ")} or '${MATCH_RULES.at(-1)}'`,
    );
  });
});

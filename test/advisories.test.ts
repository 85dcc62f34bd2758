import { describe, expect, it } from "vitest";
import { importFeed } from "../src/feeds/import.js";
import { bearer, createTenant, createTestApp } from "./helpers.js";

/**
 * Data truths on real records (issue 9, section 5): advisory-only CVEs and advisories naming no CVE
 * alert; KEV's vendor and product are affected products; scores from advisories; `signaux`; the
 * CVE list's vendor filter. Fixtures: test/fixtures/advisories (see its SOURCES.md) and the import
 * and matching fixtures.
 */
const t = await createTestApp();
const db = t.database.db;
const ADV = "test/fixtures/advisories";
const IMPORT = "test/fixtures/import";
const MATCH = "test/fixtures/matching";
const SCOPES = ["stacks-write", "alerts-write", "tags-write"];

interface Alert {
  id: string;
  cve_id: string;
  severity: string;
  cvss_score: number | null;
  is_kev: boolean;
  is_read: boolean;
  source: string;
  description: string | null;
  vendor: string | null;
  product: string | null;
  aliases: string[];
  tags: { id: string; name: string }[];
  correspondance: Record<string, unknown>;
}

async function tenant(name: string, items: { item_type: string; value: string }[]) {
  const tn = await createTenant(t, { name });
  const { key } = await t.services.apiKeys.create({ orgId: tn.orgId, scopes: SCOPES, projectIds: [] });
  const base = `/api/v1/organizations/${tn.orgId}/projects/${tn.projectId}`;
  const call = (method: "GET" | "POST" | "PATCH", path: string, payload?: object) =>
    t.app.inject({ method, url: `${base}${path}`, headers: bearer(key), ...(payload && { payload }) });
  const res = await call("POST", "/stacks", { name: "Production", items });
  expect(res.statusCode).toBe(201);
  const alerts = async () => ((await call("GET", "/alerts?page_size=100")).json() as { items: Alert[] }).items;
  return { ...tn, call, alerts, ids: async () => (await alerts()).map((a) => a.cve_id).sort() };
}

const get = async (url: string) => {
  const res = await t.app.inject({ method: "GET", url, headers: bearer((await reader).readKey) });
  return { status: res.statusCode, body: res.json() };
};
const reader = createTenant(t, { name: "Reader" });

async function load(source: Parameters<typeof importFeed>[1], path: string) {
  const r = await importFeed(db, source, [path]);
  expect(r.errors).toEqual([]);
  return r;
}

const DJANGO = ["CVE-2023-41164", "CVE-2023-43665", "CVE-2023-46695", "CVE-2024-24680"];

describe("advisories raise alerts", () => {
  it("a CVE known only from PYSEC advisories gets a record and alerts Django 4.2.1", async () => {
    const a = await tenant("Django", [{ item_type: "purl", value: "pkg:pypi/django@4.2.1" }]);
    await load("osv", `${ADV}/osv-django-advisory-only.jsonl`);
    expect(await a.ids()).toEqual(DJANGO);
    const alert = (await a.alerts()).find((x) => x.cve_id === "CVE-2023-41164")!;
    expect(alert.source).toBe("purl pkg:pypi/django@4.2.1 : version 4.2.1 dans [4.2, 4.2.5[ (PYSEC-2023-225)");
    expect(alert.aliases).toContain("PYSEC-2023-225");
    expect(alert.description).toMatch(/^In Django 3\.2 before 3\.2\.21/);

    const { body: cve } = await get("/api/v1/cves/CVE-2023-41164");
    expect(cve).toMatchObject({
      cve_id: "CVE-2023-41164",
      state: "PUBLISHED",
      sources: ["pysec"],
      fusion_de: ["PYSEC-2023-225"],
      date_published: "2023-11-03T05:15:00.000Z",
      vendor: "PyPI",
      product: "django",
      // PYSEC gives no CVSS vector: unscored, not invented.
      severity: "unknown",
      cvss_score: null,
      cvss_source: null,
    });
    expect(cve.description).toMatch(/django\.utils\.encoding\.uri_to_iri\(\) is subject to a potential DoS/);
    expect(cve.affected).toContainEqual({
      origin: "osv",
      vendor: "PyPI",
      product: "django",
      version_from: "4.2",
      version_from_inclusive: true,
      version_to: "4.2.5",
      version_to_inclusive: false,
      version_status: "affected",
      cpe: null,
    });
    // Listed and resolved like any CVE.
    expect((await get("/api/v1/cves?q=CVE-2024-24680")).body.total).toBe(1);
    expect((await get("/api/v1/cves/PYSEC-2024-28")).body.cve_id).toBe("CVE-2024-24680");
  });

  it("when the CVE List record arrives later it takes precedence, and the alert is not raised twice", async () => {
    const a = await tenant("Django later", [{ item_type: "purl", value: "pkg:pypi/django@4.2.1" }]);
    await load("osv", `${MATCH}/osv-django.jsonl`);
    const before = (await a.alerts()).find((x) => x.cve_id === "CVE-2023-36053")!;
    expect((await get("/api/v1/cves/CVE-2023-36053")).body.sources).toEqual(["pysec"]);
    await load("cve5", `${MATCH}/cve5-django.jsonl`);
    const { body: cve } = await get("/api/v1/cves/CVE-2023-36053");
    expect(cve.sources).toEqual(["cve5", "pysec"]);
    expect(cve.date_published).toBe("2023-07-03T00:00:00.000Z");
    expect(cve.affected.some((x: { product: string; cpe: string | null }) => x.cpe !== null || x.product !== "django")).toBe(true);
    const after = (await a.alerts()).filter((x) => x.cve_id === "CVE-2023-36053");
    expect(after.map((x) => x.id)).toEqual([before.id]);
  });

  it("an advisory naming no CVE alerts under its own id, with its score", async () => {
    const a = await tenant("Rust", [
      { item_type: "purl", value: "pkg:cargo/async-graphql@4.0.5" },
      { item_type: "purl", value: "pkg:cargo/async-graphql@4.0.6" },
    ]);
    await load("osv", `${ADV}/RUSTSEC-2022-0037.json`);
    const [alert, ...rest] = await a.alerts();
    expect(rest).toEqual([]);
    expect(alert).toMatchObject({
      cve_id: "RUSTSEC-2022-0037",
      aliases: ["GHSA-xq3c-8gqm-v648"],
      severity: "high",
      cvss_score: 7.5,
      vendor: "crates.io",
      product: "async-graphql",
    });
    expect(alert!.source).toBe("purl pkg:cargo/async-graphql@4.0.5 : version 4.0.5 dans [0.0.0-0, 4.0.6[ (RUSTSEC-2022-0037)");
    const { body } = await get("/api/v1/cves/RUSTSEC-2022-0037");
    expect(body).toMatchObject({
      cve_id: "RUSTSEC-2022-0037",
      severity: "high",
      cvss_score: 7.5,
      cvss_version: "3.1",
      cvss_source: "rustsec:RUSTSEC-2022-0037",
      cvss_vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H",
      description: expect.stringMatching(/^Denial of service on deeply nested fragment requests/),
    });
  });
});

describe("an advisory that gains a CVE alias", () => {
  it("its alerts become the CVE's (same alert, read state, tags), never a second alert", async () => {
    const log4j = { item_type: "purl", value: "pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1" };
    const a = await tenant("Log4j A", [log4j]);
    // B also watches the CVE itself: it will already hold the CVE's alert when the alias appears.
    const b = await tenant("Log4j B", [log4j, { item_type: "cve", value: "CVE-2021-44228" }]);
    await load("kev", `${IMPORT}/kev-sample.json`);
    expect(await b.ids()).toEqual(["CVE-2021-44228"]);
    // KEV alone gives no score.
    expect((await get("/api/v1/cves/CVE-2021-44228")).body).toMatchObject({ severity: "unknown", cvss_score: null });

    // The GHSA as first published, before its CVE alias (derived: see SOURCES.md).
    await load("osv", `${ADV}/GHSA-jfh8-c2jp-5v3q.before-cve-alias.json`);
    expect(await a.ids()).toEqual(["GHSA-jfh8-c2jp-5v3q"]);
    expect(await b.ids()).toEqual(["CVE-2021-44228", "GHSA-jfh8-c2jp-5v3q"]);
    const first = (await a.alerts())[0]!;
    expect(first).toMatchObject({ severity: "critical", cvss_score: 10 });
    expect((await a.call("PATCH", `/alerts/${first.id}`, { is_read: true })).statusCode).toBe(200);
    const tag = (await b.call("POST", "/tags", { name: "log4shell", color: "#ff0000" })).json() as { id: string };
    const bGhsa = (await b.alerts()).find((x) => x.cve_id === "GHSA-jfh8-c2jp-5v3q")!;
    expect((await b.call("POST", `/alerts/${bGhsa.id}/tags`, { tag_id: tag.id })).statusCode).toBeLessThan(300);

    // The advisory as published now: it names CVE-2021-44228.
    await load("osv", "test/fixtures/feeds/osv/GHSA-jfh8-c2jp-5v3q.json");
    const now = await a.alerts();
    expect(now).toHaveLength(1);
    expect(now[0]).toMatchObject({ id: first.id, cve_id: "CVE-2021-44228", is_read: true, is_kev: true, severity: "critical" });
    expect(now[0]!.aliases).toContain("GHSA-jfh8-c2jp-5v3q");
    const bNow = await b.alerts();
    expect(bNow.map((x) => x.cve_id)).toEqual(["CVE-2021-44228"]);
    expect(bNow[0]!.tags.map((x) => x.name)).toEqual(["log4shell"]);
    // The advisory's own record is gone: its id resolves to the CVE.
    expect((await get("/api/v1/cves/GHSA-jfh8-c2jp-5v3q")).body.cve_id).toBe("CVE-2021-44228");
  });

  it("scores: no CVE-record source scores CVE-2021-44228, so the GHSA's CVSS 3.1 vector does, with its provenance", async () => {
    const { body } = await get("/api/v1/cves/CVE-2021-44228");
    expect(body).toMatchObject({
      severity: "critical",
      cvss_score: 10,
      cvss_version: "3.1",
      cvss_source: "ghsa:GHSA-jfh8-c2jp-5v3q",
      cvss_vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H",
      is_kev: true,
    });
    expect((await get("/api/v1/cves?min_cvss=9.5&is_kev=true")).body.items.map((c: { cve_id: string }) => c.cve_id)).toContain(
      "CVE-2021-44228",
    );
  });

  it("signaux: a KEV CVE's advisory says kev", async () => {
    const { body } = await get("/api/v1/vulnerabilities/GHSA-jfh8-c2jp-5v3q");
    expect(body.signaux).toContain("kev");
    const list = (await get("/api/v1/vulnerabilities?q=CVE-2021-44228")).body;
    expect(list.items[0].signaux).toContain("kev");
    // PYSEC-2023-225's CVE is in no KEV: no signal.
    expect((await get("/api/v1/vulnerabilities/PYSEC-2023-225")).body.signaux).toEqual([]);
  });
});

describe("KEV names products", () => {
  it("KEV-only CVEs alert version-less items; a versioned item is told its version could not be checked, unless another source's ranges exclude it", async () => {
    const every = await tenant("PAN-OS every version", [{ item_type: "product", value: "paloaltonetworks:pan-os" }]);
    const vendor = await tenant("Palo Alto vendor", [{ item_type: "vendor", value: "Palo Alto Networks" }]);
    const v1025 = await tenant("PAN-OS 10.2.5", [{ item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" }]);
    await load("cve5", `${IMPORT}/cve5-sample.jsonl`);
    await load("kev", `${ADV}/kev-panos.json`);
    const KEV_ONLY = ["CVE-2024-0012", "CVE-2024-3393", "CVE-2024-9474"];
    expect((await get("/api/v1/cves/CVE-2024-0012")).body.affected).toEqual([
      {
        origin: "kev",
        vendor: "Palo Alto Networks",
        product: "PAN-OS",
        version_from: null,
        version_from_inclusive: true,
        version_to: null,
        version_to_inclusive: true,
        version_status: "affected",
        cpe: null,
      },
    ]);
    // CVE-2024-3400 (KEV since kev-sample, CVE List ranges) alerts all three.
    expect(await every.ids()).toEqual(["CVE-2024-0012", "CVE-2024-3393", "CVE-2024-3400", "CVE-2024-9474"]);
    expect(await vendor.ids()).toEqual(["CVE-2024-0012", "CVE-2024-3393", "CVE-2024-3400", "CVE-2024-9474"]);
    expect(await v1025.ids()).toEqual(["CVE-2024-0012", "CVE-2024-3393", "CVE-2024-3400", "CVE-2024-9474"]);
    const unchecked = (await v1025.alerts()).find((x) => x.cve_id === "CVE-2024-0012")!;
    expect(unchecked.correspondance).toMatchObject({ rule: "unversioned", origin: "kev", version: "10.2.5" });
    expect(unchecked.source).toBe(
      "product paloaltonetworks:pan-os@10.2.5 : version 10.2.5 non vérifiable — KEV (exploitée) nomme le produit sans versions et aucune source ne donne de plage",
    );
    expect(unchecked).toMatchObject({ is_kev: true, vendor: "Palo Alto Networks", product: "PAN-OS" });
    // An item added afterwards (KEV CVEs are always in the backfill): 10.2.9-h1 is past CVE-2024-3400's
    // fix in the CVE List ranges, so KEV naming PAN-OS does not alert it; the KEV-only ones do.
    const patched = await tenant("PAN-OS 10.2.9-h1", [{ item_type: "product", value: "paloaltonetworks:pan-os@10.2.9-h1" }]);
    expect(await patched.ids()).toEqual(KEV_ONLY);
  });

  it("the CVE list's vendor and product filters compare names as matching does", async () => {
    await load("nvd", `${ADV}/nvdcve-1.1-2018-CVE-2018-7636.json`);
    const ids = async (q: string) =>
      ((await get(`/api/v1/cves?page_size=100&${q}`)).body.items as { cve_id: string }[]).map((c) => c.cve_id).sort();
    const all = ["CVE-2018-7636", "CVE-2024-0012", "CVE-2024-3393", "CVE-2024-3400", "CVE-2024-9474"];
    // CNA and KEV write "Palo Alto Networks", NVD "paloaltonetworks".
    expect((await get("/api/v1/cves/CVE-2018-7636")).body.vendor).toBe("paloaltonetworks");
    expect((await get("/api/v1/cves/CVE-2024-3400")).body.vendor).toBe("Palo Alto Networks");
    for (const v of ["paloaltonetworks", "palo_alto_networks", "Palo Alto Networks", "palo-alto-networks"]) {
      expect(await ids(`vendor=${encodeURIComponent(v)}`), v).toEqual(all);
    }
    expect(await ids("vendor=paloaltonetworks&product=PAN-OS")).toEqual(all);
    expect((await get("/api/v1/cves?vendor=paloaltonetworks")).body.total).toBe(all.length);
  });
});

describe("a CVE known only from CERT-FR avis", () => {
  // CERTFR-2024-AVI-0221 names CVE-2024-2431, -2432 (GlobalProtect App) and -2433 (PAN-OS) under one
  // title and one product list (PAN-OS, GlobalProtect App); none of them has a CVE List record yet.
  const AVIS = `${ADV}/certfr-avis-2024.jsonl`;
  const GLOBALPROTECT = { item_type: "product", value: "paloaltonetworks:globalprotect_app" };
  let products: Awaited<ReturnType<typeof tenant>>;
  let watch: Awaited<ReturnType<typeof tenant>>;

  it("gets a thin record, REFERENCE_ONLY: listed on request, readable, dated by its avis, no product, no score; a cve or keyword item alerts, a product item does not", async () => {
    products = await tenant("GlobalProtect", [GLOBALPROTECT]);
    watch = await tenant("Watching CVE-2024-2431", [
      { item_type: "cve", value: "CVE-2024-2431" },
      { item_type: "keyword", value: "CVE-2024-2432" },
    ]);
    const r = await load("certfr", AVIS);
    expect(r).toMatchObject({ read: 3, inserted: 3 });

    const { status, body: cve } = await get("/api/v1/cves/CVE-2024-2431");
    expect(status).toBe(200);
    expect(cve).toMatchObject({
      cve_id: "CVE-2024-2431",
      state: "REFERENCE_ONLY",
      referenced_by: [
        {
          id: "CERTFR-2024-AVI-0221",
          source: "certfr",
          url: "https://www.cert.ssi.gouv.fr/avis/CERTFR-2024-AVI-0221/",
          title: "Multiples vulnérabilités dans les produits Palo Alto Networks",
          published: "2024-03-14T00:00:00.000Z",
        },
      ],
      sources: ["certfr"],
      aliases: ["CERTFR-2024-AVI-0221"],
      fusion_de: [],
      description:
        "Mentionnée par l'avis CERT-FR CERTFR-2024-AVI-0221 (2024-03-14) : Multiples vulnérabilités dans les produits Palo Alto Networks",
      date_published: "2024-03-14T00:00:00.000Z",
      severity: "unknown",
      cvss_score: null,
      cvss_vector: null,
      cvss_source: null,
      cwe_ids: [],
      vendor: null,
      product: null,
      affected: [],
      is_kev: false,
      references: ["https://www.cert.ssi.gouv.fr/avis/CERTFR-2024-AVI-0221/"],
    });
    // Its measures as today: the avis' patch and workaround pointers.
    expect(cve.mesures_provisoires.map((m: { reference: string; categorie: string }) => `${m.reference} ${m.categorie}`)).toEqual([
      "CERTFR-2024-AVI-0221 correctif",
      "CERTFR-2024-AVI-0221 contournement",
    ]);
    expect(cve.contournement_disponible).toBe(true);
    // Listed on request (state=reference_only or all), not with the published CVEs; the avis, naming three CVEs, resolves to none of them.
    expect((await get("/api/v1/cves?q=CVE-2024-2433")).body).toMatchObject({ items: [], total: 0 });
    expect((await get("/api/v1/cves?q=CVE-2024-2433&state=all")).body.items.map((c: { cve_id: string }) => c.cve_id)).toEqual([
      "CVE-2024-2433",
    ]);
    expect(
      (await get("/api/v1/cves?published_from=2024-03-14&published_to=2024-03-14&page_size=100&state=reference_only")).body.items
        .map((c: { cve_id: string; state: string }) => `${c.cve_id} ${c.state}`)
        .sort(),
    ).toEqual(["CVE-2024-2431 REFERENCE_ONLY", "CVE-2024-2432 REFERENCE_ONLY", "CVE-2024-2433 REFERENCE_ONLY"]);
    expect((await get("/api/v1/cves/CERTFR-2024-AVI-0221")).status).toBe(404);

    // The avis lists GlobalProtect App, but that list is the avis', not each CVE's (CVE-2024-2433 is PAN-OS's): no product alert.
    expect(await products.ids()).toEqual([]);
    expect(await watch.ids()).toEqual(["CVE-2024-2431", "CVE-2024-2432"]);
    const alert = (await watch.alerts()).find((x) => x.cve_id === "CVE-2024-2431")!;
    expect(alert).toMatchObject({ severity: "unknown", cvss_score: null, vendor: null, product: null, aliases: ["CERTFR-2024-AVI-0221"] });
    expect(alert.description).toMatch(/^Mentionnée par l'avis CERT-FR CERTFR-2024-AVI-0221/);
  });

  it("two avis naming one CVE: dated by the earliest, both in aliases", async () => {
    const { body } = await get("/api/v1/cves/CVE-2024-9680");
    expect(body).toMatchObject({
      sources: ["certfr"],
      aliases: ["CERTFR-2024-AVI-0865", "CERTFR-2024-AVI-0869"],
      date_published: "2024-10-10T00:00:00.000Z",
      description:
        "Mentionnée par l'avis CERT-FR CERTFR-2024-AVI-0865 (2024-10-10) : Vulnérabilité dans Mozilla Firefox ; également par 1 autre avis (voir aliases)",
      affected: [],
    });
    expect(body.mesures_provisoires.map((m: { reference: string }) => m.reference).sort()).toEqual([
      "CERTFR-2024-AVI-0865",
      "CERTFR-2024-AVI-0869",
    ]);
  });

  it("the CVE List record arriving later takes over field by field, without a second alert", async () => {
    const [before] = (await watch.alerts()).filter((x) => x.cve_id === "CVE-2024-2431");
    await load("cve5", `${ADV}/cve5-CVE-2024-2431.jsonl`);
    const { body: cve } = await get("/api/v1/cves/CVE-2024-2431");
    expect(cve).toMatchObject({
      state: "PUBLISHED",
      sources: ["certfr", "cve5"],
      vendor: "Palo Alto Networks",
      product: "GlobalProtect App",
      date_published: "2024-03-13T17:51:17.735Z",
      severity: "medium",
      cvss_score: 5.5,
      aliases: ["CERTFR-2024-AVI-0221"],
    });
    expect(cve.description).toMatch(/^An issue in the Palo Alto Networks GlobalProtect app/);
    expect(cve.references).not.toContain("https://www.cert.ssi.gouv.fr/avis/CERTFR-2024-AVI-0221/");
    expect(cve.affected.map((a: { product: string }) => a.product)).toContain("GlobalProtect App");
    // The record's own workaround and solution (palo_alto), then the avis' two.
    expect(cve.mesures_provisoires.map((m: { source: string; categorie: string }) => `${m.source} ${m.categorie}`)).toEqual([
      "palo_alto contournement",
      "palo_alto correctif",
      "CERT-FR correctif",
      "CERT-FR contournement",
    ]);
    // The alert raised from the avis is the CVE's one alert; its facts follow the record.
    const after = (await watch.alerts()).filter((x) => x.cve_id === "CVE-2024-2431");
    expect(after.map((x) => x.id)).toEqual([before!.id]);
    expect(after[0]).toMatchObject({ severity: "medium", cvss_score: 5.5 });
    // Now a source names the product: the GlobalProtect item alerts on the CVE List's statement (every version).
    expect(await products.ids()).toEqual(["CVE-2024-2431"]);
    // The other two stay thin.
    expect((await get("/api/v1/cves/CVE-2024-2433")).body).toMatchObject({ sources: ["certfr"], affected: [] });
  });
});

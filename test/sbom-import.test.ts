/**
 * Stacks from SBOMs, through the HTTP routes: this repository's own SBOM (cyclonedx-npm, and the
 * same packages in CycloneDX 1.5 XML and npm's SPDX), and a CycloneDX 1.6 document made with the
 * CycloneDX library whose packages real advisories of the fixtures name as vulnerable
 * (test/fixtures/sbom/SOURCES.md). Known answer: an SBOM raises exactly the alerts its packages
 * raise when typed as items by hand. Then the uploads by difference, the alerts of what went
 * (marked, never deleted), the refusals (422 with the faults' places and nothing written, 413, 415,
 * 403, 404), the CycloneDX export, the paged items and the removal of an SBOM.
 */
import { readFileSync } from "node:fs";
import { Spec, Validation } from "@cyclonedx/cyclonedx-library";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { importFeed } from "../src/feeds/import.js";
import { rowsOf } from "../src/platform/db/sql.js";
import { bearer, createTenant, createTestApp, tenantWithScopes } from "./helpers.js";

const FIX = "test/fixtures/sbom";
const file = (name: string) => readFileSync(`${FIX}/${name}`);
const CDX_JSON = "application/vnd.cyclonedx+json";

const t = await createTestApp();
const db = t.database.db;
const a = await tenantWithScopes(t, "SBOM A", ["stacks-write", "cases-write", "tags-write"]);
// The same packages typed by hand, in another project of the organization.
const typed = await t.services.projects.create({ orgId: a.orgId, name: "Saisie" });
const typedBase = `/api/v1/organizations/${a.orgId}/projects/${typed.id}`;
const b = await tenantWithScopes(t, "SBOM B", ["stacks-write"]);

// Real records first (as the other stack tests import them): items are matched against them.
for (const [source, path] of [
  ["cve5", "test/fixtures/import/cve5-sample.jsonl"],
  ["cve5", "test/fixtures/matching/cve5-panos.jsonl"],
  ["cve5", "test/fixtures/matching/cve5-django.jsonl"],
  ["cve5", "test/fixtures/import/cve5-CVE-2023-47627.jsonl"],
  ["nvd", "test/fixtures/import/nvd2-CVE-2024-3400.json"],
  ["nvd", "test/fixtures/matching/nvdcve-1.1-2021-names.json"],
  ["osv", "test/fixtures/matching/osv-django.jsonl"],
  ["osv", "test/fixtures/import/osv-sample.jsonl"],
  ["osv", "test/fixtures/feeds/osv/GO-2022-0191.json"],
  ["osv", "test/fixtures/feeds/osv/GO-2022-0617.json"],
  ["osv", "test/fixtures/feeds/osv/GHSA-jfh8-c2jp-5v3q.json"],
  ["osv", "test/fixtures/feeds/osv/RUSTSEC-2024-0445.json"],
  ["kev", "test/fixtures/import/kev-sample.json"],
] as const) {
  expect((await importFeed(db, source, [path])).errors).toEqual([]);
}

function upload(url: string, body: Buffer | string, contentType = CDX_JSON, key = a.key) {
  return t.app.inject({ method: "POST", url, headers: { ...bearer(key), "content-type": contentType }, payload: body });
}
const intoStack = (stackId: string, body: Buffer | string, contentType?: string, key?: string) =>
  upload(`${a.base}/stacks/${stackId}/sbom`, body, contentType, key);
const newStack = (body: Buffer | string, name?: string, contentType?: string) =>
  upload(`${a.base}/stacks/sbom${name ? `?name=${encodeURIComponent(name)}` : ""}`, body, contentType);

interface AlertRow {
  cve_id: string;
  matching: boolean;
  item_id: string | null;
  match: { rule: string; range: string | null; origin: string | null; item_type: string; value: string };
}
async function alertsOf(projectId: string): Promise<AlertRow[]> {
  return rowsOf<AlertRow>(
    db,
    sql`select cve_id, matching, item_id, match from alerts where project_id = ${projectId}::uuid order by cve_id`,
  );
}
/** What an alert says of why it was raised, without the item's id (two projects, two items). */
const reasons = (rows: AlertRow[]) =>
  rows.map((r) => ({
    cve_id: r.cve_id,
    rule: r.match.rule,
    range: r.match.range,
    origin: r.match.origin,
    item_type: r.match.item_type,
    value: r.match.value,
  }));

/** Rows of the tables an upload writes, for "nothing written". */
interface Counts {
  stacks: number;
  items: number;
  sboms: number;
  alerts: number;
  events: number;
}
async function counts(): Promise<Counts> {
  const [row] = await rowsOf<Counts>(
    db,
    sql`select (select count(*) from stacks)::int as stacks, (select count(*) from stack_items)::int as items,
      (select count(*) from stack_sboms)::int as sboms, (select count(*) from alerts)::int as alerts,
      (select count(*) from outbox_events)::int as events`,
  );
  return row!;
}

/** Types each item of an SBOM's stack by hand in a new stack of the other project; the alerts it raised there. */
async function typeByHand(name: string, items: { item_type: string; value: string }[]): Promise<void> {
  const stack = await t.app.inject({ method: "POST", url: `${typedBase}/stacks`, headers: bearer(a.key), payload: { name } });
  expect(stack.statusCode).toBe(201);
  for (const it of items) {
    const res = await t.app.inject({
      method: "POST",
      url: `${typedBase}/stacks/${stack.json().id}/items`,
      headers: bearer(a.key),
      payload: it,
    });
    expect(res.statusCode, it.value).toBe(201);
  }
}

async function allItems(
  stackId: string,
  base = a.base,
): Promise<{ id: string; item_type: string; value: string; sbom_id: string | null }[]> {
  const out = [];
  for (let page = 1; ; page++) {
    const res = await t.app.inject({
      method: "GET",
      url: `${base}/stacks/${stackId}/items?page=${page}&page_size=100`,
      headers: bearer(a.key),
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    out.push(...body.items);
    if (out.length >= body.total) return out;
  }
}

describe("this repository's own SBOM (cyclonedx-npm, CycloneDX 1.6)", () => {
  let stackId = "";

  it("makes a stack in one call: a purl item per distinct package, the stack answered without its items", async () => {
    const stats = async () =>
      (await rowsOf<{ n: number }>(db, sql`select reltuples::float8 as n from pg_class where relname = 'stack_items'`))[0]!.n;
    const before = await stats();
    const res = await newStack(file("vigie-npm.cdx.json"), "Vigie (npm)");
    expect(res.statusCode).toBe(201);
    // A bulk write: stack_items analyzed before its items were matched (the planner counts them).
    expect(before).toBeLessThan(343);
    expect(await stats()).toBeGreaterThanOrEqual(343);
    const body = res.json();
    stackId = body.stack.id;
    expect(body.stack).toEqual({ id: stackId, name: "Vigie (npm)", project_id: a.projectId, item_count: 343 });
    expect(body.stack.items).toBeUndefined();
    expect(body.sbom).toMatchObject({
      format: "cyclonedx",
      spec_version: "1.6",
      encoding: "json",
      // cyclonedx-npm's reproducible output has no serialNumber: the described software names it.
      document_key: "nom:vigie@0.1.0",
      document_version: 1,
      name: "vigie@0.1.0",
      component_count: 370,
      item_count: 343,
    });
    expect(body.ajoutes.count).toBe(343);
    expect(body.ajoutes.items).toHaveLength(343);
    expect(body.ajoutes.items[0]).toMatchObject({
      item_type: "purl",
      value: "pkg:npm/%40cyclonedx/cyclonedx-library@10.3.0",
      sbom_key: "pkg:npm/%40cyclonedx/cyclonedx-library",
      version: "10.3.0",
    });
    expect(body).toMatchObject({ retires: { count: 0 }, versions_changees: { count: 0 }, inchanges: 0, ignores: { count: 0 } });
    // The packages the document lists, nested ones included, each once.
    const doc = JSON.parse(file("vigie-npm.cdx.json").toString("utf8"));
    const purls = new Set<string>();
    const walk = (list: { purl?: string; components?: unknown[] }[] = []) => {
      for (const c of list) {
        if (c.purl) purls.add(c.purl);
        walk(c.components as never);
      }
    };
    walk(doc.components);
    const items = await allItems(stackId);
    expect(new Set(items.map((i) => i.value))).toEqual(purls);
    expect(new Set(items.map((i) => i.sbom_id))).toEqual(new Set([body.sbom.id]));
  });

  // 343 items typed one by one (POST …/items each): slow on a loaded machine.
  it("known answer: its alerts are those of the same packages typed as purl items", { timeout: 240_000 }, async () => {
    const items = await allItems(stackId);
    await typeByHand(
      "Vigie à la main",
      items.map((i) => ({ item_type: i.item_type, value: i.value })),
    );
    // No advisory of the fixtures names these npm versions: both sides agree on none.
    expect(reasons(await alertsOf(typed.id))).toEqual(reasons(await alertsOf(a.projectId)));
  });

  it("the same packages in CycloneDX 1.5 XML (same identity) replace the document and change nothing", async () => {
    const before = await allItems(stackId);
    const res = await intoStack(stackId, file("vigie-npm-1.5.cdx.xml"), "application/vnd.cyclonedx+xml");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      sbom: { spec_version: "1.5", encoding: "xml", document_key: "nom:vigie@0.1.0", item_count: 343 },
      ajoutes: { count: 0 },
      retires: { count: 0 },
      versions_changees: { count: 0 },
      inchanges: 343,
      alertes_creees: 0,
    });
    expect((await allItems(stackId)).map((i) => i.id)).toEqual(before.map((i) => i.id));
  });

  it("npm's SPDX 2.3 SBOM of the same lock file is another document: a second SBOM of the stack", async () => {
    const res = await intoStack(stackId, file("vigie-npm.spdx.json"), "application/spdx+json");
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.sbom).toMatchObject({ format: "spdx", spec_version: "2.3", encoding: "json", document_version: null });
    expect(body.sbom.document_key).toMatch(/^https?:\/\//);
    expect(body.ajoutes.count).toBeGreaterThan(100);
    const list = await t.app.inject({ method: "GET", url: `${a.base}/stacks/${stackId}/sboms`, headers: bearer(a.readKey) });
    expect(list.statusCode).toBe(200);
    expect(list.json().map((s: { format: string }) => s.format)).toEqual(["cyclonedx", "spdx"]);
    const spdxItems = await t.app.inject({
      method: "GET",
      url: `${a.base}/stacks/${stackId}/items?sbom_id=${body.sbom.id}&page_size=1`,
      headers: bearer(a.readKey),
    });
    expect(spdxItems.json().total).toBe(body.sbom.item_count);
  });
});

describe("a CycloneDX 1.6 document of vulnerable packages (made with the CycloneDX library)", () => {
  let stackId = "";
  let sbomId = "";
  const v1 = file("known-answer-v1.cdx.json");
  const v2 = file("known-answer-v2.cdx.json");
  const project = a.projectId;

  it("loads into a stack: purl and CPE items, nested components flattened, the unmatchable ignored with their reason", async () => {
    const stack = await a.call("POST", "/stacks", { name: "Inventaire" });
    stackId = stack.json().id;
    const res = await intoStack(stackId, v1);
    expect(res.statusCode).toBe(201);
    const body = res.json();
    sbomId = body.sbom.id;
    expect(body.sbom).toMatchObject({
      document_key: "urn:uuid:7d0c5c1e-4d2b-4a8e-9b1e-5a0f3c9e2b61",
      document_version: 1,
      name: "inventaire@2.1.0",
      component_count: 10,
      item_count: 8,
    });
    expect(body.ajoutes.items.map((i: { value: string }) => i.value)).toEqual([
      "pkg:pypi/django@4.2.1",
      "cpe:2.3:a:djangoproject:django:4.2.1:*:*:*:*:*:*:*",
      "pkg:golang/stdlib@v1.11.2",
      "pkg:npm/tar@6.1.0",
      "pkg:golang/k8s.io/kubernetes@v1.20.0",
      "cpe:2.3:o:paloaltonetworks:pan-os:10.2.5:*:*:*:*:*:*:*",
      "pkg:cargo/cap-primitives@3.4.0",
      "pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1",
    ]);
    expect(body.ajoutes.items[1]).toMatchObject({
      item_type: "cpe",
      sbom_key: "cpe:2.3:a:djangoproject:django:*:*:*:*:*:*:*:*",
      version: "4.2.1",
    });
    expect(body.ignores.items).toEqual([
      { ref: "config", name: "config.yaml", version: null, raison: "ni purl ni CPE" },
      {
        ref: "pkg:generic/openssl@3.0.13",
        name: "openssl",
        version: "3.0.13",
        raison: expect.stringContaining("type de purl non pris en charge : generic"),
      },
      { ref: "reporting", name: "reporting", version: "1.0.0", raison: "ni purl ni CPE" },
    ]);
    expect(body.alertes_creees).toBe(7);
    expect((await alertsOf(project)).map((r) => r.cve_id)).toEqual([
      "CVE-2018-16875", // Go stdlib 1.11.2 (GO-2022-0191)
      "CVE-2021-37701", // npm tar 6.1.0 (NVD npmjs:tar)
      "CVE-2021-44228", // log4j-core 2.14.1, nested (GHSA-jfh8-c2jp-5v3q)
      "CVE-2023-36053", // Django 4.2.1 (PYSEC-2023-100)
      "CVE-2024-3400", // PAN-OS 10.2.5, a CPE
      "CVE-2024-51756", // cap-primitives 3.4.0 (RUSTSEC-2024-0445)
      "CVE-2024-9468",
    ]);
  });

  it("known answer: the alerts are those of the same purls and CPEs typed as items", async () => {
    const items = await allItems(stackId);
    await typeByHand(
      "Inventaire à la main",
      items.map((i) => ({ item_type: i.item_type, value: i.value })),
    );
    const typedAlerts = reasons(await alertsOf(typed.id)).filter((r) => r.value !== "" && items.some((i) => i.value === r.value));
    expect(typedAlerts.length).toBe(7);
    expect(reasons(await alertsOf(project))).toEqual(typedAlerts);
  });

  it("a new upload of the document answers the difference; what went is marked, never deleted; case and tags stay", async () => {
    const items = await allItems(stackId);
    const djangoPurl = items.find((i) => i.value === "pkg:pypi/django@4.2.1")!;
    const tag = await a.call("POST", "/tags", { name: "web" });
    expect((await a.call("POST", `/stacks/${stackId}/items/${djangoPurl.id}/tags`, { tag_id: tag.json().id })).statusCode).toBe(204);
    const opened = await a.call("PUT", "/cases/CVE-2023-36053", { status: "en_analyse", notes: "Django exposé", comment: "vu" });
    expect(opened.statusCode).toBe(201);
    const caseBefore = (await a.call("GET", "/cases/CVE-2023-36053")).json();
    const [{ last }] = (await rowsOf<{ last: number }>(db, sql`select coalesce(max(id), 0)::int as last from outbox_events`)) as [
      { last: number },
    ];

    const res = await intoStack(stackId, v2);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.sbom).toMatchObject({ id: sbomId, document_version: 2, item_count: 8 });
    expect(body.ajoutes).toEqual({
      count: 1,
      items: [
        { id: expect.any(String), item_type: "purl", value: "pkg:pypi/aiohttp@3.8.5", sbom_key: "pkg:pypi/aiohttp", version: "3.8.5" },
      ],
    });
    expect(body.retires).toEqual({
      count: 1,
      items: [
        {
          id: items.find((i) => i.value === "pkg:cargo/cap-primitives@3.4.0")!.id,
          item_type: "purl",
          value: "pkg:cargo/cap-primitives@3.4.0",
          sbom_key: "pkg:cargo/cap-primitives",
          version: "3.4.0",
        },
      ],
    });
    expect(body.versions_changees).toEqual({
      count: 2,
      items: [
        { id: djangoPurl.id, item_type: "purl", sbom_key: "pkg:pypi/django", value: "pkg:pypi/django@4.2.3", from: "4.2.1", to: "4.2.3" },
        {
          id: items.find((i) => i.value.startsWith("cpe:2.3:a:djangoproject"))!.id,
          item_type: "cpe",
          sbom_key: "cpe:2.3:a:djangoproject:django:*:*:*:*:*:*:*:*",
          value: "cpe:2.3:a:djangoproject:django:4.2.3:*:*:*:*:*:*:*",
          from: "4.2.1",
          to: "4.2.3",
        },
      ],
    });
    expect(body.inchanges).toBe(5);
    // aiohttp 3.8.5: CVE-2023-47627 (fixed in 3.8.6) and CVE-2024-23829 (fixed in 3.9.2).
    expect(body.alertes_creees).toBe(2);
    // Django 4.2.3 is PYSEC-2023-100's fixed version; cap-primitives is gone.
    expect(body.alertes_plus_correspondantes).toBe(2);
    expect(body.alertes_correspondantes_a_nouveau).toBe(0);

    const alerts = await alertsOf(project);
    expect(alerts.filter((r) => !r.matching).map((r) => r.cve_id)).toEqual(["CVE-2023-36053", "CVE-2024-51756"]);
    expect(alerts.filter((r) => r.matching).map((r) => r.cve_id)).toEqual([
      "CVE-2018-16875",
      "CVE-2021-37701",
      "CVE-2021-44228",
      "CVE-2023-47627",
      "CVE-2024-23829",
      "CVE-2024-3400",
      "CVE-2024-9468",
    ]);
    // The alert list says it, and filters on it.
    const marked = await a.call("GET", "/alerts?correspond_encore=false");
    expect(
      marked
        .json()
        .items.map((i: { cve_id: string; correspond_encore: boolean }) => [i.cve_id, i.correspond_encore])
        .sort(),
    ).toEqual([
      ["CVE-2023-36053", false],
      ["CVE-2024-51756", false],
    ]);
    // The changed item kept its id and its tag; the case is untouched.
    const django = (await allItems(stackId)).find((i) => i.id === djangoPurl.id) as unknown as { value: string; tags: { name: string }[] };
    expect(django.value).toBe("pkg:pypi/django@4.2.3");
    expect(django.tags.map((x) => x.name)).toEqual(["web"]);
    expect((await a.call("GET", "/cases/CVE-2023-36053")).json()).toEqual(caseBefore);
    // One cve.updated event per marked alert, saying it matches no more; a cve.new_match per new alert.
    const events = await rowsOf<{ event: string; cve_id: string; payload: { changes?: unknown } }>(
      db,
      sql`select event, cve_id, payload from outbox_events where project_id = ${project}::uuid and id > ${last} order by cve_id, event`,
    );
    expect(events.map((e) => [e.event, e.cve_id])).toEqual([
      ["cve.updated", "CVE-2023-36053"],
      ["cve.new_match", "CVE-2023-47627"],
      ["cve.new_match", "CVE-2024-23829"],
      ["cve.updated", "CVE-2024-51756"],
    ]);
    expect(events[0]!.payload.changes).toEqual({ correspondance: { from: true, to: false } });
  });

  it("the same document again changes nothing: every item unchanged, no alert, no event", async () => {
    const before = await counts();
    const ids = (await allItems(stackId)).map((i) => i.id);
    const res = await intoStack(stackId, v2);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      ajoutes: { count: 0, items: [] },
      retires: { count: 0, items: [] },
      versions_changees: { count: 0, items: [] },
      inchanges: 8,
      alertes_creees: 0,
      alertes_plus_correspondantes: 0,
      alertes_correspondantes_a_nouveau: 0,
    });
    expect(await counts()).toEqual(before);
    expect((await allItems(stackId)).map((i) => i.id)).toEqual(ids);
  });

  it("the first version again: the marked alerts match again, aiohttp's are marked", async () => {
    const res = await intoStack(stackId, v1);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      ajoutes: { count: 1 },
      retires: { count: 1 },
      versions_changees: { count: 2 },
      alertes_creees: 0,
      alertes_plus_correspondantes: 2,
      alertes_correspondantes_a_nouveau: 2,
    });
    const alerts = await alertsOf(project);
    expect(alerts.filter((r) => !r.matching).map((r) => r.cve_id)).toEqual(["CVE-2023-47627", "CVE-2024-23829"]);
  });

  it("an alert another item of the project still matches stays matching when its SBOM item goes", async () => {
    // Django 4.2.1 typed by hand in another stack of the project: removing the SBOM's Django leaves it matched.
    const other = await a.call("POST", "/stacks", { name: "À la main", items: [{ item_type: "purl", value: "pkg:pypi/django@4.2.1" }] });
    expect(other.statusCode).toBe(201);
    const res = await intoStack(stackId, v2);
    // cap-primitives' alert is marked again: its item, removed once and added back, was linked to it again.
    expect(res.json()).toMatchObject({ alertes_plus_correspondantes: 1, alertes_correspondantes_a_nouveau: 2 });
    const alerts = await alertsOf(project);
    expect(alerts.find((r) => r.cve_id === "CVE-2023-36053")!.matching).toBe(true);
    expect(alerts.find((r) => r.cve_id === "CVE-2024-51756")!.matching).toBe(false);
    expect(alerts.find((r) => r.cve_id === "CVE-2023-36053")!.item_id).not.toBeNull();
    expect((await a.call("DELETE", `/stacks/${other.json().id}`)).statusCode).toBe(204);
  });

  it("GET …/sbom gives the stack as a valid CycloneDX 1.6 document; its version grows with the items", async () => {
    const get = () => t.app.inject({ method: "GET", url: `${a.base}/stacks/${stackId}/sbom`, headers: bearer(a.readKey) });
    const res = await get();
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("application/vnd.cyclonedx+json; charset=utf-8");
    expect(res.headers["content-disposition"]).toBe(`attachment; filename="stack-${stackId}.cdx.json"`);
    expect(await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(res.body)).toBeNull();
    const bom = res.json();
    expect(bom.serialNumber).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const values = (await allItems(stackId)).map((i) => i.value);
    type Out = { name: string; purl?: string; cpe?: string; properties?: { name: string; value: string }[] };
    const kept = (c: Out) => c.properties?.some((p) => p.name === "vigie:non-rapproche");
    const exported = (bom.components as Out[]).filter((c) => !kept(c)).map((c) => c.purl ?? c.cpe);
    expect(new Set(exported)).toEqual(new Set(values));
    // The components its SBOM could not match follow, as its inventory, with why.
    const inventory = (bom.components as Out[]).filter(kept);
    expect(inventory.map((c) => c.purl ?? c.name)).toEqual(expect.arrayContaining(["config.yaml", "pkg:generic/openssl@3.0.13"]));
    // Read back by the reader: the same items.
    const back = await newStack(res.body, "Relu");
    expect(back.statusCode).toBe(201);
    expect(new Set(back.json().ajoutes.items.map((i: { value: string }) => i.value))).toEqual(new Set(values));

    const again = (await get()).json();
    expect(again.serialNumber).toBe(bom.serialNumber);
    expect(again.version).toBe(bom.version);
    expect((await a.call("POST", `/stacks/${stackId}/items`, { item_type: "purl", value: "pkg:pypi/requests@2.31.0" })).statusCode).toBe(
      201,
    );
    const changed = (await get()).json();
    expect(changed.serialNumber).toBe(bom.serialNumber);
    expect(changed.version).toBe(bom.version + 1);
    expect(changed.components.map((c: { purl?: string }) => c.purl)).toContain("pkg:pypi/requests@2.31.0");
    expect((await a.call("DELETE", `/stacks/${back.json().stack.id}`)).statusCode).toBe(204);
  });

  it("DELETE …/sboms/{sbom_id} removes the SBOM and its items; its alerts are marked, not deleted", async () => {
    const before = await alertsOf(project);
    const res = await a.call("DELETE", `/stacks/${stackId}/sboms/${sbomId}`);
    expect(res.statusCode).toBe(200);
    // Every alert the project's items still held: Django's too (its hand-typed twin went with its stack).
    expect(before.filter((r) => r.matching)).toHaveLength(8);
    expect(res.json()).toEqual({ items_retires: 8, alertes_plus_correspondantes: 8 });
    const items = await allItems(stackId);
    expect(items.map((i) => i.value)).toEqual(["pkg:pypi/requests@2.31.0"]);
    const after = await alertsOf(project);
    expect(after.map((r) => r.cve_id)).toEqual(before.map((r) => r.cve_id));
    expect(after.every((r) => !r.matching)).toBe(true);
    expect((await a.call("DELETE", `/stacks/${stackId}/sboms/${sbomId}`)).json()).toEqual({ detail: "SBOM introuvable dans cette pile" });
  });
});

describe("SBOMs as the field produces them (issue 33)", () => {
  it("a document without identity takes the stack's: loaded again into the same stack, it replaces itself", async () => {
    const doc = JSON.parse(file("known-answer-v1.cdx.json").toString("utf8"));
    delete doc.serialNumber;
    delete doc.metadata;
    delete doc.dependencies;
    const stack = (await a.call("POST", "/stacks", { name: "Anonyme" })).json();
    const first = await intoStack(stack.id, JSON.stringify(doc));
    expect(first.statusCode).toBe(201);
    expect(first.json().sbom.document_key).toBe(`pile:${stack.id}`);
    const again = await intoStack(stack.id, JSON.stringify(doc));
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ sbom: { id: first.json().sbom.id }, inchanges: first.json().ajoutes.count });
    // Creating a stack from it needs the stack's name, as the document names nothing.
    const named = await newStack(JSON.stringify(doc));
    expect(named.statusCode).toBe(422);
    expect(named.json().detail[0].loc).toEqual(["query", "name"]);
  });

  it("a CycloneDX 1.2 product SBOM (CycloneDX/bom-examples) in JSON, then XML under the same stack", async () => {
    const res = await newStack(file("cern-lhc-vdm-editor-1.2.cdx.json"));
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      stack: { name: "lhc-vdm-editor@0.0.1", item_count: 43 },
      sbom: { format: "cyclonedx", spec_version: "1.2", encoding: "json", component_count: 43, fault_count: 0, faults: [] },
      ajoutes: { count: 43 },
    });
    const xml = await intoStack(res.json().stack.id, file("cern-lhc-vdm-editor-1.2.cdx.xml"), "application/vnd.cyclonedx+xml");
    expect([200, 201]).toContain(xml.statusCode);
    expect(xml.json().sbom).toMatchObject({ spec_version: "1.2", encoding: "xml", component_count: 43 });
  });

  it("SPDX 2.2 (the specification's example): its PACKAGE_MANAGER purl makes an item", async () => {
    const res = await newStack(file("SPDXJSONExample-v2.2.spdx.json"), "SPDX 2.2", "application/spdx+json");
    expect(res.statusCode).toBe(201);
    expect(res.json().sbom).toMatchObject({ format: "spdx", spec_version: "2.2" });
    expect(res.json().ajoutes.items.map((i: { value: string }) => i.value)).toEqual(["pkg:maven/org.apache.jena/apache-jena@3.12.0"]);
  });

  it("invalid but readable (trivy's SPDX 2.2): 422 by default, loaded with ?accepter_non_conforme=true, its faults kept", async () => {
    const before = await counts();
    const SPDX = "application/spdx+json";
    const strict = await newStack(file("trivy-centos-7.spdx.json"), "trivy", SPDX);
    expect(strict.statusCode).toBe(422);
    expect(strict.json().detail).toHaveLength(14);
    expect(await counts()).toEqual(before);
    const res = await upload(`${a.base}/stacks/sbom?name=trivy&accepter_non_conforme=true`, file("trivy-centos-7.spdx.json"), SPDX);
    expect(res.statusCode).toBe(201);
    const sbom = res.json().sbom;
    expect(sbom).toMatchObject({ spec_version: "2.2", fault_count: 14, component_count: 3 });
    expect(sbom.faults[0]).toEqual({ loc: ["body", "packages", 0], msg: "must have required property 'licenseDeclared'" });
    expect(res.json().ajoutes.items.map((i: { value: string }) => i.value)).toEqual([
      "pkg:rpm/centos/bash@4.2.46-31.el7?arch=x86_64&distro=centos-7.6.1810",
      "pkg:rpm/centos/openssl-libs@1.0.2k-16.el7?arch=x86_64&epoch=1&distro=centos-7.6.1810",
    ]);
    const listed = await t.app.inject({ method: "GET", url: `${a.base}/stacks/${res.json().stack.id}/sboms`, headers: bearer(a.key) });
    expect(listed.json()[0]).toMatchObject({ fault_count: 14 });
    // The option is a boolean.
    const bad = await upload(`${a.base}/stacks/sbom?name=x&accepter_non_conforme=peut-etre`, file("trivy-centos-7.spdx.json"), SPDX);
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0].loc).toEqual(["query", "accepter_non_conforme"]);
  });
});

describe("components that cannot be matched are kept as inventory", () => {
  it("trivy's SPDX of a Julia project (pkg:julia): 4 components listed with why, counted, searchable, never matched", async () => {
    const res = await newStack(file("trivy-julia.spdx.json"), "Julia", "application/spdx+json");
    expect(res.statusCode).toBe(201);
    const { stack, sbom } = res.json();
    expect(sbom).toMatchObject({ item_count: 0, inventory_count: 4 });
    expect(stack.item_count).toBe(0);
    const url = `${a.base}/stacks/${stack.id}/sboms/${sbom.id}/inventaire`;
    const page = await t.app.inject({ method: "GET", url, headers: bearer(a.key) });
    expect(page.statusCode).toBe(200);
    expect(page.json()).toMatchObject({ total: 4, page: 1, page_size: 100 });
    expect(page.json().items.map((i: { name: string; purl: string | null }) => [i.name, i.purl])).toEqual([
      ["Manifest.toml", null],
      ["A", "pkg:julia/A@1.9.0?uuid=ead4f63c-334e-11e9-00e6-e7f0a5f21b60"],
      ["B", "pkg:julia/B@1.9.0?uuid=f41f7b98-334e-11e9-1257-49272045fb24"],
      ["B", "pkg:julia/B@1.9.0?uuid=edca9bc6-334e-11e9-3554-9595dbb4349c"],
    ]);
    expect(page.json().items[0].raison).toBe("ni purl ni CPE");
    expect(page.json().items[1].raison).toMatch(/type de purl non pris en charge : julia/);
    const found = await t.app.inject({ method: "GET", url: `${url}?q=EDCA9BC6`, headers: bearer(a.key) });
    expect(found.json()).toMatchObject({ total: 1, items: [{ name: "B", version: "1.9.0" }] });
    const listed = await t.app.inject({ method: "GET", url: `${a.base}/stacks/${stack.id}/sboms`, headers: bearer(a.key) });
    expect(listed.json()[0]).toMatchObject({ inventory_count: 4 });
    // Another organization's SBOM does not exist.
    const other = await t.app.inject({ method: "GET", url: url.replace(a.base, b.base), headers: bearer(b.key) });
    expect(other.statusCode).toBe(404);
    // Exported back: each a component with why it is not matched, the document still valid CycloneDX 1.6.
    const exported = await t.app.inject({ method: "GET", url: `${a.base}/stacks/${stack.id}/sbom`, headers: bearer(a.key) });
    expect(exported.statusCode).toBe(200);
    expect(await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(exported.body)).toBeNull();
    type Out = { name: string; purl?: string; properties?: { name: string; value: string }[] };
    const components = (exported.json().components as Out[]).filter((c) => c.properties?.some((p) => p.name === "vigie:non-rapproche"));
    expect(components.map((c) => [c.name, c.purl ?? null])).toEqual(
      expect.arrayContaining([
        ["Manifest.toml", null],
        ["A", "pkg:julia/A@1.9.0?uuid=ead4f63c-334e-11e9-00e6-e7f0a5f21b60"],
      ]),
    );
    expect(components).toHaveLength(4);
  });
});

describe("refusals: nothing is written", () => {
  it("an invalid document: 422 with a JSON pointer per fault, and not a row written", async () => {
    const stack = (await a.call("POST", "/stacks", { name: "Refus" })).json();
    const before = await counts();
    const res = await intoStack(stack.id, file("invalid-components.cdx.json"));
    expect(res.statusCode).toBe(422);
    const detail = res.json().detail as { type: string; loc: (string | number)[]; msg: string; input: unknown }[];
    expect(detail.map((d) => d.loc)).toEqual(
      expect.arrayContaining([
        ["body", "components", 3],
        ["body", "components", 15, "components", 0, "type"],
      ]),
    );
    for (const d of detail) expect(d).toMatchObject({ type: "value_error", msg: expect.stringMatching(/^Value error, /), input: null });
    const xml = await intoStack(stack.id, file("invalid-element.cdx.xml"), "application/xml");
    expect(xml.statusCode).toBe(422);
    expect(xml.json().detail.map((d: { loc: unknown[] }) => d.loc)).toContainEqual(["body", "line 117"]);
    const created = await newStack(file("truncated.cdx.json"), "Tronqué");
    expect(created.statusCode).toBe(422);
    expect(await counts()).toEqual(before);
  });

  it("415 for another Content-Type, 422 without a body, 413 past 50 MiB", async () => {
    const stack = (await a.call("POST", "/stacks", { name: "Limites" })).json();
    const before = await counts();
    const text = await intoStack(stack.id, file("known-answer-v1.cdx.json"), "text/plain");
    expect(text.statusCode).toBe(415);
    expect(text.json().detail).toContain("Type de contenu non pris en charge : « text/plain »");
    const none = await t.app.inject({ method: "POST", url: `${a.base}/stacks/${stack.id}/sbom`, headers: bearer(a.key) });
    expect(none.statusCode).toBe(422);
    expect(none.json().detail).toEqual([{ type: "missing", loc: ["body"], msg: "Field required", input: null }]);
    const big = Buffer.alloc(50 * 1024 * 1024 + 1, 0x20);
    for (const res of [await intoStack(stack.id, big), await newStack(big, "Trop gros")]) {
      expect(res.statusCode).toBe(413);
      expect(res.json().detail).toContain("50 Mio");
    }
    // Exactly 50 MiB is read (and refused for what it is: blanks are no document).
    const limit = await intoStack(stack.id, Buffer.alloc(50 * 1024 * 1024, 0x20));
    expect(limit.statusCode).toBe(422);
    expect(await counts()).toEqual(before);
  });

  it("409 when the stack's name is taken", async () => {
    const res = await newStack(file("known-answer-v1.cdx.json"), "Inventaire");
    expect(res.statusCode).toBe(409);
    expect(res.json().detail.code).toBe("nom_deja_utilise");
  });

  it("another organization's stack does not exist; a key without stacks-write and a viewer are refused", async () => {
    const mine = (await a.call("POST", "/stacks", { name: "Tenancy" })).json();
    const doc = file("known-answer-v1.cdx.json");
    // B's key on A's project, A's stack under B's project.
    expect((await upload(`${a.base}/stacks/${mine.id}/sbom`, doc, CDX_JSON, b.key)).json()).toEqual({ detail: "Projet introuvable" });
    const cross = await upload(`${b.base}/stacks/${mine.id}/sbom`, doc, CDX_JSON, b.key);
    expect(cross.statusCode).toBe(404);
    expect(cross.json()).toEqual({ detail: "Pile introuvable" });
    for (const path of [`/stacks/${mine.id}/sbom`, `/stacks/${mine.id}/sboms`, `/stacks/${mine.id}/items`]) {
      const res = await t.app.inject({ method: "GET", url: `${b.base}${path}`, headers: bearer(b.key) });
      expect(res.statusCode, path).toBe(404);
    }
    const noScope = await intoStack(mine.id, doc, CDX_JSON, a.readKey);
    expect(noScope.statusCode).toBe(403);
    expect(noScope.json().detail).toContain("stacks-write");
    await t.services.users.create({ email: "viewer-sbom@example.org", password: "viewer password", orgId: a.orgId, role: "viewer" });
    const login = await t.app.inject({
      method: "POST",
      url: "/auth/login",
      payload: { email: "viewer-sbom@example.org", password: "viewer password" },
    });
    const viewer = await intoStack(mine.id, doc, CDX_JSON, login.json().token);
    expect(viewer.statusCode).toBe(403);
    expect(viewer.json().detail).toContain("admin");
    // A viewer reads.
    const read = await t.app.inject({ method: "GET", url: `${a.base}/stacks/${mine.id}/sboms`, headers: bearer(login.json().token) });
    expect(read.statusCode).toBe(200);
    expect((await createTenant(t)).orgId).not.toBe(a.orgId);
  });
});

describe("the paged items of a stack", () => {
  it("pages, filters on value (contains, case-insensitive), type and SBOM", async () => {
    const res = await newStack(file("vigie-npm.cdx.json"), "Pages");
    const stackId = res.json().stack.id;
    const sbomId = res.json().sbom.id;
    await a.call("POST", `/stacks/${stackId}/items`, { item_type: "keyword", value: "Fastify" });
    const page = async (q: string) => (await a.call("GET", `/stacks/${stackId}/items?${q}`)).json();
    const first = await page("page_size=100");
    expect(first).toMatchObject({ total: 344, page: 1, page_size: 100 });
    expect(first.items).toHaveLength(100);
    const last = await page("page=4&page_size=100");
    expect(last.items).toHaveLength(44);
    expect(last.items.at(-1)).toMatchObject({ item_type: "keyword", value: "Fastify", sbom_id: null });
    const all = await allItems(stackId);
    const fastify = all.filter((i) => i.value.toLowerCase().includes("fastify"));
    const q = await page("q=FASTIFY&page_size=100");
    expect(q.total).toBe(fastify.length);
    expect(q.items.map((i: { id: string }) => i.id)).toEqual(fastify.map((i) => i.id));
    expect((await page("item_type=keyword")).total).toBe(1);
    expect((await page(`sbom_id=${sbomId}&page_size=1`)).total).toBe(343);
    expect((await page("q=%25")).total).toBe(all.filter((i) => i.value.includes("%")).length);
  });
});

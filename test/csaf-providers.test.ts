/**
 * CSAF providers (issue 36): a local provider serving the layout of CSAF 2.0 §7 — the
 * provider-metadata.json at /.well-known/csaf/ with a public key generated here, a ROLIE feed of
 * TLP:WHITE, a directory with changes.csv, each document with its .sha512/.sha256 and a detached .asc
 * signature made here — filled with real CSAF documents (test/fixtures/csaf/README.md). An
 * organization follows it by its domain; its stack items meet the vendors' products; tampered
 * documents are refused with the reason.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import * as openpgp from "openpgp";
import { afterAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { importFeed } from "../src/feeds/import.js";
import { rowsOf } from "../src/platform/db/sql.js";
import { compareTrackingVersions, readCsafAdvisory } from "../src/modules/csaf/csaf.document.js";
import { CsafHttp } from "../src/modules/csaf/csaf.fetch.js";
import { createLogger } from "../src/platform/log.js";
import { productsMet, versHolds } from "../src/modules/csaf/csaf.match.js";
import { bearer, createTestApp, tenantWithScopes } from "./helpers.js";
import { csafFailures, loadCsafValidator } from "./vex-validators.js";

await loadCsafValidator();
const fixture = (name: string) => readFileSync(`test/fixtures/csaf/${name}`);
const FIXTURES = [
  "bsi-2022-0001.json",
  "rhsa-2021_5186.json",
  "rhsa-2021_5217.json",
  "rhsa-2019_1862.json",
  "2022-evd-uc-06-001.json",
  "2022-evd-uc-01-a-001.json",
];

// ---------------------------------------------------------------------------------------------
// The local provider
// ---------------------------------------------------------------------------------------------

const key = await openpgp.generateKey({
  type: "ecc",
  curve: "curve25519Legacy",
  userIDs: [{ name: "Test CSAF provider", email: "psirt@example.org" }],
  format: "object",
});
const stranger = await openpgp.generateKey({
  type: "ecc",
  curve: "curve25519Legacy",
  userIDs: [{ name: "Someone else" }],
  format: "object",
});
const sign = async (bytes: Uint8Array, signer = key.privateKey) =>
  (await openpgp.sign({
    message: await openpgp.createMessage({ binary: bytes }),
    signingKeys: signer,
    detached: true,
    format: "armored",
  })) as string;
const sha = (alg: "sha256" | "sha512", bytes: Uint8Array) => createHash(alg).update(bytes).digest("hex");

/** Path → body (and status); requests are logged with the status answered (`304 /path`). */
const files = new Map<string, { body: Buffer | string; type?: string }>();
const requests: string[] = [];
/** Paths served only with this Authorization header (401 otherwise); the header each request carried. */
const guarded = new Map<string, string>();
const authorizations: { host: string; url: string; authorization: string | null }[] = [];
const server: Server = createServer((req, res) => {
  authorizations.push({ host: req.headers.host ?? "", url: req.url ?? "", authorization: req.headers.authorization ?? null });
  const expected = guarded.get(req.url ?? "");
  if (expected && req.headers.authorization !== expected) {
    requests.push(`401 ${req.url}`);
    res.writeHead(401, { "www-authenticate": 'Basic realm="csaf"' }).end();
    return;
  }
  const f = files.get(req.url ?? "");
  if (!f) {
    requests.push(`404 ${req.url}`);
    res.writeHead(404).end("not found");
    return;
  }
  const body = typeof f.body === "string" ? Buffer.from(f.body) : f.body;
  const etag = `"${sha("sha256", body).slice(0, 16)}"`;
  if (req.headers["if-none-match"] === etag) {
    requests.push(`304 ${req.url}`);
    res.writeHead(304, { etag }).end();
    return;
  }
  requests.push(`200 ${req.url}`);
  res.writeHead(200, { "content-type": f.type ?? "application/json", etag, "content-length": body.length }).end(body);
});
await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
afterAll(() => new Promise<void>((r) => server.close(() => r())));
const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
const base = `http://${host}`;
const WK = "/.well-known/csaf";

/** Serves a document with its hashes and signature; `fault` tampers with one of them. */
async function publish(path: string, bytes: Buffer, fault?: "hash" | "signature" | "unknown-key" | "no-hash") {
  files.set(path, { body: bytes });
  const hashed = fault === "hash" ? Buffer.concat([bytes, Buffer.from(" ")]) : bytes;
  if (fault !== "no-hash") {
    files.set(`${path}.sha512`, { body: `${sha("sha512", hashed)}  ${path.split("/").pop()}\n`, type: "text/plain" });
    files.set(`${path}.sha256`, { body: `${sha("sha256", hashed)}  ${path.split("/").pop()}\n`, type: "text/plain" });
  }
  const signed = fault === "signature" ? Buffer.from(bytes.toString("utf8").replace("Red Hat", "Red Hot")) : bytes;
  files.set(`${path}.asc`, {
    body: await sign(signed, fault === "unknown-key" ? stranger.privateKey : key.privateKey),
    type: "text/plain",
  });
}

const rolieEntry = (id: string, path: string, updated: string) => ({
  id,
  title: id,
  link: [
    { rel: "self", href: `${base}${path}` },
    { rel: "hash", href: `${base}${path}.sha512` },
    { rel: "signature", href: `${base}${path}.asc` },
  ],
  published: updated,
  updated,
  content: { type: "application/json", src: `${base}${path}` },
  format: { schema: "https://docs.oasis-open.org/csaf/csaf/v2.0/csaf_json_schema.json", version: "2.0" },
});

function setFeed(entries: ReturnType<typeof rolieEntry>[]) {
  files.set(`${WK}/white/feed-tlp-white.json`, {
    body: JSON.stringify({
      feed: {
        id: "example-csaf-feed-tlp-white",
        title: "CSAF feed (TLP:WHITE)",
        link: [{ rel: "self", href: `${base}${WK}/white/feed-tlp-white.json` }],
        category: [{ scheme: "urn:ietf:params:rolie:category:information-type", term: "csaf" }],
        updated: "2024-01-01T00:00:00Z",
        entry: entries,
      },
    }),
  });
}

const fingerprint = key.publicKey.getFingerprint().toUpperCase();
files.set(`${WK}/openpgp/${fingerprint}.asc`, { body: key.publicKey.armor(), type: "text/plain" });
files.set(`${WK}/provider-metadata.json`, {
  body: JSON.stringify({
    canonical_url: `${base}${WK}/provider-metadata.json`,
    distributions: [
      { rolie: { feeds: [{ summary: "TLP:WHITE advisories", tlp_label: "WHITE", url: `${base}${WK}/white/feed-tlp-white.json` }] } },
      { directory_url: `${base}${WK}/2022/` },
    ],
    last_updated: "2024-01-01T00:00:00Z",
    list_on_CSAF_aggregators: true,
    metadata_version: "2.0",
    mirror_on_CSAF_aggregators: true,
    public_openpgp_keys: [{ fingerprint, url: `${base}${WK}/openpgp/${fingerprint}.asc` }],
    publisher: { category: "coordinator", name: "Local test provider", namespace: "https://example.org" },
    role: "csaf_trusted_provider",
  }),
});

// The directory: two real advisories (changes.csv, newest first), one listed but absent (404), one tampered hash, one of 16 MB.
await publish(`${WK}/2022/bsi-2022-0001.json`, fixture("bsi-2022-0001.json"));
await publish(`${WK}/2022/rhsa-2021_5186.json`, fixture("rhsa-2021_5186.json"));
await publish(`${WK}/2022/rhsa-2021_5217.json`, fixture("rhsa-2021_5217.json"), "hash");
const huge = Buffer.from(JSON.stringify({ document: { padding: "x".repeat(16 * 1024 * 1024) } }));
await publish(`${WK}/2022/huge.json`, huge);
const changes = (rows: [string, string][]) =>
  files.set(`${WK}/2022/changes.csv`, { body: rows.map(([p, t]) => `"${p}","${t}"`).join("\n"), type: "text/csv" });
changes([
  ["huge.json", "2022-05-01T00:00:00Z"],
  ["missing-2022-0002.json", "2022-04-01T00:00:00Z"],
  ["rhsa-2021_5217.json", "2022-03-01T00:00:00Z"],
  ["rhsa-2021_5186.json", "2022-02-01T00:00:00Z"],
  ["bsi-2022-0001.json", "2022-01-01T00:00:00Z"],
]);
// The ROLIE feed: the OASIS csaf_vex example of Log4Shell, one signed by another key, one whose signature does not verify.
await publish(`${WK}/white/2022-evd-uc-06-001.json`, fixture("2022-evd-uc-06-001.json"));
await publish(`${WK}/white/2022-evd-uc-01-a-001.json`, fixture("2022-evd-uc-01-a-001.json"), "unknown-key");
await publish(`${WK}/white/rhsa-2019_1862.json`, fixture("rhsa-2019_1862.json"), "signature");
setFeed([
  rolieEntry("2022-EVD-UC-06-001", `${WK}/white/2022-evd-uc-06-001.json`, "2022-01-01T00:00:00Z"),
  rolieEntry("2022-EVD-UC-01-A-001", `${WK}/white/2022-evd-uc-01-a-001.json`, "2022-01-01T00:00:00Z"),
  rolieEntry("RHSA-2019:1862", `${WK}/white/rhsa-2019_1862.json`, "2019-07-01T00:00:00Z"),
]);

// ---------------------------------------------------------------------------------------------
// Vigie
// ---------------------------------------------------------------------------------------------

const t = await createTestApp({ VIGIE_CSAF_ALLOW_HTTP: "true", VIGIE_ALLOW_PRIVATE_TARGETS: "true", VIGIE_FEEDS_RETRIES: "0" });
// Log4Shell's real GitHub advisory: the Beta project's log4j item has its alert (the proposal needs one).
expect((await importFeed(t.database.db, "osv", ["test/fixtures/feeds/osv/GHSA-jfh8-c2jp-5v3q.json"])).errors).toEqual([]);
const a = await tenantWithScopes(t, "CSAF org", ["stacks-write", "cases-write"]);
const org = `/api/v1/organizations/${a.orgId}`;
const api = (method: "GET" | "POST" | "DELETE", path: string, payload?: object) =>
  t.app.inject({ method, url: `${org}${path}`, headers: bearer(a.key), ...(payload && { payload }) });
const beta = await t.services.projects.create({ orgId: a.orgId, name: "Beta" });
const betaCall = (method: "GET" | "POST", path: string, payload?: object) =>
  t.app.inject({ method, url: `${org}/projects/${beta.id}${path}`, headers: bearer(a.key), ...(payload && { payload }) });

const CONVERTER_RC1 = "cpe:2.3:a:csaf-tools:cvrf-csaf-converter:1.0.0-rc1:*:*:*:*:*:*:*";
const CONVERTER_RC2 = "cpe:2.3:a:csaf-tools:cvrf-csaf-converter:1.0.0-rc2:*:*:*:*:*:*:*";
expect(
  (
    await a.call("POST", "/stacks", {
      name: "Outils",
      items: [
        { item_type: "cpe", value: CONVERTER_RC1 },
        { item_type: "product", value: "example_company:abc@2.4" },
      ],
    })
  ).statusCode,
).toBe(201);
expect(
  (
    await betaCall("POST", "/stacks", {
      name: "App",
      items: [
        { item_type: "purl", value: "pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1" },
        { item_type: "product", value: "example_company:abc@4.2" },
        { item_type: "cpe", value: CONVERTER_RC2 },
      ],
    })
  ).statusCode,
).toBe(201);

interface Alert {
  cve_id: string;
  source: string;
  severity: string;
  correspondance: Record<string, unknown> & { avis_editeur?: Record<string, unknown> };
}
const alertsOf = async (call: typeof betaCall) => ((await call("GET", "/alerts?page_size=100")).json() as { items: Alert[] }).items;

describe("the fixtures", () => {
  it("every real CSAF document served is valid for the BSI validator (schema and mandatory tests)", async () => {
    for (const name of FIXTURES) expect(await csafFailures(JSON.parse(fixture(name).toString("utf8"))), name).toEqual([]);
  });
});

let providerId = "";

describe("a provider followed by its domain", () => {
  it("discovers the metadata at /.well-known/csaf, checks the key, keeps the good documents and refuses the others with their reasons", async () => {
    const r = await api("POST", "/csaf/providers", { fournisseur: host });
    expect(r.statusCode, r.body).toBe(201);
    const body = r.json();
    providerId = body.fournisseur.id;
    expect(body.fournisseur).toMatchObject({
      fournisseur: host,
      metadata_url: `${base}${WK}/provider-metadata.json`,
      decouvert_par: "well-known",
      editeur: "Local test provider",
      role: "csaf_trusted_provider",
      cles: [{ fingerprint, url: `${base}${WK}/openpgp/${fingerprint}.asc` }],
      statut: "a_jour",
      documents: 3,
      refus: 5,
      // BSI-2022-0001 is the newest (its current_release_date).
      dernier_document: "2022-03-17T13:03:42.105Z",
    });
    expect(body.synchronisation).toMatchObject({ status: "synced", appliquees: 3, inchangees: 0 });
    const reasons = Object.fromEntries(
      (body.synchronisation.refusees as { url: string; raison: string }[]).map((x) => [x.url.split("/").pop(), x.raison]),
    );
    expect(reasons).toEqual({
      "huge.json": expect.stringContaining("document trop volumineux"),
      "missing-2022-0002.json": "document listé mais absent : HTTP 404",
      "rhsa-2021_5217.json": expect.stringContaining("empreinte SHA512 différente du document servi"),
      "2022-evd-uc-01-a-001.json": expect.stringContaining("signature d'une clé inconnue du fournisseur"),
      "rhsa-2019_1862.json": expect.stringContaining("signature invalide"),
    });
    // The provider's page says the same.
    const detail = (await api("GET", `/csaf/providers/${providerId}`)).json();
    expect(detail.refus_recents).toHaveLength(5);
    expect(detail.refus_recents.map((x: { raison: string }) => x.raison)).toContain("document listé mais absent : HTTP 404");
  });

  it("GET /api/v1/feeds says, for the caller's organization, each provider's state, newest document and what was refused and why", async () => {
    const r = await t.app.inject({ method: "GET", url: "/api/v1/feeds", headers: bearer(a.key) });
    expect(r.statusCode, r.body).toBe(200);
    const body = r.json();
    // The sources keep their fields; the providers come beside them.
    expect(body.sources.length).toBeGreaterThan(0);
    expect(body.sources[0]).toHaveProperty("last_success_at");
    expect(body.fournisseurs_csaf).toHaveLength(1);
    const [p] = body.fournisseurs_csaf;
    expect(p).toMatchObject({
      id: providerId,
      org_id: a.orgId,
      fournisseur: host,
      statut: "a_jour",
      derniere_erreur: null,
      dernier_document: "2022-03-17T13:03:42.105Z",
      documents: 3,
      refus: 5,
    });
    expect(
      Object.fromEntries((p.refus_recents as { url: string; raison: string }[]).map((x) => [x.url.split("/").pop(), x.raison])),
    ).toEqual({
      "huge.json": expect.stringContaining("document trop volumineux"),
      "missing-2022-0002.json": "document listé mais absent : HTTP 404",
      "rhsa-2021_5217.json": expect.stringContaining("empreinte SHA512 différente du document servi"),
      "2022-evd-uc-01-a-001.json": expect.stringContaining("signature d'une clé inconnue du fournisseur"),
      "rhsa-2019_1862.json": expect.stringContaining("signature invalide"),
    });
    // Another organization's key sees the sources, not these providers.
    const other = await tenantWithScopes(t, "CSAF other org", []);
    const theirs = (await t.app.inject({ method: "GET", url: "/api/v1/feeds", headers: bearer(other.key) })).json();
    expect(theirs.fournisseurs_csaf).toEqual([]);
  });

  it("keeps each advisory with its tracking, its flattened tree and its vulnerabilities; filters by CVE", async () => {
    const list = (await api("GET", "/csaf/advisories")).json();
    expect(list.total).toBe(3);
    expect(list.items.map((x: { tracking_id: string }) => x.tracking_id).sort()).toEqual([
      "2022-EVD-UC-06-001",
      "BSI-2022-0001",
      "RHSA-2021:5186",
    ]);
    const byCve = (await api("GET", "/csaf/advisories?cve=CVE-2022-27193")).json();
    expect(byCve.items).toHaveLength(1);
    const bsi = (await api("GET", `/csaf/advisories/${byCve.items[0].id}`)).json();
    expect(bsi).toMatchObject({
      tracking_id: "BSI-2022-0001",
      version: "1",
      tlp: "WHITE",
      editeur: expect.any(String),
      cves: ["CVE-2022-27193"],
    });
    expect(bsi.sha256).toBe(sha("sha256", fixture("bsi-2022-0001.json")));
    expect(bsi.products.find((p: { product_id: string }) => p.product_id === "CSAFPID-0005")).toMatchObject({
      vendor: "CSAF Tools",
      product_name: "CVRF-CSAF-Converter",
      version: "1.0.0-rc1",
      cpe: "cpe:/a:csaf-tools:cvrf-csaf-converter:1.0.0-rc1",
    });
    const v = bsi.vulnerabilities[0];
    expect(v).toMatchObject({ cve: "CVE-2022-27193", cwe: { id: "CWE-611" }, statuses: { first_fixed: ["CSAFPID-0006"] } });
    expect(v.scores[0]).toMatchObject({ version: "3.1", base_score: 6.1, base_severity: "medium" });
    expect(v.remediations[0]).toMatchObject({
      category: "vendor_fix",
      url: "https://github.com/csaf-tools/CVRF-CSAF-Converter/releases/tag/1.0.0-rc2",
    });
    // Another organization sees none of it.
    const other = await tenantWithScopes(t, "Other org", []);
    const r = await t.app.inject({
      method: "GET",
      url: `/api/v1/organizations/${other.orgId}/csaf/advisories/${bsi.id}`,
      headers: bearer(other.key),
    });
    expect(r.statusCode).toBe(404);
    expect(
      (
        await t.app.inject({
          method: "GET",
          url: `/api/v1/organizations/${other.orgId}/csaf/providers/${providerId}`,
          headers: bearer(other.key),
        })
      ).statusCode,
    ).toBe(404);
  });

  it("a vendor's known_affected raises the alert « selon l'avis de l'éditeur » with its fix; a fixed version raises none", async () => {
    const alerts = await alertsOf(a.call as typeof betaCall);
    const converter = alerts.find((x) => x.cve_id === "CVE-2022-27193")!;
    expect(converter.source).toContain("selon l'avis de l'éditeur");
    expect(converter.source).toContain("BSI-2022-0001");
    expect(converter.source).toContain("corrigé en 1.0.0-rc2");
    expect(converter.severity).toBe("medium");
    expect(converter.correspondance).toMatchObject({
      rule: "vendor_advisory",
      origin: "csaf",
      avis_editeur: {
        tracking_id: "BSI-2022-0001",
        statut: "known_affected",
        par: "cpe",
        versions_corrigees: ["1.0.0-rc2"],
        correctifs: [{ url: "https://github.com/csaf-tools/CVRF-CSAF-Converter/releases/tag/1.0.0-rc2" }],
      },
    });
    // The OASIS csaf_vex example names ABC 2.4 known_affected (by its branches: vendor, product name, version).
    const log4shell = alerts.find((x) => x.cve_id === "CVE-2021-44228")!;
    expect(log4shell.correspondance).toMatchObject({
      rule: "vendor_advisory",
      avis_editeur: {
        tracking_id: "2022-EVD-UC-06-001",
        statut: "known_affected",
        par: "names",
        correctifs: [{ details: "Update to version 4.2 or later." }],
      },
    });
    // The rule filter knows it.
    expect((await a.call("GET", "/alerts?rule=vendor_advisory")).json().total).toBe(2);
    // Beta's 1.0.0-rc2 is the vendor's first_fixed: no alert for it.
    expect((await alertsOf(betaCall)).map((x) => x.cve_id)).toEqual(["CVE-2021-44228"]);
  });

  it("a vendor's known_not_affected for the exact product is proposed on the case, never applied", async () => {
    const proposals = (await betaCall("GET", "/vex/proposals")).json();
    expect(proposals.total).toBe(1);
    expect(proposals.items[0]).toMatchObject({
      cve_id: "CVE-2021-44228",
      status: "proposee",
      vex_status: "known_not_affected",
      impact_statement: "Class with vulnerable code was removed before shipping.",
      products: ["example_company:abc@4.2"],
      source: { format: "csaf", document: "2022-EVD-UC-06-001" },
      case_status: null,
    });
    expect((await betaCall("GET", "/cases/CVE-2021-44228")).statusCode).toBe(404);
  });

  it("a second sync with nothing changed asks only its listings, each answering 304 (no metadata, no key, no document)", async () => {
    requests.length = 0;
    const r = (await api("POST", `/csaf/providers/${providerId}/sync`)).json();
    expect(r).toMatchObject({ status: "synced", appliquees: 0, inchangees: 0, refusees: [] });
    // One request per listing: the ROLIE feed and the directory's changes.csv.
    expect(requests).toEqual([`304 ${WK}/white/feed-tlp-white.json`, `304 ${WK}/2022/changes.csv`]);
  });

  it("a stack item added after the sync meets the advisories already kept at the next sync", async () => {
    const gamma = await t.services.projects.create({ orgId: a.orgId, name: "Gamma" });
    const gammaCall = (method: "GET" | "POST", path: string, payload?: object) =>
      t.app.inject({ method, url: `${org}/projects/${gamma.id}${path}`, headers: bearer(a.key), ...(payload && { payload }) });
    const item = { item_type: "cpe", value: "cpe:2.3:a:csaf-tools:cvrf-csaf-converter:1.0.0-dev1:*:*:*:*:*:*:*" };
    expect((await gammaCall("POST", "/stacks", { name: "Outils", items: [item] })).statusCode).toBe(201);
    expect(await alertsOf(gammaCall)).toEqual([]);
    const r = (await api("POST", `/csaf/providers/${providerId}/sync`)).json();
    expect(r).toMatchObject({ status: "synced", appliquees: 0, alertes: 1 });
    expect((await alertsOf(gammaCall)).map((x) => x.cve_id)).toEqual(["CVE-2022-27193"]);
  });

  it("a revised advisory replaces the older version (kept in its history); a lower version is refused", async () => {
    const doc = JSON.parse(fixture("bsi-2022-0001.json").toString("utf8"));
    // Revision 2 of the same advisory (the tracking changed in the test, the vulnerability data as published).
    doc.document.tracking.version = "2";
    doc.document.tracking.current_release_date = "2022-04-01T10:00:00.000+01:00";
    doc.document.tracking.revision_history.push({ date: "2022-04-01T10:00:00.000+01:00", number: "2", summary: "Revision for the test" });
    expect(await csafFailures(doc)).toEqual([]);
    await publish(`${WK}/2022/bsi-2022-0001.json`, Buffer.from(JSON.stringify(doc)));
    changes([["bsi-2022-0001.json", "2022-06-01T00:00:00Z"]]);
    const r = (await api("POST", `/csaf/providers/${providerId}/sync`)).json();
    expect(r).toMatchObject({ status: "synced", appliquees: 1, refusees: [] });
    const [adv] = (await api("GET", "/csaf/advisories?cve=CVE-2022-27193")).json().items;
    expect(adv).toMatchObject({
      version: "2",
      versions_remplacees: [{ version: "1", sha256: sha("sha256", fixture("bsi-2022-0001.json")) }],
    });
    expect(adv.revision_history.map((x: { number: string }) => x.number)).toEqual(["1", "2"]);

    // The provider then serves version 1 again: refused, version 2 stays.
    await publish(`${WK}/2022/bsi-2022-0001.json`, fixture("bsi-2022-0001.json"));
    changes([["bsi-2022-0001.json", "2022-07-01T00:00:00Z"]]);
    const again = (await api("POST", `/csaf/providers/${providerId}/sync`)).json();
    expect(again.refusees).toEqual([
      { url: `${base}${WK}/2022/bsi-2022-0001.json`, raison: "version 1 inférieure à la version 2 déjà lue : refusée" },
    ]);
    expect((await api("GET", "/csaf/advisories?cve=CVE-2022-27193")).json().items[0].version).toBe("2");
  });

  it("refuses what it cannot follow: a second subscription (409), bad input (422), a domain with no provider (en_echec, the reason)", async () => {
    expect((await api("POST", "/csaf/providers", { fournisseur: host })).statusCode).toBe(409);
    const bad = await api("POST", "/csaf/providers", { fournisseur: "not a domain" });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0].loc).toEqual(["body", "fournisseur"]);
    const none = (await api("POST", "/csaf/providers", { fournisseur: `${base}/nothing/provider-metadata.json` })).json();
    expect(none.fournisseur).toMatchObject({ statut: "en_echec", derniere_erreur: expect.stringContaining("HTTP 404"), documents: 0 });
    // A key without the scope cannot follow a provider; reading needs none.
    expect(
      (
        await t.app.inject({
          method: "POST",
          url: `${org}/csaf/providers`,
          headers: bearer(a.readKey),
          payload: { fournisseur: "example.org" },
        })
      ).statusCode,
    ).toBe(403);
    expect((await t.app.inject({ method: "GET", url: `${org}/csaf/providers`, headers: bearer(a.readKey) })).json().items).toHaveLength(2);
  });

  it("a provider-metadata that lies about its role (a trusted provider with no key) fails the provider", async () => {
    const meta = JSON.parse(String(files.get(`${WK}/provider-metadata.json`)!.body));
    files.set("/liar/provider-metadata.json", { body: JSON.stringify({ ...meta, public_openpgp_keys: [] }) });
    const r = (await api("POST", "/csaf/providers", { fournisseur: `${base}/liar/provider-metadata.json` })).json();
    expect(r.fournisseur).toMatchObject({ statut: "en_echec", derniere_erreur: expect.stringContaining("exige des clés OpenPGP") });
  });
});

describe("the provider-metadata and its keys, read again only when due", () => {
  // A provider of its own under /rotating/: its key, then a new key it rotates to, and a directory it moves.
  const R = "/rotating";
  const metadata = (fp: string, dir: string) =>
    files.set(`${R}/provider-metadata.json`, {
      body: JSON.stringify({
        ...JSON.parse(String(files.get(`${WK}/provider-metadata.json`)!.body)),
        canonical_url: `${base}${R}/provider-metadata.json`,
        distributions: [{ directory_url: `${base}${R}/${dir}/` }],
        public_openpgp_keys: [{ fingerprint: fp, url: `${base}${R}/openpgp/${fp}.asc` }],
        publisher: { category: "vendor", name: "Rotating provider", namespace: "https://example.org" },
      }),
    });
  const serveSigned = async (dir: string, name: string, signer: openpgp.PrivateKey, when: string) => {
    const bytes = fixture(name);
    files.set(`${R}/${dir}/${name}`, { body: bytes });
    files.set(`${R}/${dir}/${name}.sha512`, { body: `${sha("sha512", bytes)}  ${name}\n`, type: "text/plain" });
    files.set(`${R}/${dir}/${name}.asc`, { body: await sign(bytes, signer), type: "text/plain" });
    const csv = String(files.get(`${R}/${dir}/changes.csv`)?.body ?? "");
    files.set(`${R}/${dir}/changes.csv`, { body: `"${name}","${when}"\n${csv}`, type: "text/csv" });
  };
  const keyFile = (k: { publicKey: openpgp.PublicKey }) => {
    const fp = k.publicKey.getFingerprint().toUpperCase();
    files.set(`${R}/openpgp/${fp}.asc`, { body: k.publicKey.armor(), type: "text/plain" });
    return fp;
  };

  it("an idle sync is one request (the listing's 304); a day later the metadata (conditional) and key are read again; a rotated key and a moved directory are followed at once", async () => {
    const first = keyFile(key);
    metadata(first, "a");
    await serveSigned("a", "bsi-2022-0001.json", key.privateKey, "2022-01-01T00:00:00Z");
    const r = await tenantWithScopes(t, "CSAF rotating org", ["stacks-write"]);
    const call = (method: "GET" | "POST", path: string, payload?: object) =>
      t.app.inject({ method, url: `/api/v1/organizations/${r.orgId}${path}`, headers: bearer(r.key), ...(payload && { payload }) });
    const added = (await call("POST", "/csaf/providers", { fournisseur: `${base}${R}/provider-metadata.json` })).json();
    expect(added.synchronisation).toMatchObject({ status: "synced", appliquees: 1, refusees: [] });
    const id = added.fournisseur.id as string;
    const sync = async () => {
      requests.length = 0;
      return (await call("POST", `/csaf/providers/${id}/sync`)).json();
    };

    // Nothing changed: one request.
    expect(await sync()).toMatchObject({ status: "synced", appliquees: 0, refusees: [] });
    expect(requests).toEqual([`304 ${R}/a/changes.csv`]);

    // A day later: the metadata asked with its validators (304), its key read again, then the listing.
    await t.database.db.execute(
      sql`update csaf_providers set checkpoint = jsonb_set(checkpoint, '{metadata,read_at}', to_jsonb((now() - interval '25 hours')::text)) where id = ${id}::uuid`,
    );
    expect(await sync()).toMatchObject({ status: "synced", appliquees: 0, refusees: [] });
    expect(requests).toEqual([`304 ${R}/provider-metadata.json`, `200 ${R}/openpgp/${first}.asc`, `304 ${R}/a/changes.csv`]);
    expect(await sync()).toMatchObject({ status: "synced" });
    expect(requests).toEqual([`304 ${R}/a/changes.csv`]);

    // The provider rotates its key: a document signed with the new key is checked against the metadata read again, and kept.
    const next = await openpgp.generateKey({
      type: "ecc",
      curve: "curve25519Legacy",
      userIDs: [{ name: "Rotating provider 2026" }],
      format: "object",
    });
    const second = keyFile(next);
    metadata(second, "a");
    await serveSigned("a", "rhsa-2021_5186.json", next.privateKey, "2022-02-01T00:00:00Z");
    expect(await sync()).toMatchObject({ status: "synced", appliquees: 1, refusees: [] });
    expect(requests.filter((u) => u.includes("provider-metadata") || u.includes("openpgp"))).toEqual([
      `200 ${R}/provider-metadata.json`,
      `200 ${R}/openpgp/${second}.asc`,
    ]);
    expect((await call("GET", `/csaf/providers/${id}`)).json().cles).toEqual([
      { fingerprint: second, url: `${base}${R}/openpgp/${second}.asc` },
    ]);

    // The provider moves its directory: the old listing answers 404, the metadata read again names the new one.
    files.delete(`${R}/a/changes.csv`);
    metadata(second, "b");
    await serveSigned("b", "rhsa-2021_5217.json", next.privateKey, "2022-03-01T00:00:00Z");
    expect(await sync()).toMatchObject({ status: "synced", appliquees: 1, refusees: [] });
    expect(requests.slice(0, 4)).toEqual([
      `404 ${R}/a/changes.csv`,
      `404 ${R}/a/index.txt`,
      `200 ${R}/provider-metadata.json`,
      `200 ${R}/openpgp/${second}.asc`,
    ]);
    expect(await sync()).toMatchObject({ status: "synced", appliquees: 0 });
    expect(requests).toEqual([`304 ${R}/b/changes.csv`]);
    expect((await call("GET", "/csaf/advisories")).json().total).toBe(3);

    // Two documents signed by a key the provider never named: the keys are read again once (metadata 304), both refused.
    await serveSigned("b", "rhsa-2019_1862.json", stranger.privateKey, "2022-04-01T00:00:00Z");
    await serveSigned("b", "icsa-23-220-01.v1.json", stranger.privateKey, "2022-04-02T00:00:00Z");
    const bad = await sync();
    expect(bad.refusees.map((x: { raison: string }) => x.raison)).toEqual([
      expect.stringContaining("signature d'une clé inconnue du fournisseur"),
      expect.stringContaining("signature d'une clé inconnue du fournisseur"),
    ]);
    expect(requests.filter((u) => u.includes("provider-metadata") || u.includes("openpgp"))).toEqual([
      `304 ${R}/provider-metadata.json`,
      `200 ${R}/openpgp/${second}.asc`,
    ]);
  });
});

describe("an aggregator to pick from", () => {
  it("lists the providers of an aggregator.json (by its address or its domain's well-known path), says which are followed, and one is followed from the list", async () => {
    // The standard's example aggregator, its two providers' addresses replaced by the two local ones.
    const example = fixture("aggregator-example-02.json").toString("utf8");
    const local = example
      .replace("https://www.example.com/.well-known/csaf/provider-metadata.json", `${base}${WK}/provider-metadata.json`)
      .replace("https://cert.example/advisories/csaf/provider-metadata.json", `${base}/revisions/provider-metadata.json`)
      .replace(
        "https://aggregator.example/.well-known/csaf-aggregator/aggregator.json",
        `${base}/.well-known/csaf-aggregator/aggregator.json`,
      );
    files.set("/.well-known/csaf-aggregator/aggregator.json", { body: local });
    const r = await tenantWithScopes(t, "CSAF aggregator org", ["stacks-write"]);
    const call = (method: "GET" | "POST", path: string, key = r.key, payload?: object) =>
      t.app.inject({ method, url: `/api/v1/organizations/${r.orgId}${path}`, headers: bearer(key), ...(payload && { payload }) });
    const read = (agregateur: string, key = r.key) => call("GET", `/csaf/aggregator?agregateur=${encodeURIComponent(agregateur)}`, key);

    const byUrl = await read(`${base}/.well-known/csaf-aggregator/aggregator.json`);
    expect(byUrl.statusCode, byUrl.body).toBe(200);
    expect(byUrl.json()).toEqual({
      url: `${base}/.well-known/csaf-aggregator/aggregator.json`,
      nom: "Example Aggregator",
      namespace: "https://aggregator.example",
      categorie: "aggregator",
      derniere_maj: "2021-07-12T22:35:38.978Z",
      fournisseurs: [
        {
          type: "csaf_provider",
          metadata_url: `${base}${WK}/provider-metadata.json`,
          editeur: "Example Company ProductCERT",
          namespace: "https://psirt.example.com",
          categorie: "vendor",
          role: null,
          derniere_maj: "2021-07-12T20:20:56.169Z",
          miroirs: ["https://aggregator.example/.well-known/csaf-aggregator/Example_Company_ProductCERT/provider-metadata.json"],
          suivi: null,
        },
        expect.objectContaining({
          metadata_url: `${base}/revisions/provider-metadata.json`,
          editeur: "Example Coordinator CERT",
          suivi: null,
        }),
      ],
    });
    // By its domain: /.well-known/csaf-aggregator/aggregator.json.
    expect((await read(host)).json().fournisseurs).toHaveLength(2);

    // Picked from the list: followed by its metadata address; the list then says so.
    const pick = byUrl.json().fournisseurs[0].metadata_url as string;
    const added = await call("POST", "/csaf/providers", r.key, { fournisseur: pick });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json().synchronisation.status).toBe("synced");
    const again = (await read(host)).json().fournisseurs as { metadata_url: string; suivi: string | null }[];
    expect(again.map((p) => p.suivi)).toEqual([added.json().fournisseur.id, null]);

    // An address with no aggregator, or not an aggregator.json: 422 on agregateur with the reason; bad input: 422.
    const none = await read(`${base}/nothing/aggregator.json`);
    expect(none.statusCode).toBe(422);
    expect(none.json().detail[0]).toMatchObject({ loc: ["query", "agregateur"], msg: expect.stringContaining("HTTP 404") });
    const notOne = await read(`${base}${WK}/provider-metadata.json`);
    expect(notOne.statusCode).toBe(422);
    expect(notOne.json().detail[0].msg).toContain("aggregator_version 2.0 attendu");
    expect((await read("not a domain")).statusCode).toBe(422);
    // A read-only key cannot make Vigie fetch an address; another organization's path is a 404.
    expect((await read(host, r.readKey)).statusCode).toBe(403);
    const other = await tenantWithScopes(t, "CSAF aggregator other", ["stacks-write"]);
    expect((await read(host, other.key)).statusCode).toBe(404);
  });
});

describe("credentials for TLP:GREEN and TLP:AMBER", () => {
  it("reads a TLP:AMBER feed only once given credentials (stored encrypted, never returned, sent to the provider's origin only)", async () => {
    // A provider with a public TLP:WHITE feed and a TLP:AMBER feed behind HTTP basic authentication.
    const A = "/amber";
    const LOCALHOST = `http://localhost:${(server.address() as AddressInfo).port}`;
    const meta = JSON.parse(String(files.get(`${WK}/provider-metadata.json`)!.body));
    files.set(`${A}/provider-metadata.json`, {
      body: JSON.stringify({
        ...meta,
        canonical_url: `${base}${A}/provider-metadata.json`,
        distributions: [
          {
            rolie: {
              feeds: [
                { summary: "TLP:WHITE", tlp_label: "WHITE", url: `${base}${A}/white/feed.json` },
                { summary: "TLP:AMBER", tlp_label: "AMBER", url: `${base}${A}/amber/feed.json` },
              ],
            },
          },
        ],
        publisher: { category: "vendor", name: "Amber provider", namespace: "https://example.org" },
      }),
    });
    await publish(`${A}/white/rhsa-2021_5186.json`, fixture("rhsa-2021_5186.json"));
    // The BSI advisory as the provider would label it for its partners (its TLP changed in memory).
    const doc = JSON.parse(fixture("bsi-2022-0001.json").toString("utf8"));
    doc.document.distribution.tlp.label = "AMBER";
    expect(await csafFailures(doc)).toEqual([]);
    await publish(`${A}/amber/bsi-2022-0001.json`, Buffer.from(JSON.stringify(doc)));
    const feed = (path: string, entries: ReturnType<typeof rolieEntry>[]) =>
      files.set(path, { body: JSON.stringify({ feed: { id: path, title: path, updated: "2024-01-01T00:00:00Z", entry: entries } }) });
    feed(`${A}/white/feed.json`, [rolieEntry("RHSA-2021:5186", `${A}/white/rhsa-2021_5186.json`, "2022-01-01T00:00:00Z")]);
    const amberEntry = rolieEntry("BSI-2022-0001", `${A}/amber/bsi-2022-0001.json`, "2022-01-01T00:00:00Z");
    // Its hash file named on another origin (localhost): the credentials must not go there.
    amberEntry.link[1] = { rel: "hash", href: `${LOCALHOST}${A}/amber/bsi-2022-0001.json.sha512` };
    feed(`${A}/amber/feed.json`, [amberEntry]);
    const basic = `Basic ${Buffer.from("vigie:s3cret-amber").toString("base64")}`;
    guarded.set(`${A}/amber/feed.json`, basic);
    guarded.set(`${A}/amber/bsi-2022-0001.json`, basic);

    const r = await tenantWithScopes(t, "CSAF amber org", ["stacks-write"]);
    const call = (method: "GET" | "POST" | "PUT" | "DELETE", path: string, payload?: object) =>
      t.app.inject({ method, url: `/api/v1/organizations/${r.orgId}${path}`, headers: bearer(r.key), ...(payload && { payload }) });
    requests.length = 0;
    const added = (await call("POST", "/csaf/providers", { fournisseur: `${base}${A}/provider-metadata.json` })).json();
    expect(added.synchronisation).toMatchObject({ status: "synced", appliquees: 1, refusees: [] });
    expect(added.fournisseur.identifiants).toBeNull();
    // Without credentials the TLP:AMBER feed is not even asked.
    expect(requests.filter((u) => u.includes("/amber/amber/"))).toEqual([]);
    const id = added.fournisseur.id as string;

    const bad = await call("PUT", `/csaf/providers/${id}/identifiants`, { type: "entete", nom: "Host", valeur: "x" });
    expect(bad.statusCode).toBe(422);
    // Pydantic v2 names the tagged union's member in the loc.
    expect(bad.json().detail[0].loc).toEqual(["body", "entete", "nom"]);
    const put = await call("PUT", `/csaf/providers/${id}/identifiants`, {
      type: "basic",
      utilisateur: "vigie",
      mot_de_passe: "s3cret-amber",
    });
    expect(put.statusCode, put.body).toBe(204);
    const shown = await call("GET", `/csaf/providers/${id}`);
    expect(shown.json().identifiants).toBe("basic");
    expect(shown.body).not.toContain("s3cret");
    const [row] = await rowsOf<{ credentials: string }>(t.database.db, sql`select credentials from csaf_providers where id = ${id}::uuid`);
    expect(row!.credentials).toMatch(/^enc:v1:/);
    expect(row!.credentials).not.toContain("s3cret");

    authorizations.length = 0;
    const synced = (await call("POST", `/csaf/providers/${id}/sync`)).json();
    expect(synced).toMatchObject({ status: "synced", appliquees: 1, refusees: [] });
    const [amber] = (await call("GET", "/csaf/advisories?cve=CVE-2022-27193")).json().items;
    expect(amber).toMatchObject({ tracking_id: "BSI-2022-0001", tlp: "AMBER", provider_id: id });
    // Sent to the provider's origin (the feed, the document), not to the hash file's other origin.
    const auth = (url: string, h = host) => authorizations.find((x) => x.url === url && x.host === h)?.authorization;
    expect(auth(`${A}/amber/feed.json`)).toBe(basic);
    expect(auth(`${A}/amber/bsi-2022-0001.json`)).toBe(basic);
    expect(auth(`${A}/amber/bsi-2022-0001.json.sha512`, `localhost:${(server.address() as AddressInfo).port}`)).toBeNull();

    expect((await call("DELETE", `/csaf/providers/${id}/identifiants`)).statusCode).toBe(204);
    expect((await call("GET", `/csaf/providers/${id}`)).json().identifiants).toBeNull();
    // Another organization's provider: 404.
    const other = await tenantWithScopes(t, "CSAF amber other", ["stacks-write"]);
    const theirs = await t.app.inject({
      method: "PUT",
      url: `/api/v1/organizations/${other.orgId}/csaf/providers/${id}/identifiants`,
      headers: bearer(other.key),
      payload: { type: "basic", utilisateur: "x", mot_de_passe: "y" },
    });
    expect(theirs.statusCode).toBe(404);
  });
});

describe("the outbound address guard", () => {
  it("refuses a provider whose address is private or loopback unless VIGIE_ALLOW_PRIVATE_TARGETS, before any request", async () => {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits++;
      res.end("{}");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/csaf/provider-metadata.json`;
    try {
      const guarded = new CsafHttp(t.config.feeds, createLogger("silent"), new AbortController().signal);
      await expect(guarded.get(url)).rejects.toThrow(/127\.0\.0\.1 mène à une adresse .* : refusé/);
      await expect(guarded.get("http://[::1]:9/x")).rejects.toThrow(/refusé/);
      expect(hits).toBe(0);
      const allowed = new CsafHttp(t.config.feeds, createLogger("silent"), new AbortController().signal, true);
      expect((await allowed.get(url)).status).toBe(200);
      expect(hits).toBe(1);
    } finally {
      server.close();
    }
  });
});

describe("a revised advisory (two real revisions of each of two CISA advisories)", () => {
  // A second provider, followed by its provider-metadata address by another organization: its
  // directory serves CISA's ICSA-23-208-03 version 5 and ICSA-23-220-01 version 1, then version 6
  // and version 2 as CISA published them (test/fixtures/csaf/README.md).
  const DIR = "/revisions/dir";
  const meta = JSON.parse(String(files.get(`${WK}/provider-metadata.json`)!.body));
  files.set("/revisions/provider-metadata.json", {
    body: JSON.stringify({
      ...meta,
      canonical_url: `${base}/revisions/provider-metadata.json`,
      distributions: [{ directory_url: `${base}${DIR}/` }],
      publisher: { category: "coordinator", name: "Local CISA mirror", namespace: "https://www.cisa.gov/" },
    }),
  });
  const serve = async (when: string, docs: [string, string][]) => {
    for (const [name, file] of docs) await publish(`${DIR}/${name}`, fixture(file));
    files.set(`${DIR}/changes.csv`, { body: docs.map(([name]) => `"${name}","${when}"`).join("\n"), type: "text/csv" });
  };
  const C80 = "Mitsubishi Electric:C80 (BND-2036W000-**)";
  const IGSS = "Schneider Electric:IGSS Dashboard (DashBoard.exe)";

  it("follows the vendor: an alert whose product the new version no longer says affected stops matching (explained), one still affected follows, a product newly affected alerts", async () => {
    for (const f of ["icsa-23-208-03.v5.json", "icsa-23-208-03.v6.json", "icsa-23-220-01.v1.json", "icsa-23-220-01.v2.json"])
      expect(await csafFailures(JSON.parse(fixture(f).toString("utf8"))), f).toEqual([]);
    const r = await tenantWithScopes(t, "CSAF revisions org", ["stacks-write"]);
    const base2 = `/api/v1/organizations/${r.orgId}`;
    const call = (method: "GET" | "POST", path: string, payload?: object) =>
      t.app.inject({ method, url: `${base2}${path}`, headers: bearer(r.key), ...(payload && { payload }) });
    // Plant A runs a C80 at BG (the version Mitsubishi Electric says fixes it) and IGSS Dashboard 16.0.0.23200;
    // plant B a C80 at BE.
    const plantA = await t.services.projects.create({ orgId: r.orgId, name: "Plant A" });
    const plantB = await t.services.projects.create({ orgId: r.orgId, name: "Plant B" });
    for (const [project, items] of [
      [plantA.id, [`${C80}@BG`, `${IGSS}@16.0.0.23200`]],
      [plantB.id, [`${C80}@BE`]],
    ] as const) {
      const res = await call("POST", `/projects/${project}/stacks`, {
        name: "Atelier",
        items: items.map((value) => ({ item_type: "product", value })),
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    const alerts = async (project: string) =>
      (
        (await call("GET", `/projects/${project}/alerts?page_size=100`)).json() as {
          items: (Alert & { id: string; correspond_encore: boolean })[];
        }
      ).items.sort((x, y) => (x.cve_id < y.cve_id ? -1 : 1));

    // Version 5 says every C80 version affected; version 1 says IGSS Dashboard <= 16.0.0.23130.
    await serve("2023-12-05T07:00:00Z", [
      ["icsa-23-208-03.json", "icsa-23-208-03.v5.json"],
      ["icsa-23-220-01.json", "icsa-23-220-01.v1.json"],
    ]);
    const added = (await call("POST", "/csaf/providers", { fournisseur: `${base}/revisions/provider-metadata.json` })).json();
    expect(added.synchronisation).toMatchObject({ status: "synced", appliquees: 2, refusees: [], alertes: 2 });
    const provider = added.fournisseur.id as string;
    const [a5] = await alerts(plantA.id);
    expect((await alerts(plantA.id)).map((x) => x.cve_id)).toEqual(["CVE-2023-3346"]);
    expect(a5).toMatchObject({
      correspond_encore: true,
      correspondance: {
        rule: "vendor_advisory",
        avis_editeur: { tracking_id: "ICSA-23-208-03", version_avis: "5", statut: "known_affected" },
      },
    });
    expect(a5!.source).toContain("selon l'avis de l'éditeur");
    const [b5] = await alerts(plantB.id);
    expect(b5).toMatchObject({ cve_id: "CVE-2023-3346", correspondance: { avis_editeur: { version_avis: "5" } } });
    const [{ last }] = (await rowsOf<{ last: number }>(
      t.database.db,
      sql`select coalesce(max(id), 0)::int as last from outbox_events`,
    )) as [{ last: number }];

    // Version 6: C80 <= BF only (BG fixes it); version 2: IGSS Dashboard <= 16.0.0.23211, and CVE-2023-4516 added.
    await serve("2024-01-30T07:00:00Z", [
      ["icsa-23-208-03.json", "icsa-23-208-03.v6.json"],
      ["icsa-23-220-01.json", "icsa-23-220-01.v2.json"],
    ]);
    const synced = (await call("POST", `/csaf/providers/${provider}/sync`)).json();
    expect(synced).toMatchObject({ status: "synced", appliquees: 2, refusees: [], alertes: 2 });

    // Plant A: the C80 alert is kept (read state, tags, case stay) but no longer matches, and says why;
    // IGSS Dashboard 16.0.0.23200 now falls in the vendor's range: two new alerts.
    const a6 = await alerts(plantA.id);
    expect(a6.map((x) => [x.cve_id, x.correspond_encore])).toEqual([
      ["CVE-2023-3001", true],
      ["CVE-2023-3346", false],
      ["CVE-2023-4516", true],
    ]);
    const c80 = a6.find((x) => x.cve_id === "CVE-2023-3346")!;
    expect(c80.id).toBe(a5!.id);
    expect(c80.correspondance.avis_editeur).toMatchObject({ tracking_id: "ICSA-23-208-03", version_avis: "6", statut: null });
    expect(c80.source).toContain("plus concerné selon l'avis de l'éditeur");
    expect(a6.find((x) => x.cve_id === "CVE-2023-4516")!.correspondance.avis_editeur).toMatchObject({
      tracking_id: "ICSA-23-220-01",
      version_avis: "2",
      statut: "known_affected",
    });
    // Plant B's C80 at BE is still affected: its alert follows version 6.
    const [b6] = await alerts(plantB.id);
    expect(b6).toMatchObject({ id: b5!.id, correspond_encore: true, correspondance: { avis_editeur: { version_avis: "6" } } });

    // The history says what changed: the alerts' events, and the advisory's replaced version.
    const events = await rowsOf<{ event: string; cve_id: string; project_id: string; payload: { changes: Record<string, unknown> } }>(
      t.database.db,
      sql`select event, cve_id, project_id, payload from outbox_events where org_id = ${r.orgId}::uuid and id > ${last} order by project_id, cve_id, event`,
    );
    const updated = events.filter((e) => e.event === "cve.updated");
    expect(updated.find((e) => e.project_id === plantA.id)!.payload.changes).toEqual({
      correspondance: { from: true, to: false },
      avis_editeur: {
        from: { tracking_id: "ICSA-23-208-03", version: "5", statut: "known_affected" },
        to: { tracking_id: "ICSA-23-208-03", version: "6", statut: null },
      },
    });
    expect(updated.find((e) => e.project_id === plantB.id)!.payload.changes).toEqual({
      avis_editeur: {
        from: { tracking_id: "ICSA-23-208-03", version: "5", statut: "known_affected" },
        to: { tracking_id: "ICSA-23-208-03", version: "6", statut: "known_affected" },
      },
    });
    expect(events.filter((e) => e.event === "cve.new_match").map((e) => e.cve_id)).toEqual(["CVE-2023-3001", "CVE-2023-4516"]);

    const [igss] = (await call("GET", "/csaf/advisories?q=ICSA-23-220-01")).json().items;
    expect(igss).toMatchObject({ version: "2", versions_remplacees: [{ version: "1", par_version: "2" }] });
    expect(igss.versions_remplacees[0].changements).toEqual({
      cves_ajoutees: ["CVE-2023-4516"],
      cves_retirees: [],
      statuts: [
        { cve: "CVE-2023-3001", produit: "IGSS Dashboard (DashBoard.exe): <= 16.0.0.23130", de: "known_affected", a: null },
        { cve: "CVE-2023-3001", produit: "IGSS Dashboard (DashBoard.exe): <=16.0.0.23211", de: null, a: "known_affected" },
        { cve: "CVE-2023-4516", produit: "IGSS Dashboard (DashBoard.exe): <=16.0.0.23211", de: null, a: "known_affected" },
      ],
      statuts_tronques: false,
    });

    // A sync with nothing new changes nothing (no event, the alerts as they are).
    const idle = (await call("POST", `/csaf/providers/${provider}/sync`)).json();
    expect(idle).toMatchObject({ status: "synced", appliquees: 0, alertes: 0 });
    const [{ n }] = (await rowsOf<{ n: number }>(
      t.database.db,
      sql`select count(*)::int as n from outbox_events where org_id = ${r.orgId}::uuid and id > ${last}`,
    )) as [{ n: number }];
    expect(n).toBe(events.length);
  });
});

describe("MCP read tools", () => {
  it("list_csaf_providers and list_csaf_advisories answer what the REST routes answer", async () => {
    await t.app.listen({ port: 0, host: "127.0.0.1" });
    const client = new Client({ name: "vigie-test", version: "1.0.0" });
    const mcp = new URL(`http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/mcp`);
    await client.connect(new StreamableHTTPClientTransport(mcp, { requestInit: { headers: bearer(a.readKey) } }));
    try {
      const providers = await client.callTool({ name: "list_csaf_providers", arguments: { org_id: a.orgId } });
      expect(providers.structuredContent).toEqual((await api("GET", "/csaf/providers")).json());
      const advisories = await client.callTool({ name: "list_csaf_advisories", arguments: { org_id: a.orgId, cve: "CVE-2021-44228" } });
      expect(advisories.structuredContent).toEqual((await api("GET", "/csaf/advisories?cve=CVE-2021-44228")).json());
      expect((advisories.structuredContent as { total: number }).total).toBe(1);
    } finally {
      await client.close();
    }
  });
});

describe("the pure parts", () => {
  it("reads the tree's branches and relationships (Red Hat's components of a platform)", () => {
    const adv = readCsafAdvisory(JSON.parse(fixture("rhsa-2021_5186.json").toString("utf8")));
    expect(adv).toMatchObject({ tracking_id: "RHSA-2021:5186", tlp: "WHITE", cves: ["CVE-2021-4104", "CVE-2021-4125"] });
    const rel = adv.products.find((p) => p.relationship)!;
    expect(rel.relationship).toMatchObject({ category: "default_component_of", of: "8Base-RHOSE-4.6" });
  });

  it("compares tracking versions (integers, semver with pre-releases) and vers: ranges", () => {
    expect(compareTrackingVersions("2", "10")).toBeLessThan(0);
    expect(compareTrackingVersions("1.0.0", "1.0.0-rc.1")).toBeGreaterThan(0);
    expect(compareTrackingVersions("1.2.0", "1.10.0")).toBeLessThan(0);
    expect(versHolds("vers:generic/>=2.9|<=4.1", "3.0")).toBe(true);
    expect(versHolds("vers:generic/>=2.9|<=4.1", "4.2")).toBe(false);
    expect(versHolds("vers:generic/>=1.0|<=2.3", "2.3")).toBe(true);
    expect(versHolds("2.9 and later", "3.0")).toBeNull();
  });

  it("meets a product by its purl whatever the spelling, by CPE 2.2 or 2.3, and not another package", () => {
    const item = {
      id: "i",
      project_id: "p",
      item_type: "purl",
      value: "pkg:PyPI/Django_Rest@3.1",
      match_vendor: null,
      match_product: null,
      match_version: "3.1",
    };
    const product = (purl: string) => ({
      product_id: purl,
      name: purl,
      vendor: null,
      product_name: null,
      version: null,
      version_range: null,
      purl,
      cpe: null,
      helper: { purl },
      relationship: null,
    });
    expect(
      productsMet(item, [product("pkg:pypi/django-rest@3.1"), product("pkg:pypi/django@3.1")]).map((m) => m.product.product_id),
    ).toEqual(["pkg:pypi/django-rest@3.1"]);
  });
});

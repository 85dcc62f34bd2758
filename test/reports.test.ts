import { createHash } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { importFeed } from "../src/feeds/import.js";
import { canonicalJson } from "../src/modules/reports/reports.canonical.js";
import { renderPdf } from "../src/modules/reports/reports.pdf.js";
import { bearer, createTestApp, createWorkflow, tenantWithScopes } from "./helpers.js";
import { readPdf } from "./pdf-reader.js";

const t = await createTestApp();
const db = t.database.db;
const SCOPES = ["cases-write", "stacks-write", "reports-write"];
const sha256 = (b: Uint8Array | string) => createHash("sha256").update(b).digest("hex");

interface Report {
  id: string;
  titre: string;
  report_type: string;
  empreinte: string;
  genere_le: string | null;
  derniere_synchro_le: string | null;
  synchro_figee: boolean;
  synchro_etat: string;
  version: number;
  versions_count: number;
  formats: string[];
}

// Real records: PAN-OS CVE-2024-3400 (KEV, due 2024-04-19) and CVE-2024-9468, raised on a PAN-OS 10.2.5 stack.
for (const [source, path] of [
  ["cve5", "test/fixtures/import/cve5-sample.jsonl"],
  ["cve5", "test/fixtures/matching/cve5-panos.jsonl"],
  ["nvd", "test/fixtures/import/nvd2-CVE-2024-3400.json"],
  ["kev", "test/fixtures/import/kev-sample.json"],
] as const) {
  expect((await importFeed(db, source, [path])).errors).toEqual([]);
}

const a = await tenantWithScopes(t, "Alpha", SCOPES);
const b = await tenantWithScopes(t, "Beta", SCOPES);
expect(
  (await a.call("POST", "/stacks", { name: "Edge", items: [{ item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" }] }))
    .statusCode,
).toBe(201);
expect((await a.call("PUT", "/cases/CVE-2024-3400", { status: "corrige", comment: "correctif 10.2.9-h1 appliqué" })).statusCode).toBe(201);
const alerts = (await a.call("GET", "/alerts?page_size=100")).json() as { items: { cve_id: string; palier: string }[]; total: number };

async function create(call: typeof a.call, body: Record<string, unknown>): Promise<Report> {
  const res = await call("POST", "/reports", body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as Report;
}

async function download(id: string, format: string, version?: number) {
  const res = await a.call("GET", `/reports/${id}/download?format=${format}${version ? `&version=${version}` : ""}`);
  return res;
}

/** The PDF's text laid out in lines (page n only, when given), read with pdf.js. */
async function pdfText(pdf: Buffer, page?: number): Promise<string> {
  const doc = await readPdf(pdf);
  try {
    return page ? await doc.pageText(page) : await doc.text();
  } finally {
    await doc.close();
  }
}

async function find(orgId: string, token: string, payload: { file: Buffer; name: string } | { empreinte: string }) {
  const url = `/api/v1/organizations/${orgId}/evidence/find`;
  if ("empreinte" in payload)
    return t.app.inject({ method: "POST", url, headers: bearer(token), payload: { empreinte: payload.empreinte } });
  const form = new FormData();
  form.append("file", new Blob([payload.file]), payload.name);
  const req = new Request("http://vigie.test/", { method: "POST", body: form });
  return t.app.inject({
    method: "POST",
    url,
    headers: { ...bearer(token), "content-type": req.headers.get("content-type")! },
    payload: Buffer.from(await req.arrayBuffer()),
  });
}

describe("the project report (rapport_projet)", () => {
  it("is generated at once (201) with the PreuveRetrouvee fields; the JSON download is the canonical content its fingerprint is taken of", async () => {
    const r = await create(a.call, { report_type: "rapport_projet" });
    expect(r).toMatchObject({
      report_type: "rapport_projet",
      synchro_figee: false,
      synchro_etat: "a_jour",
      version: 1,
      versions_count: 1,
      formats: ["pdf", "json"],
    });
    expect(r.titre).toMatch(/^Rapport de vulnérabilités — Production — du \d{4}-\d\d-\d\d au \d{4}-\d\d-\d\d$/);
    expect(r.empreinte).toMatch(/^[0-9a-f]{64}$/);
    expect(r.genere_le).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    const json = await download(r.id, "json");
    expect(json.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(json.headers["content-disposition"]).toBe(`attachment; filename="rapport_projet-${r.id}-v1.json"`);
    expect(sha256(json.rawPayload)).toBe(r.empreinte);
    const content = json.json();
    expect(canonicalJson(content)).toBe(json.body);
    expect(content.alertes.total).toBe(alerts.total);
    expect(content.cas.par_statut.corrige).toBe(1);
  });

  it("renders a PDF whose figures are the API's, with the fingerprint and generation time in every page footer and in its metadata", async () => {
    const r = await create(a.call, { report_type: "rapport_projet" });
    const content = (await download(r.id, "json")).json();
    const res = await download(r.id, "pdf");
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("application/pdf");
    expect(res.headers["x-vigie-empreinte"]).toBe(r.empreinte);
    const pdf = res.rawPayload;
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
    const doc = await readPdf(pdf);
    const text = await doc.text();
    expect(text).toContain("Rapport de vulnérabilités — Production");
    expect(text).toMatch(new RegExp(`Total : ${content.alertes.total}\\b`));
    expect(text).toMatch(new RegExp(`KEV \\(exploitées\\) : ${content.alertes.kev}\\b`));
    for (const p of ["P1", "P2", "P3", "P4"]) expect(text).toMatch(new RegExp(`${p}\\s+${content.alertes.par_palier[p]}\\b`));
    expect(text).toMatch(new RegExp(`corrige\\s+${content.cas.par_statut.corrige}\\b`));
    for (const x of content.alertes.principales) expect(text).toContain(x.cve_id);
    const info = doc.info;
    expect(info.Subject).toContain(r.empreinte);
    expect(info.Keywords).toContain(`empreinte:${r.empreinte}`);
    expect(info.Keywords).toContain(`genere_le:${r.genere_le!.replace(".000Z", "Z")}`);
    expect(info.Author).toBe("Vigie");
    const pages = doc.pages;
    expect(pages).toBeGreaterThanOrEqual(1);
    for (let p = 1; p <= pages; p++) {
      const page = (await doc.pageText(p)).replace(/\s+/g, " ");
      expect(page).toContain(`Empreinte SHA-256 : ${r.empreinte}`);
      expect(page).toContain(`Généré le ${r.genere_le!.replace(".000Z", "Z")}`);
      expect(page).toContain(`Page ${p} sur ${pages}`);
    }
    // A page renders (pdf.js onto a canvas) with ink on it, and the stored file is the one whose hash the version records.
    const { png, inked } = await doc.renderPng(1, 50 / 72);
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    expect(inked).toBeGreaterThan(0.01);
    await doc.close();
    const detail = (await a.call("GET", `/reports/${r.id}`)).json();
    expect(detail.versions[0].files.find((f: { format: string }) => f.format === "pdf").sha256).toBe(sha256(pdf));
  });

  it("renders the same PDF bytes for the same version (fixed CreationDate, no random id), and English on request", async () => {
    const r = await create(a.call, { report_type: "rapport_projet", language: "en" });
    expect(r.titre).toMatch(/^Vulnerability report — Production — /);
    const content = (await download(r.id, "json")).json();
    const meta = {
      type: "rapport_projet" as const,
      language: "en" as const,
      empreinte: r.empreinte,
      genereLe: r.genere_le!.replace(".000Z", "Z"),
      version: 1,
    };
    const one = await renderPdf(content, meta);
    expect(sha256(await renderPdf(content, meta))).toBe(sha256(one));
    expect(sha256(one)).toBe(sha256((await download(r.id, "pdf")).rawPayload));
    expect(await pdfText(one)).toContain("SHA-256 fingerprint");
  });

  it("has no CSV (409 format_indisponible) and refuses a bad period (422)", async () => {
    const r = await create(a.call, { report_type: "rapport_projet" });
    const csv = await download(r.id, "csv");
    expect(csv.statusCode).toBe(409);
    expect(csv.json().detail.code).toBe("format_indisponible");
    const bad = await a.call("POST", "/reports", { report_type: "rapport_projet", from: "2026-02-01", to: "2026-01-01" });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0].loc).toEqual(["body", "from"]);
    const other = await a.call("POST", "/reports", { report_type: "inventaire", from: "2026-01-01" });
    expect(other.statusCode).toBe(422);
    const type = await a.call("POST", "/reports", { report_type: "nope" });
    expect(type.json().detail[0].type).toBe("literal_error");
  });
});

describe("KEV compliance, find again, sync and freeze", () => {
  it("lists every KEV CVE hitting the project against CISA's due date, as PDF, JSON and CSV (formula cells neutralised)", async () => {
    const r = await create(a.call, { report_type: "conformite_kev" });
    expect(r.formats).toEqual(["pdf", "json", "csv"]);
    const content = (await download(r.id, "json")).json();
    const row = content.cves.find((c: { cve_id: string }) => c.cve_id === "CVE-2024-3400");
    // Closed in 2026 (the test's day), due 2024-04-19: handled late.
    expect(row).toMatchObject({ echeance: "2024-04-19", kev_ajoute_le: "2024-04-12", statut_cas: "corrige", verdict: "en_retard" });
    expect(content.synthese.en_retard).toBeGreaterThanOrEqual(1);
    const csv = await download(r.id, "csv");
    expect(csv.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(csv.body.split("\n")[0]).toBe(
      `# rapport_id=${r.id}; version=1; empreinte=${r.empreinte}; genere_le=${r.genere_le!.replace(".000Z", "Z")}`,
    );
    expect(csv.body.split("\n")[1]).toBe("cve_id,produit,kev_ajoute_le,echeance,statut_cas,traite_le,verdict");
    expect(csv.body).toContain("CVE-2024-3400,");
    expect(await pdfText((await download(r.id, "pdf")).rawPayload)).toContain("traitée en retard");
  });

  it("is found again by each of its files and by its fingerprint; a file altered by one byte is not; nor by another organization", async () => {
    const r = await create(a.call, { report_type: "conformite_kev" });
    for (const format of ["pdf", "json", "csv"]) {
      const file = (await download(r.id, format)).rawPayload;
      const res = await find(a.orgId, a.key, { file, name: `copie.${format}` });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        id: r.id,
        titre: r.titre,
        report_type: "conformite_kev",
        empreinte: r.empreinte,
        genere_le: r.genere_le,
        derniere_synchro_le: expect.any(String),
        synchro_figee: false,
        synchro_etat: "a_jour",
        project_id: a.projectId,
        version: 1,
        version_courante: true,
        current_version: 1,
        current_empreinte: r.empreinte,
        format,
      });
      const altered = Buffer.from(file);
      const at = Math.floor(altered.length / 2);
      altered[at] = altered[at]! ^ 1;
      const miss = await find(a.orgId, a.key, { file: altered, name: `copie.${format}` });
      expect(miss.statusCode).toBe(404);
      expect(miss.json()).toEqual({ detail: "Preuve introuvable" });
      // Another organization: its own path finds nothing, ours is not its to ask.
      expect((await find(b.orgId, b.key, { file, name: "x" })).statusCode).toBe(404);
      expect((await find(a.orgId, b.key, { file, name: "x" })).json()).toEqual({ detail: "Organisation introuvable" });
    }
    const byPrint = await find(a.orgId, a.readKey, { empreinte: r.empreinte.toUpperCase() });
    expect(byPrint.statusCode).toBe(200);
    expect(byPrint.json()).toMatchObject({ id: r.id, format: null, version: 1 });
    expect((await find(b.orgId, b.key, { empreinte: r.empreinte })).statusCode).toBe(404);
    // A key restricted to another project of the organization does not find it.
    const other = await t.services.projects.create({ orgId: a.orgId, name: "Autre" });
    const restricted = await t.services.apiKeys.create({ orgId: a.orgId, scopes: [], projectIds: [other.id] });
    expect((await find(a.orgId, restricted.key, { empreinte: r.empreinte })).statusCode).toBe(404);
    // Bad input: 422, never 500.
    const noFile = await t.app.inject({
      method: "POST",
      url: `/api/v1/organizations/${a.orgId}/evidence/find`,
      headers: { ...bearer(a.key), "content-type": "multipart/form-data; boundary=x" },
      payload: "garbage",
    });
    expect(noFile.statusCode).toBe(422);
    const short = await find(a.orgId, a.key, { empreinte: "abc" });
    expect(short.statusCode).toBe(422);
    // Size-capped: 10 MiB.
    const big = await find(a.orgId, a.key, { file: Buffer.alloc(10 * 1024 * 1024 + 1), name: "big.pdf" });
    expect(big.statusCode).toBe(413);
    expect(big.json()).toEqual({ detail: expect.any(String) });
    const missing = await t.app.inject({
      method: "POST",
      url: `/api/v1/organizations/${a.orgId}/evidence/find`,
      headers: { ...bearer(a.key), "content-type": "multipart/form-data; boundary=b" },
      payload: '--b\r\nContent-Disposition: form-data; name="other"\r\n\r\nx\r\n--b--\r\n',
    });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().detail[0]).toMatchObject({ type: "missing", loc: ["body", "file"] });
  });

  it("an unfrozen report goes perimee when its data changes and the job regenerates it (new version, earlier kept); a frozen one never changes", async () => {
    const live = await create(a.call, { report_type: "conformite_kev" });
    const frozen = await create(a.call, { report_type: "conformite_kev" });
    const fr = await a.call("POST", `/reports/${frozen.id}/freeze`);
    expect(fr.statusCode).toBe(200);
    expect(fr.json()).toMatchObject({ synchro_figee: true, synchro_etat: "figee", empreinte: frozen.empreinte });
    const frozenPdf = (await download(frozen.id, "pdf")).rawPayload;
    // The data changes: CVE-2024-3400's case reopens.
    expect((await a.call("PUT", "/cases/CVE-2024-3400", { status: "en_analyse" })).statusCode).toBe(200);
    expect(((await a.call("GET", `/reports/${live.id}`)).json() as Report).synchro_etat).toBe("perimee");
    const run = await t.services.reports.sync();
    expect(run.errors).toBe(0);
    expect(run.versions).toBeGreaterThanOrEqual(1);
    const after = (await a.call("GET", `/reports/${live.id}`)).json();
    expect(after).toMatchObject({ synchro_etat: "a_jour", version: 2, versions_count: 2 });
    expect(after.empreinte).not.toBe(live.empreinte);
    expect(after.versions.map((v: { version: number; empreinte: string }) => [v.version, v.empreinte])).toEqual([
      [2, after.empreinte],
      [1, live.empreinte],
    ]);
    const v2 = (await download(live.id, "json")).json();
    expect(v2.cves.find((c: { cve_id: string }) => c.cve_id === "CVE-2024-3400").statut_cas).toBe("en_analyse");
    // The old copy is still found, as an earlier version.
    const old = await find(a.orgId, a.key, { empreinte: live.empreinte });
    expect(old.json()).toMatchObject({ id: live.id, version: 1, version_courante: false, current_version: 2, empreinte: live.empreinte });
    // Nothing changed since: a second run adds no version.
    await t.services.reports.sync();
    expect(((await a.call("GET", `/reports/${live.id}`)).json() as Report).version).toBe(2);
    // The frozen report: same version, same bytes, its freeze recorded with its actor.
    const f = (await a.call("GET", `/reports/${frozen.id}`)).json();
    expect(f).toMatchObject({ version: 1, empreinte: frozen.empreinte, synchro_etat: "figee", synchro_figee: true });
    expect(sha256((await download(frozen.id, "pdf")).rawPayload)).toBe(sha256(frozenPdf));
    expect(f.history.map((h: { event: string }) => h.event)).toEqual(["created", "version", "frozen"]);
    expect(f.history[2].actor).toEqual({ type: "api_key", id: expect.any(String), label: "ci" });
    expect((await find(a.orgId, a.key, { file: frozenPdf, name: "x.pdf" })).json()).toMatchObject({
      synchro_etat: "figee",
      synchro_figee: true,
    });
  });

  it("writes need reports-write (403); a frozen report cannot be deleted (409 rapport_fige); another tenant sees none of it", async () => {
    const r = await create(a.call, { report_type: "exceptions" });
    expect((await a.call("POST", "/reports", { report_type: "exceptions" }, a.readKey)).statusCode).toBe(403);
    expect((await a.call("POST", `/reports/${r.id}/freeze`, undefined, a.readKey)).statusCode).toBe(403);
    expect((await a.call("GET", `/reports/${r.id}`, undefined, a.readKey)).statusCode).toBe(200);
    expect((await b.call("GET", `/reports/${r.id}`)).json()).toEqual({ detail: "Rapport introuvable" });
    expect((await b.call("GET", `/reports/${r.id}/download?format=pdf`)).statusCode).toBe(404);
    expect((await b.call("DELETE", `/reports/${r.id}`)).statusCode).toBe(404);
    expect((await b.call("POST", `/reports/${r.id}/freeze`)).statusCode).toBe(404);
    await a.call("POST", `/reports/${r.id}/freeze`);
    const del = await a.call("DELETE", `/reports/${r.id}`);
    expect(del.statusCode).toBe(409);
    expect(del.json().detail.code).toBe("rapport_fige");
    const gone = await create(a.call, { report_type: "inventaire" });
    expect((await a.call("DELETE", `/reports/${gone.id}`)).statusCode).toBe(204);
    expect((await a.call("GET", `/reports/${gone.id}`)).statusCode).toBe(404);
    const list = (await a.call("GET", "/reports?report_type=exceptions")).json();
    expect(list.items.map((x: Report) => x.id)).toContain(r.id);
    expect((await b.call("GET", "/reports")).json().total).toBe(0);
  });

  it("the inventory lists the stacks and their items, follows a new item, and its CSV is a table", async () => {
    const r = await create(a.call, { report_type: "inventaire" });
    const content = (await download(r.id, "json")).json();
    expect(content.piles).toEqual([
      {
        nom: "Edge",
        elements: [
          { type: "product", valeur: "paloaltonetworks:pan-os@10.2.5", severite_min: null, alertes: alerts.total, fin_de_vie: null },
        ],
      },
    ]);
    expect(content.urls).toEqual([]);
    expect((await download(r.id, "csv")).body.split("\n").slice(1).join("\n")).toBe(
      `pile,type,valeur,severite_min,alertes,eol_produit,eol_cycle,eol,statut_eol\nEdge,product,paloaltonetworks:pan-os@10.2.5,,${alerts.total},,,,\n`,
    );
    await a.call("POST", "/stacks", { name: "=HYPERLINK(1)", items: [{ item_type: "vendor", value: "openbsd" }] });
    expect(((await a.call("GET", `/reports/${r.id}`)).json() as Report).synchro_etat).toBe("perimee");
    await t.services.reports.sync();
    expect((await download(r.id, "csv")).body).toContain("'=HYPERLINK(1),vendor,openbsd");
  });
});

describe("the inventory with end-of-life data and monitored URLs", () => {
  it("gives each item the endoflife.date cycle its version falls in, and each URL its certificate, as of the day (Paris)", async () => {
    // Real endoflife.date pages (test/fixtures/eol, cited in its SOURCES.txt): nginx 1.28 ends on 2026-04-14.
    expect((await importFeed(db, "eol", ["test/fixtures/eol"])).errors ?? []).toEqual([]);
    const e = await tenantWithScopes(t, "Inventaire", SCOPES);
    const items = [
      { item_type: "cpe", value: "cpe:2.3:a:f5:nginx:1.28.0:*:*:*:*:*:*:*" },
      { item_type: "cve", value: "CVE-2099-0001" },
    ];
    expect((await e.call("POST", "/stacks", { name: "Web", items })).statusCode).toBe(201);
    // Two monitored URLs as a scan left them: a certificate expiring in 10 days, one without TLS.
    await t.database.executeSql(
      `insert into monitored_urls (org_id, project_id, url, label, last_status, last_http_status, cert_expires_at, cert_issuer)
       values ($1, $2, 'https://shop.example.org', 'Boutique', 'up', 200, now() + interval '10 days', 'R11'),
              ($1, $2, 'http://intranet.example.org', null, 'down', null, null, null)`,
      [e.orgId, e.projectId],
    );
    const r = (await e.call("POST", "/reports", { report_type: "inventaire" })).json() as Report;
    const content = (await e.call("GET", `/reports/${r.id}/download?format=json`)).json();
    const today = new Date().toISOString().slice(0, 10);
    const nginx = content.piles[0].elements.find((x: { type: string }) => x.type === "cpe");
    expect(nginx.fin_de_vie).toMatchObject({
      produit: "nginx",
      cycle: "1.28",
      eol: "2026-04-14",
      statut: today > "2026-04-14" ? "fin_de_vie" : expect.any(String),
    });
    expect(content.piles[0].elements.find((x: { type: string }) => x.type === "cve").fin_de_vie).toBeNull();
    expect(content.urls).toEqual([
      { url: "http://intranet.example.org", libelle: null, active: true, statut: "down", http: null, certificat: null },
      {
        url: "https://shop.example.org",
        libelle: "Boutique",
        active: true,
        statut: "up",
        http: 200,
        certificat: { expire_le: expect.any(String), emetteur: "R11", statut: "expire_sous_30_jours" },
      },
    ]);
    expect(content.synthese).toMatchObject({ elements: 2, urls: 2, certificats_expires: 0, certificats_expirant_sous_30_jours: 1 });
    const csv = (await e.call("GET", `/reports/${r.id}/download?format=csv`)).body;
    expect(csv).toContain(`Web,cpe,cpe:2.3:a:f5:nginx:1.28.0:*:*:*:*:*:*:*,,0,nginx,1.28,2026-04-14,${nginx.fin_de_vie.statut}`);
    const text = await pdfText((await e.call("GET", `/reports/${r.id}/download`)).rawPayload);
    expect(text).toContain("nginx 1.28 (2026-04-14)");
    expect(text).toContain("https://shop.example.org");
    expect(text).toContain("expire sous 30 jours");
    // A scan that changes the certificate makes the inventory perimee; the job regenerates it.
    await t.database.executeSql(
      `update monitored_urls set cert_expires_at = now() + interval '90 days' where project_id = $1 and url like 'https:%'`,
      [e.projectId],
    );
    expect(((await e.call("GET", `/reports/${r.id}`)).json() as Report).synchro_etat).toBe("perimee");
    await t.services.reports.sync();
    const v2 = (await e.call("GET", `/reports/${r.id}/download?format=json`)).json();
    expect(v2.urls[1].certificat.statut).toBe("valide");
  });
});

describe("a report of several pages", () => {
  it("repeats the footer (fingerprint, generation time, page i of n) and the table header on every page", async () => {
    const p = await tenantWithScopes(t, "Pages", SCOPES);
    const items = Array.from({ length: 120 }, (_, i) => ({ item_type: "cve", value: `CVE-2099-${String(1000 + i)}` }));
    expect((await p.call("POST", "/stacks", { name: "Suivi", items })).statusCode).toBe(201);
    const res = await p.call("POST", "/reports", { report_type: "inventaire" });
    const r = res.json() as Report;
    const pdf = (await p.call("GET", `/reports/${r.id}/download`)).rawPayload;
    const doc = await readPdf(pdf);
    const pages = doc.pages;
    expect(pages).toBeGreaterThanOrEqual(3);
    for (let n = 1; n <= pages; n++) {
      const page = (await doc.pageText(n)).replace(/\s+/g, " ");
      expect(page).toContain(`Empreinte SHA-256 : ${r.empreinte}`);
      expect(page).toContain(`Généré le ${r.genere_le!.replace(".000Z", "Z")} · version 1 · Page ${n} sur ${pages}`);
      expect(page).toContain("Type Valeur Sévérité min. Alertes Cycle (fin de vie) Fin de vie");
    }
    const text = await doc.text();
    await doc.close();
    for (const i of items) expect(text).toContain(i.value);
  });
});

describe("organization reports", () => {
  it("cover every project (rows name theirs), follow each project's data, need an unrestricted key, and are found again", async () => {
    const g = await tenantWithScopes(t, "Groupe", SCOPES);
    const second = await t.services.projects.create({ orgId: g.orgId, name: "Recette" });
    const stack = { name: "Edge", items: [{ item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" }] };
    expect((await g.call("POST", "/stacks", stack)).statusCode).toBe(201);
    const orgUrl = `/api/v1/organizations/${g.orgId}/reports`;
    const org = (method: "GET" | "POST" | "DELETE", path = "", payload?: unknown, token = g.key) =>
      t.app.inject({
        method,
        url: `${orgUrl}${path}`,
        headers: bearer(token),
        ...(payload !== undefined && { payload: payload as object }),
      });
    await t.app.inject({
      method: "POST",
      url: `/api/v1/organizations/${g.orgId}/projects/${second.id}/stacks`,
      headers: bearer(g.key),
      payload: stack,
    });
    const res = await org("POST", "", { report_type: "conformite_kev" });
    expect(res.statusCode, res.body).toBe(201);
    const r = res.json() as Report & { project_id: string | null };
    expect(r).toMatchObject({ project_id: null, titre: expect.stringContaining("Groupe"), synchro_etat: "a_jour" });
    const csv = (await org("GET", `/${r.id}/download?format=csv`)).body.split("\n");
    expect(csv[1]).toBe("projet,cve_id,produit,kev_ajoute_le,echeance,statut_cas,traite_le,verdict");
    expect(
      csv
        .filter((l) => l.includes("CVE-2024-3400"))
        .map((l) => l.split(",")[0])
        .sort(),
    ).toEqual(["Production", "Recette"]);
    const content = (await org("GET", `/${r.id}/download?format=json`)).json();
    expect(content.projet).toBeNull();
    expect(content.projets.map((p: { nom: string }) => p.nom)).toEqual(["Production", "Recette"]);
    expect(await pdfText((await org("GET", `/${r.id}/download`)).rawPayload)).toContain("Organisation, projets : Production, Recette");
    // Not a project's report; the project routes do not see it.
    expect((await g.call("GET", `/reports/${r.id}`)).statusCode).toBe(404);
    expect((await g.call("GET", "/reports")).json().total).toBe(0);
    // A change in either project makes it perimee; the job regenerates it.
    await t.app.inject({
      method: "PUT",
      url: `/api/v1/organizations/${g.orgId}/projects/${second.id}/cases/CVE-2024-3400`,
      headers: bearer(g.key),
      payload: { status: "en_analyse" },
    });
    expect((await org("GET", `/${r.id}`)).json().synchro_etat).toBe("perimee");
    await t.services.reports.sync();
    expect((await org("GET", `/${r.id}`)).json()).toMatchObject({ synchro_etat: "a_jour", version: 2 });
    // A key restricted to a project may neither read nor write them, nor find them.
    const restricted = await t.services.apiKeys.create({ orgId: g.orgId, scopes: ["reports-write"], projectIds: [g.projectId] });
    expect((await org("GET", "", undefined, restricted.key)).statusCode).toBe(403);
    expect((await org("POST", "", { report_type: "inventaire" }, restricted.key)).statusCode).toBe(403);
    expect((await org("GET", `/${r.id}`, undefined, restricted.key)).statusCode).toBe(403);
    expect((await find(g.orgId, restricted.key, { empreinte: r.empreinte })).statusCode).toBe(404);
    const found = await find(g.orgId, g.readKey, { file: (await org("GET", `/${r.id}/download`)).rawPayload, name: "x.pdf" });
    expect(found.json()).toMatchObject({ id: r.id, project_id: null, version: 2, version_courante: true, format: "pdf" });
    // Another organization: 404.
    expect((await org("GET", "", undefined, a.key)).json()).toEqual({ detail: "Organisation introuvable" });
    expect((await org("POST", `/${r.id}/freeze`, undefined, g.readKey)).statusCode).toBe(403);
    expect((await org("POST", `/${r.id}/freeze`)).json()).toMatchObject({ synchro_etat: "figee" });
    expect((await org("DELETE", `/${r.id}`)).statusCode).toBe(409);
    const project = await org("POST", "", { report_type: "rapport_projet", language: "en" });
    expect(project.json().titre).toMatch(/^Vulnerability report — Groupe — /);
    expect((await org("DELETE", `/${project.json().id}`)).statusCode).toBe(204);
    expect((await org("GET")).json().total).toBe(1);
  });
});

describe("a regeneration that fails", () => {
  it("leaves the report erreur with the reason and its history; the next run regenerates it", async () => {
    const r = await create(a.call, { report_type: "inventaire" });
    await a.call("POST", "/stacks", { name: "Erreur", items: [{ item_type: "vendor", value: "fortinet" }] });
    type Compute = (ex: unknown, row: { id: string }, now: Date) => Promise<unknown>;
    const service = t.services.reports as unknown as { compute: Compute };
    const original = service.compute.bind(service);
    const spy = vi
      .spyOn(service, "compute")
      .mockImplementation((ex, row, now) => (row.id === r.id ? Promise.reject(new Error("disque plein")) : original(ex, row, now)));
    const run = await t.services.reports.sync();
    spy.mockRestore();
    expect(run.errors).toBe(1);
    const failed = (await a.call("GET", `/reports/${r.id}`)).json();
    expect(failed).toMatchObject({ synchro_etat: "erreur", synchro_erreur: "disque plein", version: 1 });
    expect(failed.history.at(-1)).toMatchObject({ event: "error", detail: "disque plein", actor: { type: "job", label: "reports-sync" } });
    await t.services.reports.sync();
    expect((await a.call("GET", `/reports/${r.id}`)).json()).toMatchObject({ synchro_etat: "a_jour", synchro_erreur: null, version: 2 });
  });
});

describe("scheduled generation", () => {
  it("generates the previous month's report once, on the chosen day (Paris time)", async () => {
    const s = await tenantWithScopes(t, "Sched", SCOPES);
    expect((await s.call("GET", "/report-settings")).json()).toEqual({
      enabled: false,
      report_type: "rapport_projet",
      language: "fr",
      day_of_month: 1,
      last_period_from: null,
    });
    expect((await s.call("PATCH", "/report-settings", { enabled: true, day_of_month: 29 })).statusCode).toBe(422);
    expect((await s.call("PATCH", "/report-settings", { enabled: true }, s.readKey)).statusCode).toBe(403);
    expect((await s.call("PATCH", "/report-settings", { enabled: true, day_of_month: 2 })).json()).toMatchObject({
      enabled: true,
      day_of_month: 2,
    });
    // 1 March 23:30 UTC is already 2 March in Paris: due.
    const before = await t.services.reports.runSchedule(new Date("2026-03-01T22:30:00Z"));
    expect(before.generated).toBe(0);
    const run = await t.services.reports.runSchedule(new Date("2026-03-01T23:30:00Z"));
    expect(run).toEqual({ generated: 1, period_from: "2026-02-01" });
    expect((await t.services.reports.runSchedule(new Date("2026-03-02T10:00:00Z"))).generated).toBe(0);
    const list = (await s.call("GET", "/reports")).json();
    expect(list.items).toHaveLength(1);
    expect(list.items[0]).toMatchObject({ report_type: "rapport_projet", from: "2026-02-01", to: "2026-02-28" });
    expect((await s.call("GET", "/report-settings")).json().last_period_from).toBe("2026-02-01");
  });
});

describe("the workflow action generate_report", () => {
  it("validates its params with the graph, and generates one report per event (a replayed dispatch makes none twice)", async () => {
    const w = await tenantWithScopes(t, "Flow", [...SCOPES, "workflows-write"]);
    const graph = (params: Record<string, unknown>) => ({
      name: `Rapport ${Object.keys(params).length}`,
      graph: {
        nodes: [
          { id: "t", type: "trigger", event: "cve.new_match", params: {} },
          { id: "r", type: "action", action: "generate_report", params, on_error: "continue" },
        ],
        edges: [{ from: "t", to: "r" }],
      },
    });
    const bad = await createWorkflow(t, w, graph({ report_type: "tout", days: 0 }));
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail.map((d: { loc: unknown[] }) => d.loc.slice(-1)[0])).toEqual(["report_type", "days"]);
    expect((await createWorkflow(t, w, graph({ report_type: "conformite_kev", language: "en" }))).statusCode).toBe(201);
    expect(
      (await w.call("POST", "/stacks", { name: "Edge", items: [{ item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" }] }))
        .statusCode,
    ).toBe(201);
    await t.services.runs.dispatchAll();
    await t.services.runs.executePending();
    await t.services.runs.dispatchAll();
    const list = (await w.call("GET", "/reports")).json();
    expect(list.total).toBe(alerts.total);
    expect(list.items.every((r: Report) => r.report_type === "conformite_kev" && r.titre.startsWith("KEV compliance"))).toBe(true);
    const detail = (await w.call("GET", `/reports/${list.items[0].id}`)).json();
    expect(detail.history[0]).toMatchObject({ event: "created", actor: { type: "workflow", label: expect.stringContaining("Rapport") } });
    // A retried run (same delivery id) finds the report it generated: no second report.
    const project = { id: w.projectId, orgId: w.orgId };
    const actor = { type: "workflow" as const, id: null, label: "Rapport rejoué" };
    const params = { report_type: "conformite_kev" as const, language: "fr" as const, days: 30 };
    const first = await t.services.reports.generateForWorkflow(project, params, actor, "delivery-replayed");
    const again = await t.services.reports.generateForWorkflow(project, params, actor, "delivery-replayed");
    expect(again.row.id).toBe(first.row.id);
    expect((await w.call("GET", "/reports")).json().total).toBe(alerts.total + 1);
  });
});

import { readFileSync } from "node:fs";
import type { Browser, Download, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { csafFailures, cycloneDxErrors, loadCsafValidator, openVexErrors } from "../vex-validators.js";
import { checkScreen, connectBrowser, downloaded, startVigie, type Vigie } from "./harness.js";

const ADMIN = "rssi@example.org";
const PASSWORD = "correct horse battery staple";
const SBOM = "test/fixtures/sbom";

/**
 * A security engineer's SBOM and VEX work, without curl: this repository's SBOM into a stack and
 * back out as CycloneDX, a stack of real vulnerable packages loaded again at its next version, the
 * cases exported as VEX in the three formats, a case closed as not affected with its justification,
 * a supplier's VEX imported and its proposal accepted.
 */
await loadCsafValidator();
describe("SBOM import and VEX: the stack and cases screens", () => {
  let vigie: Vigie;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  let orgId = "";
  let projectId = "";
  let token = "";

  /** A call to the API as the administrator (their account token, as the README's curl examples). */
  async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    const res = await fetch(`${vigie.base}/api/v1/organizations/${orgId}/projects/${projectId}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null };
  }

  /** The file a click makes the browser save: its name and text. */
  async function saved(click: () => Promise<void>): Promise<{ name: string; text: string }> {
    const [download] = (await Promise.all([page.waitForEvent("download"), click()])) as [Download, undefined];
    return { name: download.suggestedFilename(), text: (await downloaded(download)).toString("utf8") };
  }

  beforeAll(async () => {
    vigie = await startVigie(async (cli) => {
      orgId = String((await cli("org", "create", "--name", "ACME Sécurité")).id);
      projectId = String((await cli("project", "create", "--org", orgId, "--name", "Site public")).id);
      await cli("user", "create", "--email", ADMIN, "--password", PASSWORD, "--org", orgId, "--role", "admin");
      // Real advisories the known-answer SBOM's packages meet (test/fixtures/sbom/known-answer.mjs):
      // Log4Shell (GitHub advisory), Django's PYSEC-2023-100 (fixed in 4.2.3), PAN-OS's CVE records.
      await cli("feeds", "import", "--source", "osv", "test/fixtures/feeds/osv/GHSA-jfh8-c2jp-5v3q.json");
      await cli("feeds", "import", "--source", "osv", "test/fixtures/matching/osv-django.jsonl");
      await cli("feeds", "import", "--source", "cve5", "test/fixtures/matching/cve5-panos.jsonl");
    });
    const login = await fetch(`${vigie.base}/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: ADMIN, password: PASSWORD }),
    });
    token = ((await login.json()) as { token: string }).token;
    browser = await connectBrowser();
    const context = await browser.newContext({
      locale: "fr-FR",
      timezoneId: "Europe/Paris",
      viewport: { width: 1280, height: 900 },
      acceptDownloads: true,
    });
    page = await context.newPage();
    page.on("pageerror", (err) => pageErrors.push(err.message));
    await page.goto(`${vigie.base}/login`);
    await page.getByLabel("Adresse e-mail").fill(ADMIN);
    await page.getByLabel("Mot de passe").fill(PASSWORD);
    await page.getByRole("button", { name: "Se connecter" }).click();
    await page.waitForURL(/\/p\/[0-9a-f-]{36}$/);
  });
  afterAll(async () => {
    await browser?.close();
    await vigie?.stop();
  });

  const result = () => page.getByTestId("sbom-result");
  /** The difference's counts, as the screen shows them. */
  const counts = async () =>
    Object.fromEntries(
      await result()
        .locator("dl.sbom-counts > div")
        .evaluateAll((divs) => divs.map((d) => [d.querySelector("dt")!.textContent, Number(d.querySelector("dd")!.textContent)])),
    );

  it("loads this repository's SBOM into a stack through the file input; again: nothing changed; the items paged with their origin", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "Piles" }).click();
    await page.waitForURL(/\/stacks$/);
    await page.getByLabel("Nom de la pile").fill("Vigie");
    await page.getByRole("button", { name: "Créer la pile" }).click();
    await page.waitForURL(/\/stacks\/[0-9a-f-]{36}$/);
    await expect.poll(() => page.getByRole("heading", { name: "Vigie", level: 1 }).isVisible()).toBe(true);
    await expect.poll(() => page.getByText("Aucun SBOM chargé").isVisible()).toBe(true);

    await page.getByLabel("Choisir un fichier SBOM").first().setInputFiles(`${SBOM}/vigie-npm.cdx.json`);
    await expect
      .poll(() => result().getByRole("heading").textContent(), { timeout: 30_000 })
      .toBe("SBOM « vigie@0.1.0 » chargé dans la pile.");
    // 370 components, 343 distinct purls (test/fixtures/sbom/SOURCES.md): every one an item.
    expect(await counts()).toEqual({ Ajoutés: 343, Retirés: 0, "Versions changées": 0, Inchangés: 0, Ignorés: 0 });
    expect(await result().textContent()).toContain("Aucune alerte levée.");
    const sboms = page.getByRole("table", { name: "SBOM chargés dans la pile, du plus ancien au plus récent" });
    await expect.poll(() => sboms.locator("tbody tr").first().textContent()).toMatch(/^vigie@0\.1\.0CycloneDX 1\.6 \(JSON\)370343/);
    await checkScreen(page, "sbom-import");

    // The same document again: the same SBOM, nothing changes.
    const stackId = page.url().split("/").pop()!;
    const before = (await call("GET", `/stacks/${stackId}/sboms`)).json as { id: string; updated_at: string }[];
    await page.getByLabel("Choisir un fichier SBOM").first().setInputFiles(`${SBOM}/vigie-npm.cdx.json`);
    await expect
      .poll(() => result().getByRole("heading").textContent(), { timeout: 30_000 })
      .toBe("SBOM « vigie@0.1.0 » rechargé : voici ce qui a changé.");
    expect(
      await result()
        .getByText(/^Rien n'a changé/)
        .textContent(),
    ).toBe("Rien n'a changé : les 343 éléments sont identiques.");
    expect(await counts()).toEqual({ Ajoutés: 0, Retirés: 0, "Versions changées": 0, Inchangés: 343, Ignorés: 0 });
    const after = (await call("GET", `/stacks/${stackId}/sboms`)).json as { id: string; updated_at: string }[];
    expect(after.map((s) => s.id)).toEqual(before.map((s) => s.id));
    await checkScreen(page, "sbom-reimport");

    // 343 items, 50 a page; a search finds one, from the SBOM.
    const items = page.getByRole("table", { name: "Éléments surveillés (343)" });
    await expect.poll(() => items.locator("tbody tr").count()).toBe(50);
    expect(await page.getByRole("navigation", { name: "Page 1 sur 7 · 343 éléments" }).isVisible()).toBe(true);
    await page.getByLabel("Rechercher un élément (valeur)").fill("electric-sql/pglite");
    const found = page.getByRole("table", { name: "Éléments surveillés (1)" });
    await expect.poll(() => found.locator("tbody tr").count()).toBe(1);
    expect(await found.locator("tbody tr").textContent()).toContain("pkg:npm/%40electric-sql/pglite@0.5.16");
    expect(await found.locator("tbody tr td").nth(1).textContent()).toBe("vigie@0.1.0");
    await checkScreen(page, "stack-items-search");

    // The stack back out as CycloneDX 1.6: a valid document of its 343 packages.
    const bom = await saved(() => page.getByRole("button", { name: "Télécharger en CycloneDX" }).click());
    expect(bom.name).toBe(`stack-${stackId}.cdx.json`);
    expect(await cycloneDxErrors(bom.text)).toBeNull();
    const doc = JSON.parse(bom.text) as { bomFormat: string; specVersion: string; components: { purl?: string }[] };
    expect([doc.bomFormat, doc.specVersion]).toEqual(["CycloneDX", "1.6"]);
    expect(doc.components).toHaveLength(343);
    expect(doc.components.map((c) => c.purl)).toContain("pkg:npm/%40electric-sql/pglite@0.5.16");
  });

  it("makes a stack from an SBOM of real vulnerable packages, then loads its next version by drag and drop", async () => {
    await page.getByRole("link", { name: "Toutes les piles" }).click();
    await page.waitForURL(/\/stacks$/);
    const panel = page.getByRole("region", { name: "Nouvelle pile depuis un SBOM" });
    await panel.getByLabel("Nom de la nouvelle pile (facultatif)").fill("Inventaire");
    await panel.getByLabel("Choisir un fichier SBOM").setInputFiles(`${SBOM}/known-answer-v1.cdx.json`);
    await expect
      .poll(() => panel.getByText(/^Pile « Inventaire » créée/).textContent(), { timeout: 30_000 })
      .toBe("Pile « Inventaire » créée : 8 éléments.");
    const created = page.getByTestId("sbom-result");
    expect(await counts()).toEqual({ Ajoutés: 8, Retirés: 0, "Versions changées": 0, Inchangés: 0, Ignorés: 3 });
    // What the screen says was raised is what the project now holds.
    const alerts = (await call("GET", "/alerts?page_size=100")).json as { total: number; items: { cve_id: string }[] };
    expect(alerts.items.map((a) => a.cve_id).sort()).toEqual(expect.arrayContaining(["CVE-2021-44228", "CVE-2023-36053"]));
    expect(await created.getByText(/alertes? levées?\.$/).textContent()).toBe(`${alerts.total} alertes levées.`);
    await created.getByText("Composants ignorés (3)").click();
    expect(await created.locator("details").last().textContent()).toContain("config.yaml (ignoré : ni purl ni CPE)");
    await expect.poll(() => page.getByRole("table", { name: "Piles du projet" }).locator("tbody tr").count()).toBe(2);
    await checkScreen(page, "sbom-new-stack");

    await panel.getByRole("link", { name: "Ouvrir la pile Inventaire" }).click();
    await page.waitForURL(/\/stacks\/[0-9a-f-]{36}$/);
    await expect.poll(() => page.getByRole("heading", { name: "Inventaire", level: 1 }).isVisible()).toBe(true);
    // Version 2 of the same document (same serialNumber), dropped on the zone.
    const bytes = readFileSync(`${SBOM}/known-answer-v2.cdx.json`);
    const dataTransfer = await page.evaluateHandle(`(() => {
      const dt = new DataTransfer();
      const raw = Uint8Array.from(atob(${JSON.stringify(bytes.toString("base64"))}), (c) => c.charCodeAt(0));
      dt.items.add(new File([raw], "known-answer-v2.cdx.json", { type: "application/json" }));
      return dt;
    })()`);
    await page.dispatchEvent('[data-testid="sbom-drop"]', "dragover", { dataTransfer });
    await page.dispatchEvent('[data-testid="sbom-drop"]', "drop", { dataTransfer });
    await expect
      .poll(() => result().getByRole("heading").textContent(), { timeout: 30_000 })
      .toBe("SBOM « inventaire@2.1.0 » rechargé : voici ce qui a changé.");
    // cap-primitives gone, aiohttp new, Django 4.2.1 → 4.2.3 (its purl and its CPE).
    expect(await counts()).toEqual({ Ajoutés: 1, Retirés: 1, "Versions changées": 2, Inchangés: 5, Ignorés: 3 });
    await result().getByText("Versions changées (2)").click();
    expect(await result().locator("details[open]").textContent()).toContain("pkg:pypi/django : 4.2.1 → 4.2.3");
    // Django 4.2.3 is the version PYSEC-2023-100 fixed: its alert is kept and marked.
    expect(await result().locator(".sbom-alerts").textContent()).toContain(
      "1 alerte ne correspond plus : conservée et marquée, avec son état de lecture, ses étiquettes et son dossier.",
    );
    expect(await result().getByRole("link", { name: "Voir les alertes" }).getAttribute("href")).toBe(`/p/${projectId}/alerts`);
    await checkScreen(page, "sbom-difference");

    // A refused document: each fault with its place, nothing written.
    await page.getByLabel("Choisir un fichier SBOM").first().setInputFiles(`${SBOM}/invalid-components.cdx.json`);
    const faults = page.locator(".faults");
    await expect
      .poll(() => faults.locator("p").textContent(), { timeout: 30_000 })
      .toBe("invalid-components.cdx.json refusé : 2 défauts. Rien n'a été enregistré.");
    expect(await faults.locator("tbody td.mono").allTextContents()).toEqual(["/components/3", "/components/15/components/0/type"]);
    await checkScreen(page, "sbom-faults");
  });

  it("removes an SBOM after a confirmation saying the alerts stay", async () => {
    await page.getByRole("link", { name: "Toutes les piles" }).click();
    await page.getByRole("table", { name: "Piles du projet" }).getByRole("link", { name: "Vigie", exact: true }).click();
    await page.waitForURL(/\/stacks\/[0-9a-f-]{36}$/);
    await page.getByRole("button", { name: "Retirer le SBOM vigie@0.1.0" }).click();
    const confirm = page.locator("tr.confirm-row");
    expect(await confirm.textContent()).toContain(
      "Retirer « vigie@0.1.0 » et ses 343 éléments ? Les alertes qu'ils ont levées sont conservées",
    );
    await checkScreen(page, "sbom-remove-confirm");
    await page.getByRole("button", { name: "Confirmer le retrait" }).click();
    await expect
      .poll(() => page.getByRole("status").filter({ hasText: "SBOM retiré" }).textContent())
      .toBe("SBOM retiré : 343 éléments retirés, 0 alerte marquée « ne correspond plus ».");
    await expect.poll(() => page.getByText("Aucun SBOM chargé").isVisible()).toBe(true);
    // The items' table is drawn from its own request, maybe a moment after the SBOM list (load 11: not yet).
    await expect.poll(() => page.getByText("Aucun élément : ajoutez-en ci-dessous.").isVisible()).toBe(true);
  });

  it("closes a case as not affected with its justification, then exports the cases as VEX in each format", async () => {
    // The PAN-OS alert's case (the SBOM's CPE item raised it).
    // (Created with the alert by the project's default workflow, or now: 200 or 201.)
    expect([200, 201]).toContain((await call("PUT", "/cases/CVE-2024-9468", { notes: "PAN-OS de l'inventaire" })).status);
    await page.goto(`${vigie.base}/p/${projectId}/cases/CVE-2024-9468`);
    await page.getByRole("button", { name: "Passer à « Non concerné »" }).click();
    const group = page.getByRole("group", { name: "Passer à « Non concerné »" });
    await group.getByLabel("Justification VEX (pour « Non concerné »)").selectOption({ label: "Code vulnérable jamais exécuté" });
    expect(await group.locator(".vex-justification > .sub").textContent()).toBe(
      "Le code vulnérable est présent, mais le produit ne l'exécute jamais.",
    );
    await page.getByLabel("Commentaire (conservé dans l'historique)").fill("GlobalProtect désactivé sur ces boîtiers");
    await checkScreen(page, "case-non-concerne-choice");
    await group.getByRole("button", { name: "Confirmer « Non concerné »" }).click();
    const facts = page.locator("dl.case-facts");
    await expect.poll(() => facts.textContent()).toContain("Justification VEXCode vulnérable jamais exécuté");
    expect(await facts.textContent()).toContain("Non concerné");
    await expect
      .poll(() => page.getByRole("table", { name: /^Historique du dossier/ }).textContent())
      .toContain("Code vulnérable jamais exécuté");
    expect(((await call("GET", "/cases/CVE-2024-9468")).json as { justification_vex: string }).justification_vex).toBe(
      "vulnerable_code_not_in_execute_path",
    );
    await checkScreen(page, "case-non-concerne");

    await page.getByRole("link", { name: "Retour aux dossiers" }).click();
    await page.waitForURL(`${vigie.base}/p/${projectId}/cases`);
    const format = page.getByLabel("Format VEX");
    const exportVex = async (label: string) => {
      await format.selectOption({ label });
      return saved(() => page.getByRole("button", { name: "Exporter en VEX" }).click());
    };

    const cdx = await exportVex("CycloneDX 1.6");
    expect(cdx.name).toBe(`vex-${projectId}.cdx.json`);
    expect(await cycloneDxErrors(cdx.text)).toBeNull();
    const vulns = (JSON.parse(cdx.text) as { vulnerabilities: { id: string; analysis: { state: string; justification?: string } }[] })
      .vulnerabilities;
    expect(vulns.find((v) => v.id === "CVE-2024-9468")!.analysis).toMatchObject({
      state: "not_affected",
      justification: "code_not_reachable",
    });
    expect(vulns.map((v) => v.id)).toContain("CVE-2021-44228");
    await expect.poll(() => page.getByRole("status").filter({ hasText: "téléchargé" }).textContent()).toBe(`${cdx.name} téléchargé.`);
    await checkScreen(page, "cases-vex-export");

    const csaf = await exportVex("CSAF 2.0");
    expect(csaf.name).toBe(`vex-${projectId}.csaf.json`);
    const csafDoc = JSON.parse(csaf.text) as {
      document: { category: string };
      vulnerabilities: { cve: string; flags?: { label: string }[] }[];
    };
    expect(await csafFailures(csafDoc)).toEqual([]);
    expect(csafDoc.document.category).toBe("csaf_vex");
    expect(csafDoc.vulnerabilities.find((v) => v.cve === "CVE-2024-9468")!.flags!.map((f) => f.label)).toEqual([
      "vulnerable_code_not_in_execute_path",
    ]);

    const openvex = await exportVex("OpenVEX 0.2");
    expect(openvex.name).toBe(`vex-${projectId}.openvex.json`);
    const ovDoc = JSON.parse(openvex.text) as { statements: { vulnerability: { name: string }; status: string; justification?: string }[] };
    expect(openVexErrors(ovDoc)).toEqual([]);
    expect(ovDoc.statements.find((s) => s.vulnerability.name === "CVE-2024-9468")).toMatchObject({
      status: "not_affected",
      justification: "vulnerable_code_not_in_execute_path",
    });
  });

  it("imports a supplier's VEX and accepts its proposal; a decision taken meanwhile is refused in words", async () => {
    await page.getByRole("link", { name: "Propositions VEX" }).click();
    await page.waitForURL(`${vigie.base}/p/${projectId}/cases/vex`);
    await expect.poll(() => page.getByText("Aucune proposition en attente.").isVisible()).toBe(true);
    // CycloneDX's CISA use case 1: Log4Shell not_affected, code_not_present (test/fixtures/vex/SOURCES.md).
    await page.getByLabel("Choisir un fichier VEX").setInputFiles("test/fixtures/vex/cdx-cisa-case1-not_affected.json");
    const imported = page.getByTestId("vex-result");
    await expect.poll(() => imported.locator("dd").allTextContents(), { timeout: 30_000 }).toEqual(["1", "0", "0"]);
    expect(await imported.getByRole("heading").textContent()).toMatch(/^Document CycloneDX « sha256:[0-9a-f]{64} » lu\.$/);
    const card = page.getByRole("article").filter({ hasText: "CVE-2021-44228" });
    await expect.poll(() => card.count()).toBe(1);
    expect(await card.textContent()).toContain("Code vulnérable absent");
    expect(await card.textContent()).toContain("Class with vulnerable code was removed before shipping.");
    await checkScreen(page, "vex-import");

    await card.getByLabel("Commentaire (facultatif, conservé avec la décision)").fill("Confirmé avec l'éditeur");
    await card.getByRole("button", { name: "Accepter la proposition pour CVE-2021-44228" }).click();
    await expect
      .poll(() => page.getByRole("status").filter({ hasText: "Proposition" }).textContent())
      .toBe("Proposition acceptée : le dossier CVE-2021-44228 est « Non concerné ».");
    await expect.poll(() => page.getByText("Aucune proposition en attente.").isVisible()).toBe(true);
    const kase = (await call("GET", "/cases/CVE-2021-44228")).json as { status: string; justification_vex: string };
    expect(kase).toMatchObject({ status: "non_concerne", justification_vex: "vulnerable_code_not_present" });
    await page.getByLabel("Statut", { exact: true }).selectOption({ label: "Acceptée" });
    const accepted = page.getByRole("article").filter({ hasText: "CVE-2021-44228" });
    await expect.poll(() => accepted.textContent()).toContain("« Confirmé avec l'éditeur »");
    expect(await accepted.getByRole("link", { name: "Dossier CVE-2021-44228" }).getAttribute("href")).toBe(
      `/p/${projectId}/cases/CVE-2021-44228`,
    );
    await checkScreen(page, "vex-accepted");

    // OASIS's CSAF csaf_vex example states the same CVE: a new proposal. Decided through the API
    // while the screen still shows it waiting, it is refused in words when rejected here.
    await page.getByLabel("Statut", { exact: true }).selectOption({ label: "Proposée" });
    await page.getByLabel("Choisir un fichier VEX").setInputFiles("test/fixtures/vex/csaf-oasis-2022-evd-uc-01-na-001.json");
    const csafCard = page.getByRole("article").filter({ hasText: "2022-EVD-UC-01-NA-001" });
    await expect.poll(() => csafCard.count(), { timeout: 30_000 }).toBe(1);
    const waiting = (await call("GET", "/vex/proposals?status=proposee")).json as { items: { id: string }[] };
    expect((await call("POST", `/vex/proposals/${waiting.items[0]!.id}/accept`, {})).status).toBe(200);
    await csafCard.getByRole("button", { name: "Rejeter la proposition pour CVE-2021-44228" }).click();
    await expect
      .poll(() => page.getByRole("alert").textContent())
      .toBe("Décision refusée : Cette proposition VEX est déjà décidée (acceptee) : importer le document à nouveau ne la rouvre pas");
    await checkScreen(page, "vex-conflict");
    expect(pageErrors).toEqual([]);
  });
});

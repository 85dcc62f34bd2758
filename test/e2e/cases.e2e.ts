import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDays, parisDate } from "../../src/platform/paris.js";
import { checkScreen, connectBrowser, startVigie, type Vigie } from "./harness.js";

const EMAIL = "triage@example.org";
const PASSWORD = "correct horse battery staple";

describe("cases: board, table, a case with an exception in Paris days, the risk register", () => {
  let vigie: Vigie;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  let orgId = "";
  let projectId = "";
  let token = "";

  /** A call to the API as the member (their account token, as the README's curl examples). */
  async function call(method: string, path: string, body?: unknown): Promise<Response> {
    return fetch(`${vigie.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  beforeAll(async () => {
    vigie = await startVigie(async (cli) => {
      const org = await cli("org", "create", "--name", "ACME Sécurité");
      orgId = String(org.id);
      projectId = String((await cli("project", "create", "--org", orgId, "--name", "Site public")).id);
      // CVE-2024-3400 known (NVD record): its case takes the CVE's severity, critical.
      await cli("feeds", "import", "--source", "nvd", "test/fixtures/import/nvd2-CVE-2024-3400.json");
      await cli("user", "create", "--email", EMAIL, "--password", PASSWORD, "--org", orgId, "--role", "member");
    });
    const login = await fetch(`${vigie.base}/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
    });
    token = ((await login.json()) as { token: string }).token;
    const cases = `/api/v1/organizations/${orgId}/projects/${projectId}/cases`;
    for (const [cve, notes] of [
      ["CVE-2024-3400", "GlobalProtect exposé sur Internet"],
      ["CVE-2024-0012", "Interface de gestion PAN-OS"],
      ["CVE-2099-0001", "annoncée par l'éditeur, pas encore publiée"],
    ] as const) {
      expect((await call("PUT", `${cases}/${cve}`, { notes, comment: "revue du matin" })).status).toBe(201);
    }
    expect(
      (await call("POST", `/api/v1/organizations/${orgId}/projects/${projectId}/tags`, { name: "urgent", color: "#b91c1c" })).status,
    ).toBe(201);

    browser = await connectBrowser();
    const context = await browser.newContext({ locale: "fr-FR", timezoneId: "America/New_York", viewport: { width: 1440, height: 900 } });
    page = await context.newPage();
    page.on("pageerror", (err) => pageErrors.push(err.message));
    await page.goto(`${vigie.base}/login`);
    await page.getByLabel("Adresse e-mail").fill(EMAIL);
    await page.getByLabel("Mot de passe").fill(PASSWORD);
    await page.getByRole("button", { name: "Se connecter" }).click();
    await page.waitForURL(/\/p\/[0-9a-f-]{36}$/);
  });
  afterAll(async () => {
    await browser?.close();
    await vigie?.stop();
  });

  it("shows the board by status, from the navigation", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "Dossiers" }).click();
    await page.waitForURL(`${vigie.base}/p/${projectId}/cases`);
    const nouveau = page.getByRole("region", { name: /^Nouveau/ });
    await expect.poll(() => nouveau.getByRole("article").count()).toBe(3);
    expect(await nouveau.getByRole("heading").textContent()).toContain("3");
    expect(await nouveau.getByRole("article", { name: "CVE-2024-3400" }).textContent()).toContain("Critique");
    await expect.poll(() => page.getByRole("region", { name: /^Corrigé/ }).textContent()).toContain("Aucun dossier");
    await expect.poll(() => page.getByText("Chargement…").count()).toBe(0);
    await checkScreen(page, "cases-board");
  });

  it("shows the table, tags two cases in bulk and exports the list as CSV with the session cookie", async () => {
    await page.getByRole("button", { name: "Liste" }).click();
    const table = page.getByRole("table", { name: "Dossiers du projet" });
    await expect.poll(() => table.locator("tbody tr").count()).toBe(3);
    await page.getByLabel("Sélectionner CVE-2024-3400").check();
    await page.getByLabel("Sélectionner CVE-2024-0012").check();
    await page.getByLabel("Étiquette à ajouter ou retirer").selectOption({ label: "urgent" });
    await page.getByRole("button", { name: "Ajouter l'étiquette" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("2 dossiers modifiés.");
    await expect.poll(() => table.locator("tbody tr", { hasText: "urgent" }).count()).toBe(2);
    await page.getByLabel("Tri").selectOption({ label: "CVE croissante" });
    await expect.poll(() => table.locator("tbody th").allTextContents()).toEqual(["CVE-2024-0012", "CVE-2024-3400", "CVE-2099-0001"]);
    await checkScreen(page, "cases-table");

    const href = await page.getByRole("link", { name: "Exporter en CSV" }).getAttribute("href");
    expect(href).toContain("format=csv");
    const csv = await page.evaluate<{ status: number; type: string; text: string }, string>(
      (url) => fetch(url).then(async (r) => ({ status: r.status, type: r.headers.get("content-type") ?? "", text: await r.text() })),
      href!,
    );
    expect(csv.status).toBe(200);
    expect(csv.type).toContain("text/csv");
    const lines = csv.text.trim().split(/\r?\n/);
    expect(lines[0]).toMatch(/^cve_id,status,severity,/);
    expect(lines.slice(1).map((l) => l.split(",")[0])).toEqual(["CVE-2024-0012", "CVE-2024-3400", "CVE-2099-0001"]);
  });

  it("opens a case: its history says who did what, and a status change the server allows", async () => {
    await page.getByRole("link", { name: "CVE-2024-3400" }).click();
    await page.waitForURL(`${vigie.base}/p/${projectId}/cases/CVE-2024-3400`);
    const history = page.getByRole("table", { name: /^Historique du dossier/ });
    await expect.poll(() => history.textContent()).toContain(EMAIL);
    expect(await history.textContent()).toContain("revue du matin");
    expect(await history.textContent()).toContain("Étiquette ajoutée");
    await page.getByLabel("Commentaire (conservé dans l'historique)").fill("prise en charge");
    await page.getByRole("button", { name: "Passer à « En analyse »" }).click();
    await expect.poll(() => page.locator("dl.case-facts").textContent()).toContain("En analyse");
    await expect.poll(() => history.textContent()).toContain("Nouveau → En analyse");
    await checkScreen(page, "case-detail");
  });

  it("sets an exception expiring in 30 Paris days: the countdown shows and the case is mitigated; removing it reopens it; then it is closed", async () => {
    await page.getByRole("button", { name: "Poser l'exception" }).click();
    const expires = page.getByLabel("Dernier jour de validité (heure de Paris)");
    // The browser is in New York: the default is still 30 days from today in Paris.
    const day = addDays(parisDate(new Date()), 30);
    expect(await expires.inputValue()).toBe(day);
    await page.getByLabel("Mesure en place").fill("Télémétrie GlobalProtect désactivée");
    await page.getByLabel("Justification").fill("En attente de la 10.2.9-h1");
    await page.getByRole("button", { name: "Enregistrer" }).click();
    const facts = page.locator("dl.case-facts");
    await expect.poll(() => facts.textContent()).toContain("Atténué");
    const panel = page.getByRole("region", { name: "Exception" });
    await expect.poll(() => panel.textContent()).toContain("expire dans 30 jours");
    expect(await panel.textContent()).toContain("(jours calendaires de Paris)");
    expect(await panel.textContent()).toContain("(heure de Paris)");
    expect(await panel.textContent()).toContain("Télémétrie GlobalProtect désactivée");
    await expect.poll(() => page.getByRole("table", { name: /^Historique du dossier/ }).textContent()).toContain("Exception posée");
    await checkScreen(page, "case-exception");

    // The server's state, as the API says it.
    const c = (await (await call("GET", `/api/v1/organizations/${orgId}/projects/${projectId}/cases/CVE-2024-3400`)).json()) as {
      status: string;
      exception: { expires_on: string };
    };
    expect(c.status).toBe("attenue");
    expect(c.exception.expires_on).toBe(day);

    await page.getByRole("button", { name: "Lever l'exception" }).click();
    await expect.poll(() => facts.textContent()).toContain("En analyse");
    expect(await panel.textContent()).toContain("Aucune exception en vigueur.");
    await page.getByRole("button", { name: "Passer à « Corrigé »" }).click();
    await expect.poll(() => facts.textContent()).toContain("Corrigé");
    await expect.poll(() => panel.textContent()).toContain("Un dossier corrigé ou non concerné ne peut pas recevoir d'exception.");
    const events = await page
      .getByRole("table", { name: /^Historique du dossier/ })
      .locator("tbody tr td:nth-child(2)")
      .allTextContents();
    expect(events.slice(-3)).toEqual(["Exception posée", "Exception levée", "Statut"]);
  });

  it("refuses a bulk change the rules do not allow, with the server's reason, and changes nothing", async () => {
    await page.getByRole("link", { name: "Retour aux dossiers" }).click();
    await page.getByRole("button", { name: "Liste" }).click();
    const table = page.getByRole("table", { name: "Dossiers du projet" });
    await expect.poll(() => table.locator("tbody tr").count()).toBe(3);
    await page.getByLabel("Sélectionner CVE-2024-3400").check();
    await page.getByLabel("Sélectionner CVE-2099-0001").check();
    await page.getByLabel("Passer au statut").selectOption({ label: "En remédiation" });
    await page.getByRole("button", { name: "Appliquer" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("corrige → en_remediation");
    expect(await table.locator("tbody tr", { hasText: "CVE-2099-0001" }).textContent()).toContain("Nouveau");
    await checkScreen(page, "cases-bulk-refused");
  });

  it("keeps the risk register: a new entry covering a case, listed with its expiry", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "Registre des risques" }).click();
    await page.waitForURL(`${vigie.base}/risks`);
    await page.getByRole("button", { name: "Nouvelle entrée" }).click();
    await page.getByLabel("Intitulé", { exact: true }).fill("PAN-OS 10.2 en attente de migration");
    await page.getByLabel("Responsable", { exact: true }).fill("RSSI");
    await page.getByLabel("Justification").fill("Interface de gestion isolée ; migration vers 11.1 planifiée");
    await page.getByRole("button", { name: "Créer l'entrée" }).click();
    await page.waitForURL(/\/risks\/[0-9a-f-]{36}$/);
    await page.getByLabel("Identifiant CVE").fill("CVE-2024-0012");
    await page.getByRole("button", { name: "Couvrir", exact: true }).click();
    const covered = page.getByRole("table", { name: "Dossiers couverts par l'entrée" });
    await expect.poll(() => covered.textContent()).toContain("Risque accepté");
    await checkScreen(page, "risk-detail");

    await page.getByRole("link", { name: "Retour au registre" }).click();
    const list = page.getByRole("table", { name: "Entrées du registre" });
    await expect.poll(() => list.locator("tbody tr").first().textContent()).toContain("PAN-OS 10.2 en attente de migration");
    expect(await list.locator("tbody tr").first().textContent()).toContain("expire dans 90 jours");
    await checkScreen(page, "risks");

    // The case the entry covers says so on the board.
    await page.goto(`${vigie.base}/p/${projectId}/cases`);
    await expect
      .poll(() =>
        page
          .getByRole("region", { name: /^Risque accepté/ })
          .getByRole("article")
          .allTextContents(),
      )
      .toEqual([expect.stringContaining("expire dans 90 jours")]);
    await expect.poll(() => page.getByText("Chargement…").count()).toBe(0);
    await checkScreen(page, "cases-board-register");
    expect(pageErrors).toEqual([]);
  });
});

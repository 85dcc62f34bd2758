import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalServer, localServer } from "../urls-servers.js";
import { checkScreen, connectBrowser, startVigie, type Vigie } from "./harness.js";

const ADMIN = "admin@example.org";
const VIEWER = "lecteur@example.org";
const PASSWORD = "correct horse battery staple";
// The browser's clock (the EOL badges and the calendar count from today in Paris): fixed, so that the
// fixtures' dates (Django 4.2's end of life 2026-04-07, PHP 8.4's end of support 2026-12-31) stay where they are.
const NOW = new Date("2026-11-26T10:00:00Z");

describe("stacks, end of life and monitored URLs: an administrator's screens", () => {
  let vigie: Vigie;
  let site: LocalServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let org = "";
  let project = "";
  const pageErrors: string[] = [];

  beforeAll(async () => {
    // The monitored site: a local server the scan may reach (VIGIE_ALLOW_PRIVATE_TARGETS), answering as nginx 1.24.0.
    site = await localServer({
      "/": (_req, res) =>
        res
          .writeHead(200, { "content-type": "text/html; charset=utf-8", server: "nginx/1.24.0" })
          .end("<!DOCTYPE html><html><head><title>Boutique</title></head><body>Bienvenue</body></html>"),
    });
    vigie = await startVigie(async (cli, store) => {
      store.env.VIGIE_ALLOW_PRIVATE_TARGETS = "true";
      const o = await cli("org", "create", "--name", "ACME Sécurité");
      org = String(o.id);
      project = String((await cli("project", "create", "--org", org, "--name", "Site public")).id);
      await cli("user", "create", "--email", ADMIN, "--password", PASSWORD, "--org", org, "--role", "admin");
      await cli("user", "create", "--email", VIEWER, "--password", PASSWORD, "--org", org, "--role", "viewer");
      // Real records (test/fixtures/matching/SOURCES.md, test/fixtures/eol/SOURCES.txt).
      await cli(
        "feeds",
        "import",
        "--source",
        "cve5",
        "test/fixtures/matching/cve5-panos.jsonl",
        "test/fixtures/matching/cve5-django.jsonl",
      );
      await cli("feeds", "import", "--source", "osv", "test/fixtures/matching/osv-django.jsonl");
      await cli("feeds", "import", "--source", "eol", "test/fixtures/eol");
    });
    browser = await connectBrowser();
    context = await browser.newContext({ locale: "fr-FR", timezoneId: "Europe/Paris", viewport: { width: 1280, height: 900 } });
    await context.clock.setFixedTime(NOW);
    page = await context.newPage();
    page.on("pageerror", (err) => pageErrors.push(err.message));
    await signIn(page, ADMIN);
  });
  afterAll(async () => {
    await browser?.close();
    await vigie?.stop();
    await site?.close();
  });

  async function signIn(p: Page, email: string) {
    await p.goto(`${vigie.base}/login`);
    await p.getByLabel("Adresse e-mail").fill(email);
    await p.getByLabel("Mot de passe").fill(PASSWORD);
    await p.getByRole("button", { name: "Se connecter" }).click();
    await p.waitForURL(/\/p\/[0-9a-f-]{36}$/);
  }

  /** The API's answer to a GET, with the page's session. */
  const get = (path: string) => page.evaluate<unknown, string>((u) => fetch(u).then((r) => r.json()), path);
  const P = () => `/api/v1/organizations/${org}/projects/${project}`;

  it("creates a stack, picks PAN-OS among the corpus's suggestions and says how many alerts the item raised", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "Piles" }).click();
    await page.waitForURL(/\/stacks$/);
    await expect.poll(() => page.getByRole("heading", { name: "Piles logicielles" }).isVisible()).toBe(true);
    await expect.poll(() => page.getByText("Aucune pile pour ce projet.").isVisible()).toBe(true);
    await page.getByLabel("Nom de la pile").fill("Production");
    await page.getByRole("button", { name: "Créer la pile" }).click();
    await page.waitForURL(/\/stacks\/[0-9a-f-]{36}$/);
    await expect.poll(() => page.getByRole("heading", { name: "Production", level: 1 }).isVisible()).toBe(true);

    const search = page.getByRole("combobox", { name: "Rechercher un produit du corpus" });
    await search.fill("pan-o");
    const option = page.getByRole("listbox").getByRole("option").filter({ hasText: "palo_alto_networks:pan-os" });
    await expect.poll(() => option.isVisible()).toBe(true);
    expect(await search.getAttribute("aria-expanded")).toBe("true");
    // The suggestion says how many CVEs of the corpus name the product (the fixture's PAN-OS records).
    const suggested = (await get("/api/v1/products?q=pan-o")) as { item: { value: string }; cve_count: number }[];
    const panos = suggested.find((s) => s.item.value === "palo_alto_networks:pan-os")!;
    expect(await option.textContent()).toContain(`${panos.cve_count} CVE`);
    // From the keyboard: ↓ makes the first suggestion active.
    await search.press("ArrowDown");
    expect(await search.getAttribute("aria-activedescendant")).toBe(
      await page.getByRole("listbox").getByRole("option").first().getAttribute("id"),
    );
    await checkScreen(page, "stack-suggest");

    await option.click();
    expect(await search.getAttribute("aria-expanded")).toBe("false");
    expect(await page.getByLabel("Valeur", { exact: true }).inputValue()).toBe("palo_alto_networks:pan-os");
    expect(await page.getByLabel("Type d'élément").inputValue()).toBe("product");
    await page.getByLabel("Version (facultative)").fill("10.2.5");
    await page.getByRole("button", { name: "Ajouter l'élément" }).click();
    const added = page.getByRole("status").filter({ hasText: "ajouté" });
    // The fixture's two PAN-OS records (CVE-2022-0028, CVE-2024-9468): what the ranges holding 10.2.5 raise.
    await expect.poll(() => added.textContent()).toMatch(/^palo_alto_networks:pan-os@10\.2\.5 ajouté : \d+ alertes? levées?\.$/);
    const raised = Number(/(\d+) alerte/.exec((await added.textContent())!)![1]);
    // What the screen says is what the server raised: the project's alerts.
    const alerts = (await get(`${P()}/alerts?page_size=1`)) as { total: number };
    expect(raised).toBeGreaterThan(0);
    expect(alerts.total).toBe(raised);
    const table = page.getByRole("table", { name: /Éléments surveillés/ });
    expect(await table.locator("tbody tr").first().textContent()).toContain("palo_alto_networks:pan-os@10.2.5");
  });

  it("shows each item's end-of-life status: Django 4.2 is past its end of life", async () => {
    await page.getByLabel("Type d'élément").selectOption({ label: "Paquet (purl)" });
    await page.getByLabel("Valeur", { exact: true }).fill("pkg:pypi/django");
    await page.getByLabel("Version (facultative)").fill("4.2.1");
    await page.getByLabel("Sévérité minimale", { exact: true }).selectOption({ label: "haute" });
    await page.getByRole("button", { name: "Ajouter l'élément" }).click();
    await expect
      .poll(() => page.getByRole("status").filter({ hasText: "ajouté" }).textContent())
      .toMatch(/^pkg:pypi\/django@4\.2\.1 ajouté : /);
    const row = page.getByRole("row").filter({ hasText: "pkg:pypi/django@4.2.1" });
    await expect.poll(() => row.isVisible()).toBe(true);
    expect(await row.getByText("Django 4.2").isVisible()).toBe(true);
    const badge = row.locator(".badge");
    expect(await badge.getAttribute("class")).toBe("badge badge-bad");
    expect(await badge.textContent()).toBe("fin de vie (fin du support : 4 déc. 2023 · fin de vie : 7 avr. 2026)");
    expect(await row.getByLabel("Sévérité minimale de pkg:pypi/django@4.2.1").inputValue()).toBe("high");
    // PAN-OS's page names no CPE or purl: no cycle.
    expect(await page.getByRole("row").filter({ hasText: "pan-os@10.2.5" }).locator(".badge").count()).toBe(0);
    await checkScreen(page, "stack-detail");

    await page.getByRole("link", { name: "Toutes les piles" }).click();
    await page.waitForURL(/\/stacks$/);
    const stacks = page.getByRole("table", { name: "Piles du projet" });
    await expect.poll(() => stacks.locator("tbody tr").first().textContent()).toBe("Production21");
    await checkScreen(page, "stacks");
  });

  it("subscribes to an EOL cycle and shows it on the calendar and in the list", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "Fin de vie" }).click();
    await page.waitForURL(/\/eol$/);
    await expect.poll(() => page.getByRole("heading", { name: "Fin de vie", level: 1 }).isVisible()).toBe(true);
    const product = page.getByRole("combobox", { name: "Produit (endoflife.date)" });
    await product.fill("ph");
    const php = page.getByRole("listbox").getByRole("option", { name: /PHP/ });
    await expect.poll(() => php.isVisible()).toBe(true);
    await product.press("ArrowDown");
    expect(await php.getAttribute("aria-selected")).toBe("true");
    await product.press("Enter");
    expect(await product.inputValue()).toBe("PHP");
    const cycle = page.getByLabel("Cycle", { exact: true });
    await expect.poll(() => cycle.isEnabled()).toBe(true);
    await cycle.selectOption("8.4");
    await page.getByLabel("Avertir avant la fin de vie (jours)").fill("180");
    await page.getByRole("button", { name: "S'abonner", exact: true }).click();
    await expect.poll(() => page.getByRole("status").filter({ hasText: "Abonné" }).textContent()).toBe("Abonné à PHP 8.4.");

    // The calendar: the 12 months from November 2026; PHP 8.4's active support ends on 31 December 2026.
    const months = page.locator(".calendar > li");
    expect(await months.count()).toBe(12);
    expect(await months.first().locator("h3").textContent()).toBe("novembre 2026");
    const december = months.nth(1);
    expect(await december.locator("h3").textContent()).toBe("décembre 2026");
    await expect.poll(() => december.locator(".event").first().textContent()).toBe("31 déc. 2026PHP 8.4fin du support");
    expect(await december.locator("time").getAttribute("datetime")).toBe("2026-12-31");
    // Its end of life (2028-12-31) is two windows ahead.
    await page.getByRole("button", { name: "12 mois suivants" }).click();
    await page.getByRole("button", { name: "12 mois suivants" }).click();
    await expect.poll(() => page.locator(".calendar .event").allTextContents()).toEqual(["31 déc. 2028PHP 8.4fin de vie"]);
    await page.getByRole("button", { name: "Aujourd'hui" }).click();

    const subs = page.getByRole("table", { name: "Abonnements du projet" });
    const row = subs.getByRole("row").filter({ hasText: "PHP" });
    expect(await row.textContent()).toContain("8.4");
    expect(await row.locator(".badge").textContent()).toMatch(/^supporté/);
    expect(await row.textContent()).toContain("fin de vie : 180 · support : 30");

    // From the stack: Django 4.2 (the purl item) is a cycle to follow.
    await page.getByRole("button", { name: "S'abonner depuis les piles" }).click();
    await expect
      .poll(() => page.getByRole("status").filter({ hasText: "abonnement" }).textContent())
      .toBe("1 nouvel abonnement, 0 déjà présent.");
    await expect.poll(() => subs.locator("tbody tr").count()).toBe(2);
    expect(await subs.getByRole("row").filter({ hasText: "Django" }).locator(".badge").textContent()).toMatch(/^fin de vie/);
    await checkScreen(page, "eol-calendar");

    // Unsubscribing takes it off the list and the calendar.
    await page.getByRole("button", { name: "Se désabonner de PHP 8.4" }).click();
    await expect.poll(() => subs.locator("tbody tr").count()).toBe(1);
    expect(await page.locator(".calendar .event").count()).toBe(0);
  });

  it("monitors a URL: its status, certificate and technologies, and a detected technology added to the stack in one click", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "URL surveillées" }).click();
    await page.waitForURL(/\/urls$/);
    await expect.poll(() => page.getByRole("heading", { name: "URL surveillées", level: 1 }).isVisible()).toBe(true);
    await expect.poll(() => page.getByText("Aucune URL surveillée.").isVisible()).toBe(true);
    await page.getByLabel("Adresse (http ou https)").fill(`${site.base}/`);
    await page.getByLabel("Libellé (facultatif)").fill("Boutique");
    await page.getByRole("button", { name: "Surveiller", exact: true }).click();
    const table = page.getByRole("table", { name: /URL surveillées du projet/ });
    const row = table.getByRole("row").filter({ hasText: site.base });
    await expect.poll(() => row.isVisible()).toBe(true);
    expect(await row.textContent()).toContain("Boutique");

    await page.getByRole("button", { name: `Analyser ${site.base}/ maintenant` }).click();
    await expect.poll(() => page.getByRole("status").filter({ hasText: "Analyse" }).textContent()).toContain("demandée");
    // The scan job answers within seconds: up, HTTP 200, nginx 1.24.0 detected.
    await expect.poll(() => row.locator(".badge").first().textContent(), { timeout: 60_000, interval: 1_000 }).toBe("disponible");
    expect(await row.textContent()).toContain("HTTP 200");
    await expect.poll(() => row.getByText("Nginx 1.24.0").isVisible(), { timeout: 20_000 }).toBe(true);
    expect(await page.getByLabel("Pile de destination").locator("option:checked").textContent()).toBe("Production");
    expect(site.seen.length).toBeGreaterThan(0);
    await checkScreen(page, "urls");

    await row.getByRole("button", { name: "Ajouter à la pile : Nginx 1.24.0" }).click();
    await expect
      .poll(() => page.getByRole("status").filter({ hasText: "ajouté à la pile" }).textContent())
      .toMatch(/^cpe:2\.3:a:f5:nginx:1\.24\.0:\*:\*:\*:\*:\*:\*:\* ajouté à la pile : /);
    const stacks = (await get(`${P()}/stacks`)) as { items: { value: string }[] }[];
    expect(stacks[0]!.items.map((i) => i.value)).toContain("cpe:2.3:a:f5:nginx:1.24.0:*:*:*:*:*:*:*");

    // Edit, then stop monitoring.
    await page.getByRole("button", { name: `Modifier ${site.base}/` }).click();
    await page.getByLabel("Libellé (facultatif)").fill("Boutique en ligne");
    await page.getByRole("button", { name: "Enregistrer" }).click();
    await expect.poll(() => row.textContent()).toContain("Boutique en ligne");
    await page.getByRole("button", { name: `Supprimer ${site.base}/` }).click();
    await page.getByRole("button", { name: `Confirmer la suppression de ${site.base}/` }).click();
    await expect.poll(() => page.getByText("Aucune URL surveillée.").isVisible()).toBe(true);
    expect(pageErrors).toEqual([]);
  });

  it("lets a viewer read but not write", async () => {
    const viewer = await browser.newContext({ locale: "fr-FR", timezoneId: "Europe/Paris" });
    const p = await viewer.newPage();
    await signIn(p, VIEWER);
    await p.goto(`${vigie.base}/p/${project}/stacks`);
    await expect.poll(() => p.getByRole("link", { name: "Production" }).isVisible()).toBe(true);
    expect(await p.getByText("Lecture seule : seuls les administrateurs du projet modifient les piles.").isVisible()).toBe(true);
    expect(await p.getByRole("button", { name: "Créer la pile" }).count()).toBe(0);
    await p.getByRole("link", { name: "Production" }).click();
    await expect.poll(() => p.getByRole("row").filter({ hasText: "pkg:pypi/django@4.2.1" }).isVisible()).toBe(true);
    expect(await p.getByRole("button", { name: "Ajouter l'élément" }).count()).toBe(0);
    expect(await p.getByRole("button", { name: /^Retirer/ }).count()).toBe(0);
    await p.goto(`${vigie.base}/p/${project}/eol`);
    await expect.poll(() => p.getByRole("table", { name: "Abonnements du projet" }).isVisible()).toBe(true);
    expect(await p.getByRole("button", { name: /désabonner/ }).count()).toBe(0);
    await viewer.close();
  });
});

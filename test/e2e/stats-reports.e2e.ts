import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkScreen, connectBrowser, downloaded, startVigie, type Vigie } from "./harness.js";

const EMAIL = "rssi@example.org";
const PASSWORD = "correct horse battery staple";
const STATS = "test/fixtures/stats";
// The fixtures' CVEs are of 2024 (test/fixtures/stats/README.md).
const FROM = "2024-01-01";
const TO = "2024-12-31";
/** The wall's charts: time series, top, trend, distribution, delays. */
const CHARTS = 5;

describe("the statistics wall and the evidence reports", () => {
  let vigie: Vigie;
  let browser: Browser;
  let page: Page;
  let orgId = "";
  let projectId = "";
  const pageErrors: string[] = [];

  beforeAll(async () => {
    vigie = await startVigie(async (cli) => {
      const org = await cli("org", "create", "--name", "ACME Sécurité");
      orgId = String(org.id);
      projectId = String((await cli("project", "create", "--org", orgId, "--name", "Site public")).id);
      await cli("user", "create", "--email", EMAIL, "--password", PASSWORD, "--org", orgId, "--role", "admin");
      for (const [source, file] of [
        ["cve5", "cve5.jsonl"],
        ["nvd", "nvd2-CVE-2024-3400.json"],
        ["kev", "kev.json"],
        ["epss", "epss_scores-2026-08-16.csv"],
        ["poc", "poc-trickest.jsonl"],
      ]) {
        await cli("feeds", "import", "--source", source!, `${STATS}/${file}`);
      }
    });
    browser = await connectBrowser();
    const context = await browser.newContext({
      locale: "fr-FR",
      timezoneId: "Europe/Paris",
      viewport: { width: 1280, height: 900 },
      acceptDownloads: true,
    });
    page = await context.newPage();
    page.on("pageerror", (err) => pageErrors.push(err.message));
  });
  afterAll(async () => {
    await browser?.close();
    await vigie?.stop();
  });

  /** A call with the page's session cookie (same origin: the CSRF check lets it through). */
  const call = (method: string, path: string, body?: unknown) =>
    page.evaluate(
      async ([method, path, body]) => {
        const res = await fetch(path as string, {
          method: method as string,
          headers: body ? { "content-type": "application/json" } : {},
          body: body ? JSON.stringify(body) : undefined,
        });
        return { status: res.status, json: (await res.json()) as Record<string, unknown> };
      },
      [method, path, body] as const,
    );

  /** Every chart drawn (ECharts' `finished`), each on a canvas; the totals' figures are those of the API. */
  async function wallDrawn(query: string) {
    const totals = (await call("GET", `/api/v1/stats/totals?${query}`)).json;
    expect(totals.published).toBeGreaterThan(0);
    const nf = new Intl.NumberFormat("fr-FR", { maximumFractionDigits: 5 });
    for (const k of ["published", "kev", "poc", "triple_threat", "avg_cvss", "avg_epss", "rejected", "reserved"]) {
      const v = totals[k] as number | null;
      await expect.poll(() => page.locator(`dd[data-figure="${k}"]`).textContent(), { message: k }).toBe(v === null ? "—" : nf.format(v));
    }
    await expect.poll(() => page.locator('.chart-canvas[data-drawn="true"]').count(), { timeout: 20_000 }).toBe(CHARTS);
    expect(await page.locator(".chart-canvas canvas").count()).toBeGreaterThanOrEqual(CHARTS);
    return totals;
  }

  it("draws the corpus's statistics for the period chosen, each chart with its table", async () => {
    await page.goto(`${vigie.base}/login`);
    await page.getByLabel("Adresse e-mail").fill(EMAIL);
    await page.getByLabel("Mot de passe").fill(PASSWORD);
    await page.getByRole("button", { name: "Se connecter" }).click();
    await page.waitForURL(/\/p\/[0-9a-f-]{36}$/);

    await page.getByRole("navigation").getByRole("link", { name: "Statistiques" }).click();
    await page.waitForURL(`${vigie.base}/stats`);
    await expect.poll(() => page.getByRole("heading", { name: "Statistiques", level: 1 }).isVisible()).toBe(true);
    expect(await page.getByRole("radio", { name: "Tout le corpus" }).isChecked()).toBe(true);
    // The form shows the default period once the totals answer (it is drawn again then): fill it after.
    await expect.poll(() => page.getByLabel("Du", { exact: true }).inputValue()).not.toBe("");
    await page.getByLabel("Du", { exact: true }).fill(FROM);
    await page.getByLabel("Au", { exact: true }).fill(TO);
    await page.getByLabel("Pas").selectOption("quarter");
    await page.getByRole("button", { name: "Appliquer" }).click();
    await page.waitForURL(/from=2024-01-01/);
    const totals = await wallDrawn(`from=${FROM}&to=${TO}`);

    // The time series' table: one row per quarter, with the API's counts, adding up to the published CVEs.
    const series = page.locator('[data-card="stats-timeseries"]');
    await series.getByRole("button", { name: "Afficher le tableau" }).click();
    const rows = series.locator("table tbody tr");
    expect(await rows.count()).toBe(4);
    expect(await rows.locator("th").allTextContents()).toEqual(["2024-Q1", "2024-Q2", "2024-Q3", "2024-Q4"]);
    const counts = (await rows.locator("td:nth-child(2)").allTextContents()).map(Number);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(totals.published);
    // One chart's parameter changes its own chart only.
    await page.locator('[data-card="stats-distribution"]').getByLabel("Mesure").selectOption("severity");
    await expect.poll(() => page.locator('[data-card="stats-distribution"] figcaption').textContent()).toContain("sévérité");
    await expect.poll(() => page.locator('.chart-canvas[data-drawn="true"]').count()).toBe(CHARTS);
    await checkScreen(page, "stats-corpus");
  });

  it("draws the project's statistics: the CVEs alerted in it", async () => {
    const stack = await call("POST", `/api/v1/organizations/${orgId}/projects/${projectId}/stacks`, {
      name: "Pare-feu",
      items: [{ item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" }],
    });
    expect(stack.status).toBe(201);
    expect(stack.json.alertes_creees).toBeGreaterThan(0);

    await page.getByRole("radio", { name: "Projet : Site public" }).check();
    await page.waitForURL(new RegExp(`project_id=${projectId}`));
    const totals = await wallDrawn(`from=${FROM}&to=${TO}&project_id=${projectId}`);
    const corpus = (await call("GET", `/api/v1/stats/totals?from=${FROM}&to=${TO}`)).json;
    expect(totals.published).toBeLessThan(corpus.published as number);
    // The project's own delays are offered there (none is over the corpus); the figures are the API's.
    const delays = page.locator('[data-card="stats-delays"]');
    expect(await delays.getByRole("option", { name: "Publication → alerte du projet" }).count()).toBe(1);
    await delays.getByLabel("Mesure").selectOption("publication_to_kev");
    const kev = (await call("GET", `/api/v1/stats/delays?from=${FROM}&to=${TO}&project_id=${projectId}&metric=publication_to_kev`))
      .json as {
      overall: { count: number; median: number };
    };
    expect(kev.overall.count).toBeGreaterThan(0);
    await expect
      .poll(() => delays.locator(".stats-overall").textContent())
      .toMatch(new RegExp(`^${kev.overall.count} ${kev.overall.count > 1 ? "délais" : "délai"} ; médiane `));
    await checkScreen(page, "stats-project");
  });

  it("generates a report, downloads it, and finds the downloaded file again by dropping it", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "Rapports de preuve" }).click();
    await page.waitForURL(`${vigie.base}/p/${projectId}/reports`);
    await expect.poll(() => page.getByRole("heading", { name: "Rapports de preuve", level: 1 }).isVisible()).toBe(true);
    await expect.poll(() => page.getByText("Aucun rapport pour l'instant.").isVisible()).toBe(true);

    await page.getByLabel("Type", { exact: true }).first().selectOption("conformite_kev");
    await page.getByRole("button", { name: "Générer" }).click();
    await expect.poll(() => page.getByRole("status").first().textContent()).toMatch(/^Rapport généré : /);
    const table = page.getByRole("table", { name: "Rapports du projet, du plus récent au plus ancien" });
    await expect.poll(() => table.locator("tbody tr").count()).toBe(1);
    const title = (await table.locator("tbody tr th .source").textContent())!;
    expect(await table.locator("tbody tr .badge").textContent()).toBe("À jour");
    expect(await table.locator("tbody tr a").allTextContents()).toEqual(["PDF", "JSON", "CSV"]);
    await checkScreen(page, "reports");

    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: `PDF de « ${title} »` }).click()]);
    expect(download.suggestedFilename()).toMatch(/^conformite_kev-[0-9a-f-]{36}-v1\.pdf$/);
    const bytes = await downloaded(download);
    expect(bytes.subarray(0, 5).toString()).toBe("%PDF-");

    await drop(download.suggestedFilename(), bytes);
    const found = page.locator(".find-found");
    await expect.poll(() => found.isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await found.getByRole("heading").textContent()).toBe(`${download.suggestedFilename()} : rapport retrouvé`);
    const facts = (await found.textContent())!;
    expect(facts).toContain(title);
    expect(facts).toContain("Version 1 sur 1");
    expect(facts).toContain("c'est la version courante");
    expect(facts).toContain("PDF");
    const report = (await call("GET", `/api/v1/organizations/${orgId}/projects/${projectId}/reports`)).json as {
      items: { empreinte: string }[];
    };
    expect(facts).toContain(report.items[0]!.empreinte);
    await checkScreen(page, "report-found");

    // One byte more: no report has these bytes.
    await drop("altere.pdf", Buffer.concat([bytes, Buffer.from("x")]));
    await expect.poll(() => page.locator(".find-unknown").textContent()).toContain("altere.pdf : fichier inconnu ou altéré");
  });

  it("freezes the report", async () => {
    const table = page.getByRole("table", { name: "Rapports du projet, du plus récent au plus ancien" });
    await table.getByRole("button", { name: /^Figer/ }).click();
    await expect.poll(() => table.locator("tbody tr .badge").textContent()).toBe("Figé");
    expect(await table.getByRole("button", { name: /^Figer/ }).count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  /** A file dropped on the find-again zone (a DataTransfer made in the page, as a browser's drag makes). */
  async function drop(name: string, bytes: Buffer) {
    // A string: the page's DOM types are not the tests' (no "dom" lib).
    const dataTransfer = await page.evaluateHandle(`(() => {
      const dt = new DataTransfer();
      const raw = Uint8Array.from(atob(${JSON.stringify(bytes.toString("base64"))}), (c) => c.charCodeAt(0));
      dt.items.add(new File([raw], ${JSON.stringify(name)}, { type: "application/pdf" }));
      return dt;
    })()`);
    await page.dispatchEvent('[data-testid="dropzone"]', "dragover", { dataTransfer });
    await page.dispatchEvent('[data-testid="dropzone"]', "drop", { dataTransfer });
  }
});

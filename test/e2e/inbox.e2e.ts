import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkScreen, connectBrowser, startVigie, type Vigie } from "./harness.js";

const EMAIL = "trieur@example.org";
const PASSWORD = "correct horse battery staple";
const IMPORT = "test/fixtures/import";
const MATCH = "test/fixtures/matching";

describe("the alert inbox and the CVE explorer: a member triages from the keyboard alone", () => {
  let vigie: Vigie;
  let browser: Browser;
  let page: Page;
  let base = "";
  let key = "";
  const pageErrors: string[] = [];

  /** A call with the project's API key (the preparation a stack admin would do). */
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${vigie.base}${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: res.status === 204 ? null : ((await res.json()) as Record<string, unknown>) };
  };
  /** A call with the signed-in user's session, from the page (same origin: the cookie and no CSRF refusal). */
  const asUser = (path: string) =>
    page.evaluate<{ status: number; body: Record<string, unknown> }>(
      `fetch(${JSON.stringify(base + path)}).then(async (r) => ({ status: r.status, body: await r.json() }))`,
    );

  beforeAll(async () => {
    vigie = await startVigie(async (cli) => {
      const org = await cli("org", "create", "--name", "ACME Sécurité");
      const project = await cli("project", "create", "--org", String(org.id), "--name", "Production");
      await cli("user", "create", "--email", EMAIL, "--password", PASSWORD, "--org", String(org.id), "--role", "member");
      key = String(
        (
          await cli(
            "apikey",
            "create",
            "--org",
            String(org.id),
            "--scope",
            "stacks-write",
            "--scope",
            "tags-write",
            "--name",
            "préparation",
          )
        ).key,
      );
      base = `/api/v1/organizations/${org.id}/projects/${project.id}`;
      // Real records (test/fixtures, see their SOURCES.md): PAN-OS and Django CVEs, NVD, KEV, EPSS, a PoC, OSV.
      for (const [source, path] of [
        ["cve5", `${IMPORT}/cve5-sample.jsonl`],
        ["cve5", `${MATCH}/cve5-panos.jsonl`],
        ["cve5", `${MATCH}/cve5-django.jsonl`],
        ["nvd", `${IMPORT}/nvd2-CVE-2024-3400.json`],
        ["kev", `${IMPORT}/kev-sample.json`],
        ["epss", `${IMPORT}/epss_scores-2026-08-16.csv`],
        ["poc", `${MATCH}/poc-panos.jsonl`],
        ["osv", `${MATCH}/osv-django.jsonl`],
      ] as const) {
        await cli("feeds", "import", "--source", source, path);
      }
    });
    // Every stored CVE counts for a new item (the default is the recent ones and the KEV), then the stack.
    expect((await call("PATCH", "/alert-settings", { alert_backfill: "all" })).status).toBe(200);
    const stack = await call("POST", "/stacks", {
      name: "Pare-feu et site",
      items: [
        { item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" },
        { item_type: "purl", value: "pkg:pypi/django@4.2.1" },
      ],
    });
    expect(stack.status).toBe(201);
    expect(stack.json!.alertes_creees).toBe(3);
    expect((await call("POST", "/tags", { name: "à corriger", color: "#b91c1c" })).status).toBe(201);

    browser = await connectBrowser();
    const context = await browser.newContext({ locale: "fr-FR", timezoneId: "Europe/Paris", viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on("pageerror", (err) => pageErrors.push(err.message));
  });
  afterAll(async () => {
    await browser?.close();
    await vigie?.stop();
  });

  it("signs in and opens the inbox, first in the navigation, with the unread count and why each alert matched", async () => {
    await page.goto(`${vigie.base}/login`);
    await page.getByLabel("Adresse e-mail").fill(EMAIL);
    await page.getByLabel("Mot de passe").fill(PASSWORD);
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/p\/[0-9a-f-]{36}$/);
    const nav = page.getByRole("navigation", { name: "Navigation principale" }).getByRole("link");
    expect(await nav.first().textContent()).toBe("Alertes");
    await nav.first().click();
    await page.waitForURL(/\/alerts$/);
    const grid = page.getByRole("grid");
    await expect.poll(() => grid.getByRole("row").count()).toBe(4);
    expect(await page.locator(".inbox-counts").textContent()).toBe("3 alertes · 3 non lues");
    const panos = grid.getByRole("row", { name: /^CVE-2024-3400, / });
    expect(await panos.textContent()).toContain(
      "La version 10.2.5 du produit paloaltonetworks:pan-os@10.2.5 est dans la plage affectée [10.2.0, 10.2.9-h1[",
    );
    expect(await panos.textContent()).toContain("KEV");
    expect(await panos.getAttribute("aria-label")).toContain("P1");
  });

  it("triages from the keyboard alone: Tab to the list, j, x, e marks read; c opens a case", async () => {
    // Tab from the top of the page until the list's row has the focus (one tab stop: roving focus).
    await page.locator("body").focus();
    for (let i = 0; i < 80; i++) {
      await page.keyboard.press("Tab");
      if ((await page.evaluate<string | undefined>("document.activeElement?.tagName")) === "TR") break;
    }
    const focusedCve = () => page.evaluate<string | undefined>('document.activeElement?.getAttribute("aria-label")?.split(",")[0]');
    const rows = await page
      .getByRole("grid")
      .locator("tbody tr")
      .evaluateAll((trs) => trs.map((tr) => tr.getAttribute("aria-label")!.split(",")[0]));
    expect(await focusedCve()).toBe(rows[0]);

    await page.keyboard.press("j");
    expect(await focusedCve()).toBe(rows[1]);
    const target = rows[1]!;
    await page.keyboard.press("x");
    expect(await page.getByRole("row", { name: new RegExp(`^${target}, `) }).getAttribute("aria-selected")).toBe("true");
    await page.keyboard.press("e");
    await expect
      .poll(() => page.getByRole("status").filter({ hasText: "marquée comme lue" }).textContent())
      .toBe("1 alerte marquée comme lue.");
    await expect.poll(() => page.locator(".inbox-counts").textContent()).toBe("3 alertes · 2 non lues");
    const listed = await asUser("/alerts?page_size=100");
    const read = (listed.body.items as { cve_id: string; is_read: boolean }[]).filter((a) => a.is_read).map((a) => a.cve_id);
    expect(read).toEqual([target]);
    expect(listed.body.unread_count).toBe(2);
    // The focus stayed on the row.
    expect(await focusedCve()).toBe(target);

    // c: the case of the focused alert's CVE (PUT …/cases/{cve_id}). The project's default workflow
    // (cve.new_match → create_case) may have opened it already: the screen then says it existed.
    await page.keyboard.press("c");
    await expect
      .poll(() => page.getByRole("status").filter({ hasText: "ossier" }).textContent())
      .toMatch(new RegExp(`^(Dossier ${target} ouvert|Le dossier ${target} existait déjà) \\(statut : nouveau\\)\\. Voir le dossier$`));
    expect(await page.getByRole("link", { name: "Voir le dossier" }).getAttribute("href")).toMatch(new RegExp(`/cases/${target}$`));
    const caseOf = await asUser(`/cases/${target}`);
    expect(caseOf.status).toBe(200);
    expect(caseOf.body).toMatchObject({ cve_id: target, status: "nouveau" });
    await checkScreen(page, "inbox");
  });

  it("« ? » lists the keys; Escape goes back to the list", async () => {
    await page.keyboard.press("?");
    const help = page.getByRole("dialog", { name: "Raccourcis clavier" });
    await expect.poll(() => help.isVisible()).toBe(true);
    expect(await help.textContent()).toContain("ouvrir un dossier pour la CVE de l'alerte courante");
    await checkScreen(page, "inbox-help");
    await page.keyboard.press("Escape");
    await expect.poll(() => help.count()).toBe(0);
    expect(await page.evaluate<string | undefined>("document.activeElement?.tagName")).toBe("TR");
  });

  it("filters from the URL: a shared view with palier P1 lists CVE-2024-3400 alone", async () => {
    await page.goto(`${page.url()}?palier=%5B%22P1%22%5D`);
    await expect.poll(() => page.getByRole("grid").locator("tbody tr").count()).toBe(1);
    expect(await page.getByRole("grid").locator("tbody tr").getAttribute("aria-label")).toMatch(/^CVE-2024-3400, /);
    // The active filter shows as a chip; the other fields fold under « Filtres ».
    expect(await page.getByRole("list", { name: "Filtres actifs" }).textContent()).toContain("Palier P1");
    await page.locator("summary", { hasText: "Filtres" }).click();
    expect(await page.getByRole("checkbox", { name: "P1" }).isChecked()).toBe(true);
  });

  it("Enter opens the detail, and its link the CVE's page: scores and their source, KEV, ranges per source", async () => {
    await page.getByRole("grid").locator("tbody tr").first().focus();
    await page.keyboard.press("Enter");
    const detail = page.getByRole("complementary", { name: "Détail de l'alerte : CVE-2024-3400" });
    await expect.poll(() => detail.isVisible()).toBe(true);
    await detail.getByRole("link", { name: "Voir la fiche CVE-2024-3400" }).focus();
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/cves\/CVE-2024-3400$/);
    await expect.poll(() => page.getByRole("heading", { name: "CVE-2024-3400", level: 1 }).isVisible()).toBe(true);
    const main = page.getByRole("main");
    await expect.poll(() => main.textContent()).toContain("Catalogue KEV (CISA)");
    expect(await main.textContent()).toContain("GlobalProtect");
    expect(await page.getByRole("table", { name: "Selon l'éditeur (CNA)" }).isVisible()).toBe(true);
    expect(await main.textContent()).toMatch(/CVSS 3\.1|CVSS 4\.0/);
    await expect.poll(() => main.textContent()).toContain("Articles liés");
    await checkScreen(page, "cve-detail");
  });

  it("searches the CVEs", async () => {
    await page.getByRole("navigation", { name: "Navigation principale" }).getByRole("link", { name: "CVE" }).click();
    await page.waitForURL(/\/cves$/);
    await page.getByRole("searchbox", { name: "Recherche" }).fill("GlobalProtect");
    // The other fields fold under « Filtres » (the list comes first).
    await page.locator("summary", { hasText: "Filtres" }).click();
    await page.getByRole("checkbox", { name: "critique" }).check();
    await page.getByRole("searchbox", { name: "Recherche" }).press("Enter");
    await page.waitForURL(/q=GlobalProtect/);
    const table = page.getByRole("table", { name: "CVE trouvées" });
    await expect.poll(async () => (await table.locator("tbody th a").allTextContents()).sort()).toEqual(["CVE-2024-3400"]);
    await checkScreen(page, "cve-search");
    expect(pageErrors).toEqual([]);
  });
});

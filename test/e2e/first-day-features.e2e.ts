import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkScreen, connectBrowser, startVigie, type Vigie } from "./harness.js";

/**
 * Issue 34, a security engineer's first day (sections 4 to 6): a tag created from the inbox and put
 * on three alerts, CVE-2024-3400's vendor workaround and its PoC list, Django 4.2's end of life on
 * home and the calendar — at 1280×800 in French and 390×844 in English. Real records
 * (test/fixtures, see their SOURCES files); screenshots under e2e-artifacts/ (git-ignored).
 */
const EMAIL = "rssi@example.org";
const PASSWORD = "correct horse battery staple";
const IMPORT = "test/fixtures/import";
const MATCH = "test/fixtures/matching";

const RUNS = [
  {
    lang: "fr",
    locale: "fr-FR",
    viewport: { width: 1280, height: 800 },
    w: {
      email: "Adresse e-mail",
      password: "Mot de passe",
      signIn: "Se connecter",
      manage: "Créer une étiquette",
      name: "Nom",
      create: "Créer",
      tagWith: "Étiquette à poser",
      apply: "Étiqueter la sélection",
      select: (cve: string) => `Sélectionner ${cve}`,
      tagged: (tag: string) => `« ${tag} » posée sur 3 alertes.`,
      workaround: "Contournement",
      pocs: /^Voir les \d+ preuves de concept$/,
      pastDue: "fin de vie atteinte",
      pastDueTitle: "Fin de vie déjà atteinte",
      suggest: "Rechercher un produit du corpus",
      covers: /selon .+ · dont CVE-/,
    },
  },
  {
    lang: "en",
    locale: "en-GB",
    viewport: { width: 390, height: 844 },
    w: {
      email: "E-mail address",
      password: "Password",
      signIn: "Sign in",
      manage: "Manage tags (1)",
      name: "Name",
      create: "Create",
      tagWith: "Tag to attach",
      apply: "Tag the selection",
      select: (cve: string) => `Select ${cve}`,
      tagged: (tag: string) => `“${tag}” attached to 3 alerts.`,
      workaround: "Workaround",
      pocs: /^Show the \d+ proofs of concept$/,
      pastDue: "end of life reached",
      pastDueTitle: "End of life already reached",
      suggest: "Search a product of the corpus",
      covers: /named by .+ · e\.g\. CVE-/,
    },
  },
] as const;

describe("a security engineer's first day in the browser (issue 34)", () => {
  let vigie: Vigie;
  let browser: Browser;
  let base = "";
  let key = "";
  let stackId = "";

  beforeAll(async () => {
    vigie = await startVigie(async (cli) => {
      const org = await cli("org", "create", "--name", "ACME Sécurité");
      const project = await cli("project", "create", "--org", String(org.id), "--name", "Production");
      await cli("user", "create", "--email", EMAIL, "--password", PASSWORD, "--org", String(org.id), "--role", "owner");
      key = String((await cli("apikey", "create", "--org", String(org.id), "--scope", "stacks-write", "--name", "préparation")).key);
      base = `/api/v1/organizations/${org.id}/projects/${project.id}`;
      for (const [source, path] of [
        ["cve5", `${IMPORT}/cve5-sample.jsonl`],
        ["cve5", `${MATCH}/cve5-panos.jsonl`],
        ["cve5", `${MATCH}/cve5-django.jsonl`],
        ["kev", `${IMPORT}/kev-sample.json`],
        ["poc", `${MATCH}/poc-panos.jsonl`],
        ["osv", `${MATCH}/osv-django.jsonl`],
        ["eol", "test/fixtures/eol"],
      ] as const) {
        await cli("feeds", "import", "--source", source, path);
      }
    });
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${vigie.base}${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    expect((await call("PATCH", "/alert-settings", { alert_backfill: "all" })).status).toBe(200);
    const stack = await call("POST", "/stacks", {
      name: "Pare-feu et site",
      items: [
        { item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" },
        { item_type: "purl", value: "pkg:pypi/django@4.2.1" },
      ],
    });
    expect(stack.status).toBe(201);
    stackId = ((await stack.json()) as { id: string }).id;
    browser = await connectBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await vigie?.stop();
  });

  for (const run of RUNS) {
    const { w } = run;
    const shot = (name: string) => `first-day-${name}-${run.lang}-${run.viewport.width}`;
    describe(`${run.lang}, ${run.viewport.width}×${run.viewport.height}`, () => {
      let page: Page;
      const consoleErrors: string[] = [];
      const scripts: { url: string; encoding: string | undefined }[] = [];
      beforeAll(async () => {
        const context = await browser.newContext({ locale: run.locale, timezoneId: "Europe/Paris", viewport: run.viewport });
        await context.addInitScript(`localStorage.setItem("vigie.lang", ${JSON.stringify(run.lang)})`);
        page = await context.newPage();
        page.on("response", (r) => {
          if (/\/assets\/.*\.(js|css)$/.test(r.url())) scripts.push({ url: r.url(), encoding: r.headers()["content-encoding"] });
        });
        page.on("console", (m) => {
          if (m.type() === "error") consoleErrors.push(m.text());
        });
      });

      it("the login page asks for no session: no 401 in the console", async () => {
        await page.goto(`${vigie.base}/login`);
        await expect.poll(() => page.getByLabel(w.email).isVisible()).toBe(true);
        expect(consoleErrors).toEqual([]);
        // The hashed assets come precompressed: brotli, as Chromium accepts it.
        expect(scripts.length).toBeGreaterThan(0);
        expect(scripts.filter((s) => s.encoding !== "br")).toEqual([]);
        await page.getByLabel(w.email).fill(EMAIL);
        await page.getByLabel(w.password).fill(PASSWORD);
        await page.getByRole("button", { name: w.signIn }).click();
        await page.waitForURL(/\/p\/[0-9a-f-]{36}$/);
      });

      it("home shows Django 4.2's end of life, already reached", async () => {
        const item = page.locator(".eol-past-due li", { hasText: "Django 4.2" });
        await expect.poll(() => item.count()).toBe(1);
        expect(await item.textContent()).toContain(w.pastDue);
        await checkScreen(page, shot("home"));
      });

      it("the calendar lists it first, before the months to come", async () => {
        await page.goto(`${page.url()}/eol`);
        const heading = page.getByRole("heading", { name: w.pastDueTitle });
        await expect.poll(() => heading.isVisible()).toBe(true);
        const headings = await page.locator("main h2").allTextContents();
        expect(headings.indexOf(w.pastDueTitle)).toBe(0);
        await checkScreen(page, shot("eol"));
      });

      it("a tag is created from the inbox and put on three alerts", async () => {
        await page.goto(page.url().replace(/\/eol$/, "/alerts"));
        const grid = page.getByRole("grid");
        await expect.poll(() => grid.getByRole("row").count()).toBe(4);
        const name = run.lang === "fr" ? "à corriger" : "to fix";
        await page.getByText(w.manage).click();
        await page.getByLabel(w.name, { exact: true }).fill(name);
        await page.getByRole("button", { name: w.create, exact: true }).click();
        const select = page.getByLabel(w.tagWith);
        await expect.poll(() => select.locator("option").allTextContents()).toContain(name);
        for (const cve of await grid
          .locator("tbody tr")
          .evaluateAll((rows) => rows.map((r) => r.getAttribute("aria-label")!.split(",")[0]!)))
          await page.getByRole("checkbox", { name: w.select(cve) }).check();
        await select.selectOption({ label: name });
        await page.getByRole("button", { name: w.apply }).click();
        await expect.poll(() => page.locator(".inbox-message").textContent()).toBe(w.tagged(name));
        await expect.poll(() => grid.locator(".tag", { hasText: name }).count()).toBe(3);
        await checkScreen(page, shot("inbox-tagged"));
      });

      it("the product suggestions say what each PAN-OS spelling covers", async () => {
        await page.goto(`${page.url().replace(/\/alerts.*$/, "")}/stacks/${stackId}`);
        await page.getByRole("combobox", { name: w.suggest }).fill("pan-os");
        const options = page.getByRole("listbox").getByRole("option");
        await expect.poll(() => options.count()).toBeGreaterThan(1);
        // Each suggestion, PAN-OS's two spellings among them, says which sources name it and some of its CVEs.
        const texts = await options.allTextContents();
        expect(texts.filter((t) => /pan-os/i.test(t)).length).toBeGreaterThan(1);
        // The two PAN-OS spellings differ by who names them: the vendor (CNA) or CISA's ADP.
        expect(texts.some((t) => t.includes("palo_alto_networks:pan-os"))).toBe(true);
        expect(texts.find((t) => t.includes("paloaltonetworks:pan-os"))).toMatch(/CISA \(ADP\)/);
        for (const text of texts) expect(text).toMatch(w.covers);
        await checkScreen(page, shot("suggestions"));
        await page.keyboard.press("Escape");
      });

      it("CVE-2024-3400 shows Palo Alto's workaround and lists its proofs of concept", async () => {
        await page.goto(`${vigie.base}/cves/CVE-2024-3400`);
        const measure = page.locator("li", { hasText: "Threat IDs 95187, 95189, and 95191" });
        await expect.poll(() => measure.count()).toBeGreaterThan(0);
        expect(await measure.first().textContent()).toContain(w.workaround);
        expect(await measure.first().textContent()).toContain("palo_alto");
        await page.getByText(w.pocs).click();
        await expect.poll(() => page.locator(".poc-list a[href^='https://github.com/']").count()).toBeGreaterThan(0);
        await checkScreen(page, shot("cve"));
      });
    });
  }
});

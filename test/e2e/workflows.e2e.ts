import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkScreen, connectBrowser, startVigie, type Vigie } from "./harness.js";

const EMAIL = "admin@example.org";
const PASSWORD = "correct horse battery staple";

describe("workflows: list, a graph built on the canvas, a 422 on its node, dry run, runs", () => {
  let vigie: Vigie;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    vigie = await startVigie(async (cli) => {
      const org = await cli("org", "create", "--name", "ACME Sécurité");
      await cli("project", "create", "--org", String(org.id), "--name", "Production");
      await cli("user", "create", "--email", EMAIL, "--password", PASSWORD, "--org", String(org.id), "--role", "admin");
      await cli("feeds", "import", "--source", "kev", "test/fixtures/import/kev-sample.json");
    });
    browser = await connectBrowser();
    const context = await browser.newContext({ locale: "fr-FR", timezoneId: "Europe/Paris", viewport: { width: 1400, height: 900 } });
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

  it("lists the project's workflows: the default one, which cannot be deleted", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "Workflows" }).click();
    await page.waitForURL(/\/workflows$/);
    const table = page.getByRole("table", { name: "Workflows du projet" });
    await expect.poll(() => table.isVisible()).toBe(true);
    expect(await table.locator("tbody tr").count()).toBe(1);
    expect(await table.locator("tbody tr").first().textContent()).toContain("par défaut");
    page.once("dialog", (d) => void d.accept());
    await table.getByRole("button", { name: /^Supprimer / }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toBe("Le workflow par défaut du projet ne peut pas être supprimé.");
    await checkScreen(page, "workflows-list");
  });

  it("builds cve.new_match → notify_webhook on the canvas; a bad URL is shown on its node", async () => {
    await page.getByRole("link", { name: "Nouveau workflow" }).click();
    await page.waitForURL(/\/workflows\/new$/);
    await page.getByLabel("Nom", { exact: true }).fill("Alerte SOC");
    await page.getByRole("button", { name: "+ Webhook notify_webhook" }).click();
    // The node is selected: its panel is open. A URL the server refuses (not http/https).
    await page.getByLabel("url").fill("ftp://127.0.0.1/hook");
    // Connect on the canvas: from the trigger's output to the action's input.
    const from = await page.locator('.react-flow__node[data-id="trigger"] .react-flow__handle.source').boundingBox();
    const to = await page.locator('.react-flow__node[data-id="notify_webhook-1"] .react-flow__handle.target').boundingBox();
    if (!from || !to) throw new Error("handles not drawn");
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 10 });
    await page.mouse.up();
    await expect.poll(() => page.locator(".react-flow__edge").count()).toBe(1);

    await page.getByRole("button", { name: "Enregistrer" }).click();
    const node = page.locator('.react-flow__node[data-id="notify_webhook-1"] .wf-node');
    await expect.poll(() => node.getAttribute("class")).toContain("wf-node-invalid");
    expect(await node.textContent()).toContain("params.url : une URL http:// ou https:// est attendue");
    expect(await page.locator(".wf-issues").textContent()).toContain("Voir le nœud notify_webhook-1");
    expect(await page.getByLabel("url").getAttribute("aria-invalid")).toBe("true");
    expect(page.url()).toMatch(/\/workflows\/new$/);
    await checkScreen(page, "workflow-invalid");
  });

  it("saves the corrected graph (POST with an Idempotency-Key) and shows it", async () => {
    await page.getByLabel("url").fill("http://127.0.0.1:9/hook");
    await page.getByLabel("Nouvelle valeur de secret").fill("un secret de webhook assez long");
    await page.getByRole("button", { name: "Enregistrer" }).click();
    await page.waitForURL(/\/workflows\/[0-9a-f-]{36}$/);
    await expect.poll(() => page.getByRole("heading", { name: "Alerte SOC" }).isVisible()).toBe(true);
    expect(await page.getByText("version 1").isVisible()).toBe(true);
    await expect.poll(() => page.getByText("Workflow enregistré.").isVisible()).toBe(true);
    expect(await page.locator(".react-flow__edge").count()).toBe(1);
    expect(await page.locator(".wf-node-invalid").count()).toBe(0);
    // The secret comes back masked, never in clear.
    await page.locator('.react-flow__node[data-id="notify_webhook-1"]').click();
    await expect.poll(() => page.getByText("Secret enregistré : ••••long").isVisible()).toBe(true);
    expect(await page.getByLabel("Nouvelle valeur de secret").inputValue()).toBe("");
    expect(await page.content()).not.toContain("un secret de webhook assez long");
    // The canvas's keyboard alternative, open (axe checks it too).
    await page.getByText("Nœuds et arêtes (clavier)").click();
    const edges = page.getByRole("table", { name: "Arêtes" });
    expect(await edges.locator("tbody tr").allTextContents()).toEqual([
      "triggernotify_webhook-1—Supprimer l'arête trigger → notify_webhook-1",
    ]);
    await checkScreen(page, "workflow-editor");
    await page.getByText("Nœuds et arêtes (clavier)").click();
  });

  it("dry-runs it against a CVE: what each node would do, then the run in the list", async () => {
    await page.getByLabel("Identifiant CVE").fill("CVE-2024-3400");
    await page.getByRole("button", { name: "Essayer" }).click();
    const result = page.getByRole("table", { name: "Ce que ferait chaque nœud pour CVE-2024-3400" });
    await expect.poll(() => result.isVisible()).toBe(true);
    const rows = await result.locator("tbody tr").allTextContents();
    expect(rows[0]).toContain("trigger");
    expect(rows[0]).toContain("déclenché");
    expect(rows[1]).toContain("notify_webhook");
    expect(rows[1]).toContain("serait exécutée");
    await checkScreen(page, "workflow-dry-run");

    const runs = page.getByRole("table", { name: "Exécutions récentes, la plus récente d'abord" });
    await expect.poll(() => runs.locator("tbody tr").count()).toBe(1);
    expect(await runs.locator("tbody tr").first().textContent()).toContain("essai à blanc");
    expect(await runs.locator("tbody tr").first().textContent()).toContain("CVE-2024-3400");
    await runs.getByRole("button", { name: /^Étapes du / }).click();
    await expect.poll(() => page.locator(".wf-steps").textContent()).toContain("Aucune étape enregistrée");
    await checkScreen(page, "workflow-runs");
  });

  it("lists the new workflow, and disables it", async () => {
    await page.getByRole("link", { name: "← Retour aux workflows" }).click();
    const table = page.getByRole("table", { name: "Workflows du projet" });
    await expect.poll(() => table.locator("tbody tr").count()).toBe(2);
    await table.getByRole("button", { name: "Désactiver Alerte SOC" }).click();
    await expect.poll(() => table.getByRole("button", { name: "Activer Alerte SOC" }).isVisible()).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});

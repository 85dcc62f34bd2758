import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkScreen, connectBrowser, startVigie, type Vigie } from "./harness.js";

const ADMIN = { email: "admin@example.org", password: "admin horse battery staple" };
const VIEWER = { email: "lecteur@example.org", password: "viewer horse battery staple" };

describe("settings: API keys, members, organization, project settings; a viewer cannot write; no cross-site write", () => {
  let vigie: Vigie;
  let browser: Browser;
  let orgId = "";
  let projectId = "";
  let adminToken = "";
  const pageErrors: string[] = [];

  beforeAll(async () => {
    vigie = await startVigie(async (cli) => {
      const org = await cli("org", "create", "--name", "ACME Sécurité");
      orgId = String(org.id);
      projectId = String((await cli("project", "create", "--org", orgId, "--name", "Site public")).id);
      await cli(
        "user",
        "create",
        "--email",
        "owner@example.org",
        "--password",
        "owner horse battery staple",
        "--org",
        orgId,
        "--role",
        "owner",
      );
      await cli("user", "create", "--email", ADMIN.email, "--password", ADMIN.password, "--org", orgId, "--role", "admin");
      await cli("user", "create", "--email", VIEWER.email, "--password", VIEWER.password, "--org", orgId, "--role", "viewer");
    });
    browser = await connectBrowser();
    adminToken = await accountToken(ADMIN);
  });
  afterAll(async () => {
    await browser?.close();
    await vigie?.stop();
  });

  /** An account token (Authorization: Bearer vs_…), to check through the API what the screens did. */
  async function accountToken(who: { email: string; password: string }): Promise<string> {
    const res = await fetch(`${vigie.base}/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(who),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { token: string }).token;
  }

  const asAdmin = (path: string, init: RequestInit = {}) =>
    fetch(`${vigie.base}/api/v1${path}`, { ...init, headers: { authorization: `Bearer ${adminToken}`, ...init.headers } });
  const tagNames = async () =>
    ((await (await asAdmin(`/organizations/${orgId}/projects/${projectId}/tags`)).json()) as { name: string }[]).map((t) => t.name);

  async function signedIn(who: { email: string; password: string }): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ locale: "fr-FR", timezoneId: "Europe/Paris", viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.on("pageerror", (err) => pageErrors.push(err.message));
    await page.goto(`${vigie.base}/login`);
    await page.getByLabel("Adresse e-mail").fill(who.email);
    await page.getByLabel("Mot de passe").fill(who.password);
    await page.getByRole("button", { name: "Se connecter" }).click();
    await page.waitForURL(/\/p\/[0-9a-f-]{36}$/);
    return { context, page };
  }

  /** The enabled form controls of the screen (the shell's switchers are outside <main>). */
  const enabledControls = (page: Page) =>
    page.locator("main").locator("button:enabled, input:enabled, select:enabled, textarea:enabled").count();

  describe("an admin", () => {
    let page: Page;
    beforeAll(async () => {
      ({ page } = await signedIn(ADMIN));
    });

    it("creates an API key: shown once, it works on /api/v1/me; revoked, it is a 401", async () => {
      await page.getByRole("navigation", { name: "Navigation principale" }).getByRole("link", { name: "Paramètres" }).click();
      await page.waitForURL(`${vigie.base}/settings/organization`);
      await page.getByRole("navigation", { name: "Sections des paramètres" }).getByRole("link", { name: "Clés d'API" }).click();
      await page.waitForURL(`${vigie.base}/settings/keys`);
      await expect.poll(() => page.getByText("Aucune clé pour l'instant.").isVisible()).toBe(true);
      await checkScreen(page, "settings-keys");

      await page.getByLabel("Nom de la clé").fill("inventaire CI");
      await page.getByRole("checkbox", { name: /Étiquettes/ }).check();
      await page.getByRole("checkbox", { name: "Site public" }).check();
      await page.getByRole("button", { name: "Créer une clé" }).click();
      const dialog = page.getByRole("dialog", { name: "Clé d'API créée" });
      await expect.poll(() => dialog.isVisible()).toBe(true);
      const key = await dialog.getByLabel("Clé « inventaire CI »").inputValue();
      expect(key).toMatch(/^vk_/);
      expect(await dialog.textContent()).toContain("elle ne sera plus jamais affichée");
      // A viewport as tall as the page: the screenshot shows the dialog over the whole screen.
      await page.setViewportSize({ width: 1280, height: 1100 });
      await checkScreen(page, "settings-key-created");
      await page.setViewportSize({ width: 1280, height: 800 });

      // The key works, with the scope and project it was given.
      const me = await fetch(`${vigie.base}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { org_id: string }).org_id).toBe(orgId);
      const tag = await fetch(`${vigie.base}/api/v1/organizations/${orgId}/projects/${projectId}/tags`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "posé par la clé" }),
      });
      expect(tag.status).toBe(201);

      // Closed, the key is gone from the page; the list shows its prefix.
      await dialog.getByRole("button", { name: "J'ai copié la clé, fermer" }).click();
      await expect.poll(() => dialog.count()).toBe(0);
      expect(await page.content()).not.toContain(key);
      const row = page.getByRole("row", { name: /inventaire CI/ });
      expect(await row.textContent()).toContain(key.slice(0, 11));
      expect(await row.textContent()).toContain("Étiquettes");

      await row.getByRole("button", { name: "Révoquer la clé inventaire CI" }).click();
      const confirm = page.getByRole("dialog", { name: "Révoquer la clé ?" });
      await confirm.getByRole("button", { name: "Révoquer" }).click();
      await expect.poll(() => row.textContent()).toContain("Révoquée le");
      expect((await fetch(`${vigie.base}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
    });

    it("adds a member: the form asks for an initial password when the address has no account", async () => {
      await page.getByRole("link", { name: "Membres et rôles" }).click();
      await page.waitForURL(`${vigie.base}/settings/members`);
      await page.getByLabel("Adresse e-mail").fill("nouvelle@example.org");
      await page.getByLabel("Rôle", { exact: true }).selectOption("member");
      await page.getByRole("button", { name: "Ajouter un membre" }).click();
      await expect
        .poll(() => page.getByRole("alert").textContent())
        .toBe("Aucun compte n'existe pour cette adresse : indiquez un mot de passe initial pour le créer.");
      await page.getByLabel("Mot de passe initial (facultatif)").fill("nouvelle horse battery");
      await page.getByRole("button", { name: "Ajouter un membre" }).click();
      await expect.poll(() => page.getByRole("row", { name: /nouvelle@example.org/ }).isVisible()).toBe(true);
      const members = (await (await asAdmin(`/organizations/${orgId}/members`)).json()) as { email: string; role: string }[];
      expect(members.find((m) => m.email === "nouvelle@example.org")?.role).toBe("member");
      // The owner's role is not the admin's to change.
      expect(await page.getByLabel("Rôle de owner@example.org").isDisabled()).toBe(true);
      await checkScreen(page, "settings-members");
    });

    it("creates a project, which the switcher then lists; renaming is left to owners", async () => {
      await page.getByRole("link", { name: "Organisation", exact: true }).click();
      await page.waitForURL(`${vigie.base}/settings/organization`);
      expect(await page.getByLabel("Nouveau nom").isDisabled()).toBe(true);
      await page.getByLabel("Nom du projet").fill("Intranet");
      await page.getByRole("button", { name: "Créer le projet" }).click();
      await expect.poll(() => page.getByRole("status").filter({ hasText: "créé" }).textContent()).toContain("Projet « Intranet » créé.");
      await expect.poll(() => page.locator("header").getByLabel("Projet").locator("option").allTextContents()).toContain("Intranet");
      await checkScreen(page, "settings-org");
    });

    it("changes the project's notification language", async () => {
      await page.getByRole("link", { name: "Projet", exact: true }).click();
      await page.waitForURL(`${vigie.base}/settings/project`);
      const form = page.getByRole("form", { name: "Langue des notifications" });
      await form.getByLabel("Langue").selectOption("en");
      await form.getByRole("button", { name: "Enregistrer" }).click();
      await expect.poll(() => form.getByRole("status").textContent()).toBe("Enregistré.");
      const project = page.locator("header").getByLabel("Projet").locator("option:checked");
      const current = (await project.getAttribute("value"))!;
      const settings = await asAdmin(`/organizations/${orgId}/projects/${current}/notification-settings`);
      expect(await settings.json()).toEqual({ language: "en" });
      await checkScreen(page, "settings-project");
    });
  });

  describe("a viewer", () => {
    let page: Page;
    beforeAll(async () => {
      ({ page } = await signedIn(VIEWER));
    });

    it("finds no write control on the settings, home and feeds screens", async () => {
      for (const tab of ["organization", "members", "keys", "project"]) {
        await page.goto(`${vigie.base}/settings/${tab}`);
        await expect.poll(() => page.locator("main .notice").first().isVisible(), { message: tab }).toBe(true);
        await expect.poll(() => page.getByText("Chargement…").count(), { message: tab }).toBe(0);
        expect(await enabledControls(page), tab).toBe(0);
      }
      // Each refusal says which role it needs.
      expect(await page.locator("main .notice").first().textContent()).toContain("réservé au rôle « administrateur »");
      await checkScreen(page, "viewer-readonly");
      await page.goto(`${vigie.base}/settings/members`);
      await expect.poll(() => page.getByRole("row", { name: /owner@example.org/ }).isVisible()).toBe(true);
      expect(await page.getByRole("combobox", { name: /Rôle de/ }).count()).toBe(0);

      await page.getByRole("link", { name: "Accueil" }).click();
      await expect.poll(() => page.getByRole("heading", { name: "Accueil" }).isVisible()).toBe(true);
      expect(await enabledControls(page)).toBe(0);
      await page.getByRole("link", { name: "Flux", exact: true }).click();
      await expect.poll(() => page.getByRole("table").isVisible()).toBe(true);
      expect(await enabledControls(page)).toBe(0);
    });

    it("a write sent from the page anyway is a 403 « Rôle insuffisant »", async () => {
      const answer = await page.evaluate(
        async ([org, project]) => {
          const res = await fetch(`/api/v1/organizations/${org}/projects/${project}/tags`, {
            method: "POST",
            credentials: "same-origin",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ name: "écrit par un lecteur" }),
          });
          return { status: res.status, body: (await res.json()) as { detail: string } };
        },
        [orgId, projectId],
      );
      expect(answer.status).toBe(403);
      expect(answer.body.detail).toMatch(/^Rôle insuffisant/);
      expect(await tagNames()).not.toContain("écrit par un lecteur");
    });
  });

  describe("a forged cross-site POST", () => {
    let forge: Server;
    let forgePort = 0;

    beforeAll(async () => {
      // Another origin's page: a form that posts itself to Vigie, and a no-cors fetch with credentials.
      forge = createServer((_req, res) => {
        const target = `${vigie.base}/api/v1/organizations/${orgId}/projects/${projectId}/tags`;
        res.setHeader("content-type", "text/html; charset=utf-8");
        res.end(`<!doctype html><html lang="fr"><head><title>Gagnez un prix</title></head><body>
<form id="f" method="POST" action="${target}" enctype="text/plain"><input type="hidden" name='{"name":"forge-form","x":"' value='"}'></form>
<script>
fetch(${JSON.stringify(target)}, { method: "POST", mode: "no-cors", credentials: "include", headers: { "content-type": "text/plain" }, body: JSON.stringify({ name: "forge-fetch" }) })
  .finally(() => document.getElementById("f").submit());
</script></body></html>`);
      });
      await new Promise<void>((resolve) => forge.listen(0, "127.0.0.1", resolve));
      forgePort = (forge.address() as AddressInfo).port;
    });
    afterAll(async () => {
      await new Promise((resolve) => forge?.close(resolve));
    });

    it("is refused while the browser holds an admin's session: nothing written", async () => {
      const { context, page } = await signedIn(ADMIN);
      // Another port is another origin of the same site: SameSite=Lax lets the cookie go, the CSRF guard refuses.
      // localhost is another site: the cookie is withheld.
      for (const host of ["127.0.0.1", "localhost"]) {
        const statuses: number[] = [];
        page.on("response", (r) => {
          if (r.url().endsWith("/tags") && r.request().method() === "POST") statuses.push(r.status());
        });
        // The page submits its form as soon as its fetch ends, maybe before "load": wait for the commit only.
        await page.goto(`http://${host}:${forgePort}/`, { waitUntil: "commit" });
        await expect.poll(() => statuses.length, { message: host }).toBe(2);
        expect(
          statuses.every((s) => s === (host === "127.0.0.1" ? 403 : 401)),
          `${host}: ${statuses}`,
        ).toBe(true);
        // The form's own navigation may still be under way when its answer is counted: the next goto would
        // interrupt it (or be interrupted by it). Wait until the tab shows the refusal.
        await page.waitForURL((url) => url.pathname.endsWith("/tags"), { waitUntil: "load" });
        page.removeAllListeners("response");
      }
      expect(await tagNames()).not.toEqual(expect.arrayContaining([expect.stringMatching(/^forge/)]));

      // At the HTTP level: the same cookie with another site's markers → 403; without them (curl) → written.
      const cookie = (await context.cookies(vigie.base)).find((c) => c.name === "vigie_session")!;
      const post = (headers: Record<string, string>, name: string) =>
        fetch(`${vigie.base}/api/v1/organizations/${orgId}/projects/${projectId}/tags`, {
          method: "POST",
          headers: { cookie: `vigie_session=${cookie.value}`, "content-type": "application/json", ...headers },
          body: JSON.stringify({ name }),
        });
      for (const headers of [
        { "sec-fetch-site": "cross-site" },
        { "sec-fetch-site": "same-site" },
        { origin: "http://evil.example" },
      ] as Record<string, string>[]) {
        const res = await post(headers, "forge-http");
        expect(res.status, JSON.stringify(headers)).toBe(403);
        expect(((await res.json()) as { detail: string }).detail).toMatch(/^Requête intersite refusée/);
      }
      expect((await post({ "sec-fetch-site": "same-origin" }, "écrit depuis Vigie")).status).toBe(201);
      const names = await tagNames();
      expect(names).toContain("écrit depuis Vigie");
      expect(names.filter((n) => n.startsWith("forge"))).toEqual([]);
      await context.close();
      expect(pageErrors).toEqual([]);
    });
  });
});

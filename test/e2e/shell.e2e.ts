import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkScreen, connectBrowser, startVigie, type Vigie } from "./harness.js";

const EMAIL = "analyste@example.org";
const PASSWORD = "correct horse battery staple";

describe("the shell: sign-in, switchers, language, feeds, session end, sign-out", () => {
  let vigie: Vigie;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];
  let chosen = "";

  beforeAll(async () => {
    vigie = await startVigie(async (cli) => {
      const org = await cli("org", "create", "--name", "ACME Sécurité");
      await cli("project", "create", "--org", String(org.id), "--name", "Site public");
      await cli("project", "create", "--org", String(org.id), "--name", "Intranet");
      await cli("user", "create", "--email", EMAIL, "--password", PASSWORD, "--org", String(org.id), "--role", "owner");
    });
    browser = await connectBrowser();
    context = await browser.newContext({ locale: "fr-FR", timezoneId: "Europe/Paris", viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.on("pageerror", (err) => pageErrors.push(err.message));
  });
  afterAll(async () => {
    await browser?.close();
    await vigie?.stop();
  });

  async function signIn(password = PASSWORD) {
    await page.getByLabel("Adresse e-mail").fill(EMAIL);
    await page.getByLabel("Mot de passe").fill(password);
    await page.getByRole("button", { name: "Se connecter" }).click();
  }

  it("sends a visitor to the login screen, and says when the password is wrong", async () => {
    await page.goto(`${vigie.base}/`);
    await page.waitForURL(/\/login$/);
    await expect.poll(() => page.getByRole("heading", { name: "Connexion" }).isVisible()).toBe(true);
    expect(await page.getAttribute("html", "lang")).toBe("fr");
    await checkScreen(page, "login");

    await signIn("not the password");
    await expect.poll(() => page.getByRole("alert").textContent()).toBe("E-mail ou mot de passe incorrect");
    await checkScreen(page, "login-error");
  });

  it("signs in to the shell: navigation, the organization's projects, the session's end", async () => {
    await signIn();
    // `/` opens the current project's home, `/p/<project id>`.
    await page.waitForURL(/\/p\/[0-9a-f-]{36}$/);
    await expect.poll(() => page.getByRole("heading", { name: "Accueil" }).isVisible()).toBe(true);
    expect(await page.getByRole("navigation", { name: "Navigation principale" }).isVisible()).toBe(true);
    expect(await page.getByRole("main").textContent()).toContain(`Bienvenue, ${EMAIL}.`);
    const facts = page.locator("dl.facts");
    expect(await facts.textContent()).toContain("ACME Sécurité");
    expect(await facts.textContent()).toContain("propriétaire");

    const project = page.getByLabel("Projet");
    const options = await project.locator("option").allTextContents();
    expect(options.sort()).toEqual(["Intranet", "Site public"]);
    // The first project is current; choosing the other one makes it current.
    const first = await project.locator("option:checked").textContent();
    expect(await facts.textContent()).toContain(first);
    const other = options.find((o) => o !== first)!;
    const before = page.url();
    await project.selectOption({ label: other });
    await expect.poll(() => facts.textContent()).toContain(other);
    expect(page.url()).toMatch(/\/p\/[0-9a-f-]{36}$/);
    expect(page.url()).not.toBe(before);
    chosen = other;
    // The day's work: each card has its answer (nothing to triage on this fresh store).
    await expect.poll(() => page.getByRole("region", { name: "À trier" }).textContent()).toContain("0 non lues en palier P1");
    await expect.poll(() => page.getByRole("region", { name: "Fins de vie" }).textContent()).toContain("Aucun avis de fin de vie.");
    await expect
      .poll(() => page.getByRole("region", { name: "Sources de données" }).textContent())
      .toMatch(/\d+ source\(s\) encore jamais synchronisée\(s\)/);
    await checkScreen(page, "home");
  });

  it("switches to English and keeps the choice", async () => {
    await page.getByLabel("Langue").selectOption("en");
    await expect.poll(() => page.getByRole("heading", { name: "Home" }).isVisible()).toBe(true);
    expect(await page.getAttribute("html", "lang")).toBe("en");
    expect(await page.getByRole("button", { name: "Sign out" }).isVisible()).toBe(true);
    await page.reload();
    await expect.poll(() => page.getByRole("heading", { name: "Home" }).isVisible()).toBe(true);
    // The project chosen before the reload is still the current one.
    expect(await page.locator("dl.facts").textContent()).toContain(chosen);
    await checkScreen(page, "home-en");
    await page.getByLabel("Language").selectOption("fr");
    await expect.poll(() => page.getByRole("heading", { name: "Accueil" }).isVisible()).toBe(true);
  });

  it("shows each feed source's state", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "Flux" }).click();
    await page.waitForURL(`${vigie.base}/feeds`);
    const table = page.getByRole("table", { name: "Sources et état de leur synchronisation" });
    await expect.poll(() => table.isVisible()).toBe(true);
    const sources = await table.locator("tbody th .source").allTextContents();
    expect(sources).toEqual(expect.arrayContaining(["cve5", "nvd", "kev", "epss", "osv"]));
    // Nothing synced on this fresh store (sync off): every source says so.
    expect(await table.locator("tbody tr").first().textContent()).toContain("Jamais synchronisée");
    await checkScreen(page, "feeds");
  });

  it("answers « page introuvable » for a project that is not the user's", async () => {
    await page.goto(`${vigie.base}/p/00000000-0000-4000-8000-000000000000`);
    await expect.poll(() => page.getByRole("heading", { name: "Page introuvable" }).isVisible()).toBe(true);
    await checkScreen(page, "not-found");
    await page.getByRole("link", { name: "Retour à l'accueil" }).click();
    await page.waitForURL(/\/p\/[0-9a-f-]{36}$/);
  });

  it("sends the user back to the login screen when the session has ended, saying so", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "Accueil" }).click();
    await page.waitForURL(/\/p\//);
    // The home's own calls answered first (one still in flight when the cookie goes would succeed).
    await page.waitForLoadState("networkidle");
    await context.clearCookies();
    // A screen this file has not opened yet: its data is not in the page's cache, so it asks the server.
    await page.getByRole("navigation").getByRole("link", { name: "Registre des risques" }).click();
    await page.waitForURL(/\/login\?/);
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Session expirée : reconnectez-vous.");
    await checkScreen(page, "session-expired");
    // Signing in again goes back where the user was.
    await signIn();
    await page.waitForURL(`${vigie.base}/risks`);
  });

  it("signs out: the session is revoked and the screens need a new sign-in", async () => {
    await page.getByRole("button", { name: "Se déconnecter" }).click();
    await page.waitForURL(/\/login\?/);
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Vous êtes déconnecté.");
    const session = await page.evaluate<number>("fetch('/auth/session').then((r) => r.status)");
    expect(session).toBe(401);
    await page.goto(`${vigie.base}/feeds`);
    await page.waitForURL(/\/login\?/);
  });

  it("slows down repeated failures and says how long to wait", async () => {
    let message = "";
    // Five failures are free, then each attempt waits 1, 2, 4… s (the server's lockout).
    for (let i = 0; i < 10 && !message.startsWith("Trop de tentatives"); i++) {
      await signIn("still not the password");
      await expect
        .poll(async () => (await page.getByRole("button", { name: "Se connecter" }).isEnabled()) && page.getByRole("alert").isVisible())
        .toBe(true);
      message = (await page.getByRole("alert").textContent()) ?? "";
    }
    expect(message).toMatch(/^Trop de tentatives : réessayez dans \d+ s\.$/);
    await checkScreen(page, "login-throttled");
    expect(pageErrors).toEqual([]);
  });
});

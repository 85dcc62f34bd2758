import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkScreen, connectBrowser, e2eStore } from "./harness.js";
import { cliSession, importedSnapshotStore, type ServerProcess, type ServerStore, startServer } from "../server-process.js";

/**
 * Issue 34, a security engineer's first day in the browser: a start with the bundled snapshot
 * (fixtures/snapshot, as the first start imports it), the README's stack, then the CVE list, the statistics wall, home and the inbox
 * at 1280×800 and 390×844, in French and in English (screenshots in e2e-artifacts/screenshots/).
 */
const EMAIL = "premier-jour@example.org";
const PASSWORD = "correct horse battery staple";
const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;
const LANGS = ["fr", "en"] as const;
const WORDS = {
  fr: { triageP1: "Trier les P1 non lues", locale: "fr-FR" },
  en: { triageP1: "Triage the unread P1", locale: "en-GB" },
} as const;

interface Alert {
  cve_id: string;
  palier: string;
  correspondance: { rule: string };
}

describe("a first day on the bundled snapshot", () => {
  let store: ServerStore;
  let server: ServerProcess;
  let browser: Browser;
  let origin = "";
  let projectId = "";
  let api = "";
  let state: Awaited<ReturnType<BrowserContext["storageState"]>>;
  let page: Page;
  const pageErrors: string[] = [];

  /** A GET with the signed-in user's session, from the page (same origin). */
  const asUser = <T>(path: string) =>
    page.evaluate<T>(
      `fetch(${JSON.stringify(path)}).then(async (r) => { if (!r.ok) throw new Error(r.status + " " + ${JSON.stringify(path)}); return r.json(); })`,
    );

  beforeAll(async () => {
    // The snapshot as the first start imports it: kept by test/snapshot.test.ts (which tests that
    // import, killed and resumed) when it ran on this code; otherwise this server's start imports it.
    store = (await importedSnapshotStore()) ?? (await e2eStore());
    const session = cliSession(store.env);
    const org = await session.run("org", "create", "--name", "ACME Sécurité");
    projectId = String((await session.run("project", "create", "--org", String(org.id), "--name", "Production")).id);
    await session.run("user", "create", "--email", EMAIL, "--password", PASSWORD, "--org", String(org.id), "--role", "admin");
    await session.close();
    api = `/api/v1/organizations/${org.id}/projects/${projectId}`;
    server = startServer({ ...store.env, VIGIE_SNAPSHOT: "auto" });
    origin = await server.ready(600_000);
    browser = await connectBrowser();
    const context = await browser.newContext({ locale: "fr-FR", timezoneId: "Europe/Paris", viewport: VIEWPORTS[0] });
    page = await context.newPage();
    page.on("pageerror", (err) => pageErrors.push(err.message));
    await page.goto(`${origin}/login`);
    await page.getByLabel("Adresse e-mail").fill(EMAIL);
    await page.getByLabel("Mot de passe").fill(PASSWORD);
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/p\/[0-9a-f-]{36}$/);
    state = await context.storageState();
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await store?.remove();
  });

  it("the README's stack: the default workflow opens cases for the verified P1/P2 alerts only", async () => {
    const stack = await page.evaluate<{ alertes_creees: number }>(
      `fetch(${JSON.stringify(`${api}/stacks`)}, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({
        name: "Production", items: [{ item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" },
          { item_type: "purl", value: "pkg:pypi/django@4.2.1", min_severity: "high" }] }) }).then((r) => r.json())`,
    );
    expect(stack.alertes_creees).toBeGreaterThan(20);
    const [workflow] = await asUser<{ id: string }[]>(`${api}/workflows`);
    // Every new match runs the default workflow (on the server's worker).
    await expect
      .poll(
        async () => {
          const runs = await asUser<{ status: string }[]>(`${api}/workflows/${workflow!.id}/runs?limit=200`);
          return runs.filter((r) => r.status === "success").length;
        },
        { timeout: 60_000, interval: 500 },
      )
      .toBe(stack.alertes_creees);
    const alerts = (await asUser<{ items: Alert[] }>(`${api}/alerts?page_size=100`)).items;
    expect(alerts).toHaveLength(stack.alertes_creees);
    const policy = alerts
      .filter((a) => ["P1", "P2"].includes(a.palier) && a.correspondance.rule !== "unversioned")
      .map((a) => a.cve_id)
      .sort();
    const casesNow = async () =>
      (await asUser<{ items: { cve_id: string }[] }>(`${api}/cases?page_size=100`)).items.map((c) => c.cve_id).sort();
    await expect.poll(casesNow, { timeout: 30_000, interval: 500 }).toEqual(policy);
    const cases = await casesNow();
    expect(cases.length).toBeGreaterThan(0);
    expect(cases.length).toBeLessThan(alerts.length / 2);
    // The unverifiable KEV matches are there, and wait in the inbox.
    expect(alerts.filter((a) => a.correspondance.rule === "unversioned").length).toBeGreaterThan(0);
  });

  for (const lang of LANGS)
    for (const viewport of VIEWPORTS) {
      const tag = `${lang}-${viewport.width}`;
      it(`${tag}: the CVE list, the statistics wall, home and the inbox look right`, async () => {
        const context = await browser.newContext({ storageState: state, locale: WORDS[lang].locale, timezoneId: "Europe/Paris", viewport });
        await context.addInitScript(`localStorage.setItem("vigie.lang", ${JSON.stringify(lang)})`);
        const p = await context.newPage();
        p.on("pageerror", (err) => pageErrors.push(err.message));
        const number = (s: string | null) => Number((s ?? "").replace(/[^\d]/g, ""));
        try {
          // The CVE list: CVEs with a record first; the reference-only ones counted apart, one click away.
          const listed = await asUser<{ total: number; items: { state: string }[] }>("/api/v1/cves?page_size=25");
          const cited = await asUser<{ total: number; items: { cve_id: string }[] }>("/api/v1/cves?state=reference_only&page_size=1");
          expect(listed.items.every((c) => c.state === "PUBLISHED")).toBe(true);
          expect(cited.total).toBeGreaterThan(10_000);
          await p.goto(`${origin}/cves`);
          const table = p.locator("table");
          await expect.poll(() => table.locator("tbody tr").count()).toBe(25);
          expect(number(await p.locator(".inbox-counts").textContent())).toBe(listed.total);
          await expect.poll(async () => number(await p.locator('[data-note="reference-only"]').textContent())).toBe(cited.total);
          expect(await table.locator(".badge-idle").count()).toBe(0);
          await checkScreen(p, `first-day-cves-${tag}`);

          // A reference-only CVE's page says where it was seen, with links.
          await p.goto(`${origin}/cves/${cited.items[0]!.cve_id}`);
          const seen = p.locator('[data-note="reference-only"]');
          await expect.poll(() => seen.locator("a").count()).toBeGreaterThan(0);
          expect(await seen.locator("a").first().getAttribute("href")).toMatch(/^https:\/\/www\.cert\.ssi\.gouv\.fr\//);
          await checkScreen(p, `first-day-cve-reference-only-${tag}`);

          // The statistics wall on the default period: the data's last year, published CVEs, a ranking.
          await p.goto(`${origin}/stats`);
          await expect.poll(() => p.locator('dd[data-figure="published"]').count()).toBe(1);
          const totals = await asUser<{ published: number; to: string; reference_only: number }>("/api/v1/stats/totals");
          expect(totals.published).toBeGreaterThan(1000);
          expect(number(await p.locator('dd[data-figure="published"]').textContent())).toBe(totals.published);
          await expect.poll(() => p.locator('[data-note="follows-data"]').count()).toBe(1);
          await expect.poll(async () => number(await p.locator('[data-note="reference-only"]').textContent())).toBe(totals.reference_only);
          await expect.poll(() => p.locator('[data-card="stats-top"] .chart-canvas[data-drawn="true"]').count()).toBe(1);
          expect(await p.locator('[data-card="stats-top"] [data-note="empty-chart"]').count()).toBe(0);
          const top = await asUser<{ items: unknown[] }>("/api/v1/stats/top");
          expect(top.items.length).toBe(10);
          await checkScreen(p, `first-day-stats-${tag}`);

          // Home's counts are the inbox's: its P1 figure is what its link opens, the unverifiable ones on their line.
          await p.goto(`${origin}/p/${projectId}`);
          const p1 = p.locator('[data-figure="p1"] strong');
          await expect.poll(async () => (await p1.textContent()) ?? "…").not.toBe("…");
          const unverified = number(await p.locator('[data-figure="unverified"] strong').textContent());
          expect(unverified).toBeGreaterThan(0);
          await checkScreen(p, `first-day-home-${tag}`);
          const homeP1 = number(await p1.textContent());
          await p.getByRole("link", { name: WORDS[lang].triageP1 }).click();
          await p.waitForURL(/\/alerts\?/);
          await expect.poll(async () => number((await p.locator(".inbox-counts").textContent())?.split("·")[0] ?? null)).toBe(homeP1);
          await p.goto(`${origin}/p/${projectId}/alerts?unverified=true&is_read=false`);
          await expect.poll(async () => number((await p.locator(".inbox-counts").textContent())?.split("·")[0] ?? null)).toBe(unverified);

          // The inbox's default order is what to handle first: tiers in order, P1 on top.
          await p.goto(`${origin}/p/${projectId}/alerts`);
          await expect.poll(() => p.getByRole("grid").locator("tbody tr").count()).toBeGreaterThan(2);
          const tiers = await p.getByRole("grid").locator("tbody tr .badge[class*='palier-']").allTextContents();
          expect(tiers[0]).toBe("P1");
          expect(tiers).toEqual([...tiers].sort());
          await checkScreen(p, `first-day-inbox-${tag}`);
        } finally {
          await context.close();
        }
      });
    }

  it("no page error", () => {
    expect(pageErrors).toEqual([]);
  });
});

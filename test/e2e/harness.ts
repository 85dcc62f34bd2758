// The end-to-end harness: the built server (`node dist/cli.js serve`) on a fresh store (PGlite, or a
// PostgreSQL database when DATABASE_URL is set; a copy of the run's migrated template, store.ts), the
// CLI's commands on the same store, the run's Chromium (global-setup.ts) driven by playwright-core,
// axe-core on each screen and a screenshot of it in e2e-artifacts/screenshots/ (E2E_SCREENSHOTS=off:
// only of a screen that fails its check).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { type Browser, chromium, type Download, type Page } from "playwright-core";
import { expect, inject } from "vitest";
import { type CliSession, cliSession, type ServerProcess, type ServerStore, startServer } from "../server-process.js";
import { copiedStore } from "./store.js";

export { launchBrowser } from "./browser.js";

export const SCREENSHOTS = "e2e-artifacts/screenshots";
/** Screenshots of every checked screen (default), or with E2E_SCREENSHOTS=off only of a screen that fails. */
export const EVERY_SCREENSHOT = process.env.E2E_SCREENSHOTS !== "off";
const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

export interface Vigie {
  /** http://127.0.0.1:PORT */
  base: string;
  store: ServerStore;
  server: ServerProcess;
  stop(): Promise<void>;
}

/** `vigie <args>` on the store, its JSON answer. */
export function cli(store: ServerStore, ...args: string[]): Record<string, unknown> {
  const out = execFileSync(process.execPath, ["dist/cli.js", ...args, "--json"], {
    env: { ...process.env, ...store.env },
    encoding: "utf8",
  });
  return JSON.parse(out) as Record<string, unknown>;
}

/** The run's Chromium (global-setup.ts): `close()` disconnects and closes this file's contexts. */
export function connectBrowser(): Promise<Browser> {
  return chromium.connect(inject("wsEndpoint"));
}

/** A new store for this file: a copy of the run's migrated empty store. */
export function e2eStore(): Promise<ServerStore> {
  return copiedStore(inject("storeTemplate"));
}

/**
 * A fresh store, `prepare` run on it with the CLI's commands in one process (before the server: an
 * embedded store admits one process at a time), then the server started on it.
 */
export async function startVigie(prepare: (cli: CliSession["run"], store: ServerStore) => Promise<void> = async () => {}): Promise<Vigie> {
  if (!existsSync("dist/cli.js") || !existsSync("dist/web/index.html")) throw new Error("dist/ is missing: run `npm run build` first");
  const store = await e2eStore();
  const session = cliSession(store.env);
  try {
    await prepare(session.run, store);
  } finally {
    await session.close();
  }
  const server = startServer(store.env);
  const base = await server.ready();
  return {
    base,
    store,
    server,
    async stop() {
      await server.stop();
      await store.remove();
    },
  };
}

/** Each tracked page's requests in flight, and when that count last changed. */
const traffic = new WeakMap<Page, { inFlight: number; changed: number }>();

/** Counts the page's requests from now on, for `settled` (call it before the page's first navigation). */
export function trackRequests(page: Page): void {
  const t = { inFlight: 0, changed: Date.now() };
  traffic.set(page, t);
  const add = (n: number) => () => {
    t.inFlight += n;
    t.changed = Date.now();
  };
  page.on("request", add(1));
  page.on("requestfinished", add(-1));
  page.on("requestfailed", add(-1));
}

/**
 * Waits until the page has had no request in flight for `quietMs`: what playwright's "networkidle"
 * does with 500 ms, which the layout check paid about 190 times (a third of its time).
 */
export async function settled(page: Page, quietMs = 100): Promise<void> {
  const t = traffic.get(page);
  if (!t) throw new Error("settled: the page's requests are not tracked (trackRequests first)");
  for (;;) {
    const quiet = Date.now() - t.changed;
    if (t.inFlight === 0 && quiet >= quietMs) return;
    await new Promise((r) => setTimeout(r, t.inFlight === 0 ? quietMs - quiet : 25));
  }
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's violations of the page as it is now. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ path: AXE });
  return page.evaluate<AxeViolation[]>(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))",
  );
}

/**
 * A screen checked and recorded: no serious or critical accessibility violation (axe-core), and its
 * screenshot saved as e2e-artifacts/screenshots/<name>.png.
 */
export async function checkScreen(page: Page, name: string): Promise<void> {
  if (EVERY_SCREENSHOT) await screenshot(page, `${name}.png`);
  const serious = (await axeViolations(page)).filter((v) => v.impact === "serious" || v.impact === "critical");
  if (serious.length && !EVERY_SCREENSHOT) await screenshot(page, `${name}.png`);
  expect(
    serious.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`),
    name,
  ).toEqual([]);
}

/** The page as it is now, full length, saved as e2e-artifacts/screenshots/<path>. */
export async function screenshot(page: Page, path: string, fullPage = true): Promise<void> {
  const file = join(SCREENSHOTS, path);
  mkdirSync(dirname(file), { recursive: true });
  await page.screenshot({ path: file, fullPage });
}

/** A download's bytes. The browser is the run's, reached remotely: the file is copied here (saveAs), then read. */
export async function downloaded(download: Download): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), "vigie-e2e-download-"));
  try {
    const file = join(dir, download.suggestedFilename());
    await download.saveAs(file);
    return readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

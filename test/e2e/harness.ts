// The end-to-end harness: the built server (`node dist/cli.js serve`) on a fresh store (PGlite, or a
// PostgreSQL database when DATABASE_URL is set), the CLI on the same store, Debian's Chromium driven
// by playwright-core, axe-core on each screen and a screenshot of it in e2e-artifacts/screenshots/.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { expect } from "vitest";
import { freshStore, type ServerProcess, type ServerStore, startServer } from "../server-process.js";

export { launchBrowser } from "./browser.js";

export const SCREENSHOTS = "e2e-artifacts/screenshots";
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

/**
 * A fresh store, `prepare` run on it with the CLI (before the server: an embedded store admits one
 * process at a time), then the server started on it.
 */
export async function startVigie(prepare: (store: ServerStore) => void = () => {}): Promise<Vigie> {
  if (!existsSync("dist/cli.js") || !existsSync("dist/web/index.html")) throw new Error("dist/ is missing: run `npm run build` first");
  const store = await freshStore();
  prepare(store);
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
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  const serious = (await axeViolations(page)).filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(
    serious.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`),
    name,
  ).toEqual([]);
}

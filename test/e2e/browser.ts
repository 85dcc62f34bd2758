// Debian's Chromium driven by playwright-core, with the flags of the team's brief: shared by the
// end-to-end tests (harness.ts) and the web benchmarks (bench/web-stats.ts), outside Vitest.
import { type Browser, chromium } from "playwright-core";

const CHROMIUM = process.env.VIGIE_CHROMIUM ?? "/usr/bin/chromium";

/** Chromium headless, with the flags of the team's brief. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

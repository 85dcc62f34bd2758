// Debian's Chromium driven by playwright-core, with the flags of the team's brief: shared by the
// end-to-end tests (global-setup.ts starts one for the whole run, harness.ts connects to it) and the
// web benchmarks (bench/web-stats.ts, `launchBrowser`), outside Vitest.
// HEADED=1 shows the window (it needs a display: DISPLAY set, or the run wrapped in `xvfb-run -a`).
import { type Browser, type BrowserServer, chromium, type LaunchOptions } from "playwright-core";

const CHROMIUM = process.env.VIGIE_CHROMIUM ?? "/usr/bin/chromium";
const HEADED = process.env.HEADED === "1" || process.env.HEADED === "true";

function options(): LaunchOptions {
  if (HEADED && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY)
    throw new Error("HEADED=1 needs a display: set DISPLAY, or run under `xvfb-run -a` (Debian package xvfb)");
  return {
    executablePath: CHROMIUM,
    headless: !HEADED,
    // HEADED_SLOWMO=<ms> between actions, to follow a test by eye.
    slowMo: HEADED ? Number(process.env.HEADED_SLOWMO ?? 0) : 0,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  };
}

/** Chromium headless (headed with HEADED=1), with the flags of the team's brief. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch(options());
}

/** The same Chromium as a server other processes connect to (`chromium.connect(wsEndpoint())`). */
export function chromiumServer(): Promise<BrowserServer> {
  return chromium.launchServer(options());
}

import { defineConfig } from "vitest/config";
import { LongestFirst } from "./test/e2e/sequencer.js";

// End-to-end tests (`npm run test:e2e`): the built server (dist/, `npm run build` first) driven by
// Debian's Chromium through playwright-core (docs/testing-e2e.md). global-setup.ts starts one
// Chromium and migrates one template store for the run; each file starts its own server on its own
// copy of that store, so two files run side by side (E2E_WORKERS, default 2). Long timeouts.
const workers = Number(process.env.E2E_WORKERS ?? 2);

export default defineConfig({
  test: {
    include: ["test/e2e/**/*.e2e.ts"],
    globalSetup: ["test/e2e/global-setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 240_000,
    // expect.poll waits up to 10 s (Vitest's default is 1 s): a loaded machine draws a screen late, not wrongly.
    expect: { poll: { timeout: 10_000 } },
    sequence: { sequencer: LongestFirst },
    pool: "forks",
    fileParallelism: workers > 1,
    maxWorkers: workers,
    env: { LOG_LEVEL: "silent", VIGIE_FEEDS_SYNC: "off", VIGIE_SNAPSHOT: "off" },
  },
});

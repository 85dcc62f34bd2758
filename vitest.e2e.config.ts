import { defineConfig } from "vitest/config";

// End-to-end tests (`npm run test:e2e`): the built server (dist/, `npm run build` first) driven by
// Debian's Chromium through playwright-core. One file at a time, long timeouts.
export default defineConfig({
  test: {
    include: ["test/e2e/**/*.e2e.ts"],
    testTimeout: 120_000,
    hookTimeout: 240_000,
    pool: "forks",
    fileParallelism: false,
    maxWorkers: 1,
    env: { LOG_LEVEL: "silent", VIGIE_FEEDS_SYNC: "off", VIGIE_SNAPSHOT: "off" },
  },
});

import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Each file opens its own database (in-memory PGlite, or a fresh PostgreSQL database).
    pool: "forks",
    maxWorkers: 2,
    env: { LOG_LEVEL: "silent" },
    // dist/ for the tests that spawn `node dist/cli.js` (server-process.ts, the README test).
    globalSetup: ["test/global-setup.ts"],
  },
});

import { defineConfig } from "vitest/config";
import SlowestFirst from "./test/sequencer.js";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Each file opens its own database (in-memory PGlite, or a fresh PostgreSQL database), a copy of
    // the migrated template test/global-setup.ts makes (docs/testing.md).
    pool: "forks",
    maxWorkers: 2,
    // The workers are not restarted per file: each of the two imports the application once and runs
    // its files one after the other (vitest re-runs each test file's module, not its imports). A file
    // per fresh process re-imported the whole app each time: 365 of 1,035 worker-seconds. Files must
    // therefore leave no state behind: close what they open (createTestApp does), restore their
    // spies, never change process.env or use fake timers without undoing it (docs/testing.md).
    isolate: false,
    // No test syncs from the internet: the tests that sync turn it on against their local publishers.
    env: { LOG_LEVEL: "silent", VIGIE_FEEDS_SYNC: "off" },
    // dist/ for the tests that spawn `node dist/cli.js` (server-process.ts, the README test).
    globalSetup: ["test/global-setup.ts"],
    // The slowest files first: none of them may start last (test/sequencer.ts).
    sequence: { sequencer: SlowestFirst },
  },
});

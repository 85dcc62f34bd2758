import { spawn } from "node:child_process";
import type { TestProject } from "vitest/node";
import { ensurePgliteTemplate, ensurePgTemplate, templateKey } from "./db-templates.js";

/** `node scripts/ensure-build.mjs`: builds dist/ when it is missing or older than the sources. */
function ensureBuild(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["scripts/ensure-build.mjs"], { stdio: "inherit" });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`scripts/ensure-build.mjs exited ${code}`))));
  });
}

/**
 * Before any test file: dist/ built if stale (the tests that spawn the server or run the README's
 * commands use the built CLI), and the migrated templates every test file's database is copied from
 * (test/db-templates.ts), made once per migrations state — PGlite's always (the CLI tests' embedded
 * data directories), PostgreSQL's when DATABASE_URL is set. Both at once.
 */
export default async function setup(project: TestProject): Promise<void> {
  const key = templateKey();
  const url = process.env.DATABASE_URL;
  await Promise.all([ensureBuild(), ensurePgliteTemplate(key), url ? ensurePgTemplate(url, key) : undefined]);
  project.provide("vigieTemplateKey", key);
}

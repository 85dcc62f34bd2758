// Once per `npm run test:e2e`: one Chromium for every file (each connects to it, see harness.ts
// `launchBrowser`), and one migrated empty store every file's store is copied from (a PGlite
// directory, or a PostgreSQL template database when DATABASE_URL is set).
import { existsSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { chromiumServer } from "./browser.js";
import { createTemplate } from "./store.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** Playwright's address of the shared Chromium. */
    wsEndpoint: string;
    /** The migrated empty store: a PGlite data directory, or a PostgreSQL database's URL. */
    storeTemplate: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!existsSync("dist/cli.js") || !existsSync("dist/web/index.html")) throw new Error("dist/ is missing: run `npm run build` first");
  const [server, template] = await Promise.all([chromiumServer(), createTemplate()]);
  project.provide("wsEndpoint", server.wsEndpoint());
  project.provide("storeTemplate", template.location);
  return async () => {
    await server.close();
    await template.remove();
  };
}

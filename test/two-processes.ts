import type { FastifyInstance } from "fastify";
import { afterAll } from "vitest";
import { buildApp, type Services } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { openDatabase, type Database } from "../src/platform/db/client.js";
import { createLogger } from "../src/platform/log.js";

/**
 * A second server process's view of the same database: its own pool on PostgreSQL; on PGlite
 * (one process by construction) the same database object.
 */
export async function secondConnection(db: Database): Promise<Database> {
  if (db.driver !== "postgres") return db;
  const other = await openDatabase({ databaseUrl: (db.pool!.options as { connectionString: string }).connectionString, poolSize: 5 });
  afterAll(() => other.close());
  return other;
}

/** One app instance over a database (ready, closed after the file), as a server process runs it. */
export async function appOver(database: Database): Promise<{ app: FastifyInstance; services: Services; database: Database }> {
  const config = loadConfig({ ...process.env, VIGIE_JOBS: "off" });
  const built = await buildApp({ config, database, logger: createLogger("silent") });
  await built.app.ready();
  afterAll(() => built.app.close());
  return { ...built, database };
}

/** Counts the statements sent through `database.raw` while `fn` runs, by statement name. */
export async function countingRaw(database: Database, fn: () => Promise<void>): Promise<Map<string, number>> {
  const raw = database.raw;
  const counts = new Map<string, number>();
  database.raw = (name, text, values) => {
    counts.set(name, (counts.get(name) ?? 0) + 1);
    return raw(name, text, values);
  };
  try {
    await fn();
  } finally {
    database.raw = raw;
  }
  return counts;
}

/** Waits until `check` holds (notifications travel asynchronously between processes). */
export async function eventually(check: () => Promise<boolean> | boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

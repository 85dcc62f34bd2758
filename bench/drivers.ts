import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { openDatabase, type Database } from "../src/platform/db/client.js";

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export interface BenchTarget {
  driver: "postgres" | "pglite";
  databaseUrl?: string;
  dataDir?: string;
}

/**
 * Runs a benchmark on a fresh PostgreSQL database (BENCH_DATABASE_URL's server; skipped when
 * unreachable), then on a fresh PGlite directory (BENCH_PGLITE=off skips it); both are removed after.
 */
export async function onEachDriver<T>(name: string, run: (target: BenchTarget) => Promise<T>): Promise<(T & { driver: string })[]> {
  const out: (T & { driver: string })[] = [];
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  const database = `vigie_bench_${name}_${process.pid}`;
  let pgUrl: string | null = null;
  try {
    await admin.connect();
    await admin.query(`create database ${database}`);
    const u = new URL(ADMIN_URL);
    u.pathname = `/${database}`;
    pgUrl = u.toString();
  } catch {
    console.log(`PostgreSQL not reachable at ${ADMIN_URL}: skipped`);
  }
  try {
    if (pgUrl && process.env.BENCH_POSTGRES !== "off")
      out.push({ driver: "postgres", ...(await run({ driver: "postgres", databaseUrl: pgUrl })) });
    if (process.env.BENCH_PGLITE !== "off") {
      const dir = mkdtempSync(join(tmpdir(), `vigie-${name}-`));
      try {
        out.push({ driver: "pglite", ...(await run({ driver: "pglite", dataDir: join(dir, "data") })) });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    if (pgUrl) await admin.query(`drop database if exists ${database} with (force)`).catch(() => undefined);
    await admin.end().catch(() => undefined);
  }
  return out;
}

/**
 * A benchmark over one opened database per driver (onEachDriver), closed after; prints each
 * driver's tables under `title` (every array of rows the run returns, in order).
 */
export async function benchTables<T extends Record<string, unknown[]>>(
  name: string,
  title: string,
  run: (database: Database) => Promise<T>,
): Promise<void> {
  const results = await onEachDriver(name, async (t) => {
    const database = await openDatabase({ databaseUrl: t.databaseUrl, dataDir: t.dataDir });
    try {
      return await run(database);
    } finally {
      await database.close();
    }
  });
  for (const { driver, ...tables } of results) {
    console.log(`\n${title} — ${driver}`);
    for (const rows of Object.values(tables)) console.table(rows);
  }
}

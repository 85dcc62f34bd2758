import { createHash, randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import pg from "pg";
import { inject } from "vitest";
import { MIGRATIONS_DIR, openDatabase } from "../src/platform/db/client.js";

/**
 * A migrated database made once per migrations state and cloned by every test file, instead of each
 * file running the 37 migrations again (docs/testing.md):
 * - PGlite: a data directory migrated once, kept under var/test-cache/ — copied as it is for the
 *   tests that start `vigie` processes (VIGIE_DATA_DIR), and as a tarball (PGlite's dumpDataDir) that
 *   an in-memory PGlite loads instead of running initdb and the migrations;
 * - PostgreSQL: a database `vigie_tpl_<key>`, cloned with CREATE DATABASE … TEMPLATE.
 * The key hashes the migration files (SQL and journal) and PGlite's version: a changed migration
 * makes a new template, never a stale one.
 */
export const CACHE_DIR = "var/test-cache";

declare module "vitest" {
  export interface ProvidedContext {
    /** The migrated template's key, made by test/global-setup.ts. */
    vigieTemplateKey: string;
  }
}

/** In a test file: the key of the template test/global-setup.ts made for this run (undefined without that setup). */
export function templateKeyOfRun(): string | undefined {
  return inject("vigieTemplateKey") || undefined;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]))
    .sort();
}

/** The hash of what a migrated database depends on: the migration files, the PGlite version. */
export function templateKey(): string {
  const h = createHash("sha256");
  for (const file of filesUnder(MIGRATIONS_DIR))
    h.update(relative(MIGRATIONS_DIR, file)).update("\0").update(readFileSync(file)).update("\0");
  h.update(JSON.parse(readFileSync("node_modules/@electric-sql/pglite/package.json", "utf8")).version as string);
  return h.digest("hex").slice(0, 12);
}

export function pgliteTemplate(key: string): { dir: string; tar: string } {
  return { dir: join(CACHE_DIR, `pglite-${key}`), tar: join(CACHE_DIR, `pglite-${key}.tar`) };
}

export const pgTemplateName = (key: string): string => `vigie_tpl_${key}`;

/** Makes the PGlite template (directory and tarball) unless it exists; written aside then renamed, so a half-made one is never used. */
export async function ensurePgliteTemplate(key: string): Promise<void> {
  const { dir, tar } = pgliteTemplate(key);
  if (existsSync(dir) && existsSync(tar)) return;
  mkdirSync(CACHE_DIR, { recursive: true });
  const tmp = join(CACHE_DIR, `building-${process.pid}-${randomBytes(4).toString("hex")}`);
  mkdirSync(tmp, { recursive: true });
  try {
    const database = await openDatabase({ dataDir: join(tmp, "data") });
    await database.migrate();
    const dump = await (database.pglite!.dumpDataDir("none") as Promise<Blob>);
    await database.close();
    writeFileSync(join(tmp, "data.tar"), Buffer.from(await dump.arrayBuffer()));
    // Another run may have made it meanwhile: theirs is as good.
    if (!existsSync(dir)) renameSync(join(tmp, "data"), dir);
    if (!existsSync(tar)) renameSync(join(tmp, "data.tar"), tar);
    // Templates of earlier migration states are of no more use.
    for (const e of readdirSync(CACHE_DIR))
      if (e.startsWith("pglite-") && !e.startsWith(`pglite-${key}`)) rmSync(join(CACHE_DIR, e), { recursive: true, force: true });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Makes the PostgreSQL template database unless it exists (built under another name, then renamed). */
export async function ensurePgTemplate(url: string, key: string): Promise<void> {
  const name = pgTemplateName(key);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const exists = await admin.query("select 1 from pg_database where datname = $1", [name]);
    if (exists.rowCount) return;
    const building = `${name}_b${process.pid}`;
    await admin.query(`drop database if exists ${building} with (force)`);
    await admin.query(`create database ${building}`);
    const u = new URL(url);
    u.pathname = `/${building}`;
    const database = await openDatabase({ databaseUrl: u.toString(), poolSize: 2 });
    try {
      await database.migrate();
    } finally {
      await database.close();
    }
    try {
      await admin.query(`alter database ${building} rename to ${name}`);
    } catch (err) {
      // Made by another run at the same time: keep theirs.
      await admin.query(`drop database if exists ${building} with (force)`);
      if ((err as { code?: string }).code !== "42P04") throw err;
    }
  } finally {
    await admin.end();
  }
}

/** A copy of the migrated PGlite data directory at `target` (which must not exist yet). */
export function copyPgliteTemplate(key: string, target: string): void {
  cpSync(pgliteTemplate(key).dir, target, { recursive: true });
}

const tarballs = new Map<string, Blob>();
/**
 * The migrated PGlite database as a tarball an in-memory PGlite loads (null when no template was made).
 * Read once per worker (44 MB: 0.1–0.25 s a read), not once per file: a Blob is immutable.
 */
export function pgliteTemplateTar(key: string | undefined): Blob | null {
  if (!key) return null;
  const { tar } = pgliteTemplate(key);
  if (!tarballs.has(key)) {
    if (!existsSync(tar) || !statSync(tar).size) return null;
    tarballs.set(key, new Blob([readFileSync(tar)]));
  }
  return tarballs.get(key)!;
}

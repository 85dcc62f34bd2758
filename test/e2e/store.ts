// The end-to-end files' stores, copied from one migrated empty store made once per run
// (global-setup.ts): a PGlite data directory copied, or a PostgreSQL database created from a template
// database. Each file still starts on an empty store of its own; the migrations run once, not per file.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { adminQuery, cliSession, newStore, type ServerStore } from "../server-process.js";

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** The migrated empty store every file copies: its location (a directory, or a database URL). */
export async function createTemplate(): Promise<{ location: string; remove(): Promise<void> }> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const dir = mkdtempSync(join(tmpdir(), "vigie-e2e-template-"));
    const dataDir = join(dir, "data");
    await cliSession({ VIGIE_DATA_DIR: dataDir, DATABASE_URL: "" }).close();
    return { location: dataDir, remove: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `vigie_e2e_template_${process.pid}_${randomBytes(4).toString("hex")}`;
  await adminQuery(`create database ${name}`);
  const location = withDatabase(url, name);
  const dir = mkdtempSync(join(tmpdir(), "vigie-e2e-template-"));
  try {
    await cliSession({ VIGIE_DATA_DIR: join(dir, "data"), DATABASE_URL: location }).close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { location, remove: async () => void (await adminQuery(`drop database if exists ${name} with (force)`)) };
}

/** A new store for one file, a copy of the migrated template: same shape as server-process.ts's freshStore. */
export function copiedStore(template: string): Promise<ServerStore> {
  const url = process.env.DATABASE_URL;
  return newStore(url ? undefined : template, url && new URL(template).pathname.slice(1));
}

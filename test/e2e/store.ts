// The end-to-end files' stores, copied from one migrated empty store made once per run
// (global-setup.ts): a PGlite data directory copied, or a PostgreSQL database created from a template
// database. Each file still starts on an empty store of its own; the migrations run once, not per file.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import pg from "pg";
import { newStore, type ServerStore } from "../server-process.js";

const SESSION = "test/e2e/cli-session.mjs";

async function admin(url: string, q: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(q);
  } finally {
    await c.end();
  }
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Admin commands in one process (cli-session.mjs): `run(...args)` is `vigie <args> --json`'s answer. */
export interface CliSession {
  run(...args: string[]): Promise<Record<string, unknown>>;
  /** Closes the store (the session's process exits). */
  close(): Promise<void>;
}

export function cliSession(env: Record<string, string>): CliSession {
  const proc = spawn(process.execPath, [SESSION], { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  proc.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  const lines = createInterface({ input: proc.stdout })[Symbol.asyncIterator]();
  let queue: Promise<unknown> = Promise.resolve();
  return {
    run(...args) {
      const answer = queue.then(async () => {
        proc.stdin.write(`${JSON.stringify(args)}\n`);
        const line = await lines.next();
        if (line.done) throw new Error(`vigie ${args.join(" ")}: the session ended (${await exited}); stderr: ${stderr}`);
        const res = JSON.parse(line.value) as { ok: boolean; result?: Record<string, unknown>; message?: string };
        if (!res.ok) throw new Error(`vigie ${args.join(" ")}: ${res.message}`);
        return res.result!;
      });
      queue = answer.catch(() => undefined);
      return answer;
    },
    async close() {
      await queue;
      proc.stdin.end();
      const code = await exited;
      if (code !== 0) throw new Error(`cli-session exited ${code}; stderr: ${stderr}`);
    },
  };
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
  await admin(url, `create database ${name}`);
  const location = withDatabase(url, name);
  const dir = mkdtempSync(join(tmpdir(), "vigie-e2e-template-"));
  try {
    await cliSession({ VIGIE_DATA_DIR: join(dir, "data"), DATABASE_URL: location }).close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { location, remove: () => admin(url, `drop database if exists ${name} with (force)`) };
}

/** A new store for one file, a copy of the migrated template: same shape as server-process.ts's freshStore. */
export function copiedStore(template: string): Promise<ServerStore> {
  const url = process.env.DATABASE_URL;
  return newStore(url ? undefined : template, url && new URL(template).pathname.slice(1));
}

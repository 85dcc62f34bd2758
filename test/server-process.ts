import { spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import { createInterface } from "node:readline";
import pg from "pg";
import { openDatabase, type Database } from "../src/platform/db/client.js";
import { CACHE_DIR, pgliteTemplate, pgTemplateName, templateKey, templateKeyOfRun } from "./db-templates.js";

/** Where a spawned server keeps its data: a fresh PGlite directory, or a fresh PostgreSQL database when DATABASE_URL is set. */
export interface ServerStore {
  /** Environment for the server and the CLI: VIGIE_DATA_DIR and DATABASE_URL. */
  env: Record<string, string>;
  /** Opens the store in this process (once the server has exited, for PGlite). */
  open(): Promise<Database>;
  /** A second store holding what this one holds, its data directory included (no process may have it open). */
  copy(): Promise<ServerStore>;
  /** Removes the directory or drops the database. */
  remove(): Promise<void>;
}

/**
 * A new store for one test file: a copy of the run's migrated template (test/db-templates.ts), so the
 * processes find their schema in place; `{ empty: true }` for a store as a first start finds it (no
 * database, or an empty one: the process migrates it).
 */
export async function freshStore(opts: { empty?: boolean } = {}): Promise<ServerStore> {
  const key = opts.empty ? undefined : templateKeyOfRun();
  return newStore(key && !process.env.DATABASE_URL ? pgliteTemplate(key).dir : undefined, key && pgTemplateName(key));
}

/** A statement on DATABASE_URL's server (creating, copying and dropping databases). */
export async function adminQuery<T>(q: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await c.connect();
  try {
    return (await c.query(q)).rows as T[];
  } finally {
    await c.end();
  }
}

/** What a running server keeps in its data directory and a copy must leave out. */
const LIVE = new Set(["vigie.lock", "vigie.sock"]);
/** Copies a data directory whose server has stopped. */
const copyDataDir = (from: string, to: string): void => cpSync(from, to, { recursive: true, filter: (src) => !LIVE.has(basename(src)) });

/**
 * A new store: its data directory a copy of `source` if given (PGlite: the database itself), its
 * PostgreSQL database a copy of the database `template` if named.
 */
export async function newStore(source: string | undefined, template: string | undefined): Promise<ServerStore> {
  const dir = mkdtempSync(join(tmpdir(), "vigie-proc-"));
  const dataDir = join(dir, "data");
  if (source) copyDataDir(source, dataDir);
  const url = process.env.DATABASE_URL;
  const copy = (database: string | undefined) => newStore(existsSync(dataDir) ? dataDir : undefined, database);
  if (!url) {
    return {
      env: { VIGIE_DATA_DIR: dataDir, DATABASE_URL: "" },
      open: () => openDatabase({ dataDir }),
      copy: () => copy(undefined),
      remove: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `vigie_proc_${process.pid}_${randomBytes(4).toString("hex")}`;
  await adminQuery(`create database ${name}${template ? ` template ${template}` : ""}`);
  const u = new URL(url);
  u.pathname = `/${name}`;
  return {
    env: { VIGIE_DATA_DIR: dataDir, DATABASE_URL: u.toString() },
    open: () => openDatabase({ databaseUrl: u.toString(), poolSize: 2 }),
    copy: () => copy(name),
    remove: async () => {
      await adminQuery(`drop database if exists ${name} with (force)`);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The bundled snapshot as a first start imports it, kept for the run's later passes: test/snapshot.test.ts
 * tests the import (a server killed mid-import, then resumed) and keeps the store it leaves; the
 * first-day end-to-end file starts from a copy of it instead of importing the snapshot once more (half
 * a minute to a minute of a worker). Kept under var/test-cache/ (the data directory) and, on
 * PostgreSQL, as a database `vigie_snap_<key>`. The key hashes what the import depends on: the built
 * code (dist/), the snapshot's files and the migrations with PGlite's version; a change makes a new
 * one, and the older ones are removed.
 */
function importedSnapshotKey(): string {
  const h = createHash("sha256").update(templateKey());
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]))
      .sort();
  for (const file of [
    ...files("dist").filter((f) => f.endsWith(".js") && !f.startsWith(join("dist", "web"))),
    ...files("fixtures/snapshot"),
  ])
    h.update(relative(".", file)).update("\0").update(readFileSync(file)).update("\0");
  return h.digest("hex").slice(0, 12);
}

const snapshotCache = (key: string) => ({
  dir: join(CACHE_DIR, `snapshot-${process.env.DATABASE_URL ? "pg" : "pglite"}-${key}`),
  db: `vigie_snap_${key}`,
});

/** Keeps a stopped store holding the imported snapshot (and nothing else) for importedSnapshotStore. */
export async function keepImportedSnapshot(store: ServerStore): Promise<void> {
  const key = importedSnapshotKey();
  const { dir, db } = snapshotCache(key);
  if (existsSync(dir)) return;
  mkdirSync(CACHE_DIR, { recursive: true });
  for (const e of readdirSync(CACHE_DIR))
    if (e.startsWith(`snapshot-${process.env.DATABASE_URL ? "pg" : "pglite"}-`))
      rmSync(join(CACHE_DIR, e), { recursive: true, force: true });
  if (process.env.DATABASE_URL) {
    for (const { datname } of await adminQuery<{ datname: string }>("select datname from pg_database where datname like 'vigie_snap_%'"))
      await adminQuery(`drop database if exists ${datname} with (force)`);
    await adminQuery(`create database ${db} template ${new URL(store.env.DATABASE_URL!).pathname.slice(1)}`);
  }
  // Written aside, then renamed: a half-made copy is never used.
  const building = `${dir}.building-${process.pid}`;
  if (existsSync(store.env.VIGIE_DATA_DIR!)) copyDataDir(store.env.VIGIE_DATA_DIR!, building);
  else mkdirSync(building);
  renameSync(building, dir);
}

/** A new store holding the snapshot as snapshot.test.ts kept it in this state of the code; null when none was kept. */
export async function importedSnapshotStore(): Promise<ServerStore | null> {
  const { dir, db } = snapshotCache(importedSnapshotKey());
  if (!existsSync(dir)) return null;
  if (process.env.DATABASE_URL && !(await adminQuery(`select 1 from pg_database where datname = '${db}'`)).length) return null;
  return newStore(dir, process.env.DATABASE_URL ? db : undefined);
}

// biome-ignore lint/suspicious/noExplicitAny: a pino log line is JSON of any shape; the tests read its fields directly.
export type LogLine = Record<string, any>;

export interface ServerProcess {
  proc: ChildProcess;
  /** Every log line (pino JSON) so far, parsed. */
  logs: LogLine[];
  /** Resolves with the first log line that satisfies `test` (already written or to come). */
  waitForLog(test: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** Resolves with the base address once the server listens. */
  ready(timeoutMs?: number): Promise<string>;
  /** SIGTERM (or the given signal) and wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Spawns the built server (`node dist/cli.js serve`) on port 0, logging at info. */
export function startServer(env: Record<string, string>): ServerProcess {
  const proc = spawn(process.execPath, ["dist/cli.js", "serve"], {
    env: { ...process.env, PORT: "0", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logs: LogLine[] = [];
  const waiters = new Set<() => void>();
  let stderr = "";
  let pending = "";
  proc.stdout!.on("data", (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split("\n");
    pending = lines.pop()!;
    for (const l of lines) {
      try {
        logs.push(JSON.parse(l));
      } catch {
        logs.push({ msg: l });
      }
    }
    for (const w of waiters) w();
  });
  proc.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  void exited.then(() => {
    for (const w of waiters) w();
  });

  const waitForLog = (test: (line: LogLine) => boolean, timeoutMs = 180_000) =>
    new Promise<LogLine>((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`no such log line within ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
      const check = () => {
        const found = logs.find(test);
        if (found) done(null, found);
        else if (proc.exitCode !== null || proc.signalCode !== null)
          done(new Error(`server exited (${proc.exitCode ?? proc.signalCode}); stderr: ${stderr}`));
      };
      const done = (err: Error | null, line?: LogLine) => {
        clearTimeout(timer);
        waiters.delete(check);
        if (err) reject(err);
        else resolve(line!);
      };
      waiters.add(check);
      check();
    });

  return {
    proc,
    logs,
    waitForLog,
    async ready(timeoutMs) {
      const line = await waitForLog(
        (l) => typeof l.msg === "string" && l.msg.startsWith("Server listening at http://127.0.0.1"),
        timeoutMs,
      );
      return /http:\/\/127\.0\.0\.1:\d+/.exec(line.msg)![0];
    },
    async stop(signal = "SIGTERM") {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      await exited;
    },
  };
}

/**
 * `vigie` admin commands in one process (test/cli-session.mjs), on a store no server holds: `run(...args)`
 * is `vigie <args> --json`'s answer. One process start for a file's set-up instead of one per command
 * (each `node dist/cli.js` start imports the application and opens the store: 1–2.5 s).
 */
export interface CliSession {
  run<T = Record<string, unknown>>(...args: string[]): Promise<T>;
  /** Closes the store (the session's process exits). */
  close(): Promise<void>;
}

export function cliSession(env: Record<string, string>): CliSession {
  const proc = spawn(process.execPath, ["test/cli-session.mjs"], { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  proc.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  const lines = createInterface({ input: proc.stdout })[Symbol.asyncIterator]();
  let queue: Promise<unknown> = Promise.resolve();
  return {
    run<T>(...args: string[]) {
      const answer = queue.then(async () => {
        proc.stdin.write(`${JSON.stringify(args)}\n`);
        const line = await lines.next();
        if (line.done) throw new Error(`vigie ${args.join(" ")}: the session ended (${await exited}); stderr: ${stderr}`);
        const res = JSON.parse(line.value) as { ok: boolean; result?: Record<string, unknown>; message?: string };
        if (!res.ok) throw new Error(`vigie ${args.join(" ")}: ${res.message}`);
        return res.result as T;
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

import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import pg from "pg";
import * as schema from "./schema/index.js";
import { DatabaseUnreachable, isConnectionLoss } from "./errors.js";

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Either the database or a transaction handle: repositories accept both. */
export type Executor = Db | Tx;

export interface Database {
  db: Db;
  driver: "pglite" | "postgres";
  /** Applies pending migrations (serialised across processes on PostgreSQL). */
  migrate(): Promise<void>;
  close(): Promise<void>;
  /**
   * Runs one raw SQL statement outside any transaction. On PostgreSQL it is a named prepared
   * statement (parsed and planned once per connection); used by the hot paths (auth, lists).
   */
  raw<T>(name: string, text: string, values: unknown[]): Promise<T[]>;
  /**
   * Calls `onMessage` with the payload of each notification on the channel. `onStatus(false)` says
   * the listening connection was lost (notifications may have been missed), `onStatus(true)` that it
   * listens again; it is called once with true when listening starts. Returns the stop function.
   */
  listen(channel: string, onMessage: (payload: string) => void, onStatus?: (listening: boolean) => void): Promise<() => Promise<void>>;
  /**
   * Runs `fn` while this process holds the advisory lock `lockId` (PostgreSQL: other processes asking
   * for it wait; `fn` uses the pool's other connections). PGlite has one process: `fn` runs at once.
   */
  exclusive<T>(lockId: number, fn: () => Promise<T>): Promise<T>;
  /** Raw access for pg-boss: rows of one statement, or of the last of several when no values are given. */
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  /** The node-postgres pool, when that driver runs (benchmarks compare against it). */
  pool?: pg.Pool;
  /** The PGlite instance, when that driver runs (the tests' template is dumped from it). */
  pglite?: PGlite;
  /**
   * false while the last attempt to connect to PostgreSQL failed and no probe has connected since:
   * requests needing a new connection then fail at once (DatabaseUnreachable, a 503). PGlite: absent.
   */
  reachable?: () => boolean;
}

export const MIGRATIONS_DIR = fileURLToPath(new URL("./migrations", import.meta.url));
const MIGRATION_LOCK_ID = 4242_0001;

// Timestamps come back as JS Dates and bigint counts as numbers on both drivers.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export interface OpenOptions {
  databaseUrl?: string;
  /** PGlite data directory; "memory://" for an in-memory database (tests). */
  dataDir?: string;
  /** Connections of the pool (VIGIE_DB_POOL_SIZE; default 10). */
  poolSize?: number;
  /** PGlite: start from this data directory tarball (PGlite's dumpDataDir) instead of an empty database (tests). */
  loadDataDir?: Blob;
  /** How long a new connection may take (VIGIE_DB_CONNECT_TIMEOUT_MS; default 3000). */
  connectTimeoutMs?: number;
  /** While the database is unreachable, how often a connection is tried again (default 1000 ms). */
  probeMs?: number;
}

/**
 * PGlite runs PostgreSQL inside the process: its shared buffers are the process's own memory, on top
 * of the file pages the OS caches anyway. PostgreSQL's default 128 MB made every PGlite process
 * 110–150 MB larger (KEV sync 411 → 299 MB peak RSS, CVE List first sync 568 → 422 MB, with no
 * slower import: 106 s against 187 s under load); 16 MB keeps the hot pages (ADR 0022).
 */
const PGLITE_SETTINGS = ["shared_buffers=16MB"];

/** Opens the database: node-postgres when a URL is given, else embedded PGlite. */
export async function openDatabase(opts: OpenOptions): Promise<Database> {
  if (opts.databaseUrl) {
    const connectTimeoutMs = opts.connectTimeoutMs ?? 3000;
    const reachability = new Reachability(opts.databaseUrl, connectTimeoutMs, opts.probeMs ?? 1000);
    const pool = new GuardedPool(reachability, {
      connectionString: opts.databaseUrl,
      max: opts.poolSize ?? 10,
      // No JIT: the matcher's candidate queries cost just over jit_above_cost, and compiling them
      // took 0.6–1.1 s of the 1,000-component SBOM's 2 s (BENCH=sbom, docs/benchmarks.md), once per
      // statement; they run in 0.1–1 s without it. PGlite is built without JIT.
      options: "-c timezone=UTC -c jit=off",
      // The database down: a request fails (503) within this instead of waiting for a connection,
      // and those after it at once while it stays down (Reachability).
      connectionTimeoutMillis: connectTimeoutMs,
      keepAlive: true,
      Client: reachability.clientClass(),
    });
    pool.on("error", () => {
      /* idle client errors are retried by the pool */
    });
    // A connection lost while a client is checked out between two statements (a transaction's JS
    // turn, an advisory lock held) emits 'error' on that client, which no one listens to then: without
    // this, the process dies (pg_terminate_backend in the soak). The statement in flight or the next
    // one fails instead (503), and the pool drops the client when it is released (not queryable).
    pool.on("connect", (client) => {
      client.on("error", () => undefined);
    });
    const db = drizzlePg(pool, { schema }) as unknown as Db;
    const exclusive = async <T>(lockId: number, fn: () => Promise<T>): Promise<T> => {
      const client = await pool.connect();
      let lost: Error | undefined;
      try {
        await client.query("select pg_advisory_lock($1)", [lockId]);
        return await fn();
      } catch (err) {
        // A lost connection goes out of the pool (its lock with it), rather than back to it.
        if (isConnectionLoss(err)) lost = err as Error;
        throw err;
      } finally {
        if (!lost) await client.query("select pg_advisory_unlock($1)", [lockId]).catch(() => undefined);
        client.release(lost);
      }
    };
    return {
      db,
      driver: "postgres",
      pool,
      migrate: () => exclusive(MIGRATION_LOCK_ID, () => migratePg(drizzlePg(pool, { schema }), { migrationsFolder: MIGRATIONS_DIR })),
      exclusive,
      executeSql: (text: string, values?: unknown[]) => pool.query(text, values),
      listen: (channel, onMessage, onStatus) => listenPg(opts.databaseUrl!, connectTimeoutMs, channel, onMessage, onStatus),
      raw: async <T>(name: string, text: string, values: unknown[]) => (await pool.query({ name, text, values })).rows as T[],
      close: async () => {
        reachability.stop();
        await pool.end();
      },
      reachable: () => reachability.up,
    };
  }
  const client = new PGlite(opts.dataDir ?? "memory://", {
    postgresqlconf: PGLITE_SETTINGS,
    ...(opts.loadDataDir && { loadDataDir: opts.loadDataDir }),
  });
  await client.waitReady;
  yieldBetweenStatements(client);
  await client.exec("set timezone = 'UTC'");
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    db,
    driver: "pglite",
    pglite: client,
    migrate: () => migratePglite(drizzlePglite(client, { schema }), { migrationsFolder: MIGRATIONS_DIR }),
    exclusive: (_lockId, fn) => fn(),
    // In the same process as the database: the connection cannot be lost.
    listen: async (channel, onMessage, onStatus) => {
      const unlisten = await client.listen(channel, onMessage);
      onStatus?.(true);
      return () => unlisten();
    },
    executeSql: async (text: string, values?: unknown[]) => {
      if (values?.length) return client.query(text, values);
      const results = await client.exec(text);
      return results.at(-1) ?? { rows: [] };
    },
    raw: async <T>(_name: string, text: string, values: unknown[]) => (await client.query<T>(text, values)).rows,
    close: () => client.close(),
  };
}

/**
 * PGlite runs each statement synchronously in this thread, and its promises resolve as microtasks:
 * a transaction of a thousand statements (a batch of runs, a broad item's alerts) ran from its first
 * statement to its commit without the event loop turning once, so no timer fired and no other request
 * was even read meanwhile (BENCH=broad-item: longest stall 550–720 ms). Every statement that starts
 * more than `PGLITE_YIELD_MS` after the last turn waits for one (setImmediate) first. The statement
 * queue keeps its order: another request's statements still wait for PGlite's lock (a transaction
 * keeps it to its end), but the server reads, answers what needs no database, and its timers fire.
 */
const PGLITE_YIELD_MS = 10;
function yieldBetweenStatements(client: PGlite): void {
  const execute = client.execProtocolStream.bind(client);
  let lastTurn = performance.now();
  client.execProtocolStream = async (...args: Parameters<typeof execute>) => {
    if (performance.now() - lastTurn > PGLITE_YIELD_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      lastTurn = performance.now();
    }
    return execute(...args);
  };
}

/**
 * What this process knows of PostgreSQL's reachability. Every new connection of the pool reports its
 * outcome: one that fails (refused, timed out, the server starting or shutting down, too many
 * connections) marks the database down; from then on a request that would open a connection fails
 * at once with DatabaseUnreachable (a 503) instead of waiting VIGIE_DB_CONNECT_TIMEOUT_MS, and a
 * probe tries a connection every `probeMs` in the background. The first connection that succeeds
 * (the probe's, or one of the pool's) marks it up again. Idle connections of the pool are still used
 * while it is down (a database refusing new connections may serve those it has).
 */
export class Reachability {
  up = true;
  private lastError: Error | null = null;
  private probe: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly connectTimeoutMs: number,
    private readonly probeMs: number,
  ) {}

  /** The error a request gets while the database is down. */
  refusal(): DatabaseUnreachable {
    return new DatabaseUnreachable(this.lastError);
  }

  connected(): void {
    this.up = true;
    this.lastError = null;
  }

  failed(err: Error): void {
    if (!isConnectionLoss(err)) return; // a wrong password or database name is no outage
    this.up = false;
    this.lastError = err;
    this.scheduleProbe();
  }

  stop(): void {
    this.stopped = true;
    if (this.probe) clearTimeout(this.probe);
    this.probe = null;
  }

  /** A pg.Client class whose connections report their outcome here (the pool's `Client` option). */
  clientClass(): typeof pg.Client {
    const reachability = this;
    return class ReportingClient extends pg.Client {
      // biome-ignore lint/suspicious/noExplicitAny: pg.Client's connect has a promise and a callback overload.
      override connect(callback?: any): any {
        const outcome = (err: Error | null | undefined) => (err ? reachability.failed(err) : reachability.connected());
        if (callback) {
          return super.connect((err: Error | null, client?: pg.Client) => {
            outcome(err);
            (callback as (err: Error | null, client?: pg.Client) => void)(err, client);
          });
        }
        return super.connect().then(
          (value) => {
            outcome(null);
            return value;
          },
          (err: Error) => {
            outcome(err);
            throw err;
          },
        );
      }
    };
  }

  private scheduleProbe(): void {
    if (this.probe || this.stopped) return;
    this.probe = setTimeout(() => void this.tryConnect(), this.probeMs);
    this.probe.unref();
  }

  private async tryConnect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: this.connectTimeoutMs });
    client.on("error", () => undefined);
    try {
      await client.connect();
      this.connected();
    } catch (err) {
      if (!this.stopped) this.lastError = err as Error;
    } finally {
      this.probe = null;
      void client.end().catch(() => undefined);
    }
    if (!this.up) this.scheduleProbe();
  }
}

/**
 * The pool, refusing at once a request that needs a new connection while the database is known to
 * be unreachable (see Reachability); a request an idle connection can serve is served.
 */
class GuardedPool extends pg.Pool {
  constructor(
    private readonly reachability: Reachability,
    config: pg.PoolConfig,
  ) {
    super(config);
  }

  // biome-ignore lint/suspicious/noExplicitAny: pg.Pool's connect has a promise and a callback overload.
  override connect(callback?: any): any {
    if (!this.reachability.up && this.idleCount === 0) {
      const err = this.reachability.refusal();
      if (callback) {
        process.nextTick(() => callback(err, undefined, () => undefined));
        return undefined;
      }
      return Promise.reject(err);
    }
    return callback ? super.connect(callback) : super.connect();
  }
}

/** How often the listening connection proves it is alive, and how long it may take to answer. */
const LISTEN_PING_MS = 10_000;
const LISTEN_PING_TIMEOUT_MS = 5_000;

/**
 * LISTEN on a dedicated connection. A failure — an error, the connection closed, or a ping left
 * unanswered (a silent network loss) — is reported at once with onStatus(false); the connection
 * is then re-established every second until it listens again, reported with onStatus(true).
 */
async function listenPg(
  url: string,
  connectTimeoutMs: number,
  channel: string,
  onMessage: (payload: string) => void,
  onStatus: (listening: boolean) => void = () => undefined,
): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | null = null;
  let ping: NodeJS.Timeout | null = null;
  const lost = (c: pg.Client) => {
    if (stopped || client !== c) return;
    client = null;
    if (ping) clearInterval(ping);
    ping = null;
    onStatus(false);
    void c.end().catch(() => undefined);
    retry();
  };
  const retry = () => setTimeout(() => void connect().catch(() => retry()), 1000).unref();
  const connect = async (): Promise<void> => {
    if (stopped) return;
    // A host that does not answer: the attempt ends after the connect timeout and the next one follows.
    const c = new pg.Client({ connectionString: url, keepAlive: true, connectionTimeoutMillis: connectTimeoutMs });
    c.on("notification", (n) => n.channel === channel && onMessage(n.payload ?? ""));
    c.on("error", () => lost(c));
    c.on("end", () => lost(c));
    try {
      await c.connect();
      await c.query(`listen ${pg.escapeIdentifier(channel)}`);
    } catch (err) {
      void c.end().catch(() => undefined);
      throw err;
    }
    if (stopped) {
      await c.end();
      return;
    }
    client = c;
    ping = setInterval(() => {
      const timeout = setTimeout(() => lost(c), LISTEN_PING_TIMEOUT_MS).unref();
      c.query("select 1").then(
        () => clearTimeout(timeout),
        () => lost(c),
      );
    }, LISTEN_PING_MS);
    ping.unref();
    onStatus(true);
  };
  await connect().catch(() => retry()); // not listening yet: caches stay off until it does
  return async () => {
    stopped = true;
    if (ping) clearInterval(ping);
    await client?.end();
  };
}

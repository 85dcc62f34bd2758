/** PostgreSQL error helpers (same SQLSTATE codes from node-postgres and PGlite). */
export function pgCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  const code = typeof e?.code === "string" ? e.code : typeof e?.cause?.code === "string" ? e.cause.code : undefined;
  return code;
}

function constraintOf(err: unknown): string | undefined {
  const e = err as { constraint?: string; cause?: { constraint?: string } };
  return e?.constraint ?? e?.cause?.constraint;
}

/** True for a unique violation (23505), of the named constraint when given. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  return pgCode(err) === "23505" && (!constraint || constraintOf(err) === constraint);
}

/**
 * Runs a statement or transaction again when PostgreSQL aborts it as a deadlock victim or a
 * serialization failure: it was rolled back whole, so running it again is safe.
 */
export async function retryOnDeadlock<T>(run: () => Promise<T>, attempts = 4): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await run();
    } catch (err) {
      const code = pgCode(err);
      if (i >= attempts || (code !== "40P01" && code !== "40001")) throw err;
      await new Promise((r) => setTimeout(r, 50 * i));
    }
  }
}

/**
 * Runs a start-up step again while it fails by a lost connection — PostgreSQL dropping every
 * connection, or restarting, while a process starts: the process waits for it rather than exiting
 * (the soak saw a worker die so, its start slowed by load into the drop). Each retry is told to
 * `onRetry`; a later failure, or another error, is thrown. Waits 1 s, 2 s, … up to `attempts`.
 */
export async function retryOnConnectionLoss<T>(
  run: () => Promise<T>,
  onRetry: (err: unknown, attempt: number) => void,
  attempts = 6,
): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await run();
    } catch (err) {
      if (i >= attempts || !isConnectionLoss(err)) throw err;
      onRetry(err, i);
      await new Promise((r) => setTimeout(r, 1000 * i));
    }
  }
}

/**
 * The database is known to be unreachable (the last connection attempt failed and no probe has
 * connected since): a request that needs a new connection fails with this at once, a 503.
 */
export class DatabaseUnreachable extends Error {
  override name = "DatabaseUnreachable";
  readonly code = "VIGIE_DB_UNREACHABLE";
  constructor(readonly lastError: Error | null) {
    super(`base de données injoignable${lastError ? ` (dernière tentative : ${lastError.message})` : ""}`);
  }
}

/** SQLSTATEs of a connection lost or refused by the server: class 08, the server shutting down or starting, too many connections. */
const CONNECTION_STATES = /^(08...|57P0[1-3]|53300)$/;
/** Node's socket errors, and node-postgres's own words, when the connection is lost or cannot be made. */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);
const PG_WORDS = /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|Client was closed/;

/**
 * True when `err` (or its cause: Drizzle wraps the driver's error) says the database connection was
 * lost or could not be made — not a fault of the request: the HTTP layer answers 503, and the pool
 * makes a new connection for the next one.
 */
export function isConnectionLoss(err: unknown): boolean {
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; depth++) {
    if (e instanceof DatabaseUnreachable) return true;
    if (typeof e.code === "string" && (CONNECTION_STATES.test(e.code) || SOCKET_CODES.has(e.code))) return true;
    if (typeof e.message === "string" && PG_WORDS.test(e.message)) return true;
    e = e.cause as typeof e;
  }
  return false;
}

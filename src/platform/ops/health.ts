import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MIGRATIONS_DIR, type Database } from "../db/client.js";

/** One check of /readyz: ok, or what is wrong in words. */
export type CheckResult = { ok: true } | { ok: false; detail: string };

export interface Readiness {
  ready: boolean;
  /** Each check by name: "ok", or what is wrong. */
  checks: Record<string, string>;
}

/** How long the database may take to answer the readiness probe. */
const PROBE_TIMEOUT_MS = 2000;

/** The migrations this code was built with (drizzle's journal): the database must have applied at least these. */
function expectedMigrations(): number {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_DIR, "meta", "_journal.json"), "utf8")) as { entries: unknown[] };
  return journal.entries.length;
}

function timeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} : pas de réponse en ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * What /readyz checks: the database answers and has this code's migrations, plus the checks the
 * process registers (the notification listener, the job runner where the role runs jobs), and the
 * process is not shutting down. /healthz checks nothing: the process answers.
 */
export class Health {
  private readonly checks = new Map<string, () => CheckResult>();
  private readonly expected = expectedMigrations();
  private stopping = false;

  constructor(private readonly database: Database) {}

  /** A synchronous check (a state this process holds). */
  add(name: string, check: () => CheckResult): void {
    this.checks.set(name, check);
  }

  /** From now on the process is not ready: a load balancer stops sending it requests. */
  shuttingDown(): void {
    this.stopping = true;
  }

  async readiness(): Promise<Readiness> {
    const checks: Record<string, string> = {};
    checks.database = await this.probeDatabase();
    for (const [name, check] of this.checks) {
      const r = check();
      checks[name] = r.ok ? "ok" : r.detail;
    }
    if (this.stopping) checks.process = "arrêt en cours";
    return { ready: Object.values(checks).every((c) => c === "ok"), checks };
  }

  private async probeDatabase(): Promise<string> {
    try {
      const rows = await timeout(
        this.database.raw<{ n: number }>("vigie_ready_migrations", "select count(*)::int as n from drizzle.__drizzle_migrations", []),
        PROBE_TIMEOUT_MS,
        "base de données",
      );
      const applied = Number(rows[0]?.n ?? 0);
      if (applied < this.expected) return `migrations en retard : ${applied} appliquées sur ${this.expected}`;
      return "ok";
    } catch (err) {
      return `base de données injoignable : ${(err as Error).message}`;
    }
  }
}

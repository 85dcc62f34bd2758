import { createHash } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { Db } from "../../platform/db/client.js";
import { feedHolds } from "../../platform/db/schema/index.js";

/**
 * GitHub's rate limits (REST API docs, "Rate limits" and "Best practices"), kept for every source
 * whose publisher speaks GitHub's API (the CVE List's releases, PoC-in-GitHub's commits):
 * - primary limit: a 403 or 429 with `x-ratelimit-remaining: 0`: no request before
 *   `x-ratelimit-reset` (epoch seconds);
 * - secondary limit: a `retry-after` header: no request for that many seconds; a 403 or 429 with
 *   neither: at least one minute, doubled at each refusal in a row.
 * GitHub warns that an integration that keeps requesting while limited may be banned: the hold is
 * per API host and token (the sources share it), stored (feed_holds) so that another process or a
 * restart sends nothing before it ends, and every request to the host checks it first.
 */

export interface Hold {
  until: Date;
  reason: string;
  strikes: number;
}

/** The first wait after a secondary limit without Retry-After (GitHub: "at least one minute"). */
const SECONDARY_MS = 60_000;
/** The longest wait after secondary limits in a row (then each next one waits this long again). */
const SECONDARY_MAX_MS = 3_600_000;

/** A GitHub API request: the publishers send GitHub's versioning header with each of them (never to asset or raw hosts). */
export function isGithubApi(headers: Record<string, string>): boolean {
  return Object.keys(headers).some((h) => h.toLowerCase() === "x-github-api-version");
}

/** The hold's key: the API host and a hash of the credentials asked with (GitHub counts per token, or per address without one). */
export function holdKey(url: string, authorization: string | undefined): string {
  const who = authorization ? `jeton ${createHash("sha256").update(authorization).digest("hex").slice(0, 12)}` : "sans jeton";
  return `${new URL(url).origin} (${who})`;
}

/** The key of the GitHub requests a source's address makes with the configured token. */
export function addressHoldKey(address: string, githubToken: string | null | undefined): string | null {
  try {
    return holdKey(address, githubToken ? `Bearer ${githubToken}` : undefined);
  } catch {
    return null;
  }
}

/**
 * The hold a GitHub API answer asks for, or null when it is no refusal. `strikes`: the secondary
 * refusals in a row so far at this key.
 */
export function githubRefusal(res: Response, strikes: number, now = Date.now()): Hold | null {
  if (res.status !== 403 && res.status !== 429) return null;
  const after = retryAfterMs(res, now);
  const primary = res.headers.get("x-ratelimit-remaining") === "0";
  const reset = Number(res.headers.get("x-ratelimit-reset"));
  if (primary) {
    // Without a readable reset, a minute (the documented wait when the limit's end is not said).
    const at = Number.isFinite(reset) && reset > 0 ? reset * 1000 : now + SECONDARY_MS;
    const until = new Date(Math.max(at, now + (after ?? 0)));
    return {
      until,
      reason: `limite de requêtes de l'API GitHub atteinte jusqu'à ${until.toISOString()} (x-ratelimit-remaining: 0 ; aucune requête avant x-ratelimit-reset ; un jeton VIGIE_GITHUB_TOKEN la relève)`,
      strikes: 0,
    };
  }
  if (after !== null) {
    const until = new Date(now + after);
    return {
      until,
      reason: `limite secondaire de l'API GitHub (HTTP ${res.status}, retry-after) : aucune requête avant ${until.toISOString()}`,
      strikes: strikes + 1,
    };
  }
  const wait = Math.min(SECONDARY_MAX_MS, SECONDARY_MS * 2 ** strikes);
  const until = new Date(now + wait);
  return {
    until,
    reason: `limite secondaire de l'API GitHub (HTTP ${res.status} sans x-ratelimit-remaining: 0 ni retry-after, ${strikes + 1}ᵉ refus de suite) : aucune requête avant ${until.toISOString()}`,
    strikes: strikes + 1,
  };
}

/** Retry-After (seconds or an HTTP date) in milliseconds, or null. */
export function retryAfterMs(res: Response, now = Date.now()): number | null {
  const v = res.headers.get("retry-after");
  if (!v) return null;
  const s = Number(v);
  if (Number.isFinite(s)) return Math.max(0, s * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** The holds of the API hosts: read from the database before a sync, written as soon as a refusal comes. */
export class Holds {
  private readonly held = new Map<string, Hold>();

  constructor(private readonly db: Db) {}

  /** Reads the stored holds (another process's, or before a restart). */
  async load(): Promise<void> {
    const rows = await this.db.select().from(feedHolds);
    this.held.clear();
    for (const r of rows) this.held.set(r.key, { until: r.until, reason: r.reason, strikes: r.strikes });
  }

  /** Reads one key's stored hold again (just before a GitHub request: another process may have met the limit meanwhile). */
  async refresh(key: string): Promise<void> {
    const [r] = await this.db.select().from(feedHolds).where(eq(feedHolds.key, key));
    if (r) this.held.set(key, { until: r.until, reason: r.reason, strikes: r.strikes });
    else this.held.delete(key);
  }

  /** The hold in force at this key, or null. */
  active(key: string, now = Date.now()): Hold | null {
    const h = this.held.get(key);
    return h && h.until.getTime() > now ? h : null;
  }

  /** Secondary refusals in a row at this key (the next wait doubles with them). */
  strikes(key: string): number {
    return this.held.get(key)?.strikes ?? 0;
  }

  async hold(key: string, h: Hold): Promise<void> {
    this.held.set(key, h);
    const set = { until: h.until, reason: h.reason, strikes: h.strikes, updatedAt: sql`now()` };
    await this.db
      .insert(feedHolds)
      .values({ key, ...set })
      .onConflictDoUpdate({ target: feedHolds.key, set });
  }

  /** An answer that is no refusal: the refusals in a row are over (nothing written when there were none). */
  async answered(key: string): Promise<void> {
    if (!this.held.has(key)) return;
    this.held.delete(key);
    await this.db.delete(feedHolds).where(eq(feedHolds.key, key));
  }
}

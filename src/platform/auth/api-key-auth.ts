import type { CacheFeed, NotifiedCache } from "../db/cache-feed.js";
import type { Database } from "../db/client.js";
import { TooManyRequests, Unauthorized } from "../errors.js";
import { AUTH } from "../messages.js";
import type { ApiKeyContext } from "./context.js";
import { RATE_TOPIC, RateLimiter, type RateLimitState, type WindowQuota } from "./rate-limiter.js";
import { API_KEY_PREFIX, hashToken } from "./secrets.js";

export type { RateLimitState, WindowQuota } from "./rate-limiter.js";

/** The CacheFeed topic of key contexts (payload 'auth' of the triggers of migration 0011). */
export const AUTH_TOPIC = "auth";

interface Row {
  key_id: string;
  org_id: string;
  org_name: string;
  scopes: string[];
  project_ids: string[] | null;
  plan_name: string | null;
  key_name: string;
  plan_slug: string | null;
  plan_limit: number | null;
}

const LOOKUP_SQL = `
select k.id as key_id, k.name as key_name, k.org_id, o.name as org_name, k.scopes,
       case when k.restricted then
         coalesce((select array_agg(project_id::text) from api_key_projects where api_key_id = k.id), '{}')
       end as project_ids,
       p.name as plan_name, p.slug as plan_slug, p.max_api_calls_per_hour as plan_limit
from api_keys k
join organizations o on o.id = k.org_id
left join plans p on p.id = o.plan_id
where k.key_hash = $1 and k.revoked_at is null`;

/** Key contexts cached per process (the oldest dropped first past this). */
const CACHE_MAX = 10_000;

interface CachedKey {
  ctx: ApiKeyContext;
  limit: number;
}

export interface ApiKeyAuthResult {
  ctx: ApiKeyContext;
  /** The organization's window: read X-RateLimit-* from it when the answer is sent. */
  quota: WindowQuota;
}

/**
 * Authenticates "Authorization: Bearer <key>" and counts the call against the organization's plan.
 *
 * Key contexts (organization, scopes, project restriction, plan) are cached by key hash, with the
 * rule of CacheFeed (platform/db/cache-feed.ts): any committed change to a key, its projects, its
 * organization's name or plan, or a plan, notifies `vigie_cache` 'auth' and every process drops
 * every context; this process also drops them itself after its own change (invalidate()). Unknown
 * keys are not cached. In the steady state a call costs no round trip (see RateLimiter).
 */
export class ApiKeyAuthenticator {
  private readonly cache: NotifiedCache<CachedKey>;
  readonly limiter: RateLimiter;

  constructor(
    private readonly database: Database,
    private readonly defaultLimit: number,
    feed: CacheFeed,
  ) {
    this.limiter = new RateLimiter(database);
    this.cache = feed.cache<CachedKey>(AUTH_TOPIC, CACHE_MAX);
    // Every process's reservations, so that X-RateLimit-Remaining subtracts them here too.
    feed.on(RATE_TOPIC, (key) => key && this.limiter.heard(key));
  }

  /** Throws Unauthorized (401) or TooManyRequests (429, carrying the rate-limit headers). */
  async authenticate(authorization: string | undefined): Promise<ApiKeyAuthResult> {
    const token = bearerToken(authorization);
    if (!token) throw new Unauthorized();
    if (!token.startsWith(API_KEY_PREFIX)) throw new Unauthorized(AUTH.invalidApiKey);
    const hash = hashToken(token);
    let entry = this.cache.get(hash);
    if (!entry) {
      const ticket = this.cache.ticket();
      const [row] = await this.database.raw<Row>("vigie_api_key_lookup", LOOKUP_SQL, [hash]);
      if (!row) throw new Unauthorized(AUTH.invalidApiKey);
      entry = { ctx: toContext(row), limit: row.plan_limit ?? this.defaultLimit };
      this.cache.set(hash, entry, ticket);
    }
    const { allowed, quota } = await this.limiter.hit(entry.ctx.orgId, entry.ctx.keyId, entry.limit);
    if (!allowed) {
      throw new TooManyRequests(AUTH.hourlyLimit(quota.limit), quota.resetAt - Date.now() / 1000, quota.state());
    }
    return { ctx: entry.ctx, quota };
  }

  /** Drops every cached key context (this process changed a key, an organization or a plan). */
  invalidate(): void {
    this.cache.clear();
  }

  close(): Promise<void> {
    return this.limiter.close();
  }
}

function toContext(row: Row): ApiKeyContext {
  return {
    kind: "apiKey",
    keyId: row.key_id,
    keyName: row.key_name,
    orgId: row.org_id,
    orgName: row.org_name,
    scopes: new Set(row.scopes),
    projectIds: row.project_ids ? new Set(row.project_ids) : null,
    plan: row.plan_slug === null ? null : { name: row.plan_name!, slug: row.plan_slug, max_api_calls_per_hour: row.plan_limit! },
  };
}

/** The X-RateLimit-* headers sent with every authenticated answer. */
export function rateHeaders(rate: RateLimitState): Record<string, string> {
  return {
    "x-ratelimit-limit": String(rate.limit),
    "x-ratelimit-remaining": String(rate.remaining),
    "x-ratelimit-reset": String(rate.resetAt),
  };
}

/** The token of an "Authorization: Bearer <token>" header, or null when absent or malformed. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return m ? m[1]! : null;
}

import type { Database } from "../db/client.js";
import { TooManyRequests, Unauthorized } from "../errors.js";
import type { ApiKeyContext } from "./context.js";
import { API_KEY_PREFIX, hashToken } from "./secrets.js";

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix time (seconds) when the current window ends. */
  resetAt: number;
}

interface Row {
  key_id: string;
  org_id: string;
  org_name: string;
  scopes: string[];
  restricted: boolean;
  project_ids: string[] | null;
  plan_name: string | null;
  plan_slug: string | null;
  plan_limit: number | null;
  calls: number;
  window_start: Date;
}

const WINDOW_SECONDS = 3600;

/*
 * One statement per request: find the live key, count the call in the organization's current
 * hourly window (shared by every server process), and touch last_used_at at most once a minute.
 * The counter row is the only contention point; it is updated in place (HOT) and never read back
 * by another statement.
 */
const AUTH_SQL = `
with k as (
  select k.id, k.org_id, k.scopes, k.restricted, o.name as org_name,
         p.name as plan_name, p.slug as plan_slug, p.max_api_calls_per_hour as plan_limit
  from api_keys k
  join organizations o on o.id = k.org_id
  left join plans p on p.id = o.plan_id
  where k.key_hash = $1 and k.revoked_at is null
), u as (
  insert into api_usage (org_id, window_start, count)
  select org_id, to_timestamp(floor(extract(epoch from now()) / ${WINDOW_SECONDS}) * ${WINDOW_SECONDS}), 1 from k
  on conflict (org_id, window_start) do update set count = api_usage.count + 1
  returning count, window_start
), touched as (
  update api_keys set last_used_at = now()
  where id = (select id from k) and (last_used_at is null or last_used_at < now() - interval '1 minute')
  returning 1
)
select k.id as key_id, k.org_id, k.org_name, k.scopes, k.restricted,
       case when k.restricted then
         coalesce((select array_agg(project_id::text) from api_key_projects where api_key_id = k.id), '{}')
       end as project_ids,
       k.plan_name, k.plan_slug, k.plan_limit, u.count as calls, u.window_start
from k, u`;

export interface ApiKeyAuthResult {
  ctx: ApiKeyContext;
  rate: RateLimitState;
}

/**
 * Authenticates "Authorization: Bearer <key>" and counts the call against the organization's plan.
 * Throws Unauthorized (401) or TooManyRequests (429, carrying the rate-limit headers).
 */
export async function authenticateApiKey(
  database: Database,
  authorization: string | undefined,
  defaultLimit: number,
): Promise<ApiKeyAuthResult> {
  const token = bearerToken(authorization);
  if (!token) throw new Unauthorized();
  if (!token.startsWith(API_KEY_PREFIX)) throw new Unauthorized("Clé d'API invalide ou révoquée");
  const [row] = await database.raw<Row>("vigie_auth_api_key", AUTH_SQL, [hashToken(token)]);
  if (!row) throw new Unauthorized("Clé d'API invalide ou révoquée");
  const limit = row.plan_limit ?? defaultLimit;
  const resetAt = Math.floor(row.window_start.getTime() / 1000) + WINDOW_SECONDS;
  const rate: RateLimitState = { limit, remaining: Math.max(0, limit - row.calls), resetAt };
  if (row.calls > limit) {
    const err = new TooManyRequests(
      `Limite de ${limit} appels par heure atteinte pour cette organisation`,
      resetAt - Date.now() / 1000,
    );
    Object.assign(err.headers!, rateHeaders(rate));
    throw err;
  }
  return {
    rate,
    ctx: {
      kind: "apiKey",
      keyId: row.key_id,
      orgId: row.org_id,
      orgName: row.org_name,
      scopes: new Set(row.scopes),
      projectIds: row.restricted ? new Set(row.project_ids ?? []) : null,
      plan:
        row.plan_slug === null
          ? null
          : { name: row.plan_name!, slug: row.plan_slug, max_api_calls_per_hour: row.plan_limit! },
    },
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

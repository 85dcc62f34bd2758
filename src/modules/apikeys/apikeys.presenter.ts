import type { ApiKeyRow } from "./apikeys.repository.js";
import type { ApiKeyCreated, ApiKeyItem } from "./apikeys.schemas.js";

/** An API key as shown to operators and admins; `key` only once, at creation. */
export function presentApiKey(k: ApiKeyRow, projectIds: string[]): ApiKeyItem;
export function presentApiKey(k: ApiKeyRow, projectIds: string[], key: string): ApiKeyCreated;
export function presentApiKey(k: ApiKeyRow, projectIds: string[], key?: string): ApiKeyItem | ApiKeyCreated {
  return {
    id: k.id,
    ...(key ? { key } : {}),
    prefix: k.prefix,
    name: k.name,
    org_id: k.orgId,
    scopes: k.scopes,
    project_ids: k.restricted ? projectIds : null,
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
    revoked_at: k.revokedAt?.toISOString() ?? null,
  };
}

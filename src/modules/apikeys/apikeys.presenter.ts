import type { ApiKeyRow } from "./apikeys.repository.js";

/** An API key as shown to operators; `key` only once, at creation. */
export function presentApiKey(k: ApiKeyRow, projectIds: string[], key?: string) {
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

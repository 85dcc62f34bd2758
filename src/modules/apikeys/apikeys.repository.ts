import { and, eq, isNull, sql } from "drizzle-orm";
import type { Executor } from "../../platform/db/client.js";
import { apiKeyProjects, apiKeys } from "../../platform/db/schema/index.js";

export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** SQL of API keys (the per-request lookup lives in platform/auth/api-key-auth.ts). */
export const apiKeysRepository = {
  async create(
    ex: Executor,
    k: { orgId: string; name: string; prefix: string; keyHash: string; scopes: string[]; projectIds: string[] | null },
  ): Promise<ApiKeyRow> {
    const [row] = await ex
      .insert(apiKeys)
      .values({ orgId: k.orgId, name: k.name, prefix: k.prefix, keyHash: k.keyHash, scopes: k.scopes, restricted: k.projectIds !== null })
      .returning();
    if (k.projectIds?.length) {
      await ex.insert(apiKeyProjects).values(k.projectIds.map((projectId) => ({ apiKeyId: row!.id, projectId })));
    }
    return row!;
  },

  /** Revokes the key, within an organization unless `orgId` is null (an operator); undefined when there is none. */
  async revoke(ex: Executor, id: string, orgId: string | null): Promise<ApiKeyRow | undefined> {
    const [row] = await ex
      .update(apiKeys)
      .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, now())` })
      .where(orgId === null ? eq(apiKeys.id, id) : and(eq(apiKeys.id, id), eq(apiKeys.orgId, orgId)))
      .returning();
    return row;
  },

  async list(ex: Executor, orgId: string, includeRevoked: boolean): Promise<(ApiKeyRow & { projectIds: string[] })[]> {
    const rows = await ex
      .select({
        key: apiKeys,
        projectIds: sql<
          string[]
        >`coalesce((select array_agg(${apiKeyProjects.projectId}::text) from ${apiKeyProjects} where ${apiKeyProjects.apiKeyId} = ${apiKeys.id}), '{}')`,
      })
      .from(apiKeys)
      .where(includeRevoked ? eq(apiKeys.orgId, orgId) : and(eq(apiKeys.orgId, orgId), isNull(apiKeys.revokedAt)))
      .orderBy(sql`${apiKeys.revokedAt} is not null`, apiKeys.createdAt);
    return rows.map((r) => ({ ...r.key, projectIds: r.projectIds }));
  },
};

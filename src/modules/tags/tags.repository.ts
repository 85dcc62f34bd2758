import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Executor } from "../../platform/db/client.js";
import { alertTags, caseTags, stackItemTags, tags } from "../../platform/db/schema/index.js";

export type TagRow = typeof tags.$inferSelect;

/** SQL of tags and their links; every method takes the project it works within. */
export const tagsRepository = {
  async list(ex: Executor, projectId: string): Promise<TagRow[]> {
    return ex
      .select()
      .from(tags)
      .where(eq(tags.projectId, projectId))
      .orderBy(asc(sql`lower(${tags.name})`), asc(tags.id));
  },

  async get(ex: Executor, projectId: string, id: string): Promise<TagRow | undefined> {
    const [row] = await ex
      .select()
      .from(tags)
      .where(and(eq(tags.projectId, projectId), eq(tags.id, id)));
    return row;
  },

  /** The tags among `ids` that belong to the project. */
  async existing(ex: Executor, projectId: string, ids: string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows = await ex
      .select({ id: tags.id })
      .from(tags)
      .where(and(eq(tags.projectId, projectId), inArray(tags.id, ids)));
    return new Set(rows.map((r) => r.id));
  },

  async insert(ex: Executor, t: { projectId: string; name: string; color: string }): Promise<TagRow> {
    const [row] = await ex.insert(tags).values(t).returning();
    return row!;
  },

  async update(ex: Executor, projectId: string, id: string, patch: { name?: string; color?: string }): Promise<TagRow | undefined> {
    const [row] = await ex
      .update(tags)
      .set(patch)
      .where(and(eq(tags.projectId, projectId), eq(tags.id, id)))
      .returning();
    return row;
  },

  async delete(ex: Executor, projectId: string, id: string): Promise<boolean> {
    return (
      (
        await ex
          .delete(tags)
          .where(and(eq(tags.projectId, projectId), eq(tags.id, id)))
          .returning({ id: tags.id })
      ).length > 0
    );
  },

  /** Inserts the tag unless the project has one of this name (any case); undefined when it had. */
  async insertIfMissing(ex: Executor, t: { projectId: string; name: string; color: string }): Promise<TagRow | undefined> {
    const [row] = await ex.insert(tags).values(t).onConflictDoNothing().returning();
    return row;
  },

  /** The project's tag of this name, any case. */
  async byName(ex: Executor, projectId: string, name: string): Promise<TagRow | undefined> {
    const [row] = await ex
      .select()
      .from(tags)
      .where(and(eq(tags.projectId, projectId), sql`lower(${tags.name}) = lower(${name})`));
    return row;
  },

  async attachToAlert(ex: Executor, alertId: string, tagId: string): Promise<void> {
    await ex.insert(alertTags).values({ alertId, tagId }).onConflictDoNothing();
  },

  async detachFromAlert(ex: Executor, alertId: string, tagId: string): Promise<void> {
    await ex.delete(alertTags).where(and(eq(alertTags.alertId, alertId), eq(alertTags.tagId, tagId)));
  },

  /** Replaces the tags of a stack item. */
  async setItemTags(ex: Executor, itemId: string, tagIds: string[]): Promise<void> {
    await ex.delete(stackItemTags).where(eq(stackItemTags.itemId, itemId));
    if (tagIds.length)
      await ex
        .insert(stackItemTags)
        .values(tagIds.map((tagId) => ({ itemId, tagId })))
        .onConflictDoNothing();
  },

  async attachToItem(ex: Executor, itemId: string, tagId: string): Promise<void> {
    await ex.insert(stackItemTags).values({ itemId, tagId }).onConflictDoNothing();
  },

  async detachFromItem(ex: Executor, itemId: string, tagId: string): Promise<void> {
    await ex.delete(stackItemTags).where(and(eq(stackItemTags.itemId, itemId), eq(stackItemTags.tagId, tagId)));
  },

  /** The tags of each of these alerts (one query for a page). */
  async ofAlerts(ex: Executor, alertIds: string[]): Promise<Map<string, TagRow[]>> {
    if (!alertIds.length) return new Map();
    const rows = await ex
      .select({ ownerId: alertTags.alertId, tag: tags })
      .from(alertTags)
      .innerJoin(tags, eq(tags.id, alertTags.tagId))
      .where(inArray(alertTags.alertId, alertIds))
      .orderBy(asc(sql`lower(${tags.name})`));
    return groupTags(rows);
  },

  async attachToCase(ex: Executor, caseId: string, tagId: string): Promise<boolean> {
    return (await ex.insert(caseTags).values({ caseId, tagId }).onConflictDoNothing().returning({ caseId: caseTags.caseId })).length > 0;
  },

  async detachFromCase(ex: Executor, caseId: string, tagId: string): Promise<boolean> {
    return (
      (
        await ex
          .delete(caseTags)
          .where(and(eq(caseTags.caseId, caseId), eq(caseTags.tagId, tagId)))
          .returning({ caseId: caseTags.caseId })
      ).length > 0
    );
  },

  /** The tags of each of these cases (one query for a page). */
  async ofCases(ex: Executor, caseIds: string[]): Promise<Map<string, TagRow[]>> {
    if (!caseIds.length) return new Map();
    const rows = await ex
      .select({ ownerId: caseTags.caseId, tag: tags })
      .from(caseTags)
      .innerJoin(tags, eq(tags.id, caseTags.tagId))
      .where(inArray(caseTags.caseId, caseIds))
      .orderBy(asc(sql`lower(${tags.name})`));
    return groupTags(rows);
  },

  /** The tags of each of these stack items. */
  async ofItems(ex: Executor, itemIds: string[]): Promise<Map<string, TagRow[]>> {
    if (!itemIds.length) return new Map();
    const rows = await ex
      .select({ ownerId: stackItemTags.itemId, tag: tags })
      .from(stackItemTags)
      .innerJoin(tags, eq(tags.id, stackItemTags.tagId))
      .where(inArray(stackItemTags.itemId, itemIds))
      .orderBy(asc(sql`lower(${tags.name})`));
    return groupTags(rows);
  },
};

function groupTags(rows: { ownerId: string; tag: TagRow }[]): Map<string, TagRow[]> {
  const out = new Map<string, TagRow[]>();
  for (const r of rows) out.set(r.ownerId, [...(out.get(r.ownerId) ?? []), r.tag]);
  return out;
}

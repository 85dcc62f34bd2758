import { and, asc, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Executor } from "../../platform/db/client.js";
import { rowsOf } from "../../platform/db/sql.js";
import { stackItems, stacks, type StackItemType } from "../../platform/db/schema/index.js";
import type { ItemKeys } from "../../matching/items.js";

export type StackRow = typeof stacks.$inferSelect;
export type StackItemRow = typeof stackItems.$inferSelect;

export interface NewItem {
  itemType: StackItemType;
  value: string;
  minSeverity: string | null;
  keys: ItemKeys;
}

/** A keyword's words as lexemes, as the CVE search column makes them (`simple` configuration). */
const WORDS = (text: SQL) => sql`case when ${text} is null then null else tsvector_to_array(to_tsvector('simple', ${text})) end`;
/** Its longest word (ties: the first alphabetically), by which a CVE finds the item. */
const ANCHOR = sql`(select w from unnest(k.words) w order by length(w) desc, w limit 1)`;

/** SQL of stacks and their items; every method takes the project it works within. */
export const stacksRepository = {
  async list(ex: Executor, projectId: string): Promise<StackRow[]> {
    return ex.select().from(stacks).where(eq(stacks.projectId, projectId)).orderBy(asc(stacks.createdAt), asc(stacks.id));
  },

  async get(ex: Executor, projectId: string, id: string): Promise<StackRow | undefined> {
    const [row] = await ex
      .select()
      .from(stacks)
      .where(and(eq(stacks.projectId, projectId), eq(stacks.id, id)));
    return row;
  },

  async insert(ex: Executor, s: { orgId: string; projectId: string; name: string }): Promise<StackRow> {
    const [row] = await ex.insert(stacks).values(s).returning();
    return row!;
  },

  async rename(ex: Executor, projectId: string, id: string, name: string): Promise<StackRow | undefined> {
    const [row] = await ex
      .update(stacks)
      .set({ name })
      .where(and(eq(stacks.projectId, projectId), eq(stacks.id, id)))
      .returning();
    return row;
  },

  async delete(ex: Executor, projectId: string, id: string): Promise<boolean> {
    return (
      (
        await ex
          .delete(stacks)
          .where(and(eq(stacks.projectId, projectId), eq(stacks.id, id)))
          .returning({ id: stacks.id })
      ).length > 0
    );
  },

  /** The items of these stacks, oldest first. */
  async items(ex: Executor, stackIds: string[]): Promise<StackItemRow[]> {
    if (!stackIds.length) return [];
    return ex.select().from(stackItems).where(inArray(stackItems.stackId, stackIds)).orderBy(asc(stackItems.createdAt), asc(stackItems.id));
  },

  async item(ex: Executor, stackId: string, id: string): Promise<StackItemRow | undefined> {
    const [row] = await ex
      .select()
      .from(stackItems)
      .where(and(eq(stackItems.stackId, stackId), eq(stackItems.id, id)));
    return row;
  },

  /** Inserts items in one statement; a keyword's words become lexemes as the CVE search column makes them. */
  async insertItems(ex: Executor, stackId: string, projectId: string, items: NewItem[]): Promise<StackItemRow[]> {
    if (!items.length) return [];
    const rows = items.map((it, ord) => ({
      ord,
      item_type: it.itemType,
      value: it.value,
      min_severity: it.minSeverity,
      match_vendor: it.keys.matchVendor,
      match_product: it.keys.matchProduct,
      match_version: it.keys.matchVersion,
      match_ecosystem: it.keys.matchEcosystem,
      match_cpe_product: it.keys.matchCpeProduct,
      keyword: it.keys.keywordText,
      match_cve: it.keys.matchCve,
    }));
    const inserted = await rowsOf<{ id: string }>(
      ex,
      sql`
      insert into stack_items (stack_id, project_id, item_type, value, min_severity, match_vendor, match_product, match_version,
        match_ecosystem, match_cpe_product, match_words, match_anchor, match_cve, created_at)
      select ${stackId}::uuid, ${projectId}::uuid, x.item_type, x.value, x.min_severity, x.match_vendor, x.match_product, x.match_version,
        x.match_ecosystem, x.match_cpe_product, k.words, ${ANCHOR}, x.match_cve, clock_timestamp() + x.ord * interval '1 microsecond'
      from json_to_recordset(${JSON.stringify(rows)}::json) as x(ord int, item_type text, value text, min_severity text, match_vendor text,
        match_product text, match_version text, match_ecosystem text, match_cpe_product text, keyword text, match_cve text)
      cross join lateral (select ${WORDS(sql`x.keyword`)} as words) k
      order by x.ord
      returning id`,
    );
    return ex
      .select()
      .from(stackItems)
      .where(
        inArray(
          stackItems.id,
          inserted.map((r) => r.id),
        ),
      )
      .orderBy(asc(stackItems.createdAt));
  },

  /** Rewrites an item's value, type, keys and threshold. */
  async updateItem(ex: Executor, stackId: string, id: string, it: NewItem): Promise<StackItemRow | undefined> {
    const updated = await rowsOf(
      ex,
      sql`
      update stack_items set item_type = ${it.itemType}, value = ${it.value}, min_severity = ${it.minSeverity},
        match_vendor = ${it.keys.matchVendor}, match_product = ${it.keys.matchProduct}, match_version = ${it.keys.matchVersion},
        match_ecosystem = ${it.keys.matchEcosystem}, match_cpe_product = ${it.keys.matchCpeProduct}, match_cve = ${it.keys.matchCve}, match_words = k.words, match_anchor = ${ANCHOR}
      from (select ${WORDS(sql`${it.keys.keywordText}::text`)} as words) k
      where stack_id = ${stackId} and id = ${id} returning id`,
    );
    return updated.length ? this.item(ex, stackId, id) : undefined;
  },

  async deleteItem(ex: Executor, stackId: string, id: string): Promise<boolean> {
    return (
      (
        await ex
          .delete(stackItems)
          .where(and(eq(stackItems.stackId, stackId), eq(stackItems.id, id)))
          .returning({ id: stackItems.id })
      ).length > 0
    );
  },

  /** Stack items of the project (for its statistics). */
  async countInProject(ex: Executor, projectId: string): Promise<number> {
    return ex.$count(stackItems, eq(stackItems.projectId, projectId));
  },
};

import { and, asc, eq, ilike, inArray, sql, type SQL } from "drizzle-orm";
import type { Executor } from "../../platform/db/client.js";
import { likeContains, pgArray, rowsOf } from "../../platform/db/sql.js";
import { stackItems, stacks, type StackItemType } from "../../platform/db/schema/index.js";
import type { ItemKeys } from "../../matching/items.js";

export type StackRow = typeof stacks.$inferSelect;
export type StackItemRow = typeof stackItems.$inferSelect;

export interface NewItem {
  itemType: StackItemType;
  value: string;
  minSeverity: string | null;
  keys: ItemKeys;
  /** An SBOM's item: its identity within the SBOM (the purl or CPE without version). */
  sbomKey?: string;
}

/** An SBOM's item as the difference of an upload reads it. */
export interface SbomItemRow {
  id: string;
  itemType: StackItemType;
  value: string;
  sbomKey: string;
  version: string | null;
}

/** Rows per insert or update statement: a 50,000-item SBOM is written in 10 (its JSON parameter stays under ~2 MB). */
const BATCH = 5000;

function itemRecords(items: NewItem[]) {
  return items.map((it, ord) => ({
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
    sbom_key: it.sbomKey ?? null,
  }));
}

const RECORD = sql`x(ord int, item_type text, value text, min_severity text, match_vendor text, match_product text, match_version text,
  match_ecosystem text, match_cpe_product text, keyword text, match_cve text, sbom_key text)`;

/** Inserts items in one statement (in their order); returns their ids in that order. */
async function insertRows(ex: Executor, stackId: string, projectId: string, sbomId: string | null, items: NewItem[]): Promise<string[]> {
  const inserted = await rowsOf<{ id: string }>(
    ex,
    sql`
    insert into stack_items (stack_id, project_id, item_type, value, min_severity, match_vendor, match_product, match_version,
      match_ecosystem, match_cpe_product, match_words, match_anchor, match_cve, sbom_id, sbom_key, created_at)
    select ${stackId}::uuid, ${projectId}::uuid, x.item_type, x.value, x.min_severity, x.match_vendor, x.match_product, x.match_version,
      x.match_ecosystem, x.match_cpe_product, k.words, ${ANCHOR}, x.match_cve, ${sbomId}::uuid, x.sbom_key,
      clock_timestamp() + x.ord * interval '1 microsecond'
    from json_to_recordset(${JSON.stringify(itemRecords(items))}::json) as ${RECORD}
    cross join lateral (select ${WORDS(sql`x.keyword`)} as words) k
    order by x.ord
    returning id, created_at`,
  );
  return inserted.map((r) => r.id);
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

  /** The project's stack, locked for the transaction (SBOM uploads into one stack follow each other). */
  async lock(ex: Executor, projectId: string, id: string): Promise<StackRow | undefined> {
    const [row] = await ex
      .select()
      .from(stacks)
      .where(and(eq(stacks.projectId, projectId), eq(stacks.id, id)))
      .for("update");
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
    const ids = await insertRows(ex, stackId, projectId, null, items);
    return ex.select().from(stackItems).where(inArray(stackItems.id, ids)).orderBy(asc(stackItems.createdAt));
  },

  /** Inserts an SBOM's items (each with its sbomKey), in batches; returns their ids in order. */
  async insertSbomItems(ex: Executor, stackId: string, projectId: string, sbomId: string, items: NewItem[]): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < items.length; i += BATCH)
      ids.push(...(await insertRows(ex, stackId, projectId, sbomId, items.slice(i, i + BATCH))));
    return ids;
  },

  /** The items of an SBOM, by identity and version (the version as the matcher keys it). */
  async sbomItems(ex: Executor, sbomId: string): Promise<SbomItemRow[]> {
    return rowsOf<SbomItemRow>(
      ex,
      sql`select id, item_type as "itemType", value, sbom_key as "sbomKey", match_version as version from stack_items
        where sbom_id = ${sbomId}::uuid order by created_at, id`,
    );
  },

  /** Rewrites items in place (value and keys; id, tags and alert links kept), in batches. */
  async rewriteItems(ex: Executor, stackId: string, changes: { id: string; item: NewItem }[]): Promise<void> {
    for (let i = 0; i < changes.length; i += BATCH) {
      const part = changes.slice(i, i + BATCH);
      const records = itemRecords(part.map((c) => c.item)).map((r, n) => ({ ...r, id: part[n]!.id }));
      await ex.execute(sql`
        update stack_items s set item_type = x.item_type, value = x.value, match_vendor = x.match_vendor, match_product = x.match_product,
          match_version = x.match_version, match_ecosystem = x.match_ecosystem, match_cpe_product = x.match_cpe_product,
          match_cve = x.match_cve, match_words = k.words, match_anchor = ${ANCHOR}, sbom_key = coalesce(x.sbom_key, s.sbom_key)
        from json_to_recordset(${JSON.stringify(records)}::json) as x(id uuid, ord int, item_type text, value text, min_severity text,
          match_vendor text, match_product text, match_version text, match_ecosystem text, match_cpe_product text, keyword text,
          match_cve text, sbom_key text)
        cross join lateral (select ${WORDS(sql`x.keyword`)} as words) k
        where s.stack_id = ${stackId}::uuid and s.id = x.id`);
    }
  },

  /** Deletes items of a stack by id; returns how many. */
  async deleteItems(ex: Executor, stackId: string, ids: string[]): Promise<number> {
    let n = 0;
    for (let i = 0; i < ids.length; i += BATCH) {
      const rows = await rowsOf(
        ex,
        sql`delete from stack_items where stack_id = ${stackId}::uuid and id = any(${pgArray(ids.slice(i, i + BATCH))}::uuid[]) returning id`,
      );
      n += rows.length;
    }
    return n;
  },

  /** The ids of an SBOM's items (to re-decide their alerts before they go). */
  async sbomItemIds(ex: Executor, sbomId: string): Promise<string[]> {
    return (await rowsOf<{ id: string }>(ex, sql`select id from stack_items where sbom_id = ${sbomId}::uuid`)).map((r) => r.id);
  },

  /** How many items a stack holds (all, or an SBOM's). */
  async countItems(ex: Executor, stackId: string, sbomId?: string): Promise<number> {
    return ex.$count(stackItems, and(eq(stackItems.stackId, stackId), sbomId === undefined ? undefined : eq(stackItems.sbomId, sbomId)));
  },

  /** A page of a stack's items, oldest first, filtered (value contains q, type, SBOM), and the filtered total. */
  async pageItems(
    ex: Executor,
    stackId: string,
    f: { q?: string; itemType?: StackItemType; sbomId?: string },
    offset: number,
    limit: number,
  ): Promise<{ rows: StackItemRow[]; total: number }> {
    const where = and(
      eq(stackItems.stackId, stackId),
      f.q === undefined ? undefined : ilike(stackItems.value, likeContains(f.q)),
      f.itemType === undefined ? undefined : eq(stackItems.itemType, f.itemType),
      f.sbomId === undefined ? undefined : eq(stackItems.sbomId, f.sbomId),
    );
    const rows = await ex
      .select()
      .from(stackItems)
      .where(where)
      .orderBy(asc(stackItems.createdAt), asc(stackItems.id))
      .offset(offset)
      .limit(limit);
    return { rows, total: await ex.$count(stackItems, where) };
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

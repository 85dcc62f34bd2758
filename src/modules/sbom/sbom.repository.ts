import { and, asc, eq, sql } from "drizzle-orm";
import type { Executor } from "../../platform/db/client.js";
import { sbomInventory, stackSboms, type SbomFormat } from "../../platform/db/schema/index.js";
import { likeContains, pgArray, rowsOf } from "../../platform/db/sql.js";

export type InventoryRow = typeof sbomInventory.$inferSelect;
export type InventoryEntry = Omit<InventoryRow, "sbomId" | "ord">;

const INVENTORY_BATCH = 2000;

export type StackSbomRow = typeof stackSboms.$inferSelect;

/** What a loaded document says of itself (written on each upload). */
export interface SbomFacts {
  format: SbomFormat;
  specVersion: string;
  encoding: string;
  documentVersion: number | null;
  name: string | null;
  componentCount: number;
  /** Faults of a document loaded leniently (0 and none: valid). */
  faultCount: number;
  faults: { at: string; message: string }[];
}

/** SQL of the SBOMs loaded in stacks; every method takes the stack (the service checked it is the project's). */
export const sbomRepository = {
  async list(ex: Executor, stackId: string): Promise<StackSbomRow[]> {
    return ex.select().from(stackSboms).where(eq(stackSboms.stackId, stackId)).orderBy(asc(stackSboms.createdAt), asc(stackSboms.id));
  },

  async get(ex: Executor, stackId: string, id: string): Promise<StackSbomRow | undefined> {
    const [row] = await ex
      .select()
      .from(stackSboms)
      .where(and(eq(stackSboms.stackId, stackId), eq(stackSboms.id, id)));
    return row;
  },

  async byKey(ex: Executor, stackId: string, documentKey: string): Promise<StackSbomRow | undefined> {
    const [row] = await ex
      .select()
      .from(stackSboms)
      .where(and(eq(stackSboms.stackId, stackId), eq(stackSboms.documentKey, documentKey)));
    return row;
  },

  async insert(
    ex: Executor,
    s: { orgId: string; projectId: string; stackId: string; documentKey: string } & SbomFacts,
  ): Promise<StackSbomRow> {
    const [row] = await ex
      .insert(stackSboms)
      .values({ ...s, itemCount: 0 })
      .returning();
    return row!;
  },

  /** A new upload of the document: its facts, and the items it now holds. */
  async update(ex: Executor, id: string, facts: SbomFacts & { itemCount: number }): Promise<StackSbomRow> {
    const [row] = await ex
      .update(stackSboms)
      .set({ ...facts, updatedAt: sql`now()` })
      .where(eq(stackSboms.id, id))
      .returning();
    return row!;
  },

  /** The SBOM's inventory (components that made no item) replaced by `entries`, in document order. */
  async replaceInventory(ex: Executor, sbomId: string, entries: InventoryEntry[]): Promise<void> {
    await ex.delete(sbomInventory).where(eq(sbomInventory.sbomId, sbomId));
    for (let i = 0; i < entries.length; i += INVENTORY_BATCH) {
      await ex.insert(sbomInventory).values(entries.slice(i, i + INVENTORY_BATCH).map((e, n) => ({ ...e, sbomId, ord: i + n })));
    }
  },

  /** The inventory of every SBOM of a stack, in document order, each keyed `<sbom id>:<ord>`. */
  async inventoryOfStack(ex: Executor, stackId: string): Promise<(InventoryEntry & { key: string })[]> {
    return rowsOf(
      ex,
      sql`select v.sbom_id || ':' || v.ord as key, v.ref, v.name, v.version, v.purl, v.cpe, v.raison
        from sbom_inventory v join stack_sboms s on s.id = v.sbom_id where s.stack_id = ${stackId}::uuid order by s.created_at, s.id, v.ord`,
    );
  },

  /** How many inventory components each SBOM holds. */
  async inventoryCounts(ex: Executor, sbomIds: string[]): Promise<Map<string, number>> {
    if (!sbomIds.length) return new Map();
    const rows = await rowsOf<{ sbom_id: string; n: number }>(
      ex,
      sql`select sbom_id, count(*)::int as n from sbom_inventory where sbom_id = any(${pgArray(sbomIds)}::uuid[]) group by sbom_id`,
    );
    return new Map(rows.map((r) => [r.sbom_id, r.n]));
  },

  /** A page of an SBOM's inventory, `q` found in its name, version, purl or CPE (contains, case-insensitive). */
  async inventoryPage(
    ex: Executor,
    sbomId: string,
    q: string | undefined,
    page: number,
    pageSize: number,
  ): Promise<{ rows: InventoryRow[]; total: number }> {
    const found = q
      ? sql`and (name ilike ${likeContains(q)} or version ilike ${likeContains(q)} or purl ilike ${likeContains(q)} or cpe ilike ${likeContains(q)})`
      : sql``;
    const rows = await rowsOf<InventoryRow & { total: number }>(
      ex,
      sql`select sbom_id as "sbomId", ord, ref, name, version, purl, cpe, raison, count(*) over ()::int as total
        from sbom_inventory where sbom_id = ${sbomId}::uuid ${found} order by ord limit ${pageSize} offset ${(page - 1) * pageSize}`,
    );
    const total = rows[0]?.total ?? (page > 1 ? (await this.inventoryPage(ex, sbomId, q, 1, 1)).total : 0);
    return { rows: rows.map(({ total: _t, ...r }) => r), total };
  },

  async delete(ex: Executor, stackId: string, id: string): Promise<boolean> {
    const rows = await ex
      .delete(stackSboms)
      .where(and(eq(stackSboms.stackId, stackId), eq(stackSboms.id, id)))
      .returning({ id: stackSboms.id });
    return rows.length > 0;
  },
};

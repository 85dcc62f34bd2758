import { and, asc, eq, sql } from "drizzle-orm";
import type { Executor } from "../../platform/db/client.js";
import { stackSboms, type SbomFormat } from "../../platform/db/schema/index.js";

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

  async delete(ex: Executor, stackId: string, id: string): Promise<boolean> {
    const rows = await ex
      .delete(stackSboms)
      .where(and(eq(stackSboms.stackId, stackId), eq(stackSboms.id, id)))
      .returning({ id: stackSboms.id });
    return rows.length > 0;
  },
};

import { type SQL, sql } from "drizzle-orm";
import type { Executor } from "./client.js";

/** The rows of a raw statement (both drivers answer `{rows}`). */
export async function rowsOf<T>(ex: Executor, query: SQL): Promise<T[]> {
  return ((await ex.execute(query)) as unknown as { rows: T[] }).rows;
}

/** A PostgreSQL array literal of strings, sent as one parameter (cast it: `${pgArray(ids)}::text[]`). */
export function pgArray(items: string[]): string {
  // Every element quoted: URLs hold commas and braces.
  return `{${items.map((s) => `"${s.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(",")}}`;
}

/**
 * A LIKE/ILIKE pattern matching `term` anywhere, its `%`, `_` and `\` taken literally (backslash is
 * PostgreSQL's default LIKE escape, on PGlite too): `q=_` finds an underscore, not every row.
 * Use it for every search term: `${column} ilike ${likeContains(term)}`.
 */
export function likeContains(term: string): string {
  return `%${likeLiteral(term)}%`;
}

/** A LIKE pattern matching what starts with `term` (taken literally, as likeContains). */
export function likeStartsWith(term: string): string {
  return `${likeLiteral(term)}%`;
}

function likeLiteral(term: string): string {
  return term.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Runs a batched purge statement (each deletes at most `batch` rows, a short transaction) until one
 * deletes fewer: nothing is left. The total deleted.
 */
export async function purgeInBatches(step: () => Promise<number>, batch: number): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await step();
    total += n;
    if (n < batch) return total;
  }
}

/**
 * After a bulk write of `written` rows into `table` (inside the writing transaction, before the
 * queries that read them): ANALYZE it when autovacuum's own rule would (50 rows + 10 % of the rows
 * the statistics last counted), now rather than a minute after the commit. The matcher's candidate
 * queries read stack_items' statistics: planned on those of a table that held a few typed items,
 * a product's 1,030-package SBOM took 19.8 s to match instead of 0.28 s (issue 33). ANALYZE in a
 * transaction counts the rows it inserted; its lock (SHARE UPDATE EXCLUSIVE) is held to the commit,
 * so two such writes to the same table take turns, which the stack lock made them do already
 * within a project. Returns whether it analyzed.
 */
export async function analyzeAfterBulkWrite(ex: Executor, table: string, written: number): Promise<boolean> {
  if (written < 50) return false;
  const [stats] = await rowsOf<{ n: number }>(
    ex,
    sql`select greatest(reltuples, 0)::float8 as n from pg_class where oid = ${table}::regclass`,
  );
  if (written < 50 + 0.1 * Number(stats?.n ?? 0)) return false;
  await ex.execute(sql.raw(`analyze ${table}`));
  return true;
}

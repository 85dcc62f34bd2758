import type { SQL } from "drizzle-orm";
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

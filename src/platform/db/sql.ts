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

import { sql } from "drizzle-orm";
import type { Executor } from "./client.js";
import { pgArray, rowsOf } from "./sql.js";

/**
 * Data versions: a counter per data set ("cves", "articles", "alerts:<project id>"), bumped in
 * every transaction that changes the set. A cached figure derived from a set (a list total) is
 * valid while the counter is the one read before the figure was computed.
 */
/** The data version of a project's alerts (cached list counts hold while it does not change). */
export const alertsVersion = (projectId: string) => `alerts:${projectId}`;

/** The data version of a project's cases (their list counts are cached under it). */
export const casesVersion = (projectId: string) => `cases:${projectId}`;

/**
 * The data version of a stack's items: bumped by every item added, changed or removed and every
 * SBOM loaded or removed; the stack's CycloneDX export gives it as the document's `version`.
 */
export const stackVersion = (stackId: string) => `stack:${stackId}`;

export async function bumpVersions(ex: Executor, names: string[]): Promise<void> {
  if (!names.length) return;
  // In name order: concurrent transactions lock the counters in one order.
  const sorted = [...new Set(names)].sort();
  await ex.execute(sql`
    insert into data_versions (name, version) select n, 1 from unnest(${pgArray(sorted)}::text[]) as n
    on conflict (name) do update set version = data_versions.version + 1`);
}

export async function readVersion(ex: Executor, name: string): Promise<number> {
  const [row] = await rowsOf<{ version: number }>(ex, sql`select version::int from data_versions where name = ${name}`);
  return row?.version ?? 0;
}

/** Figures cached per key while their data version holds; the oldest keys go first past `max`. */
export class VersionedCache<V> {
  private readonly entries = new Map<string, { version: number; value: V }>();
  constructor(private readonly max = 500) {}

  private get(key: string, version: number): V | undefined {
    const e = this.entries.get(key);
    return e && e.version === version ? e.value : undefined;
  }

  /** The cached value, or `compute()` stored under this version. */
  async through(key: string, version: number, compute: () => Promise<V>): Promise<V> {
    const hit = this.get(key, version);
    if (hit !== undefined) return hit;
    const value = await compute();
    this.set(key, version, value);
    return value;
  }

  private set(key: string, version: number, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { version, value });
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }
}

/**
 * The sum of several data versions: a valid version of a figure derived from all those sets, since
 * every counter only grows (any bump changes the sum).
 */
export async function readVersionSum(ex: Executor, names: string[]): Promise<number> {
  const [row] = await rowsOf<{ version: number }>(
    ex,
    sql`select coalesce(sum(version), 0)::float8 as version from data_versions where name = any(${pgArray(names)}::text[])`,
  );
  return row?.version ?? 0;
}

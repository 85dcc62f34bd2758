import { sql } from "drizzle-orm";
import type { Db } from "../platform/db/client.js";
import { feedSourceOf, type Source } from "./importers/index.js";
import { expandPaths } from "./reader.js";
import { sniff, Tally, type ImportOptions, type ImportResult } from "./records.js";

const ANALYZE_AFTER = 5000;

/**
 * Imports files or directories of one source (see ImportResult for what it reports): every file
 * is recognised and read through whole before the source's importer writes anything.
 */
export async function importFeed(db: Db, source: Source, paths: string[], opts: ImportOptions = {}): Promise<ImportResult> {
  const feed = feedSourceOf(source);
  const files = expandPaths(paths, feed.endings);
  const tally = new Tally(source, files.length, opts.progress);
  await sniff(files, source, feed.sniff);
  await feed.importFiles(db, files, tally, opts);
  // After a bulk load the planner's statistics are stale until autovacuum comes by: the list
  // queries then pick poor plans (a vendor page took 50 ms instead of 2 ms on the full corpus).
  // The statistics' facts follow cves (triggers of migration 0020).
  const tables = feed.tables.includes("cves") ? [...feed.tables, "cve_facts"] : feed.tables;
  if (tally.result.inserted + tally.result.updated >= ANALYZE_AFTER) await db.execute(sql.raw(`analyze ${tables.join(", ")}`));
  return tally.done();
}

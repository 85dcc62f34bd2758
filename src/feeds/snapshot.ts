import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Logger } from "pino";
import type { Db } from "../platform/db/client.js";
import { cves } from "../platform/db/schema/index.js";
import { importFeed } from "./import.js";
import type { ImportResult, Source } from "./pipeline.js";

/** The bundled real data (fixtures/snapshot, made by scripts/make-snapshot.mjs): the same path from src/ and dist/. */
export const SNAPSHOT_DIR = fileURLToPath(new URL("../../fixtures/snapshot", import.meta.url));

/** Import order: records first, then what enriches them. */
const ORDER: Source[] = ["cve5", "nvd", "kev", "epss", "poc", "osv", "certfr", "rss"];

/**
 * On a database that holds no CVE, imports the bundled snapshot so that a new user sees real
 * data at once; null when CVEs are already there. A source that fails is logged and skipped:
 * the service starts anyway.
 */
export async function importSnapshotIfEmpty(db: Db, logger: Logger, dir = SNAPSHOT_DIR): Promise<ImportResult[] | null> {
  if ((await db.select({ id: cves.cveId }).from(cves).limit(1)).length) return null;
  const results: ImportResult[] = [];
  for (const source of ORDER) {
    const path = join(dir, source);
    if (!existsSync(path)) {
      logger.warn({ source, path }, "instantané : source absente, ignorée");
      continue;
    }
    try {
      const r = await importFeed(db, source, [path]);
      results.push(r);
      logger.info({ source, read: r.read, inserted: r.inserted, skipped: r.skipped, seconds: r.seconds }, "instantané importé");
    } catch (err) {
      logger.error({ err, source }, "instantané : import en échec, source ignorée");
    }
  }
  return results;
}

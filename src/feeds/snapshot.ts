import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { Db } from "../platform/db/client.js";
import { cves, snapshotProgress } from "../platform/db/schema/index.js";
import { rowsOf } from "../platform/db/sql.js";
import { importFeed } from "./import.js";
import { SOURCES, type Source } from "./importers/index.js";
import type { ImportResult } from "./records.js";

/** The bundled real data (fixtures/snapshot, made by scripts/make-snapshot.mjs): the same path from src/ and dist/. */
export const SNAPSHOT_DIR = fileURLToPath(new URL("../../fixtures/snapshot", import.meta.url));

/**
 * Imports the bundled snapshot (each source's directory, in the registry's order) so that a new
 * user sees real data at once, and finishes one that a crash interrupted. Each source's import is recorded in `snapshot_progress` (started, then
 * completed), so a start decides from the record:
 * - no record, no CVE: a first start, every source is imported;
 * - records, some not completed: the previous start was interrupted; the sources not completed
 *   are imported again (imports are idempotent), and the log says the snapshot resumed;
 * - every source completed: nothing to do (null);
 * - no record but CVEs (a database from before the record existed): if every CVE source row came
 *   from the snapshot's own files, it is a snapshot of that time, perhaps interrupted: it is
 *   imported again in full (idempotent; unchanged records are skipped); else the database holds
 *   data imported otherwise and no snapshot is added to it (null).
 * A source that fails is logged and left not completed (retried at the next start): the service
 * starts anyway. Returns the results of the sources imported by this call.
 */
export async function importSnapshotIfEmpty(db: Db, logger: Logger, dir = SNAPSHOT_DIR): Promise<ImportResult[] | null> {
  const rows = await db.select({ source: snapshotProgress.source, completedAt: snapshotProgress.completedAt }).from(snapshotProgress);
  const completed = new Set(rows.filter((r) => r.completedAt).map((r) => r.source));
  const pending = SOURCES.filter((s) => !completed.has(s));
  if (!pending.length) return null;
  // A source never started by a database whose snapshot was imported is one added since (eol): imported now.
  const interrupted = pending.filter((s) => rows.some((r) => r.source === s));
  if (rows.length && interrupted.length) {
    logger.warn(
      { completed: SOURCES.filter((s) => completed.has(s)), resume_from: pending[0] },
      `instantané interrompu : reprise à la source ${pending[0]}`,
    );
  } else if (rows.length) {
    logger.info({ sources: pending }, "instantané : source ajoutée depuis le dernier import, importée");
  } else if ((await db.select({ id: cves.cveId }).from(cves).limit(1)).length) {
    if (!(await onlySnapshotData(db, dir))) return null;
    logger.warn(
      "instantané : base remplie par un instantané antérieur au suivi de progression, peut-être interrompu : import repris en entier",
    );
  } else {
    logger.info({ sources: SOURCES }, "instantané : base vide, import des données réelles fournies");
  }

  const results: ImportResult[] = [];
  for (const source of pending) {
    const path = join(dir, source);
    if (!existsSync(path)) {
      logger.warn({ source, path }, "instantané : source absente, ignorée");
      await record(db, source, "completed", { absent: true });
      continue;
    }
    try {
      await record(db, source, "started");
      const r = await importFeed(db, source, [path]);
      results.push(r);
      await record(db, source, "completed", { read: r.read, inserted: r.inserted, updated: r.updated, skipped: r.skipped });
      logger.info({ source, read: r.read, inserted: r.inserted, skipped: r.skipped, seconds: r.seconds }, "instantané importé");
    } catch (err) {
      logger.error({ err, source }, "instantané : import en échec, source ignorée (reprise au prochain démarrage)");
    }
  }
  return results;
}

/** What the bundled snapshot brought to a source: when it was imported, how many records, how recent its data. */
export interface SnapshotStatus {
  imported_at: Date;
  records: number;
  /** The publisher's time of the newest record the source holds (a day), null when its records carry none (trickest PoCs). */
  data_until: string | null;
}

/**
 * The snapshot's import of each source that completed it, with the newest publisher date the
 * source's data holds: until a first sync, that is the snapshot's date (the feeds screen says so
 * instead of "never synced"). One statement: each date is one aggregate over an indexed column.
 */
export async function snapshotStatus(db: Db): Promise<Map<string, SnapshotStatus>> {
  const rows = await rowsOf<{
    source: string;
    completed_at: Date | string;
    stats: { read?: number; absent?: boolean } | null;
    data_until: string | null;
  }>(
    db,
    sql`select p.source, p.completed_at, p.stats, to_char(case p.source
          when 'cve5' then (select max(source_modified) from cve_sources where source = 'cve5')
          when 'nvd' then (select max(source_modified) from cve_sources where source = 'nvd')
          when 'kev' then (select max(source_modified) from cve_sources where source = 'kev')
          when 'epss' then (select max(score_date)::timestamptz from epss_current)
          when 'osv' then (select max(modified) from public_vulns where source <> 'certfr')
          when 'certfr' then (select max(modified) from public_vulns where source = 'certfr')
          when 'rss' then (select max(published_at) from articles)
          when 'eol' then (select max(latest_release_date)::timestamptz from eol_cycles)
        end at time zone 'UTC', 'YYYY-MM-DD') as data_until
        from snapshot_progress p where p.completed_at is not null`,
  );
  const out = new Map<string, SnapshotStatus>();
  for (const r of rows) {
    if (r.stats?.absent) continue;
    out.set(r.source, { imported_at: new Date(r.completed_at), records: r.stats?.read ?? 0, data_until: r.data_until });
  }
  return out;
}

async function record(db: Db, source: Source, step: "started" | "completed", stats?: Record<string, unknown>): Promise<void> {
  const values =
    step === "started"
      ? { source, startedAt: new Date(), completedAt: null, stats: null }
      : { source, completedAt: new Date(), stats: stats ?? null };
  await db.insert(snapshotProgress).values(values).onConflictDoUpdate({ target: snapshotProgress.source, set: values });
}

/** True when every CVE source row was read from one of the snapshot's files (by file name). */
async function onlySnapshotData(db: Db, dir: string): Promise<boolean> {
  const names = existsSync(dir)
    ? readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => e.name)
    : [];
  if (!names.length) return false;
  const list = sql.join(
    names.map((n) => sql`${n}`),
    sql`, `,
  );
  const other = await db.execute(sql`select 1 from cve_sources where file is null or file not in (${list}) limit 1`);
  return (other as unknown as { rows: unknown[] }).rows.length === 0;
}

import type { Logger } from "pino";
import type { FeedSettings } from "../config.js";
import type { Db } from "../platform/db/client.js";
import { purgeInBatches } from "../platform/db/sql.js";
import { createLogger } from "../platform/log.js";
import { importFeed } from "./import.js";
import type { Source } from "./importers/index.js";
import type { ImportOptions, ImportResult } from "./records.js";
import { importSnapshotIfEmpty, type SnapshotStatus, snapshotStatus } from "./snapshot.js";
import { feedStore } from "./store.js";
import type { NamedBy } from "./sync/publisher.js";
import { FeedSync, type SourceStatus, type SyncOutcome } from "./sync/sync.js";

/** Rows deleted per purge statement: each is a short transaction. */
const PURGE_BATCH = 5000;

/**
 * The one entry point to the feeds for the rest of the application: `feeds import`, `feeds sync`,
 * `feeds status` and GET /api/v1/feeds, the sync scheduler and the first-start snapshot all go through it.
 */
export class FeedsService {
  private readonly feedSync: FeedSync;

  constructor(
    private readonly db: Db,
    private readonly settings: FeedSettings,
    logger: Logger = createLogger("silent"),
    namedBy: NamedBy = {},
  ) {
    this.feedSync = new FeedSync(db, settings, logger, namedBy);
  }

  /** Imports files or directories of one source. */
  import(source: Source, paths: string[], opts?: ImportOptions): Promise<ImportResult> {
    return importFeed(this.db, source, paths, opts);
  }

  /** Syncs the given sources (all enabled ones by default) from their publishers now. */
  sync(only?: Source[], signal?: AbortSignal): Promise<SyncOutcome[]> {
    return this.feedSync.run(only, signal);
  }

  /** Syncs the sources whose next run has come (the scheduler). */
  syncDue(now: Date, signal?: AbortSignal): Promise<SyncOutcome[]> {
    return this.feedSync.runDue(now, signal);
  }

  /** When the next enabled source is due, or null when none is enabled. */
  nextDue(): Promise<Date | null> {
    return this.feedSync.nextDue();
  }

  /** Each source's sync state: addresses, checkpoints, last outcome, lag, next run. */
  status(now?: Date): Promise<SourceStatus[]> {
    return this.feedSync.status(now);
  }

  /** What the bundled snapshot brought to each source (see snapshotStatus). */
  snapshots(): Promise<Map<string, SnapshotStatus>> {
    return snapshotStatus(this.db);
  }

  /** Whether this configuration syncs the sources on their rhythm (VIGIE_FEEDS_SYNC). */
  get syncScheduled(): boolean {
    return this.settings.sync;
  }

  /** Deletes the EPSS scores past VIGIE_EPSS_HISTORY_DAYS, a batch per statement; returns how many. */
  async purgeEpssHistory(): Promise<number> {
    const start = await feedStore.epssHistoryStart(this.db, this.settings.epssHistoryDays);
    if (!start) return 0;
    return purgeInBatches(() => feedStore.purgeEpssScores(this.db, start, PURGE_BATCH), PURGE_BATCH);
  }

  /** Imports the bundled snapshot into an empty database, or finishes an interrupted one (null: nothing to do). */
  importSnapshotIfEmpty(logger: Logger, dir?: string): Promise<ImportResult[] | null> {
    return importSnapshotIfEmpty(this.db, logger, dir);
  }
}

import type { Logger } from "pino";
import type { Db } from "../platform/db/client.js";
import { importFeed } from "./import.js";
import type { Source } from "./importers/index.js";
import type { ImportOptions, ImportResult } from "./records.js";
import { importSnapshotIfEmpty } from "./snapshot.js";
import { FeedSync, type FeedSyncSettings, type SyncOutcome } from "./sync.js";

/**
 * The one entry point to the feeds for the rest of the application: `feeds import`, `feeds sync`,
 * the scheduled sync job and the first-start snapshot all go through it.
 */
export class FeedsService {
  private readonly feedSync: FeedSync;

  constructor(
    private readonly db: Db,
    config: FeedSyncSettings,
  ) {
    this.feedSync = new FeedSync(db, config);
  }

  /** Imports files or directories of one source. */
  import(source: Source, paths: string[], opts?: ImportOptions): Promise<ImportResult> {
    return importFeed(this.db, source, paths, opts);
  }

  /** Downloads the configured addresses (of `only`'s sources when given) and imports what changed. */
  sync(only?: Source[]): Promise<SyncOutcome[]> {
    return this.feedSync.run(only);
  }

  /** Imports the bundled snapshot into an empty database, or finishes an interrupted one (null: nothing to do). */
  importSnapshotIfEmpty(logger: Logger, dir?: string): Promise<ImportResult[] | null> {
    return importSnapshotIfEmpty(this.db, logger, dir);
  }
}

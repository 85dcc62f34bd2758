import type { Logger } from "pino";

/** What the scheduler drives (the feeds service). */
export interface Syncing {
  syncDue(now: Date, signal?: AbortSignal): Promise<unknown>;
  nextDue(): Promise<Date | null>;
}

/** The scheduler looks again at least this often (another process may have synced, a lease may have ended). */
const MAX_SLEEP_MS = 60_000;
const MIN_SLEEP_MS = 500;

/**
 * Runs each source when it is due, in the process that runs jobs (VIGIE_FEEDS_SYNC=on): sleeps until
 * the earliest next run of the enabled sources (at most a minute), syncs the due ones, and again.
 * Sources run one after the other (one import's memory at a time); the lease of each (FeedSync)
 * keeps two processes from syncing one source, whichever scheduler or command asks. A timer and not a
 * pg-boss cron: rhythms go below a minute (the freshness bench), and the next run is the database's
 * next_run_at, which a failure's backoff moves.
 */
export class FeedScheduler {
  private readonly abort = new AbortController();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly feeds: Syncing,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.schedule(0);
  }

  /** Stops: no new sync starts, the running one is aborted at its next unit and awaited. */
  async stop(): Promise<void> {
    this.abort.abort(new Error("arrêt du service"));
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private schedule(ms: number): void {
    if (this.abort.signal.aborted) return;
    this.timer = setTimeout(() => {
      this.running = this.tick();
    }, ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      await this.feeds.syncDue(new Date(), this.abort.signal);
    } catch (err) {
      if (!this.abort.signal.aborted) this.logger.warn({ err }, "feeds-sync : planification en échec (nouvel essai dans une minute)");
    }
    let next = MAX_SLEEP_MS;
    try {
      const due = await this.feeds.nextDue();
      if (due) next = due.getTime() - Date.now();
    } catch {
      // The database is away: look again in a minute.
    }
    this.schedule(Math.min(MAX_SLEEP_MS, Math.max(MIN_SLEEP_MS, next)));
  }
}

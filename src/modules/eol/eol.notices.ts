import type { Db } from "../../platform/db/client.js";
import { parisDate } from "../../platform/paris.js";
import { eolNoticesRepository as repo } from "./eol.repository.js";

/** What one run of the eol-notices job did. */
export interface EolNoticesResult {
  /** The Paris calendar day the run took as today. */
  today: string;
  /** `eol.approaching` notices (and events) written. */
  approaching: number;
  /** `eol.reached` notices (and events) written. */
  reached: number;
}

/**
 * The daily EOL notices: for each subscribed cycle, its end of life and end of active support
 * are announced `notify_before_*_days` before (eol.approaching) and on the day (eol.reached), in
 * Paris calendar days — the day is computed here (parisDate), whatever the server's or the
 * database's time zone, and handed to SQL as a date. Each notice is written once per
 * (subscription, cycle, kind, date), with its outbox event; a date changed upstream warns again.
 */
export class EolNotices {
  constructor(private readonly db: Db) {}

  /** One run at `now`, in one transaction under an advisory lock: a second run (or two at once) writes nothing more. */
  async run(now: Date): Promise<EolNoticesResult> {
    const today = parisDate(now);
    return this.db.transaction(async (tx) => {
      await repo.lock(tx);
      const rows = await repo.write(tx, today);
      return {
        today,
        approaching: rows.filter((r) => r.stage === "approaching").length,
        reached: rows.filter((r) => r.stage === "reached").length,
      };
    });
  }
}

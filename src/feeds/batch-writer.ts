import type { Db, Executor } from "../platform/db/client.js";
import { retryOnDeadlock } from "../platform/db/errors.js";
import { BATCH, BATCH_TEXT, type Tally } from "./records.js";
import { feedStore } from "./store.js";

const MAX_IN_FLIGHT = 2;

/** What a batch writer needs to know of its rows: identity, age, and the batch's SQL. */
interface BatchSpec<R> {
  key(row: R): string;
  modified(row: R): string | null;
  /** Writes one batch inside its transaction; returns the rows actually written. */
  write(tx: Executor, rows: R[]): Promise<{ inserted: boolean }[]>;
}

/**
 * Writes records in batches, each batch one transaction (a crash leaves every record before or
 * after a batch, never half-written). Up to two batches are in flight while the next one is
 * parsed: the importer waits on the database half of the time otherwise.
 */
export class BatchWriter<R> {
  private pending = new Map<string, R>();
  private pendingText = 0;
  private inflight: Promise<void>[] = [];
  constructor(
    private readonly db: Db,
    private readonly tally: Tally,
    private readonly spec: BatchSpec<R>,
  ) {}

  /** Adds a row; `text`: the length of the record text it was read from (a batch holds at most BATCH_TEXT). */
  async add(row: R, text = 0): Promise<void> {
    const key = this.spec.key(row);
    const prev = this.pending.get(key);
    // The same record twice in one batch: keep the newer; the other is counted unchanged (not written).
    if (prev) this.tally.result.unchanged++;
    if (!prev || (this.spec.modified(row) ?? "") >= (this.spec.modified(prev) ?? "")) this.pending.set(key, row);
    this.pendingText += text;
    if (this.pending.size >= BATCH || this.pendingText >= BATCH_TEXT) await this.launch();
  }

  /** Writes what is pending and waits for every batch. */
  async flush(): Promise<void> {
    await this.launch();
    while (this.inflight.length) await this.inflight.shift();
  }

  private async launch(): Promise<void> {
    if (!this.pending.size) return;
    // Rows in key order: two batches in flight lock shared rows in the same order (no deadlock).
    const rows = [...this.pending.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
    this.pending = new Map();
    this.pendingText = 0;
    const batch = retryOnDeadlock(() =>
      this.db.transaction(async (tx) => {
        const written = await this.spec.write(tx, rows);
        // Last, so that two batches in flight wait on this row only for the other's commit.
        if (written.length) await feedStore.bumpVersion(tx, "cves");
        return written;
      }),
    ).then((written) => {
      const inserted = written.filter((w) => w.inserted).length;
      this.tally.result.inserted += inserted;
      this.tally.result.updated += written.length - inserted;
      this.tally.result.unchanged += rows.length - written.length;
      this.tally.tick();
    });
    batch.catch(() => undefined); // awaited below or by flush(); not an unhandled rejection meanwhile
    this.inflight.push(batch);
    if (this.inflight.length >= MAX_IN_FLIGHT) await this.inflight.shift();
  }
}

/**
 * Group commit: the calls made while one batch is in flight (and those of the same turn of the
 * event loop) go together in the next batch, so N callers at once cost one transaction between
 * them instead of N. `many` does a batch, all or nothing, and answers in the items' order; when it
 * fails, each item of the batch is done alone with `one`, so a bad item fails only its own call and
 * the others are done exactly once (the failed batch wrote nothing). An error `shared` says is no
 * item's fault (the database connection lost) fails every call of the batch at once instead, and so
 * does every error when there is no `one` (batches whose items cannot be at fault).
 */
export class GroupCommit<I, O> {
  private queue: { item: I; resolve: (out: O) => void; reject: (err: unknown) => void }[] = [];
  private flushing = false;

  constructor(
    private readonly many: (items: I[]) => Promise<O[]>,
    private readonly one: ((item: I) => Promise<O>) | null,
    /** Items per batch at most. */
    private readonly max = 500,
    /** An error of the batch that redoing item by item would only repeat. */
    private readonly shared: (err: unknown) => boolean = () => false,
  ) {}

  run(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length) {
        // The calls made in this turn of the event loop join the batch.
        await new Promise((r) => setImmediate(r));
        const batch = this.queue.splice(0, this.max);
        let outs: O[];
        try {
          outs = await this.many(batch.map((b) => b.item));
        } catch (err) {
          const one = this.one;
          if (batch.length === 1 || !one || this.shared(err)) for (const b of batch) b.reject(err);
          // One at a time, in order: what made the batch fail fails only its own call.
          else for (const b of batch) await one(b.item).then(b.resolve, b.reject);
          continue;
        }
        batch.forEach((b, i) => b.resolve(outs[i]!));
      }
    } finally {
      this.flushing = false;
    }
  }
}

import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../platform/db/client.js";
import { feedCheckpoints, feedSources } from "../../platform/db/schema/index.js";

export type SourceRow = typeof feedSources.$inferSelect;
export type CheckpointRow = typeof feedCheckpoints.$inferSelect;

/** The SQL of the sync's state: leases, schedule and outcome per source, checkpoints per address. */
export class SyncState {
  constructor(private readonly db: Db) {}

  /**
   * Takes the source's lease for `seconds` unless another owner holds an unexpired one (one
   * statement: two processes asking at once, one wins). A killed holder is relieved when its lease ends.
   */
  async acquire(source: string, owner: string, seconds: number): Promise<boolean> {
    const rows = await this.db
      .insert(feedSources)
      .values({ source, leaseOwner: owner, leaseUntil: sql`now() + make_interval(secs => ${seconds})` })
      .onConflictDoUpdate({
        target: feedSources.source,
        set: { leaseOwner: owner, leaseUntil: sql`now() + make_interval(secs => ${seconds})` },
        setWhere: sql`${feedSources.leaseUntil} is null or ${feedSources.leaseUntil} < now() or ${feedSources.leaseOwner} = ${owner}`,
      })
      .returning({ source: feedSources.source });
    return rows.length === 1;
  }

  /** Extends the lease; false when it was lost (expired and taken by another). */
  async renew(source: string, owner: string, seconds: number): Promise<boolean> {
    const rows = await this.db
      .update(feedSources)
      .set({ leaseUntil: sql`now() + make_interval(secs => ${seconds})` })
      .where(and(eq(feedSources.source, source), eq(feedSources.leaseOwner, owner)))
      .returning({ source: feedSources.source });
    return rows.length === 1;
  }

  /** Gives the lease back without recording an attempt (a sync stopped by the service's shutdown). */
  async release(source: string, owner: string): Promise<void> {
    await this.db
      .update(feedSources)
      .set({ leaseOwner: null, leaseUntil: null })
      .where(and(eq(feedSources.source, source), eq(feedSources.leaseOwner, owner)));
  }

  /** Ends a sync: releases the lease and records its outcome. */
  async finish(
    source: string,
    owner: string,
    o: { ok: boolean; error: string | null; applied: number; attemptAt: Date },
  ): Promise<SourceRow | undefined> {
    const [row] = await this.db
      .update(feedSources)
      .set({
        leaseOwner: null,
        leaseUntil: null,
        lastAttemptAt: o.attemptAt,
        ...(o.ok
          ? { lastSuccessAt: o.attemptAt, lastError: null, failures: 0, failingSince: null, lastApplied: o.applied }
          : {
              lastError: o.error,
              failures: sql`${feedSources.failures} + 1`,
              failingSince: sql`coalesce(${feedSources.failingSince}, ${o.attemptAt.toISOString()}::timestamptz)`,
            }),
      })
      .where(and(eq(feedSources.source, source), eq(feedSources.leaseOwner, owner)))
      .returning();
    return row;
  }

  async sources(): Promise<SourceRow[]> {
    return this.db.select().from(feedSources);
  }

  async checkpoints(source?: string): Promise<CheckpointRow[]> {
    const q = this.db.select().from(feedCheckpoints);
    return source ? q.where(eq(feedCheckpoints.source, source)) : q;
  }

  async checkpoint(source: string, address: string): Promise<CheckpointRow | undefined> {
    const [row] = await this.db
      .select()
      .from(feedCheckpoints)
      .where(and(eq(feedCheckpoints.source, source), eq(feedCheckpoints.address, address)));
    return row;
  }

  /** Writes an address's checkpoint, adding the records applied since the last one. */
  async save(source: string, address: string, checkpoint: unknown, appliedUntil: Date | null, applied: number): Promise<void> {
    const values = { checkpoint, updatedAt: new Date(), ...(appliedUntil ? { appliedUntil } : {}) };
    await this.db
      .insert(feedCheckpoints)
      .values({ source, address, recordsApplied: applied, ...values })
      .onConflictDoUpdate({
        target: [feedCheckpoints.source, feedCheckpoints.address],
        set: { ...values, recordsApplied: sql`${feedCheckpoints.recordsApplied} + ${applied}` },
      });
  }
}

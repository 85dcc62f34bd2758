import { and, desc, eq, sql } from "drizzle-orm";
import type { EventPayload } from "../../events/catalog.js";
import { writeEvents } from "../../events/outbox.js";
import type { Executor } from "../../platform/db/client.js";
import { monitoredUrls } from "../../platform/db/schema/index.js";
import { rowsOf } from "../../platform/db/sql.js";

export type UrlRow = typeof monitoredUrls.$inferSelect;
type NewUrl = Pick<
  typeof monitoredUrls.$inferInsert,
  "url" | "label" | "isEnabled" | "scanIntervalHours" | "downAfter" | "certWarningDays"
>;

/** A URL taken for a scan. */
interface ClaimedUrl {
  id: string;
  url: string;
}

/** One outbox event of a scan. */
/** An event of a scan (its organization and project are the URL's). */
export type UrlEvent = {
  [N in "url.down" | "url.recovered" | "url.cert_expiring"]: { event: N; payload: EventPayload<N> };
}["url.down" | "url.recovered" | "url.cert_expiring"];

/** A scan taken 10 minutes ago and not recorded: its worker died, another may take it. */
const LEASE = sql`interval '10 minutes'`;

/** SQL of monitored URLs; every method but the scan job's takes the project it works within. */
export const urlsRepository = {
  async page(ex: Executor, projectId: string, page: number, pageSize: number): Promise<{ rows: UrlRow[]; total: number }> {
    const [rows, total] = await Promise.all([
      ex
        .select()
        .from(monitoredUrls)
        .where(eq(monitoredUrls.projectId, projectId))
        .orderBy(desc(monitoredUrls.createdAt), desc(monitoredUrls.id))
        .limit(pageSize)
        .offset((page - 1) * pageSize),
      ex.$count(monitoredUrls, eq(monitoredUrls.projectId, projectId)),
    ]);
    return { rows, total };
  },

  async get(ex: Executor, projectId: string, id: string): Promise<UrlRow | undefined> {
    const [row] = await ex
      .select()
      .from(monitoredUrls)
      .where(and(eq(monitoredUrls.projectId, projectId), eq(monitoredUrls.id, id)));
    return row;
  },

  async insert(ex: Executor, orgId: string, projectId: string, u: NewUrl): Promise<UrlRow> {
    const [row] = await ex
      .insert(monitoredUrls)
      .values({ ...u, orgId, projectId })
      .returning();
    return row!;
  },

  /** Changes settings; a new address starts over (pending, scanned at the next run of urls-scan-due). */
  async update(ex: Executor, projectId: string, id: string, patch: Partial<NewUrl>, urlChanged: boolean): Promise<UrlRow | undefined> {
    const reset = urlChanged
      ? {
          lastStatus: "pending" as const,
          lastHttpStatus: null,
          lastError: null,
          finalUrl: null,
          lastDurationMs: null,
          certExpiresAt: null,
          certIssuer: null,
          certSubject: null,
          certValid: null,
          certError: null,
          technologies: [],
          lastScannedAt: null,
          consecutiveFailures: 0,
          isDown: false,
          certWarnedFor: null,
          nextScanAt: sql`now()`,
        }
      : {};
    const [row] = await ex
      .update(monitoredUrls)
      .set({ ...patch, ...reset, updatedAt: sql`now()` })
      .where(and(eq(monitoredUrls.projectId, projectId), eq(monitoredUrls.id, id)))
      .returning();
    return row;
  },

  async delete(ex: Executor, projectId: string, id: string): Promise<boolean> {
    const rows = await ex
      .delete(monitoredUrls)
      .where(and(eq(monitoredUrls.projectId, projectId), eq(monitoredUrls.id, id)))
      .returning({ id: monitoredUrls.id });
    return rows.length > 0;
  },

  /** Makes the URL due now (a scan asked for by hand: the next urls-scan-due takes it if no job does first). */
  async makeDue(ex: Executor, projectId: string, id: string): Promise<boolean> {
    const rows = await ex
      .update(monitoredUrls)
      .set({ nextScanAt: sql`now()` })
      .where(and(eq(monitoredUrls.projectId, projectId), eq(monitoredUrls.id, id)))
      .returning({ id: monitoredUrls.id });
    return rows.length > 0;
  },

  async countInProject(ex: Executor, projectId: string): Promise<number> {
    return ex.$count(monitoredUrls, eq(monitoredUrls.projectId, projectId));
  },

  /**
   * Takes up to `limit` enabled URLs due at `now`, soonest first, that no worker holds (a lease of
   * 10 minutes): FOR UPDATE SKIP LOCKED, so several processes take disjoint sets. Read through
   * monitored_urls_due_idx.
   */
  async claimDue(ex: Executor, now: Date, limit: number): Promise<ClaimedUrl[]> {
    return rowsOf<ClaimedUrl>(
      ex,
      sql`update monitored_urls m set scan_started_at = ${now.toISOString()}::timestamptz
        where m.id in (
          select id from monitored_urls
          where is_enabled and next_scan_at <= ${now.toISOString()}::timestamptz
            and (scan_started_at is null or scan_started_at < ${now.toISOString()}::timestamptz - ${LEASE})
          order by next_scan_at limit ${limit} for update skip locked)
        returning m.id, m.url`,
    );
  },

  /** Takes one URL for a scan asked for by hand (enabled or not), unless a worker holds it. */
  async claimOne(ex: Executor, id: string, now: Date): Promise<ClaimedUrl | undefined> {
    const [row] = await rowsOf<ClaimedUrl>(
      ex,
      sql`update monitored_urls set scan_started_at = ${now.toISOString()}::timestamptz
        where id = ${id} and (scan_started_at is null or scan_started_at < ${now.toISOString()}::timestamptz - ${LEASE})
        returning id, url`,
    );
    return row;
  },

  /** The scan state of a URL, locked until the scan is recorded (the transaction's end). */
  async lockState(ex: Executor, id: string): Promise<UrlRow | undefined> {
    const [row] = await ex.select().from(monitoredUrls).where(eq(monitoredUrls.id, id)).for("update");
    return row;
  },

  /** Records a scan, frees the URL and sets its next scan. */
  async record(ex: Executor, id: string, patch: Partial<typeof monitoredUrls.$inferInsert>): Promise<void> {
    await ex
      .update(monitoredUrls)
      .set({ ...patch, scanStartedAt: null })
      .where(eq(monitoredUrls.id, id));
  },

  /** Writes a scan's events in the outbox (the workflow engine's input), in the caller's transaction. */
  async events(ex: Executor, row: Pick<UrlRow, "orgId" | "projectId">, events: UrlEvent[]): Promise<void> {
    await writeEvents(
      ex,
      events.map((e) => ({ ...e, org_id: row.orgId, project_id: row.projectId })),
    );
  },
};

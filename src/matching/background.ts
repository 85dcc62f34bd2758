/**
 * Broad stack items (ADR 0037, docs/broad-items.md). A request that adds or changes items counts
 * their candidates first (countCandidates: the matcher's indexes, no aggregates); up to
 * VIGIE_MATCH_INLINE_MAX it raises their alerts in its own transaction, as it always did. Past it,
 * each item with a candidate gets a stack_item_matching row (pending) and the items-match job
 * raises its alerts in batches, each its own short transaction that yields to the event loop
 * after it: small items a group at a time (at most VIGIE_MATCH_BATCH candidates together), a broad
 * item VIGIE_MATCH_BATCH CVEs at a time, in CVE id order after its cursor. A batch raises its
 * alerts (and their cve.new_match events: the runs and cases follow from the outbox, 200 events a
 * dispatch) and moves its cursor and counters in one transaction: a job killed mid-way resumes
 * after the last batch committed, and the unique (project, CVE) of alerts raises nothing twice.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import { sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { MatchSettings } from "../config.js";
import { coalesced, type Coalesced } from "../platform/coalesce.js";
import type { Db, Executor } from "../platform/db/client.js";
import { pgArray, rowsOf } from "../platform/db/sql.js";
import type { ItemMatchingState } from "../platform/db/schema/index.js";
import { countCandidates, matchItemOnCves, matchItemsByItem, matchNewItems, nextCandidateCves, type ItemCandidates } from "./matcher.js";

/** An item's background matching, as the API shows it (StackItemOut.matching). */
export interface ItemMatchingProgress {
  state: ItemMatchingState;
  candidates: number;
  processed: number;
  raised: number;
}

/** What a request's items did: alerts raised at once, items left to the job, items past the warning cap. */
export interface BoundedMatch {
  raised: number;
  deferred: ItemCandidates[];
  broad: ItemCandidates[];
}

/** Sends items-match to the job queue (the server, once its jobs run). */
export interface MatchQueue {
  wake(): Promise<void>;
}

interface OpenRow {
  item_id: string;
  candidates: number;
  processed: number;
  cursor: string | null;
}

/** The `avertissement` of a request that added items past VIGIE_ITEM_ALERT_WARN candidates. */
export function broadWarning(broad: { value: string; candidates: number }[], warnAbove: number): string | null {
  if (!broad.length) return null;
  const fr = (n: number) => n.toLocaleString("fr-FR");
  const items = broad.map((b) => `« ${b.value} » (${fr(b.candidates)} CVE)`).join(", ");
  return (
    `${broad.length > 1 ? "Ces éléments correspondent" : "Cet élément correspond"} à plus de ${fr(warnAbove)} CVE : ${items}. ` +
    "Leurs alertes sont créées en arrière-plan (champ matching de l'élément) ; un élément plus précis (produit, version, sévérité minimale) en créerait moins."
  );
}

/** Raises broad items' alerts in bounded batches, and says how far it got. */
export class ItemMatching {
  private queue: MatchQueue | null = null;
  private readonly local: Coalesced;
  private stopping = false;

  constructor(
    private readonly db: Db,
    readonly settings: MatchSettings,
    private readonly logger?: Logger,
  ) {
    this.local = coalesced(
      () => this.runPending(),
      (err) => this.logger?.warn({ err }, "items-match in this process failed (the minute's job resumes it)"),
    );
  }

  /** Attaches the job queue (the server, after its jobs start), or detaches it (null: the work runs in this process). */
  useQueue(queue: MatchQueue | null): void {
    this.queue = queue;
  }

  /**
   * In the request's transaction, after its items are written: their alerts raised now when their
   * candidates are few enough, else the items handed to the job (call `wake` after the commit).
   */
  async matchOrDefer(tx: Executor, itemIds: string[]): Promise<BoundedMatch> {
    const counts = await countCandidates(tx, itemIds);
    const broad = counts.filter((c) => c.candidates > this.settings.warnAbove);
    const total = counts.reduce((n, c) => n + c.candidates, 0);
    if (total <= this.settings.inlineMax) {
      await tx.execute(sql`delete from stack_item_matching where item_id = any(${pgArray(itemIds)}::uuid[])`);
      return { raised: await matchNewItems(tx, itemIds), deferred: [], broad };
    }
    await tx.execute(sql`
      insert into stack_item_matching (item_id, project_id, candidates)
      select item_id, project_id, candidates from json_to_recordset(${JSON.stringify(counts)}::json) as c(item_id uuid, project_id uuid, candidates int)
      on conflict (item_id) do update set state = 'pending', candidates = excluded.candidates, processed = 0, raised = 0, cursor = null,
        created_at = now(), updated_at = now()`);
    // An item changed to one without candidates has nothing left to do.
    const none = itemIds.filter((id) => !counts.some((c) => c.item_id === id));
    if (none.length) await tx.execute(sql`delete from stack_item_matching where item_id = any(${pgArray(none)}::uuid[])`);
    return { raised: 0, deferred: counts, broad };
  }

  /** Every item of a project matched again (its alert_backfill setting changed), bounded as matchOrDefer. */
  async matchProjectOrDefer(tx: Executor, projectId: string): Promise<BoundedMatch> {
    const rows = await rowsOf<{ id: string }>(tx, sql`select id from stack_items where project_id = ${projectId}::uuid order by id`);
    return this.matchOrDefer(
      tx,
      rows.map((r) => r.id),
    );
  }

  /** After the commit of a request that deferred items: the job (or this process, without one) takes them. */
  wake(): void {
    if (!this.queue) return this.local();
    this.queue.wake().catch((err) => {
      this.logger?.warn({ err }, "items-match not queued (the minute's job takes the items)");
    });
  }

  /** Resolves once this process's own run (no queue) is over. */
  idle(): Promise<void> {
    return this.local.idle();
  }

  /**
   * The server closing: no batch starts any more, and this resolves once the one in flight has
   * committed (before the database closes; the next start or the minute's job resumes the rest).
   */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.local.idle();
  }

  /** The background matching of these items, by item id (absent: matched with their request). */
  async progress(ex: Executor, itemIds: string[]): Promise<Map<string, ItemMatchingProgress>> {
    if (!itemIds.length) return new Map();
    const rows = await rowsOf<ItemMatchingProgress & { item_id: string }>(
      ex,
      sql`select item_id, state, candidates, processed, raised from stack_item_matching where item_id = any(${pgArray(itemIds)}::uuid[])`,
    );
    return new Map(rows.map(({ item_id, ...p }) => [item_id, p]));
  }

  /**
   * Every pending batch, one transaction each, yielding to the event loop between two; another
   * worker takes other items (SKIP LOCKED). `maxBatches`: stop after that many (tests, a kill).
   */
  async runPending(maxBatches = Number.POSITIVE_INFINITY): Promise<{ batches: number; raised: number; done: number }> {
    const total = { batches: 0, raised: 0, done: 0 };
    while (total.batches < maxBatches && !this.stopping) {
      const r = await this.db.transaction((tx) => this.batch(tx));
      if (!r) break;
      total.batches++;
      total.raised += r.raised;
      total.done += r.done;
      await nextTurn();
    }
    return total;
  }

  /** One batch: a group of small items whole, or the next CVEs of a broad one. Null when nothing is left. */
  private async batch(tx: Executor): Promise<{ raised: number; done: number } | null> {
    const size = this.settings.batch;
    const open = await rowsOf<OpenRow>(
      tx,
      sql`select item_id, candidates, processed, cursor from stack_item_matching where state <> 'done'
        order by created_at, item_id limit ${size} for update skip locked`,
    );
    if (!open.length) return null;
    const first = open[0]!;
    if (first.cursor !== null || first.candidates > size) {
      const cves = await nextCandidateCves(tx, first.item_id, first.cursor, size);
      if (!cves.length) {
        await tx.execute(sql`update stack_item_matching set state = 'done', updated_at = now() where item_id = ${first.item_id}::uuid`);
        return { raised: 0, done: 1 };
      }
      const raised = await matchItemOnCves(tx, first.item_id, cves);
      // Fewer than asked: that was the last batch.
      const state = cves.length < size ? "done" : "running";
      await tx.execute(sql`update stack_item_matching set state = ${state}, processed = processed + ${cves.length},
        raised = raised + ${raised}, cursor = ${cves.at(-1)!}, updated_at = now() where item_id = ${first.item_id}::uuid`);
      return { raised, done: state === "done" ? 1 : 0 };
    }
    // Small items together, up to `size` candidates (at least one item).
    const group: OpenRow[] = [];
    let n = 0;
    for (const r of open) {
      if (r.cursor !== null || r.candidates > size || (group.length && n + r.candidates > size)) break;
      group.push(r);
      n += r.candidates;
    }
    const raised = await matchItemsByItem(
      tx,
      group.map((g) => g.item_id),
    );
    const done = group.map((g) => ({ item_id: g.item_id, raised: raised.get(g.item_id) ?? 0 }));
    await tx.execute(sql`update stack_item_matching m set state = 'done', processed = m.candidates, raised = m.raised + d.raised, updated_at = now()
      from json_to_recordset(${JSON.stringify(done)}::json) as d(item_id uuid, raised int) where m.item_id = d.item_id`);
    return { raised: done.reduce((s, d) => s + d.raised, 0), done: group.length };
  }
}

import type { CacheStats } from "../ops/metrics.js";
import type { Database } from "./client.js";

/** The channel the triggers of migration 0011 notify at commit: payload "<topic>" or "<topic>:<key>". */
export const CACHE_CHANNEL = "vigie_cache";

/**
 * The topic of per-project caches: the triggers of migration 0011 notify 'workflows:<project id>' at
 * every change to a project's organization, its deletion, and every change to its workflows.
 */
export const PROJECT_TOPIC = "workflows";

/** The topic of outbox events: the trigger of migration 0026 notifies 'outbox' when a transaction that wrote events commits. */
export const OUTBOX_TOPIC = "outbox";

/**
 * Caches of database rows in the memory of each server process, kept true across processes by
 * LISTEN/NOTIFY, so that the hot paths answer without a round trip.
 *
 * Invalidation rule:
 * 1. Every committed change to data behind a cached value makes PostgreSQL notify `vigie_cache`
 *    (triggers, migration 0011: whoever writes, even psql); each process drops the entry (payload
 *    "<topic>:<key>") or the whole cache (payload "<topic>") when the notification arrives.
 * 2. The process that wrote also drops the entry itself right after its commit, so it reads its own
 *    writes at once; other processes see the change once the notification reaches them (~1 ms).
 * 3. A value read from the database is stored only if no invalidation of that cache happened while it
 *    was read, so a read that started before a commit cannot store what the commit replaced.
 * 4. Nothing is stored until this process listens, and every cache is emptied when the listening
 *    connection is lost (notifications may be missed) and again when it listens anew; in between,
 *    every read goes to the database.
 *
 * A topic may also be a signal (`on`): its handlers run at each notification, with the key of a
 * "<topic>:<key>" payload, and without one each time listening starts or starts again (what was
 * notified meanwhile is lost: the handler looks).
 */
export class CacheFeed {
  private listening = false;
  private readonly caches = new Map<string, NotifiedCache<unknown>[]>();
  private readonly signals = new Map<string, Set<(key?: string) => void>>();
  private stop: (() => Promise<void>) | null = null;

  constructor(private readonly database: Database) {}

  /**
   * A cache that the notifications of `topic` invalidate (several caches may share one); at most `max`
   * entries (oldest dropped first). `name` labels its figures in /metrics (default: the topic).
   */
  cache<V>(topic: string, max: number, name = topic): NotifiedCache<V> {
    const cache = new NotifiedCache<V>(this, max, name);
    this.caches.set(topic, [...(this.caches.get(topic) ?? []), cache as NotifiedCache<unknown>]);
    return cache;
  }

  /** Calls `handler` at each notification of `topic` (with its key, if any) and whenever listening (re)starts (no key); returns the unsubscribe function. */
  on(topic: string, handler: (key?: string) => void): () => void {
    const set = this.signals.get(topic) ?? new Set();
    this.signals.set(topic, set.add(handler));
    return () => void set.delete(handler);
  }

  /** Hits, misses and entries of each cache (/metrics). */
  stats(): CacheStats[] {
    return [...this.caches.values()].flat().map((c) => ({ name: c.name, hits: c.hits, misses: c.misses, size: c.size }));
  }

  /** True while notifications are received: caches may store. */
  get live(): boolean {
    return this.listening;
  }

  /** Starts listening (the caches start storing once it listens). */
  async start(): Promise<void> {
    if (this.stop) return;
    this.stop = await this.database.listen(
      CACHE_CHANNEL,
      (payload) => this.message(payload),
      (up) => this.status(up),
    );
  }

  async close(): Promise<void> {
    const stop = this.stop;
    this.stop = null;
    this.status(false);
    await stop?.();
  }

  private message(payload: string): void {
    const colon = payload.indexOf(":");
    const topic = colon < 0 ? payload : payload.slice(0, colon);
    const key = colon < 0 ? undefined : payload.slice(colon + 1);
    for (const handler of this.signals.get(topic) ?? []) handler(key);
    for (const cache of this.caches.get(topic) ?? []) {
      if (key === undefined) cache.clear();
      else cache.drop(key);
    }
  }

  private status(listening: boolean): void {
    this.listening = listening;
    for (const caches of this.caches.values()) for (const cache of caches) cache.clear();
    if (listening) for (const handlers of this.signals.values()) for (const handler of handlers) handler();
  }
}

/** One cache of a CacheFeed (see its invalidation rule). */
export class NotifiedCache<V> {
  private readonly entries = new Map<string, V>();
  private generation = 0;
  hits = 0;
  misses = 0;

  constructor(
    private readonly feed: CacheFeed,
    private readonly max: number,
    readonly name: string,
  ) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) this.misses++;
    else this.hits++;
    return value;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Taken before reading the database; `set` stores the value only if the ticket still holds. */
  ticket(): number {
    return this.generation;
  }

  set(key: string, value: V, ticket: number): void {
    if (ticket !== this.generation || !this.feed.live) return;
    if (this.entries.size >= this.max && !this.entries.has(key)) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, value);
  }

  drop(key: string): void {
    this.generation++;
    this.entries.delete(key);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}

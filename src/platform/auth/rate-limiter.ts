import { CACHE_CHANNEL } from "../db/cache-feed.js";
import type { Database } from "../db/client.js";

export const WINDOW_SECONDS = 3600;

/** The CacheFeed topic of reservations: every reservation notifies 'rate:<org id>:<window>:<count it reached>'. */
export const RATE_TOPIC = "rate";

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix time (seconds) when the current window ends. */
  resetAt: number;
}

/** A reservation asks for at most this share of what no process has reserved yet… */
const SHARE = 16;
/** …and about this much of this process's recent traffic (ms), at most MAX_BLOCK calls. */
const DEMAND_MS = 500;
const MAX_BLOCK = 10_000;

interface Waiter {
  resolve(allowed: boolean): void;
  reject(err: unknown): void;
}

/** One organization's hourly window as this process holds it. */
export class WindowQuota {
  /** Calls reserved by this process and not yet accepted. */
  held = 0;
  /**
   * The largest api_usage.count of the window this process knows (at most the limit): from its own
   * reservations and from those of every process, heard (RATE_TOPIC). It only grows: a count handed
   * back at close is not heard, and a lower one heard late is ignored.
   */
  seen = 0;
  /** The database had no more quota to give: refuse without asking again this window. */
  exhausted = false;
  /** The reservation in flight (one at a time). */
  reserving: Promise<void> | null = null;
  readonly waiters: Waiter[] = [];
  /** Calls accepted here this window, and at the start of the last reservation (traffic estimate). */
  accepted = 0;
  acceptedAtReserve = 0;
  reservedAt = 0;
  lastBlock = 0;

  constructor(
    readonly window: number,
    readonly limit: number,
  ) {}

  get resetAt(): number {
    return this.window + WINDOW_SECONDS;
  }

  /**
   * The calls left in this window as the database's count allows: the limit minus the largest count
   * known here (it includes the blocks every process holds: the figure errs on the side of fewer).
   * It never increases here, and every process holding the window reports it once the notification
   * of the last reservation has reached it (ADR 0033).
   */
  get remaining(): number {
    return this.limit - this.seen;
  }

  /** A count the window reached (a reservation's, this process's or heard). */
  know(count: number): void {
    this.seen = Math.max(this.seen, Math.min(count, this.limit));
  }

  state(): RateLimitState {
    return { limit: this.limit, remaining: this.remaining, resetAt: this.resetAt };
  }
}

// Reserves `want` calls of the organization's window. `count` only grows by what was asked, so what
// was granted follows from it: the part of [count - want, count) below the limit. Reservations of
// all processes are serialised on the row, so their grants never add up past the limit. `granted`
// adds that part (the existing row's count is the one before this reservation): the calls granted,
// never above the limit, which billing and quota reports read (count can pass the limit: 51 asked for
// 50 granted). The count reached is notified to every process at commit (one notification per
// reservation, not per call).
const RESERVE_SQL = `
with r as (
  insert into api_usage (org_id, window_start, count, granted) values ($1, to_timestamp($2::float8), $3::int, least($3::int, $4::int))
  on conflict (org_id, window_start) do update set count = api_usage.count + excluded.count,
    granted = api_usage.granted + least(excluded.count, greatest(0, $4::int - api_usage.count))
  returning org_id, window_start, count)
select r.count from r, pg_notify('${CACHE_CHANNEL}', '${RATE_TOPIC}:' || r.org_id || ':' || extract(epoch from r.window_start)::bigint || ':' || r.count)`;

// Hands back what a stopping process reserved and did not use (safe: see close()); it had been granted.
const RELEASE_SQL = `
update api_usage u set count = u.count - r.n, granted = u.granted - r.n
from unnest($1::uuid[], $2::float8[], $3::int[]) as r(o, w, n)
where u.org_id = r.o and u.window_start = to_timestamp(r.w)`;

// Windows before the previous one: no process reads them again (maintenance-purge).
const PURGE_SQL =
  "with d as (delete from api_usage where window_start < to_timestamp($1::float8) returning 1) select count(*)::int as n from d";

const TOUCH_KEYS_SQL = "update api_keys set last_used_at = now() where id = any($1::uuid[])";

/**
 * Hourly call limits per organization, exact across every server process sharing the database.
 *
 * A call is accepted only against quota this process has already reserved from the database
 * (api_usage.count, atomically, one row per organization and window). Reservations are blocks
 * sized by this process's recent traffic (about DEMAND_MS of it) and by what is left (at most a
 * sixteenth of what no process has reserved yet), so they shrink to one call at a time near the
 * limit; calls arriving while a process holds nothing wait for its one reservation in flight. When
 * the database grants less than asked, the window is spent: later calls are refused here without a
 * round trip. Far from the limit, the next block is reserved before the current one runs out, so
 * in the steady state no call waits for the database.
 *
 * Quota reserved by a process that then receives no call is not used by others until it stops
 * (close() hands it back): the limit errs on the side of the payer, by at most one block per process.
 * `last_used_at` of keys is written in batches, at most once a minute per key.
 */
export class RateLimiter {
  private readonly orgs = new Map<string, WindowQuota>();
  private readonly usedKeys = new Set<string>();
  private readonly touched = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly database: Database,
    private readonly flushMs = 200,
  ) {}

  private static window(now = Date.now()): number {
    return Math.floor(now / 1000 / WINDOW_SECONDS) * WINDOW_SECONDS;
  }

  /** Counts one call of a key of this organization: allowed, or refused past the limit (429). */
  async hit(orgId: string, keyId: string, limit: number): Promise<{ allowed: boolean; quota: WindowQuota }> {
    this.noteKey(keyId);
    const quota = this.quota(orgId, limit);
    if (quota.held > 0) {
      quota.held--;
      quota.accepted++;
      if (!quota.reserving && !quota.exhausted && quota.held * 4 < quota.lastBlock && this.share(quota) > 1) this.reserve(orgId, quota);
      return { allowed: true, quota };
    }
    if (quota.exhausted) return { allowed: false, quota };
    const allowed = await new Promise<boolean>((resolve, reject) => {
      quota.waiters.push({ resolve, reject });
      if (!quota.reserving) this.reserve(orgId, quota);
    });
    return { allowed, quota };
  }

  /** A reservation of any process, heard (RATE_TOPIC key "<org id>:<window>:<count>"): its count counts here too. */
  heard(key: string): void {
    const [orgId, window, count] = key.split(":");
    const quota = this.orgs.get(orgId!);
    if (quota?.window === Number(window)) quota.know(Number(count));
  }

  /** The organization's quota of the current window (a new one when the window or the limit changed). */
  private quota(orgId: string, limit: number): WindowQuota {
    const window = RateLimiter.window();
    let quota = this.orgs.get(orgId);
    if (!quota || quota.window !== window || quota.limit !== limit) {
      quota = new WindowQuota(window, limit);
      this.orgs.set(orgId, quota);
    }
    return quota;
  }

  /** The largest block a reservation may ask for now: a share of what is left unreserved. */
  private share(quota: WindowQuota): number {
    return Math.floor((quota.limit - quota.seen) / SHARE);
  }

  private blockSize(quota: WindowQuota, now: number): number {
    const share = this.share(quota);
    if (share <= 1) return 1;
    const elapsed = Math.max(100, now - quota.reservedAt);
    const traffic = quota.reservedAt ? Math.ceil(((quota.accepted - quota.acceptedAtReserve) * DEMAND_MS) / elapsed) : 0;
    return Math.min(share, MAX_BLOCK, Math.max(1, quota.waiters.length, traffic));
  }

  /** One reservation in flight per organization; it serves the waiting calls when it returns. */
  private reserve(orgId: string, quota: WindowQuota): void {
    const now = Date.now();
    const want = this.blockSize(quota, now);
    quota.reservedAt = now;
    quota.acceptedAtReserve = quota.accepted;
    quota.lastBlock = want;
    quota.reserving = this.database
      .raw<{ count: number }>("vigie_rate_reserve", RESERVE_SQL, [orgId, quota.window, want, quota.limit])
      .then(
        (rows) => {
          const count = Number(rows[0]!.count);
          const granted = Math.min(want, Math.max(0, quota.limit - (count - want)));
          quota.reserving = null;
          quota.know(count);
          quota.held += granted;
          if (count >= quota.limit) quota.exhausted = true;
          const served = quota.waiters.splice(0, Math.min(quota.held, quota.waiters.length));
          quota.held -= served.length;
          quota.accepted += served.length;
          for (const w of served) w.resolve(true);
          if (!quota.waiters.length) return;
          if (quota.exhausted) for (const w of quota.waiters.splice(0)) w.resolve(false);
          else this.reserve(orgId, quota);
        },
        (err: unknown) => {
          quota.reserving = null;
          for (const w of quota.waiters.splice(0)) w.reject(err);
        },
      );
  }

  private noteKey(keyId: string) {
    const now = Date.now();
    const last = this.touched.get(keyId) ?? 0;
    if (now - last >= 60_000) {
      this.touched.set(keyId, now);
      this.usedKeys.add(keyId);
      this.schedule();
    }
  }

  private schedule() {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush().catch(() => this.schedule());
    }, this.flushMs);
    this.timer.unref();
  }

  /**
   * Forgets the counts of the windows before the previous one (the current one is the only one a
   * call reads; the previous stays for a process whose clock lags): one row per organization and
   * hour would otherwise grow without end. The number of rows deleted.
   */
  async purge(now = new Date()): Promise<number> {
    const before = RateLimiter.window(now.getTime()) - WINDOW_SECONDS;
    for (const [orgId, q] of this.orgs) if (q.window < before) this.orgs.delete(orgId);
    const rows = await this.database.raw<{ n: number }>("vigie_rate_purge", PURGE_SQL, [before]);
    return rows[0]!.n;
  }

  /** Writes the keys' last_used_at; called on a timer and at shutdown. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    const keys = [...this.usedKeys];
    if (!keys.length) return;
    this.usedKeys.clear();
    this.flushing = this.database.raw("vigie_touch_keys", TOUCH_KEYS_SQL, [keys]).then(
      () => undefined,
      (err: unknown) => {
        for (const k of keys) this.usedKeys.add(k);
        throw err;
      },
    );
    try {
      await this.flushing;
    } finally {
      this.flushing = null;
    }
  }

  /**
   * Writes pending key usage and hands back the quota this process reserved and did not use, so a
   * restart costs the organization nothing. Safe: the calls accepted by all processes never exceed
   * min(count, limit), and handing back n unused calls lowers both sides by n.
   */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const window = RateLimiter.window();
    for (const q of this.orgs.values()) q.exhausted = true; // no new reservation from now on
    await Promise.all([...this.orgs.values()].map((q) => q.reserving));
    const unused = [...this.orgs.entries()].filter(([, q]) => q.window === window && q.held > 0);
    // Given up here first, so that no call accepted meanwhile spends what is handed back.
    const amounts = unused.map(([, q]) => {
      const n = q.held;
      q.held = 0;
      q.exhausted = true;
      return n;
    });
    if (unused.length)
      await this.database.raw("vigie_rate_release", RELEASE_SQL, [unused.map(([o]) => o), unused.map(([, q]) => q.window), amounts]);
    await this.flush();
  }
}

import type { Database } from "../db/client.js";

export const WINDOW_SECONDS = 3600;

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix time (seconds) when the current window ends. */
  resetAt: number;
}

interface OrgWindow {
  window: number;
  /** Organization-wide count (all processes) as of this process's last write. */
  known: number;
  /** Calls accepted here and not yet written. */
  pending: number;
  synced: boolean;
  /** The first write of the window, which concurrent first calls wait for instead of writing too. */
  syncing: Promise<unknown> | null;
}

// Adds calls to the organization's current window and returns the organization-wide count.
const INCREMENT_SQL = `
insert into api_usage (org_id, window_start, count)
select o, to_timestamp($2::float8), c from unnest($1::uuid[], $3::int[]) as t(o, c)
on conflict (org_id, window_start) do update set count = api_usage.count + excluded.count
returning org_id, count`;

const TOUCH_KEYS_SQL = "update api_keys set last_used_at = now() where id = any($1::uuid[])";

/**
 * Hourly call limits per organization, counted in the database (api_usage) so that every server
 * process shares one count.
 *
 * Far from the limit, a process accepts calls and adds them to the shared counter in batches
 * (every FLUSH_MS, one statement for all organizations); it never holds more than a tenth of what
 * remains (at most 100), so all processes together cannot overshoot. Close to the limit — within
 * 5% of it, or 20 calls — every call is counted synchronously, so the limit is exact where it bites.
 */
export class RateLimiter {
  private readonly orgs = new Map<string, OrgWindow>();
  private readonly usedKeys = new Set<string>();
  private readonly touched = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;

  constructor(private readonly database: Database, private readonly flushMs = 200) {}

  private static window(now = Date.now()): number {
    return Math.floor(now / 1000 / WINDOW_SECONDS) * WINDOW_SECONDS;
  }

  /** Counts one call of a key of this organization; `allowed` is false past the limit. */
  async hit(orgId: string, keyId: string, limit: number): Promise<RateLimitState & { allowed: boolean }> {
    this.noteKey(keyId);
    const window = RateLimiter.window();
    let s = this.orgs.get(orgId);
    if (!s || s.window !== window) {
      s = { window, known: 0, pending: 0, synced: false, syncing: null };
      this.orgs.set(orgId, s);
    }
    while (!s.synced && s.syncing) await s.syncing.catch(() => undefined);
    const remaining = limit - s.known - s.pending;
    const margin = Math.max(20, Math.ceil(limit * 0.05));
    const allowance = Math.min(100, Math.floor((limit - s.known) / 10));
    let count: number;
    if (s.synced && remaining > margin && s.pending < allowance) {
      s.pending++;
      count = s.known + s.pending;
      this.schedule();
    } else {
      const delta = s.pending + 1;
      s.pending = 0;
      const write = this.increment([orgId], window, [delta]);
      if (!s.synced) s.syncing = write;
      try {
        count = (await write).get(orgId)!;
      } catch (err) {
        s.pending += delta;
        throw err;
      } finally {
        if (s.syncing === write) s.syncing = null;
      }
      s.known = Math.max(s.known, count);
      s.synced = true;
    }
    return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetAt: window + WINDOW_SECONDS };
  }

  private noteKey(keyId: string) {
    const last = this.touched.get(keyId) ?? 0;
    if (Date.now() - last >= 60_000) {
      this.touched.set(keyId, Date.now());
      this.usedKeys.add(keyId);
      this.schedule();
    }
  }

  private async increment(orgIds: string[], window: number, deltas: number[]): Promise<Map<string, number>> {
    const rows = await this.database.raw<{ org_id: string; count: number }>("vigie_rate_increment", INCREMENT_SQL, [orgIds, window, deltas]);
    return new Map(rows.map((r) => [r.org_id, r.count]));
  }

  private schedule() {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush().catch(() => this.schedule());
    }, this.flushMs);
    this.timer.unref();
  }

  /** Writes pending counts and key usage; called on a timer and at shutdown. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    const batch = [...this.orgs.entries()].filter(([, s]) => s.pending > 0);
    const keys = [...this.usedKeys];
    if (!batch.length && !keys.length) return;
    this.flushing = (async () => {
      const taken = batch.map(([orgId, s]) => {
        const delta = s.pending;
        s.pending = 0;
        return { orgId, s, delta, window: s.window };
      });
      this.usedKeys.clear();
      try {
        for (const window of new Set(taken.map((t) => t.window))) {
          const group = taken.filter((t) => t.window === window);
          const counts = await this.increment(group.map((t) => t.orgId), window, group.map((t) => t.delta));
          for (const t of group) if (t.s.window === window) t.s.known = Math.max(t.s.known, counts.get(t.orgId) ?? 0);
        }
        if (keys.length) await this.database.raw("vigie_touch_keys", TOUCH_KEYS_SQL, [keys]);
      } catch (err) {
        for (const t of taken) t.s.pending += t.delta;
        for (const k of keys) this.usedKeys.add(k);
        throw err;
      }
    })();
    try {
      await this.flushing;
    } finally {
      this.flushing = null;
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }
}

import type pg from "pg";
import { type Check, spread } from "./checks.js";
import type { Client } from "./client.js";
import type { Cluster } from "./cluster.js";
import { type Cli, MAIN_PLAN, type Tenant } from "./setup.js";

/** How long an API process may go on answering from a cache after a committed change (NOTIFY arrives in about a millisecond). */
const STALE_MS = 1000;

/** What one answer said of the change: it shows it, it contradicts it (a cache older than the commit), or neither (no answer, a 503). */
type Seen = { state: "fresh" | "stale" | "none"; saw: string };

interface Probe {
  what: string;
  /**
   * Per API, in milliseconds from the change's commit: when the first request answered with the
   * change was sent (null: none within 10 s), and when the last request answered without it was
   * sent (null: none after the commit), with what the answers said before. An API killed meanwhile
   * is left out: it starts again with empty caches.
   */
  seen: { api: string; fresh: number | null; stale: number | null; before: string[] }[];
  /** APIs killed while the probe asked them. */
  killed: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The caches, probed while the soak runs: a change committed through one API (a workflow enabled
 * or disabled), by SQL (a plan's limit) or by the CLI in another process (a key revoked), then each
 * API asked until its answer shows it. Each must within STALE_MS.
 */
export class Probes {
  readonly probes: Probe[] = [];

  constructor(
    private readonly client: Client,
    private readonly cluster: Cluster,
    private readonly t: Tenant,
    private readonly sql: pg.Client,
    private readonly cli: Cli,
  ) {}

  /** Asks every API with `ask` until its answer shows the change; records when, from `committed`. */
  private async watch(what: string, committed: number, ask: (api: string) => Promise<Seen>): Promise<void> {
    const killed: string[] = [];
    const seen = await Promise.all(
      this.cluster.names("api").map(async (api) => {
        const before: string[] = [];
        let stale: number | null = null;
        while (Date.now() - committed < 10_000 && !this.cluster.down.has(api)) {
          const sent = Date.now() - committed;
          const a = await ask(api);
          if (a.state === "fresh") return [{ api, fresh: sent, stale, before }];
          if (a.state === "stale") stale = sent;
          before.push(a.saw);
          await sleep(20);
        }
        if (this.cluster.down.has(api)) {
          killed.push(api);
          return [];
        }
        return [{ api, fresh: null, stale, before }];
      }),
    );
    this.probes.push({ what, seen: seen.flat(), killed });
  }

  /** The probe workflow enabled or disabled through one API; every API's list shows it. */
  async workflow(): Promise<void> {
    const base = `${this.t.traffic.base}/workflows`;
    const current = await this.client.once({ op: "probe: workflows", method: "GET", path: base, key: this.t.key });
    const probe = (current?.body as { id: string; is_enabled: boolean }[] | undefined)?.find((w) => w.id === this.t.traffic.probeId);
    if (!probe) return;
    const { answer } = await this.client.untilAnswered({
      op: "probe: enable workflow",
      method: "PATCH",
      path: `${base}/${probe.id}/enabled`,
      key: this.t.key,
      body: { enabled: !probe.is_enabled },
      expect: [200],
    });
    if (answer?.status !== 200) return;
    const committed = Date.now();
    const want = answer.body as { is_enabled: boolean; updated_at: string };
    await this.watch(`workflow ${want.is_enabled ? "enabled" : "disabled"} via ${answer.api}`, committed, async (api) => {
      const a = await this.client.on(api, { op: "probe: workflows", method: "GET", path: base, key: this.t.key });
      const w = (a?.body as { id: string; is_enabled: boolean; updated_at: string }[] | undefined)?.find((x) => x.id === probe.id);
      const saw = `${a?.status ?? "no answer"} ${w?.updated_at ?? ""}`;
      if (!w) return { state: "none", saw };
      return { state: w.is_enabled === want.is_enabled && w.updated_at === want.updated_at ? "fresh" : "stale", saw };
    });
  }

  /** The main plan's limit raised by SQL (as psql would): every API's X-RateLimit-Limit says it. */
  async plan(): Promise<void> {
    const { rows } = await this.sql.query<{ limit: number }>(
      "update plans set max_api_calls_per_hour = max_api_calls_per_hour + 1 where slug = $1 returning max_api_calls_per_hour as limit",
      [MAIN_PLAN],
    );
    const committed = Date.now();
    const limit = String(rows[0]!.limit);
    await this.watch(`plan limit ${limit} by SQL`, committed, async (api) => {
      const a = await this.client.on(api, { op: "probe: me", method: "GET", path: "/api/v1/me", key: this.t.key });
      const header = a?.headers["x-ratelimit-limit"];
      const saw = `${a?.status ?? "no answer"} limit ${header}`;
      return { state: header === limit ? "fresh" : header ? "stale" : "none", saw };
    });
  }

  /** A key known to every API (used once on each) is revoked by `revoke`; every API then answers it 401. */
  async revoked(what: string, key: string, revoke: () => Promise<void>, from?: () => Promise<number>): Promise<void> {
    for (const api of this.cluster.names("api"))
      await this.client.on(api, { op: "probe: me", method: "GET", path: "/api/v1/me", key, expect: [200] });
    await revoke();
    const committed = from ? await from() : Date.now();
    await this.watch(what, committed, async (api) => {
      const a = await this.client.on(api, { op: "probe: revoked key", method: "GET", path: "/api/v1/me", key, expect: [401, 503] });
      const saw = String(a?.status ?? "no answer");
      return { state: a?.status === 401 ? "fresh" : a?.status === 200 ? "stale" : "none", saw };
    });
  }

  /** A key revoked by the CLI, another process. */
  async revokedByCli(keyId: string, key: string): Promise<void> {
    await this.revoked("key revoked by the CLI", key, async () => void (await this.cli("apikey", "revoke", "--id", keyId)));
  }

  check(): Check {
    const late = this.probes.flatMap((p) =>
      p.seen
        .filter((s) => s.fresh === null || (s.stale ?? 0) > STALE_MS)
        .map(
          (s) =>
            `${p.what}: ${s.api} ${s.fresh === null ? "never showed it" : `answered without it ${s.stale} ms after the commit`}; ` +
            `answers: ${s.before.slice(0, 5).join(", ")}${s.before.length > 5 ? ` … (${s.before.length})` : ""}`,
        ),
    );
    const fresh = this.probes.flatMap((p) => p.seen.flatMap((s) => (s.fresh === null ? [] : [s.fresh])));
    const stale = this.probes.flatMap((p) => p.seen.flatMap((s) => (s.stale === null ? [] : [s.stale])));
    return {
      name: "caches: each change seen by every API at once",
      pass: this.probes.length > 0 && late.length === 0,
      figures:
        `${this.probes.length} changes (${[...new Set(this.probes.map((p) => p.what.split(" ")[0]))].join(", ")}); ` +
        `first request answered with it sent ${spread(fresh, "ms")} after the commit; ` +
        `answered without it: ${stale.length} requests, sent up to ${stale.length ? Math.max(...stale) : 0} ms after (limit ${STALE_MS}); ` +
        `APIs killed while asked: ${this.probes.reduce((s, p) => s + p.killed.length, 0)}`,
      details: late,
    };
  }
}

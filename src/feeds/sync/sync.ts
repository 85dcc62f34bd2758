import { randomUUID } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import type { Logger } from "pino";
import type { FeedSettings } from "../../config.js";
import type { Db } from "../../platform/db/client.js";
import { importFeed } from "../import.js";
import { feedSourceOf, feedUrls, SOURCES, type Source } from "../importers/index.js";
import type { ImportResult, RecordFailure } from "../records.js";
import { download, FetchError, sleep, type Downloader } from "./fetch.js";
import { addressHoldKey, type Hold, Holds } from "./holds.js";
import type { NamedBy, SyncContext } from "./publisher.js";
import { SyncState, type SourceRow } from "./state.js";

/**
 * A source's lease, renewed every LEASE_SECONDS / 5 while it syncs: a killed holder stalls its
 * source at most this long; a holder whose event loop or database is away for 4/5 of it loses the
 * source (its sync stops at the next address; imports are idempotent).
 */
const LEASE_SECONDS = 90;
/** The first retry after a failure; doubled at each next failure, at most the source's rhythm. */
const BACKOFF_SECONDS = 60;
const MAX_PROBLEMS = 50;
const DAY_MS = 86_400_000;

export interface AddressOutcome {
  address: string;
  status: "synced" | "failed";
  /** Records read and applied (inserted or updated) by the imports of this sync. */
  read: number;
  applied: number;
  /** Records refused by the importer (the first ones, with where). */
  errors: RecordFailure[];
  /** Files or documents of the publisher that could not be applied. */
  problems: { where: string; message: string }[];
  error?: string;
}

export interface SyncOutcome {
  source: Source;
  /**
   * busy: another process holds the source's lease; held: GitHub's rate limit holds the source's
   * API host (nothing was sent, nothing recorded: `error` says until when).
   */
  status: "synced" | "failed" | "busy" | "held";
  applied: number;
  seconds: number;
  addresses: AddressOutcome[];
  error?: string;
}

export interface SourceStatus {
  source: Source;
  enabled: boolean;
  protocol: string;
  every_seconds: number;
  running: boolean;
  last_attempt_at: Date | null;
  last_success_at: Date | null;
  last_error: string | null;
  failures: number;
  failing_since: Date | null;
  /** Failing for more than a day. */
  stale: boolean;
  last_applied: number;
  /** Seconds behind the publisher: now − the publisher's time of the newest data applied. */
  lag_seconds: number | null;
  next_run_at: Date | null;
  /** GitHub's rate limit holds the source's API host: no request before this instant (absent: not held). */
  held_until?: Date;
  held_reason?: string;
  addresses: { address: string; checkpoint: unknown; applied_until: Date | null; records_applied: number; updated_at: Date | null }[];
}

/**
 * Keeps every source current from its publisher (ADR 0022): for each due source, takes its lease
 * (one process per source at a time), runs its publisher on each address from the stored
 * checkpoint, then records the outcome and the next run (the rhythm, or a backoff after a failure).
 * A failing address never stops the others, nor a failing source the other sources.
 */
export class FeedSync {
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly state: SyncState;
  private readonly holds: Holds;
  private readonly addresses: Partial<Record<Source, string[]>>;

  constructor(
    private readonly db: Db,
    private readonly settings: FeedSettings,
    private readonly logger: Logger,
    private readonly namedBy: NamedBy = {},
  ) {
    this.state = new SyncState(db);
    this.holds = new Holds(db);
    this.addresses = feedUrls(settings.urls);
  }

  /** The source's rhythm in seconds (VIGIE_FEEDS_EVERY_<SOURCE>, else the publisher's). */
  everyOf(source: Source): number {
    return this.settings.every[source] ?? feedSourceOf(source).publisher.every;
  }

  /** Syncs the given sources (all enabled ones by default) now, whatever their schedule. */
  async run(only?: Source[], signal?: AbortSignal): Promise<SyncOutcome[]> {
    const out: SyncOutcome[] = [];
    for (const source of this.enabled()) if (!only?.length || only.includes(source)) out.push(await this.runSource(source, signal));
    return out;
  }

  /** Syncs the enabled sources whose next run has come (never run: at once), in the registry's order. */
  async runDue(now: Date, signal?: AbortSignal): Promise<SyncOutcome[]> {
    const rows = await this.rows();
    await this.holds.load();
    const out: SyncOutcome[] = [];
    for (const source of this.enabled()) {
      if (signal?.aborted) break;
      if (this.nextRunOf(source, rows.get(source)) <= now) out.push(await this.runSource(source, signal));
    }
    return out;
  }

  /** When the next enabled source is due (now when one never ran), or null when none is enabled. */
  async nextDue(): Promise<Date | null> {
    const rows = await this.rows();
    await this.holds.load();
    let next: Date | null = null;
    for (const source of this.enabled()) {
      const at = this.nextRunOf(source, rows.get(source));
      if (!next || at < next) next = at;
    }
    return next;
  }

  /** Per source of the registry: its addresses, checkpoints, last outcome, lag and next run. */
  async status(now = new Date()): Promise<SourceStatus[]> {
    const rows = await this.rows();
    const checkpoints = await this.state.checkpoints();
    await this.holds.load();
    return SOURCES.map((source) => {
      const row: Partial<SourceRow> = rows.get(source) ?? {};
      const addresses = this.addresses[source] ?? [];
      const cps = addresses.map((address) => {
        const cp = checkpoints.find((c) => c.source === source && c.address === address);
        return {
          address,
          checkpoint: cp?.checkpoint ?? null,
          applied_until: cp?.appliedUntil ?? null,
          records_applied: cp?.recordsApplied ?? 0,
          updated_at: cp?.updatedAt ?? null,
        };
      });
      const until = cps.map((c) => c.applied_until).filter((d): d is Date => d !== null);
      const oldest = until.length === addresses.length && until.length ? Math.min(...until.map((d) => d.getTime())) : null;
      const held = this.heldOf(source, now.getTime());
      return {
        source,
        enabled: addresses.length > 0,
        protocol: feedSourceOf(source).publisher.protocol,
        every_seconds: this.everyOf(source),
        running: !!row.leaseUntil && row.leaseUntil > now,
        last_attempt_at: row.lastAttemptAt ?? null,
        last_success_at: row.lastSuccessAt ?? null,
        last_error: row.lastError ?? null,
        failures: row.failures ?? 0,
        failing_since: row.failingSince ?? null,
        stale: !!row.failingSince && now.getTime() - row.failingSince.getTime() > DAY_MS,
        last_applied: row.lastApplied ?? 0,
        lag_seconds: oldest === null ? null : Math.max(0, Math.round((now.getTime() - oldest) / 1000)),
        next_run_at: addresses.length && (row.lastAttemptAt || held) ? this.nextRunOf(source, row as SourceRow) : null,
        ...(held ? { held_until: held.until, held_reason: held.reason } : {}),
        addresses: cps,
      };
    });
  }

  /**
   * When a source runs next: at once when it never ran; its rhythm after its last attempt; after a
   * failure, a backoff of 1, 2, 4… minutes, at most the rhythm; never before the end of a hold of
   * GitHub's rate limit (holds as last loaded). Derived, not stored: a rhythm changed in the
   * configuration applies at once.
   */
  private nextRunOf(source: Source, row: SourceRow | undefined): Date {
    const heldUntil = this.heldOf(source)?.until.getTime() ?? 0;
    if (!row?.lastAttemptAt) return new Date(heldUntil);
    const every = this.everyOf(source);
    const delay = row.failures ? Math.min(every, BACKOFF_SECONDS * 2 ** (row.failures - 1)) : every;
    return new Date(Math.max(heldUntil, row.lastAttemptAt.getTime() + delay * 1000));
  }

  /**
   * The hold of GitHub's rate limit on a source whose publisher speaks GitHub's API: the latest one
   * over its addresses' hosts (with the configured token), or null.
   */
  private heldOf(source: Source, now = Date.now()): Hold | null {
    if (!feedSourceOf(source).publisher.githubApi) return null;
    let out: Hold | null = null;
    for (const address of this.addresses[source] ?? []) {
      const key = addressHoldKey(address, this.settings.githubToken);
      const h = key ? this.holds.active(key, now) : null;
      if (h && (!out || h.until > out.until)) out = h;
    }
    return out;
  }

  /** The sources' rows (lease, last attempt, failures) by source. */
  private async rows(): Promise<Map<string, SourceRow>> {
    return new Map((await this.state.sources()).map((r) => [r.source, r]));
  }

  private enabled(): Source[] {
    return SOURCES.filter((s) => (this.addresses[s]?.length ?? 0) > 0);
  }

  private async runSource(source: Source, outer?: AbortSignal): Promise<SyncOutcome> {
    const started = new Date();
    // Another process (or this one before a restart) may have met GitHub's limit: nothing is sent before its end.
    await this.holds.load();
    const held = this.heldOf(source);
    if (held) return { source, status: "held", applied: 0, seconds: 0, addresses: [], error: held.reason };
    if (!(await this.state.acquire(source, this.owner, LEASE_SECONDS)))
      return { source, status: "busy", applied: 0, seconds: 0, addresses: [] };
    const abort = new AbortController();
    const onOuter = () => abort.abort(outer?.reason);
    if (outer?.aborted) onOuter();
    outer?.addEventListener("abort", onOuter);
    const renewal = setInterval(
      () => {
        this.state.renew(source, this.owner, LEASE_SECONDS).then(
          (held) => held || abort.abort(new Error("bail de synchronisation perdu")),
          () => undefined,
        );
      },
      (LEASE_SECONDS / 5) * 1000,
    );
    const addresses: AddressOutcome[] = [];
    try {
      for (const address of this.addresses[source] ?? []) {
        if (abort.signal.aborted) break;
        addresses.push(await this.syncAddress(source, address, abort.signal));
      }
    } finally {
      clearInterval(renewal);
      outer?.removeEventListener("abort", onOuter);
    }
    const applied = addresses.reduce((n, a) => n + a.applied, 0);
    const seconds = Math.round((Date.now() - started.getTime()) / 100) / 10;
    // Stopped by the caller (the service shutting down): not an attempt of the publisher; the source
    // stays due, and its next run resumes from the checkpoints saved so far.
    if (outer?.aborted) {
      await this.state.release(source, this.owner);
      return { source, status: "failed", applied, seconds, addresses };
    }
    const failed = addresses.filter((a) => a.status === "failed");
    const error = failed.map((a) => `${a.address} : ${a.error}`).join(" ; ") || null;
    const row = await this.state.finish(source, this.owner, { ok: failed.length === 0, error, applied, attemptAt: started });
    const retryAt = this.nextRunOf(source, row).toISOString();
    if (failed.length && row?.failures === 1)
      this.logger.warn({ source, error, retryAt }, "feeds-sync : échec de la source (nouvel essai avec un délai croissant)");
    else if (failed.length) this.logger.debug({ source, error, failures: row?.failures, retryAt }, "feeds-sync failed again");
    else if (applied) this.logger.info({ source, applied, seconds }, "feeds-sync applied");
    return { source, status: failed.length ? "failed" : "synced", applied, seconds, addresses };
  }

  private async syncAddress(source: Source, address: string, signal: AbortSignal): Promise<AddressOutcome> {
    const feed = feedSourceOf(source);
    const log = this.logger.child({ source, address });
    const out: AddressOutcome = { address, status: "synced", read: 0, applied: 0, errors: [], problems: [] };
    const dir = join(this.settings.cacheDir, source, randomUUID().slice(0, 8));
    const d: Downloader = {
      settings: this.settings,
      signal,
      log,
      dir,
      endings: feed.endings,
      defaultEnding: feed.defaultEnding,
      holds: this.holds,
    };
    let appliedSinceSave = 0;
    let temps = 0;
    const stored = await this.state.checkpoint(source, address);
    const ctx: SyncContext = {
      source,
      address,
      checkpoint: stored?.checkpoint ?? null,
      settings: this.settings,
      db: this.db,
      log,
      signal,
      fetch: (url, opts) => download(d, url, opts),
      json: async <T>(url: string, opts?: { headers?: Record<string, string> }) => {
        const got = await download(d, url, { ...opts, name: "answer.json" });
        if (!got.file) throw new FetchError(`${url} : HTTP ${got.status}`, got.status);
        try {
          return JSON.parse(await readFile(got.file, "utf8")) as T;
        } catch {
          throw new FetchError(`${url} : réponse JSON illisible`, got.status);
        } finally {
          rmSync(got.file, { force: true });
        }
      },
      tempDir: () => {
        const p = join(dir, `t${temps++}`);
        mkdirSync(p, { recursive: true });
        return p;
      },
      import: async (paths, opts) => {
        const r: ImportResult = await importFeed(this.db, source, paths, opts);
        out.read += r.read;
        out.applied += r.inserted + r.updated;
        appliedSinceSave += r.inserted + r.updated;
        for (const e of r.errors) if (out.errors.length < MAX_PROBLEMS) out.errors.push(e);
        return r;
      },
      save: async (checkpoint, appliedUntil) => {
        await this.state.save(source, address, checkpoint, appliedUntil ?? null, appliedSinceSave);
        appliedSinceSave = 0;
      },
      problem: (where, message) => {
        log.warn({ where, problem: message }, "feeds-sync : document non appliqué");
        if (out.problems.length < MAX_PROBLEMS) out.problems.push({ where, message });
      },
      named: async () => (await this.namedBy[source]?.(this.db)) ?? [],
      sleep: (ms) => sleep(ms, signal),
    };
    try {
      await feed.publisher.sync(ctx);
    } catch (err) {
      out.status = "failed";
      out.error = signal.aborted ? `interrompu : ${(signal.reason as Error)?.message ?? "arrêt"}` : (err as Error).message;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return out;
  }
}

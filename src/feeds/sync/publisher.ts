import type { Logger } from "pino";
import type { FeedSettings } from "../../config.js";
import type { Db } from "../../platform/db/client.js";
import type { ImportOptions, ImportResult } from "../records.js";

/**
 * How Vigie follows one publisher's own publication (a release listing, a paged API, a bucket with
 * an index of modified ids, a feed of documents, a single file): the protocol of a source's sync.
 * A source's declaration names its publisher (src/feeds/importers/<source>.ts); the sync engine
 * (sync.ts) runs it for each configured address with a SyncContext, holding the source's lease.
 *
 * Rules every publisher keeps:
 * - Apply in units (an archive, a window, a batch of documents) and call `ctx.save` with the
 *   checkpoint naming a unit only after `ctx.import` applied it: a kill between the two imports the
 *   unit again, which changes nothing (imports are idempotent), so no record is lost and nothing
 *   already applied is downloaded again.
 * - A bad file or record from the publisher is reported (`ctx.problem`, or the import's own
 *   per-record errors) and the rest goes on; only what cannot be resumed (the listing itself
 *   unreadable) throws, and the source's next attempt starts from the last checkpoint.
 * - Every network call goes through `ctx` (timeouts, retries with backoff, the caller's abort).
 */
export interface Publisher {
  /** The publisher's official base address(es), used when VIGIE_FEED_URLS_<SOURCE> is not set. */
  defaultAddresses: readonly string[];
  /** The publisher's rhythm, in seconds (VIGIE_FEEDS_EVERY_<SOURCE> overrides it). */
  every: number;
  /** One line for the README and `feeds status`: what is fetched, and how the checkpoint is kept. */
  protocol: string;
  /**
   * The publisher speaks GitHub's REST API at its addresses (requests carrying `x-github-api-version`):
   * the source is held, sending nothing, while GitHub's rate limit holds the address's host (holds.ts).
   */
  githubApi?: boolean;
  /** Syncs one address from its checkpoint. */
  sync(ctx: SyncContext): Promise<void>;
}

/** A publisher's answer fetched through the context. */
export interface Fetched {
  status: number;
  headers: Headers;
  /** The body streamed to this file (absent for a 304). */
  file?: string;
}

export interface FetchOptions {
  headers?: Record<string, string>;
  /** Validators of the copy applied last: the answer may then be a 304 with no body. */
  conditional?: { etag?: string | null; lastModified?: string | null } | null;
  /** The downloaded file's name (its ending tells the importer the format); default: the address's last segment. */
  name?: string;
}

export interface SyncContext {
  readonly source: string;
  /** The publisher's base address as configured (no trailing slash added or removed). */
  readonly address: string;
  /** What was applied last at this address (the publisher's own shape), or null the first time. */
  readonly checkpoint: unknown;
  readonly settings: FeedSettings;
  readonly db: Db;
  readonly log: Logger;
  /** Aborted when the sync must stop (shutdown, lease lost): stop at the next unit. */
  readonly signal: AbortSignal;
  /**
   * GET with the sync's timeout, retried with backoff on 403, 429, 5xx and network errors
   * (Retry-After honoured up to a minute). Any other status is returned as is; the body of a 2xx is
   * streamed to a file in a directory removed after the sync. A GitHub API request (headers with
   * `x-github-api-version`) keeps GitHub's rate limits: it throws, sending nothing, while its host is
   * held, and a refusal holds the host (holds.ts).
   */
  fetch(url: string, opts?: FetchOptions): Promise<Fetched>;
  /** GET and parse a JSON answer (listings, small documents); a non-2xx status throws. */
  json<T = unknown>(url: string, opts?: Omit<FetchOptions, "conditional" | "name">): Promise<T>;
  /** A fresh directory, removed after the sync, to unpack archives into. */
  tempDir(): string;
  /** Imports files or directories through the source's importer (merge, matching, events), counting what it applied. */
  import(paths: string[], opts?: ImportOptions): Promise<ImportResult>;
  /** Records the checkpoint of what has been applied, with the publisher's time of the newest data applied. */
  save(checkpoint: unknown, appliedUntil?: Date | null): Promise<void>;
  /** Reports a file or document of the publisher that could not be applied (the rest goes on). */
  problem(where: string, message: string): void;
  /**
   * The source's identifiers that Vigie's own data names (the EOL products of stack items and
   * subscriptions), for a publisher to sync first; empty when the composition root gave none.
   */
  named(): Promise<string[]>;
  /** Waits (a publisher's rate limit), ending early on abort. */
  sleep(ms: number): Promise<void>;
}

/** Per source, how to read the identifiers Vigie's data names (given by the composition root: the feeds import no module). */
export type NamedBy = Partial<Record<string, (db: Db) => Promise<string[]>>>;

/** Declares a publisher (a plain object; the helper only fixes the type). */
export function publisher(def: Publisher): Publisher {
  return def;
}

/** Seconds of the common rhythms. */
export const HOUR = 3600;
export const DAY = 86_400;

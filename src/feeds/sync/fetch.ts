import { randomUUID } from "node:crypto";
import { closeSync, createWriteStream, mkdirSync, openSync, readSync, renameSync } from "node:fs";
import { basename, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream } from "node:stream/web";
import { setTimeout as wait } from "node:timers/promises";
import type { Logger } from "pino";
import type { FeedSettings } from "../../config.js";
import { VERSION } from "../../version.js";
import { hasEnding } from "../reader.js";
import { githubRefusal, type Holds, holdKey, isGithubApi, retryAfterMs } from "./holds.js";
import type { Fetched, FetchOptions } from "./publisher.js";

/** Statuses worth another try: rate limits (NVD answers 403; GitHub's are held, see holds.ts), overload, gateways. */
const RETRIED = new Set([403, 429, 500, 502, 503, 504]);
/** A Retry-After longer than this is not waited for: the source fails and its next attempt comes with the backoff. */
const MAX_WAIT_MS = 60_000;
/**
 * A hold of GitHub's rate limit longer than this ends the sync rather than keeping the source's lease
 * while waiting: the scheduler runs the source again once the hold is over (sync.ts nextRunOf).
 */
const MAX_GITHUB_WAIT_MS = 10_000;

/** A request that failed for good (after its retries), with a message a user can act on. */
export class FetchError extends Error {
  override name = "FetchError";
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

/** Where and how a sync downloads: the settings, the abort of the sync, its temporary directory. */
export interface Downloader {
  settings: FeedSettings;
  signal: AbortSignal;
  log: Logger;
  dir: string;
  /** The source's file endings, to name a download the importer recognises. */
  endings: readonly string[];
  defaultEnding: string;
  /** GitHub's rate limits: the holds of the API hosts, checked before and recorded after each API request. */
  holds?: Holds;
}

/** Waits `ms`, or less when the sync is aborted (then throws the abort's reason). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return wait(ms, undefined, { signal });
}

/**
 * GET with a timeout until the answer's headers arrive, retried with backoff (doubling from
 * VIGIE_FEEDS_RETRY_BASE_MS, or the answer's Retry-After) on the statuses of RETRIED and on network
 * errors. The last answer is returned whatever its status; a network error after the last retry throws.
 * A GitHub API request (isGithubApi) keeps GitHub's rate limits instead: none is sent while its host
 * is held; a refusal holds the host (stored), and is waited out here only when it is short
 * (MAX_GITHUB_WAIT_MS) and tries remain; otherwise it throws with the hold's reason.
 */
export async function getWithRetries(d: Downloader, url: string, headers: Record<string, string>): Promise<Response> {
  const { settings, signal } = d;
  const key = d.holds && isGithubApi(headers) ? holdKey(url, headers.authorization) : null;
  for (let attempt = 0; ; attempt++) {
    if (key) {
      await d.holds!.refresh(key);
      const held = d.holds!.active(key);
      if (held) throw new FetchError(`${url} : ${held.reason}`, null);
    }
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), settings.timeoutMs);
    let res: Response | null = null;
    let failure: string | null = null;
    try {
      res = await fetch(url, {
        headers: { "user-agent": `Vigie/${VERSION} feed sync`, ...headers },
        signal: AbortSignal.any([signal, timeout.signal]),
      });
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      failure = timeout.signal.aborted
        ? `délai dépassé (${settings.timeoutMs / 1000} s)`
        : ((err as Error & { cause?: Error }).cause?.message ?? (err as Error).message);
    } finally {
      clearTimeout(timer);
    }
    if (res && key) {
      const refusal = githubRefusal(res, d.holds!.strikes(key));
      if (refusal) {
        await res.body?.cancel();
        await d.holds!.hold(key, refusal);
        const wait = refusal.until.getTime() - Date.now();
        d.log.warn(
          { url, status: res.status, until: refusal.until.toISOString() },
          "feeds-sync : limite de l'API GitHub, aucune requête avant sa fin",
        );
        if (attempt >= settings.retries || wait > MAX_GITHUB_WAIT_MS) throw new FetchError(`${url} : ${refusal.reason}`, res.status);
        // A little past the end: a timer may fire a millisecond early, and GitHub says "at least".
        await sleep(Math.max(0, wait) + 250, signal);
        continue;
      }
      await d.holds!.answered(key);
    }
    if (res && !RETRIED.has(res.status)) return res;
    const delay = (res && retryAfterMs(res)) ?? settings.retryBaseMs * 2 ** attempt;
    if (attempt >= settings.retries || delay > MAX_WAIT_MS) {
      if (res) return res;
      throw new FetchError(`${url} : ${failure}`, null);
    }
    await res?.body?.cancel();
    d.log.debug({ url, status: res?.status, error: failure, retryInMs: delay }, "feeds-sync retry");
    await sleep(delay, signal);
  }
}

/** Conditional GET streamed to a file of the sync's directory (never whole in memory). */
export async function download(d: Downloader, url: string, opts: FetchOptions = {}): Promise<Fetched> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.conditional?.etag) headers["if-none-match"] = opts.conditional.etag;
  if (opts.conditional?.lastModified) headers["if-modified-since"] = opts.conditional.lastModified;
  const res = await getWithRetries(d, url, headers);
  if (res.status < 200 || res.status > 299 || !res.body) {
    await res.body?.cancel();
    return { status: res.status, headers: res.headers };
  }
  mkdirSync(d.dir, { recursive: true });
  const partial = join(d.dir, `${randomUUID()}.part`);
  await pipeline(Readable.fromWeb(res.body as ReadableStream), createWriteStream(partial), { signal: d.signal });
  // The remote name is kept when it has an ending of the source (an EPSS file's name may carry its score date).
  const remote = basename(new URL(url).pathname);
  let name = opts.name ?? (hasEnding(remote, d.endings) ? remote : `feed${d.defaultEnding}`);
  if (!name.endsWith(".gz") && !opts.name && isGzip(partial)) name += ".gz";
  // Each download in a directory of its own: the file keeps its name (an EOL page's name is its product id).
  const own = join(d.dir, randomUUID().slice(0, 8));
  mkdirSync(own);
  const file = join(own, name);
  renameSync(partial, file);
  return { status: res.status, headers: res.headers, file };
}

function isGzip(file: string): boolean {
  const fd = openSync(file, "r");
  try {
    const b = Buffer.alloc(2);
    return readSync(fd, b, 0, 2, 0) === 2 && b[0] === 0x1f && b[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

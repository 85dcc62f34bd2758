import { createHash } from "node:crypto";
import { createWriteStream, mkdirSync, openSync, readSync, closeSync, renameSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { eq } from "drizzle-orm";
import type { Db } from "../platform/db/client.js";
import { feedSyncState } from "../platform/db/schema/index.js";
import { importFeed } from "./import.js";
import { feedSourceOf, type Source } from "./importers/index.js";
import { hasEnding } from "./reader.js";
import type { ImportResult } from "./records.js";

const TIMEOUT_MS = 120_000;

/** What `feeds sync` fetches (the configured or official addresses of each source) and where it downloads to. */
export interface FeedSyncSettings {
  feedUrls: Partial<Record<Source, string[]>>;
  feedsCacheDir: string;
}

export interface SyncOutcome {
  source: Source;
  url: string;
  status: "imported" | "not_modified" | "failed";
  http_status: number | null;
  result?: ImportResult;
  error?: string;
}

/**
 * `vigie feeds sync` and the scheduled job: downloads each configured address with a conditional
 * request (ETag / Last-Modified of the last successful import), then imports it. The validators
 * are stored only after the import succeeded, so a failed import is fetched again next time. No
 * network call happens inside a database transaction.
 */
export class FeedSync {
  constructor(
    private readonly db: Db,
    private readonly config: FeedSyncSettings,
  ) {}

  async run(only?: Source[]): Promise<SyncOutcome[]> {
    const outcomes: SyncOutcome[] = [];
    for (const [source, urls] of Object.entries(this.config.feedUrls) as [Source, string[]][]) {
      if (only?.length && !only.includes(source)) continue;
      for (const url of urls) outcomes.push(await this.syncOne(source, url));
    }
    return outcomes;
  }

  private async syncOne(source: Source, url: string): Promise<SyncOutcome> {
    const [state] = await this.db.select().from(feedSyncState).where(eq(feedSyncState.url, url));
    let httpStatus: number | null = null;
    let file: string | null = null;
    try {
      const headers: Record<string, string> = { "user-agent": "Vigie feed sync" };
      if (state?.etag) headers["if-none-match"] = state.etag;
      if (state?.lastModified) headers["if-modified-since"] = state.lastModified;
      const res = await fetch(url, { headers, signal: AbortSignal.timeout(TIMEOUT_MS) });
      httpStatus = res.status;
      if (res.status === 304) {
        await this.record(source, url, { status: "not_modified", httpStatus });
        return { source, url, status: "not_modified", http_status: httpStatus };
      }
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      file = await this.download(source, url, res);
      const result = await importFeed(this.db, source, [file]);
      await this.record(source, url, {
        status: "imported",
        httpStatus,
        etag: res.headers.get("etag"),
        lastModified: res.headers.get("last-modified"),
        imported: true,
      });
      return { source, url, status: "imported", http_status: httpStatus, result };
    } catch (err) {
      const error = (err as Error).name === "TimeoutError" ? `délai dépassé (${TIMEOUT_MS / 1000} s)` : (err as Error).message;
      await this.record(source, url, { status: "failed", httpStatus, error });
      return { source, url, status: "failed", http_status: httpStatus, error };
    } finally {
      if (file) rmSync(file, { force: true });
    }
  }

  /** Streams the body to the cache directory under a name the importers recognise (never whole in memory). */
  private async download(source: Source, url: string, res: Response): Promise<string> {
    const dir = join(this.config.feedsCacheDir, source);
    mkdirSync(dir, { recursive: true });
    const id = createHash("sha1").update(url).digest("hex").slice(0, 12);
    const partial = join(dir, `${id}.part`);
    await pipeline(Readable.fromWeb(res.body as import("node:stream/web").ReadableStream), createWriteStream(partial));
    // The remote name is kept when it has an ending of the source (an EPSS file's name may carry its score date).
    const { endings, defaultEnding } = feedSourceOf(source);
    const remote = basename(new URL(url).pathname);
    let name = hasEnding(remote, endings) ? remote : `feed${defaultEnding}`;
    if (!name.endsWith(".gz") && isGzip(partial)) name += ".gz";
    const file = join(dir, `${id}-${name}`);
    renameSync(partial, file);
    return file;
  }

  private async record(
    source: Source,
    url: string,
    s: {
      status: string;
      httpStatus: number | null;
      etag?: string | null;
      lastModified?: string | null;
      imported?: boolean;
      error?: string;
    },
  ) {
    const now = new Date();
    const values = {
      source,
      status: s.status,
      httpStatus: s.httpStatus,
      checkedAt: now,
      error: s.error ?? null,
      ...(s.imported ? { etag: s.etag ?? null, lastModified: s.lastModified ?? null, importedAt: now } : {}),
    };
    await this.db
      .insert(feedSyncState)
      .values({ url, ...values })
      .onConflictDoUpdate({ target: feedSyncState.url, set: values });
  }
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

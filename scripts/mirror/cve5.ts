import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import yazl from "yazl";
import type { Mirror } from "./mirror.js";

/**
 * A local stand-in for CVEProject/cvelistV5's GitHub releases (src/feeds/publishers/cve5.ts): the
 * releases API listing (`<prefix>/repos/CVEProject/cvelistV5/releases?per_page=&page=`, newest
 * first, with a Link header) and the assets at `<prefix>/download/<tag>/<name>`.
 *
 * DERIVED layout, from real records: the baseline `D_all_CVEs_at_midnight.zip.zip` (a zip holding
 * `cves.zip`, holding `cves/<year>/<n>xxx/CVE-….json`) is built once from the records given — for
 * the whole-data mirror, ../shared/data/cve-json5/vulnrichment-*.jsonl.gz (44,130 records, CISA's
 * vulnrichment copy of the CVE List as of 2024-10-24, re-serialised compactly by the data set's
 * collector where cvelistV5 pretty-prints) — and cached on disk. Release 0 is `cve_D_0000Z` with
 * that baseline and an empty delta. Each `publishDelta(records)` adds a release whose delta
 * `D_delta_CVEs_at_HHMMZ.zip` holds every record published since the baseline (`deltaCves/CVE-….json`,
 * cumulative over the day like the real deltas). The real releases are hourly; the mirror counts
 * one minute per release (HHMM from 00:01 on) so that a trial can publish many in a day.
 */
export interface Cve5MirrorOptions {
  /** ../shared/data: the baseline is built from cve-json5/vulnrichment-*.jsonl.gz. */
  dataDir?: string;
  /** Or the baseline's records (texts of CVE JSON 5 records), for tests. */
  records?: string[];
  /** CVE ids kept out of the baseline, published later by the drip (or `publishHeldBack`). */
  holdBack?: string[];
  /** Publishes the next held-back record as a new delta release every this many ms (off by default). */
  dripEveryMs?: number;
  /** Where built baselines are cached (default: the system's temp dir). */
  cacheDir?: string;
  /** The baseline's date, YYYY-MM-DD (default: today, UTC). */
  date?: string;
  /** Path prefix of the mirror (default /cve5). */
  prefix?: string;
  perPage?: number;
}

/**
 * Held back by default from the whole-data baseline, published by the drip after start-up: CVEs of
 * 2024 absent from the bundled snapshot (fixtures/snapshot: the README's PAN-OS and Django stack
 * records are all in it already), of products a trial stack can name — OpenSSL (`openssl:openssl`)
 * and curl (`curl:curl`), with CNA version ranges.
 */
export const DEFAULT_HOLD_BACK = [
  "CVE-2024-5535",
  "CVE-2024-6119",
  "CVE-2024-9143",
  "CVE-2024-4603",
  "CVE-2024-6197",
  "CVE-2024-7264",
  "CVE-2024-8096",
  "CVE-2024-6874",
];

interface MirrorRelease {
  tag: string;
  published: string;
  deltaName: string;
  delta: Buffer;
}

export interface Cve5Mirror extends Mirror {
  /** Builds (or finds in the cache) the baseline archive; requests wait for it anyway. */
  ready(): Promise<void>;
  /** Publishes a new hourly release whose delta holds these records (and the day's earlier ones); `corrupt`: its delta archive is truncated. */
  publishDelta(records: string[], opts?: { corrupt?: boolean }): Promise<string>;
  /** Publishes the next `count` held-back records as one release (null when none is left). */
  publishHeldBack(count?: number): Promise<string | null>;
  /** The next listing requests are answered with these statuses (503, 429: Retry-After 0; 403: GitHub's rate limit, `reset` seconds ahead). */
  failListing(statuses: number[], reset?: number): void;
  /** The next `count` asset downloads (whose name matches `only`, if given) are answered 500. */
  failDownloads(count: number, only?: RegExp): void;
  /** The Authorization header of each request served (undefined when absent), with its path. */
  readonly authorizations: { path: string; authorization: string | undefined }[];
  /** Releases published so far, newest first. */
  tags(): string[];
  /** Stops the drip. */
  stop(): void;
}

const idOf = (text: string) => /"cveId"\s*:\s*"(CVE-\d{4}-\d{4,})"/.exec(text)?.[1];

/** Records of the whole-data corpus, one text per line. */
async function* corpus(dataDir: string): AsyncIterable<string> {
  const dir = join(dataDir, "cve-json5");
  for (const f of readdirSync(dir)
    .filter((n) => /^vulnrichment-\d{4}\.jsonl\.gz$/.test(n))
    .sort()) {
    const rl = createInterface({ input: createReadStream(join(dir, f)).pipe(createGunzip()), crlfDelay: Infinity });
    for await (const line of rl) if (line.trim()) yield line;
  }
}

function recordPath(id: string, root: string): string {
  const [, year, num] = /^CVE-(\d{4})-(\d+)$/.exec(id)!;
  return `${root}/${year}/${Math.floor(Number(num) / 1000)}xxx/${id}.json`;
}

/** A zip written to a file (streamed out; entries are compressed one at a time by yazl). */
async function writeZip(path: string, fill: (zip: yazl.ZipFile) => Promise<void>): Promise<void> {
  const zip = new yazl.ZipFile();
  const done = pipeline(zip.outputStream, createWriteStream(path));
  await fill(zip);
  zip.end();
  await done;
}

/** A small zip in memory (a delta). */
async function zipBuffer(entries: [string, string][]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, text] of entries) zip.addBuffer(Buffer.from(text), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export function cve5Mirror(options: Cve5MirrorOptions = {}): Cve5Mirror {
  const prefix = options.prefix ?? "/cve5";
  const date = options.date ?? new Date().toISOString().slice(0, 10);
  const perPage = options.perPage;
  const holdBack = new Set(options.holdBack ?? (options.dataDir ? DEFAULT_HOLD_BACK : []));
  const held: string[] = [];
  const releases: MirrorRelease[] = [];
  const day = new Map<string, string>(); // the day's records since the baseline, newest version
  const listingFaults: number[] = [];
  let resetIn = 0;
  let downloadFaults = 0;
  let downloadFaultsOnly: RegExp | undefined;
  const authorizations: { path: string; authorization: string | undefined }[] = [];
  let minute = 0;
  let lastPublished = 0;
  const baselineName = `${date}_all_CVEs_at_midnight.zip.zip`;

  // The baseline, cached under a key of its inputs (the data files' sizes and times, or the records; the held-back ids).
  const key = createHash("sha1");
  if (options.dataDir) {
    const dir = join(options.dataDir, "cve-json5");
    for (const f of readdirSync(dir).sort())
      if (f.endsWith(".jsonl.gz")) key.update(`${f}:${statSync(join(dir, f)).size}:${statSync(join(dir, f)).mtimeMs}\n`);
  }
  for (const r of options.records ?? []) key.update(r);
  key.update([...holdBack].sort().join(","));
  const cacheDir = options.cacheDir ?? join(tmpdir(), "vigie-mirror-cve5");
  const baselineFile = join(cacheDir, `baseline-${key.digest("hex").slice(0, 16)}.zip.zip`);

  async function build(): Promise<void> {
    const records: AsyncIterable<string> | string[] = options.dataDir ? corpus(options.dataDir) : (options.records ?? []);
    mkdirSync(cacheDir, { recursive: true });
    const cached = existsSync(baselineFile);
    // Unique within the process too: two mirrors may build in the same millisecond (test files share a worker).
    const work = join(cacheDir, `build-${process.pid}-${randomBytes(6).toString("hex")}`);
    if (!cached) mkdirSync(work);
    const inner = join(work, "cves.zip");
    try {
      if (!cached) {
        await writeZip(inner, async (zip) => {
          for await (const text of records) {
            const id = idOf(text);
            if (!id) continue;
            if (holdBack.has(id)) {
              held.push(text);
              continue;
            }
            zip.addBuffer(Buffer.from(text), recordPath(id, "cves"));
          }
        });
        const outer = join(work, "outer.zip");
        await writeZip(outer, async (zip) => zip.addFile(inner, "cves.zip", { compress: false }));
        renameSync(outer, baselineFile);
      } else if (holdBack.size) {
        for await (const text of records) {
          const id = idOf(text);
          if (id && holdBack.has(id)) held.push(text);
        }
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    // Release 0: the baseline, with the day's (empty) delta at midnight.
    releases.unshift({
      tag: `cve_${date}_0000Z`,
      published: stamp(),
      deltaName: `${date}_delta_CVEs_at_0000Z.zip`,
      delta: await zipBuffer([]),
    });
  }
  function stamp(): string {
    lastPublished = Math.max(Date.now(), lastPublished + 1000);
    return new Date(lastPublished).toISOString().replace(/\.\d{3}Z$/, "Z");
  }
  const built = build();
  built.catch(() => undefined);

  async function publishDelta(records: string[], opts: { corrupt?: boolean } = {}): Promise<string> {
    await built;
    for (const text of records) {
      const id = idOf(text);
      if (!id) throw new Error("publishDelta : un enregistrement sans cveId");
      day.set(id, text);
    }
    minute++;
    const hhmm = `${String(Math.floor(minute / 60)).padStart(2, "0")}${String(minute % 60).padStart(2, "0")}`;
    let delta = await zipBuffer([...day].map(([id, text]) => [`deltaCves/${id}.json`, text]));
    if (opts.corrupt) delta = delta.subarray(0, Math.floor(delta.length / 2));
    const tag = `cve_${date}_${hhmm}Z`;
    releases.unshift({ tag, published: stamp(), deltaName: `${date}_delta_CVEs_at_${hhmm}Z.zip`, delta });
    return tag;
  }

  async function publishHeldBack(count = 1): Promise<string | null> {
    await built;
    const next = held.splice(0, count);
    return next.length ? publishDelta(next) : null;
  }

  const drip = options.dripEveryMs
    ? setInterval(() => {
        publishHeldBack().then(
          (tag) => tag === null && drip && clearInterval(drip),
          () => undefined,
        );
      }, options.dripEveryMs)
    : null;
  drip?.unref();

  const apiPath = `${prefix}/repos/CVEProject/cvelistV5`;
  return {
    source: "cve5",
    addresses: (origin) => [`${origin}${apiPath}`],
    ready: () => built,
    publishDelta,
    publishHeldBack,
    failListing(statuses, reset = 0) {
      listingFaults.push(...statuses);
      resetIn = reset;
    },
    failDownloads(count, only) {
      downloadFaults = count;
      downloadFaultsOnly = only;
    },
    authorizations,
    tags: () => releases.map((r) => r.tag),
    stop: () => drip && clearInterval(drip),
    async handle(req: IncomingMessage, res: ServerResponse, origin: string) {
      const url = new URL(req.url ?? "/", origin);
      if (url.pathname.startsWith(`${prefix}/`)) authorizations.push({ path: url.pathname, authorization: req.headers.authorization });
      if (url.pathname === `${apiPath}/releases`) {
        await built;
        const fault = listingFaults.shift();
        if (fault === 403) {
          res
            .writeHead(403, {
              "content-type": "application/json",
              "x-ratelimit-limit": "60",
              "x-ratelimit-remaining": "0",
              "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + resetIn),
              ...(resetIn ? {} : { "retry-after": "0" }),
            })
            .end(JSON.stringify({ message: "API rate limit exceeded for 127.0.0.1." }));
          return true;
        }
        if (fault) {
          res.writeHead(fault, { "retry-after": "0", "content-type": "text/plain" }).end("busy");
          return true;
        }
        const size = Math.min(100, Math.max(1, Number(url.searchParams.get("per_page")) || perPage || 30));
        const page = Math.max(1, Number(url.searchParams.get("page")) || 1);
        const slice = releases.slice((page - 1) * size, page * size);
        const body = slice.map((r) => ({
          tag_name: r.tag,
          name: r.tag.replace(/^cve_/, "CVE "),
          draft: false,
          prerelease: false,
          created_at: r.published,
          published_at: r.published,
          assets: [
            {
              name: baselineName,
              content_type: "application/zip",
              browser_download_url: `${origin}${prefix}/download/${r.tag}/${baselineName}`,
            },
            {
              name: r.deltaName,
              content_type: "application/zip",
              browser_download_url: `${origin}${prefix}/download/${r.tag}/${r.deltaName}`,
            },
          ],
        }));
        const last = Math.max(1, Math.ceil(releases.length / size));
        const link = page < last ? { link: `<${origin}${apiPath}/releases?per_page=${size}&page=${page + 1}>; rel="next"` } : {};
        res.writeHead(200, { "content-type": "application/json", ...link }).end(JSON.stringify(body));
        return true;
      }
      const m = url.pathname.startsWith(`${prefix}/download/`) ? /\/download\/([^/]+)\/([^/]+)$/.exec(url.pathname) : null;
      if (!m) return false;
      await built;
      if (downloadFaults > 0 && (!downloadFaultsOnly || downloadFaultsOnly.test(url.pathname))) {
        downloadFaults--;
        res.writeHead(500, { "content-type": "text/plain" }).end("oops");
        return true;
      }
      const [, tag, name] = m;
      const release = releases.find((r) => r.tag === tag);
      if (release && name === baselineName) {
        res.writeHead(200, { "content-type": "application/zip", "content-length": statSync(baselineFile).size });
        await pipeline(createReadStream(baselineFile), res);
        return true;
      }
      if (release && name === release.deltaName) {
        res.writeHead(200, { "content-type": "application/zip", "content-length": release.delta.length }).end(release.delta);
        return true;
      }
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return true;
    },
  };
}

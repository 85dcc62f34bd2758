import { createHash } from "node:crypto";
import {
  closeSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { jsonArrayItems, openText } from "../../src/feeds/reader.js";
import type { Mirror } from "./mirror.js";
import { nvd11To20, nvd20Time } from "./nvd-convert.js";

/**
 * A local NVD CVE API 2.0 (`<prefix>/rest/json/cves/2.0`) over records DERIVED from NVD's JSON 1.1
 * yearly feeds (../shared/data/nvd/json-1.1-feeds, or a test's fixture feeds), each item converted
 * to an API 2.0 `cve` object as scripts/mirror/nvd-convert.ts states. It speaks the API as NVD
 * documents it: lastModStartDate / lastModEndDate (both or neither, extended ISO-8601, at most 120
 * days apart), startIndex / resultsPerPage (at most 2,000) paging in a stable order (published,
 * then id), the apiKey header, and NVD's refusals: a 404 with the reason in a `message` header.
 *
 * Memory stays bounded over the whole data (147,917 items): the converted records are written once
 * to a cache directory (one JSON Lines file per feed, reused while the feeds are unchanged) and only
 * an index of six numbers per record is kept (lastModified, published, id, file, offset, length);
 * a page reads its records from the cache files. A CVE found in two feeds (a yearly feed and
 * `recent`) is served once, in its newest version.
 *
 * Tests drive it through `faults` (statuses answered to the next requests, pages cut short,
 * a hook after each page) and change it after start with `publish` / `rescore` (a record modified
 * later: it leaves its old window and appears in the window of its new lastModified).
 */
export interface NvdMirrorOptions {
  /** ../shared/data: every feed of nvd/json-1.1-feeds. */
  data?: string;
  /** Or these NVD 1.1 feed files (.json or .json.gz). */
  feeds?: string[];
  /** Where the converted records are cached (default: under the OS temp directory, keyed by the feeds). */
  cacheDir?: string;
  /** Path prefix of the API (default /nvd). */
  prefix?: string;
  /** At most this many records per answer, whatever resultsPerPage asks (default 2,000): tests page small windows. */
  pageSize?: number;
  /** When set, a request with another apiKey header is refused as NVD does. */
  apiKey?: string | null;
}

export interface NvdRequest {
  query: string;
  apiKey: string | null;
  status: number;
  /** Records served (0 for a refusal or a fault). */
  records: number;
}

export interface NvdMirror extends Mirror {
  /** Records served (after deduplication). */
  readonly size: number;
  /** The API's requests, in order. */
  readonly log: NvdRequest[];
  faults: {
    /** Statuses answered (with Retry-After: 0) to the next requests, in order. */
    statuses: number[];
    /** The next this-many pages are cut in the middle of a record (the answer still ends cleanly). */
    truncate: number;
    /** The connection of the next this-many pages is dropped in the middle of a record. */
    drop: number;
    /** Called after each page served, with the number of pages served so far. */
    afterPage: ((pages: number) => void) | null;
  };
  /** Adds or replaces a record (an API 2.0 `cve` object; its lastModified places it). */
  publish(cve: Record<string, unknown>): void;
  /** Re-scores a CVE's NVD CVSS 3.1 metric, modified at `at` (default now); returns the new record. */
  rescore(id: string, score: { baseScore: number; baseSeverity: string; vectorString?: string; at?: Date }): Record<string, unknown>;
  /** Closes the cache files. */
  close(): void;
}

const API = "/rest/json/cves/2.0";
const MAX_PAGE = 2000;
const MAX_DAYS = 120;
const DAY_MS = 86_400_000;
/** Bump when the conversion changes: the cache is then built again. */
const CONVERSION = "1";
/** Per record: lastModified, published, id key, file, offset, length. */
const F = 6;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})?$/;

interface Extra {
  lastMod: number;
  published: number;
  key: number;
  text: string;
}

/** CVE-2021-44228 → 2021 × 10⁸ + 44228: a number orders and identifies a CVE without a string per record. */
function idKey(id: string): number {
  const m = /^CVE-(\d{4})-(\d+)$/.exec(id);
  return m ? Number(m[1]) * 1e8 + Number(m[2]) : Number.NaN;
}

function time(v: unknown): number {
  return typeof v === "string" ? Date.parse(`${v}Z`) : Number.NaN;
}

/** Builds (or reuses) the converted cache of the feeds and serves it as NVD's API. */
export async function nvdMirror(opts: NvdMirrorOptions): Promise<NvdMirror> {
  const feeds =
    opts.feeds ??
    (opts.data
      ? readdirSync(join(opts.data, "nvd", "json-1.1-feeds"))
          .filter((f) => /\.json(\.gz)?$/.test(f))
          .sort()
          .map((f) => join(opts.data!, "nvd", "json-1.1-feeds", f))
      : []);
  const prefix = opts.prefix ?? "/nvd";
  const key = createHash("sha1").update(CONVERSION);
  for (const f of feeds) key.update(`${basename(f)}:${statSync(f).size}:${statSync(f).mtimeMs}\n`);
  const dir = join(opts.cacheDir ?? join(tmpdir(), "vigie-nvd-mirror"), key.digest("hex").slice(0, 16));
  if (!existsSync(join(dir, "index.bin"))) await build(feeds, dir);
  const rows = new Float64Array(new Uint8Array(readFileSync(join(dir, "index.bin"))).buffer);
  const n = rows.length / F;
  const files = feeds.map((_, i) => join(dir, `${i}.jsonl`));
  const fds = new Map<number, number>();
  // Record numbers by lastModified, for a window's range by binary search.
  const byLastMod = Uint32Array.from({ length: n }, (_, i) => i).sort((a, b) => rows[a * F]! - rows[b * F]!);

  const extras = new Map<number, Extra>();
  let version = 0;
  let cached: { key: string; order: number[] } | null = null;
  let pages = 0;
  const log: NvdRequest[] = [];
  const faults: NvdMirror["faults"] = { statuses: [], truncate: 0, drop: 0, afterPage: null };

  const baseText = (r: number): string => {
    const file = rows[r * F + 3]!;
    let fd = fds.get(file);
    if (fd === undefined) {
      fd = openSync(files[file]!, "r");
      fds.set(file, fd);
    }
    const buf = Buffer.alloc(rows[r * F + 5]!);
    readSync(fd, buf, 0, buf.length, rows[r * F + 4]!);
    return buf.toString("utf8");
  };
  /** Entries ≥ 0 are base records, < 0 the published extras (−1 − their position in `list`). */
  const windowOrder = (start: number, end: number): { order: number[]; list: Extra[] } => {
    const list = [...extras.values()];
    const k = `${start}|${end}|${version}`;
    if (cached?.key === k) return { order: cached.order, list };
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (rows[byLastMod[mid]! * F]! < start) lo = mid + 1;
      else hi = mid;
    }
    const order: number[] = [];
    for (let i = lo; i < n && rows[byLastMod[i]! * F]! <= end; i++) {
      const r = byLastMod[i]!;
      if (!extras.has(rows[r * F + 2]!)) order.push(r);
    }
    list.forEach((e, i) => {
      if (e.lastMod >= start && e.lastMod <= end) order.push(-1 - i);
    });
    const pub = (e: number) => (e >= 0 ? rows[e * F + 1]! : list[-1 - e]!.published);
    const id = (e: number) => (e >= 0 ? rows[e * F + 2]! : list[-1 - e]!.key);
    order.sort((a, b) => pub(a) - pub(b) || id(a) - id(b));
    cached = { key: k, order };
    return { order, list };
  };
  const currentText = (id: string): string | null => {
    const k = idKey(id);
    const extra = extras.get(k);
    if (extra) return extra.text;
    for (let r = 0; r < n; r++) if (rows[r * F + 2] === k) return baseText(r);
    return null;
  };
  const publish = (cve: Record<string, unknown>) => {
    const id = String(cve.id);
    extras.set(idKey(id), { lastMod: time(cve.lastModified), published: time(cve.published), key: idKey(id), text: JSON.stringify(cve) });
    version++;
  };

  /** NVD refuses a request with a 404 whose `message` header says why (and an empty body). */
  const refuse = (res: ServerResponse, entry: NvdRequest, message: string): true => {
    entry.status = 404;
    res.writeHead(404, { message, "content-length": "0" }).end();
    return true;
  };

  const mirror: NvdMirror = {
    source: "nvd",
    size: n,
    log,
    faults,
    addresses: (origin) => [`${origin}${prefix}${API}`],
    publish,
    rescore(id, s) {
      const text = currentText(id);
      if (!text) throw new Error(`${id} : absent du miroir`);
      const cve = JSON.parse(text) as Record<string, unknown> & { metrics?: Record<string, unknown[]> };
      cve.metrics ??= {};
      const metrics = cve.metrics;
      const v31 = (metrics.cvssMetricV31 ?? []) as { source?: string; type?: string; cvssData: Record<string, unknown> }[];
      let m = v31.find((x) => x.type === "Primary");
      if (!m) {
        m = { source: "nvd@nist.gov", type: "Primary", cvssData: { version: "3.1" } };
        v31.unshift(m);
      }
      m.cvssData.baseScore = s.baseScore;
      m.cvssData.baseSeverity = s.baseSeverity;
      if (s.vectorString) m.cvssData.vectorString = s.vectorString;
      metrics.cvssMetricV31 = v31;
      cve.lastModified = nvd20Time((s.at ?? new Date()).toISOString());
      publish(cve);
      return cve;
    },
    close() {
      for (const fd of fds.values()) closeSync(fd);
      fds.clear();
    },
    async handle(req: IncomingMessage, res: ServerResponse, origin: string) {
      const url = new URL(req.url ?? "/", origin);
      if (url.pathname !== `${prefix}${API}` && url.pathname !== `${prefix}${API}/`) return false;
      const apiKey = (req.headers.apikey as string | undefined) ?? null;
      const entry: NvdRequest = { query: url.search, apiKey, status: 200, records: 0 };
      log.push(entry);
      const status = faults.statuses.shift();
      if (status) {
        entry.status = status;
        res.writeHead(status, { "retry-after": "0", "content-length": "0" }).end();
        return true;
      }
      if (opts.apiKey && apiKey !== null && apiKey !== opts.apiKey) return refuse(res, entry, "Invalid apiKey");
      // NVD's parameter names are case-insensitive.
      const q = new Map([...url.searchParams].map(([k, v]) => [k.toLowerCase(), v]));
      const startText = q.get("lastmodstartdate");
      const endText = q.get("lastmodenddate");
      if ((startText === undefined) !== (endText === undefined))
        return refuse(res, entry, "Both lastModStartDate and lastModEndDate are required when either is present");
      let start = Number.NEGATIVE_INFINITY;
      let end = Number.POSITIVE_INFINITY;
      if (startText !== undefined && endText !== undefined) {
        if (!ISO.test(startText) || !ISO.test(endText)) return refuse(res, entry, "Invalid ISO 8601 date/time format, see documentation.");
        const utc = (t: string) => Date.parse(/Z|[+-]\d{2}:\d{2}$/.test(t) ? t : `${t}Z`);
        start = utc(startText);
        end = utc(endText);
        if (end < start) return refuse(res, entry, "lastModEndDate must be after lastModStartDate");
        if (end - start > MAX_DAYS * DAY_MS) return refuse(res, entry, "The lastMod date range must not exceed 120 days");
      }
      const startIndex = Number(q.get("startindex") ?? 0);
      const perPage = Number(q.get("resultsperpage") ?? MAX_PAGE);
      if (!Number.isInteger(startIndex) || startIndex < 0) return refuse(res, entry, "Invalid startIndex");
      if (!Number.isInteger(perPage) || perPage < 0 || perPage > MAX_PAGE)
        return refuse(res, entry, "Invalid resultsPerPage (at most 2000)");

      const { order, list } = windowOrder(start, end);
      const slice = order.slice(startIndex, startIndex + Math.min(perPage, opts.pageSize ?? MAX_PAGE));
      entry.records = slice.length;
      const cut = faults.truncate > 0 && slice.length > 0;
      if (cut) faults.truncate--;
      const drop = !cut && faults.drop > 0 && slice.length > 0;
      if (drop) faults.drop--;
      res.writeHead(200, { "content-type": "application/json" });
      const write = async (s: string) => {
        if (!res.write(s)) await once(res, "drain");
      };
      const stamp = new Date().toISOString().slice(0, 23);
      await write(
        `{"resultsPerPage":${slice.length},"startIndex":${startIndex},"totalResults":${order.length},"format":"NVD_CVE","version":"2.0","timestamp":"${stamp}","vulnerabilities":[`,
      );
      const stopAt = cut || drop ? Math.floor(slice.length / 2) : slice.length;
      for (let i = 0; i < slice.length; i++) {
        const e = slice[i]!;
        const text = e >= 0 ? baseText(e) : list[-1 - e]!.text;
        if (i === stopAt) {
          await write(`${i ? "," : ""}{"cve":${text.slice(0, text.length >> 1)}`);
          if (drop) res.destroy();
          else res.end();
          return true;
        }
        await write(`${i ? "," : ""}{"cve":${text}}`);
      }
      res.end("]}");
      faults.afterPage?.(++pages);
      return true;
    },
  };
  return mirror;
}

/** Converts every item of the feeds once, into `dir` (one JSON Lines file per feed and index.bin). */
async function build(feeds: string[], dir: string): Promise<void> {
  const tmp = `${dir}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const rows: number[] = [];
  for (let fi = 0; fi < feeds.length; fi++) {
    const out = createWriteStream(join(tmp, `${fi}.jsonl`));
    let offset = 0;
    for await (const text of jsonArrayItems(openText(feeds[fi]!), ["CVE_Items"])) {
      const cve = nvd11To20(JSON.parse(text) as Record<string, unknown>);
      const buf = Buffer.from(`${JSON.stringify(cve)}\n`);
      if (!out.write(buf)) await once(out, "drain");
      rows.push(time(cve.lastModified), time(cve.published), idKey(String(cve.id)), fi, offset, buf.length - 1);
      offset += buf.length;
    }
    out.end();
    await once(out, "finish");
  }
  // One version per CVE: the newest (the `recent` feed repeats CVEs of its year's feed).
  const newest = new Map<number, number>();
  for (let r = 0; r < rows.length / F; r++) {
    const k = rows[r * F + 2]!;
    const seen = newest.get(k);
    if (seen === undefined || rows[r * F]! >= rows[seen * F]!) newest.set(k, r);
  }
  const kept = [...newest.values()].sort((a, b) => a - b);
  const index = new Float64Array(kept.length * F);
  kept.forEach((r, i) => index.set(rows.slice(r * F, r * F + F), i * F));
  writeFileSync(join(tmp, "index.bin"), Buffer.from(index.buffer));
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
}

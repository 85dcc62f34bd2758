import { createHash } from "node:crypto";
import { once } from "node:events";
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { createInterface } from "node:readline";
import { createGunzip } from "node:zlib";
import yazl from "yazl";
import type { Mirror } from "./mirror.js";

/**
 * OSV's bucket (https://google.github.io/osv.dev/data/#data-dumps) served from the real advisories
 * of ../shared/data/osv: `<prefix>/<ecosystem>/all.zip`, `<prefix>/<ecosystem>/modified_id.csv`
 * and `<prefix>/<ecosystem>/<id>.json`, as OSV's exporter writes them (osv.dev
 * go/cmd/exporter/ecosystemworker.go): the csv one `<modified RFC3339Nano>,<id>` row per
 * advisory, no header, newest first; the zip one `<id>.json` per advisory, sorted by id.
 *
 * DERIVED: the layout (the data are the databases' own repositories, not OSV's export); the
 * ecosystems from the folders (go-vulndb → Go, pypa → PyPI, rustsec/crates → crates.io); and the
 * `modified` of Go vulndb files, which carry the repository's placeholder 0001-01-01T00:00:00Z (the
 * published database fills it): the mirror writes their `published` time instead, or, where that
 * is the placeholder too (4,039 of 4,291), the date of the vulndb commit copied (GO_SNAPSHOT), in
 * the document and in the index alike. PyPI's JSON Lines are the YAML of pypa/advisory-database
 * converted (MANIFEST.md).
 *
 * Built lazily per ecosystem on its first request into a cache directory (one file per advisory,
 * the zip written streamed by yazl), then served from disk: memory holds only the index.
 * Like OSV's bucket, modified_id.csv answers conditional requests (ETag, Last-Modified) and Range
 * requests (with If-Range); an ecosystem that is not published answers 404 (GCS's NoSuchKey).
 */
export interface OsvMirrorOptions {
  /** ../shared/data, or a folder laid out like it (its `osv/` subfolder: test fixtures). */
  data: string;
  /** Path prefix of the mirror (default /osv). */
  prefix?: string;
  /** Ecosystems published, served empty when the data hold none (default: Vigie's eight). */
  ecosystems?: string[];
  /** Where archives are built (default: a new temporary directory). */
  cacheDir?: string;
  /** Statuses answered (with Retry-After: 0), one per request, to requests whose path matches `busyOn` before they are served. */
  busy?: number[];
  busyOn?: RegExp;
  /** Advisories served damaged, in the archive and by id: not JSON ("truncated") or without id and modified ("schema"). */
  corrupt?: Record<string, "truncated" | "schema">;
}

export interface OsvMirror extends Mirror {
  /** Every answer, in order (path after the prefix, and status). */
  readonly answers: { path: string; status: number }[];
  /** Paths answered 500 while set (a publisher failing mid-way). */
  failOn: RegExp | null;
  /** Called with each path answered, before the answer is sent (a test stops a sync there). */
  onAnswer: ((path: string) => void) | null;
  /** The next all.zip asked for of these ecosystems is served cut short (a damaged download), once. */
  readonly damageZip: Set<string>;
  /**
   * Publishes a modification of an advisory, as its database would: `change` edits the document,
   * `modified` becomes `at` (default now) in the document and the index, and the archive is rebuilt.
   */
  modify(ecosystem: string, id: string, change: (doc: Record<string, unknown>) => void, at?: Date): Promise<void>;
  /** Builds every published ecosystem now (otherwise on its first request). */
  ready(): Promise<void>;
}

const DEFAULT_ECOSYSTEMS = ["PyPI", "npm", "Go", "crates.io", "Maven", "RubyGems", "NuGet", "Packagist"];
const GO_PLACEHOLDER = /^0001-01-01T/;
/** golang/vulndb @ a752ea54fd1b989d208a270aeef772f55a36b87a, the copy in ../shared/data (MANIFEST.md). */
const GO_SNAPSHOT = "2026-08-21T00:00:00Z";

interface Built {
  dir: string;
  /** id → modified as written in the document. */
  index: Map<string, string>;
  csv: Buffer;
  etag: string;
  lastModified: string;
  zip: string | null;
}

/** An RFC 3339 time as Go's RFC3339Nano writes it in UTC (trailing zeros of the fraction dropped). */
export function rfc3339Nano(stamp: string): string {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/.exec(stamp);
  if (!m) return rfc3339Nano(new Date(stamp).toISOString());
  const frac = (m[2] ?? "").replace(/0+$/, "");
  return `${m[1]}${frac ? `.${frac}` : ""}Z`;
}

/** The advisories' texts of one ecosystem in the data folder. */
async function* sourceDocs(osvDir: string, ecosystem: string): AsyncIterable<string> {
  const files = (dir: string) =>
    existsSync(dir)
      ? readdirSync(dir)
          .filter((f) => f.endsWith(".json"))
          .sort()
          .map((f) => join(dir, f))
      : [];
  if (ecosystem === "Go") for (const f of files(join(osvDir, "go-vulndb/osv"))) yield readFileSync(f, "utf8");
  if (ecosystem === "crates.io") for (const f of files(join(osvDir, "rustsec/crates"))) yield readFileSync(f, "utf8");
  const pypa = join(osvDir, "pypa/pypa-osv.jsonl.gz");
  if (ecosystem === "PyPI" && existsSync(pypa)) {
    const rl = createInterface({ input: createReadStream(pypa).pipe(createGunzip()), crlfDelay: Infinity });
    for await (const line of rl) if (line.trim()) yield line;
  }
}

/** A local OSV bucket over the real advisories of `options.data` (see the comment above). */
export function osvMirror(options: OsvMirrorOptions): OsvMirror {
  const prefix = options.prefix ?? "/osv";
  const osvDir = existsSync(join(options.data, "osv")) ? join(options.data, "osv") : options.data;
  const published = options.ecosystems ?? DEFAULT_ECOSYSTEMS;
  const cache = options.cacheDir ?? mkdtempSync(join(tmpdir(), "vigie-osv-mirror-"));
  const busy = [...(options.busy ?? [])];
  const corrupt = options.corrupt ?? {};
  const builds = new Map<string, Promise<Built>>();
  const answers: { path: string; status: number }[] = [];

  const docPath = (b: Built, id: string) => join(b.dir, `${id}.json`);
  /** The text served for an advisory (damaged when asked). */
  const served = (b: Built, id: string) => {
    const text = readFileSync(docPath(b, id), "utf8");
    if (corrupt[id] === "truncated") return text.slice(0, Math.floor(text.length / 2));
    if (corrupt[id] === "schema") return JSON.stringify({ summary: "no id, no modified", affected: [] });
    return text;
  };

  function reindex(b: Built): void {
    const rows = [...b.index].map(([id, modified]) => [rfc3339Nano(modified), id] as const);
    // As OSV's exporter: by the time's text, newest first, then by id.
    rows.sort((x, y) => (x[0] < y[0] ? 1 : x[0] > y[0] ? -1 : x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0));
    b.csv = Buffer.from(rows.map(([t, id]) => `${t},${id}\n`).join(""));
    b.etag = `"${createHash("sha1").update(b.csv).digest("hex")}"`;
    b.lastModified = new Date().toUTCString();
    b.zip = null;
  }

  async function build(ecosystem: string): Promise<Built> {
    const dir = join(cache, ecosystemDir(ecosystem));
    mkdirSync(dir, { recursive: true });
    const b: Built = { dir, index: new Map(), csv: Buffer.alloc(0), etag: "", lastModified: "", zip: null };
    for await (const text of sourceDocs(osvDir, ecosystem)) {
      const doc = JSON.parse(text) as Record<string, unknown>;
      const id = String(doc.id);
      if (typeof doc.modified !== "string" || GO_PLACEHOLDER.test(doc.modified))
        doc.modified = typeof doc.published === "string" && !GO_PLACEHOLDER.test(doc.published) ? doc.published : GO_SNAPSHOT;
      writeFileSync(docPath(b, id), JSON.stringify(doc));
      b.index.set(id, String(doc.modified));
    }
    reindex(b);
    return b;
  }

  const built = (ecosystem: string) => {
    let p = builds.get(ecosystem);
    if (!p) {
      p = build(ecosystem);
      builds.set(ecosystem, p);
    }
    return p;
  };

  async function zipOf(b: Built): Promise<string> {
    if (b.zip && existsSync(b.zip)) return b.zip;
    const file = join(b.dir, `all-${b.etag.slice(1, 9)}.zip`);
    const zip = new yazl.ZipFile();
    const out = createWriteStream(file);
    zip.outputStream.pipe(out);
    for (const id of [...b.index.keys()].sort()) zip.addBuffer(Buffer.from(served(b, id)), `${id}.json`);
    zip.end();
    await once(out, "close");
    b.zip = file;
    return file;
  }

  const answer = (res: ServerResponse, path: string, status: number, headers: Record<string, string | number> = {}, body?: Buffer) => {
    answers.push({ path, status });
    mirror.onAnswer?.(path);
    res.writeHead(status, headers).end(body);
  };

  const mirror: OsvMirror = {
    source: "osv",
    answers,
    failOn: null,
    onAnswer: null,
    damageZip: new Set(),
    addresses: (origin) => [`${origin}${prefix}`],
    async ready() {
      await Promise.all(published.map(built));
    },
    async modify(ecosystem, id, change, at = new Date()) {
      const b = await built(ecosystem);
      const doc = JSON.parse(readFileSync(docPath(b, id), "utf8")) as Record<string, unknown>;
      change(doc);
      doc.modified = at.toISOString();
      writeFileSync(docPath(b, id), JSON.stringify(doc));
      b.index.set(id, doc.modified as string);
      reindex(b);
    },
    async handle(req: IncomingMessage, res: ServerResponse) {
      const url = new URL(req.url ?? "/", "http://mirror");
      if (!url.pathname.startsWith(`${prefix}/`)) return false;
      const path = url.pathname.slice(prefix.length + 1);
      if (busy.length && (!options.busyOn || options.busyOn.test(path))) {
        answer(res, path, busy.shift()!, { "retry-after": "0" });
        return true;
      }
      if (mirror.failOn?.test(path)) {
        answer(res, path, 500, { "content-type": "text/plain" }, Buffer.from("mirror failing on purpose"));
        return true;
      }
      const m = /^([^/]+)\/([^/]+)$/.exec(path);
      const ecosystem = m ? decodeURIComponent(m[1]!) : "";
      if (!m || !published.includes(ecosystem)) {
        answer(res, path, 404, { "content-type": "application/xml" }, Buffer.from("<Error><Code>NoSuchKey</Code></Error>"));
        return true;
      }
      const b = await built(ecosystem);
      const file = decodeURIComponent(m[2]!);
      if (file === "modified_id.csv") serveIndex(req, res, path, b);
      else if (file === "all.zip") {
        const zip = await zipOf(b);
        const size = statSync(zip).size;
        if (mirror.damageZip.delete(ecosystem)) {
          // Cut short: the end-of-central-directory record is missing.
          answer(res, path, 200, { "content-type": "application/zip" }, readFileSync(zip).subarray(0, Math.floor(size / 2)));
        } else {
          answers.push({ path, status: 200 });
          mirror.onAnswer?.(path);
          res.writeHead(200, { "content-type": "application/zip", "content-length": size });
          createReadStream(zip).pipe(res);
        }
      } else if (file.endsWith(".json") && b.index.has(file.slice(0, -5))) {
        answer(res, path, 200, { "content-type": "application/json" }, Buffer.from(served(b, file.slice(0, -5))));
      } else answer(res, path, 404, { "content-type": "application/xml" }, Buffer.from("<Error><Code>NoSuchKey</Code></Error>"));
      return true;
    },
  };

  /** The index with GCS's conditional and Range answers (a single range; If-Range on the ETag). */
  function serveIndex(req: IncomingMessage, res: ServerResponse, path: string, b: Built): void {
    const validators = { etag: b.etag, "last-modified": b.lastModified, "content-type": "text/csv", "accept-ranges": "bytes" };
    if (req.headers["if-none-match"] === b.etag) return answer(res, path, 304, validators);
    const range = /^bytes=(\d+)-(\d*)$/.exec(String(req.headers.range ?? ""));
    const ifRange = req.headers["if-range"];
    if (range && (!ifRange || ifRange === b.etag)) {
      const size = b.csv.length;
      const start = Number(range[1]);
      const end = Math.min(range[2] ? Number(range[2]) : size - 1, size - 1);
      if (start >= size) return answer(res, path, 416, { "content-range": `bytes */${size}` });
      return answer(res, path, 206, { ...validators, "content-range": `bytes ${start}-${end}/${size}` }, b.csv.subarray(start, end + 1));
    }
    answer(res, path, 200, validators, b.csv);
  }

  return mirror;
}

/** A folder name for an ecosystem's cache (its name may hold spaces or colons). */
function ecosystemDir(ecosystem: string): string {
  return basename(encodeURIComponent(ecosystem));
}

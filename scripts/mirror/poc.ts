import { createHash } from "node:crypto";
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import yazl from "yazl";
import { isAggregatorRepo } from "../../src/feeds/poc.js";
import type { Mirror } from "./mirror.js";

/**
 * nomi-sec/PoC-in-GitHub as GitHub serves it, from real data: the repository API's
 * `commits/<ref>` (the SHA media type, ETag, Last-Modified, 304), `compare/<base>...<head>` (files
 * changed, at most 300 as GitHub lists), `zipball/<sha>` (302 to a codeload-like address: the tree of
 * the commit under `<owner>-<name>-<sha7>/`), and the raw files `/<owner>/<name>/raw/<sha>/<path>`.
 * Commits can be added after start ({@link PocMirror.publish}); faults: statuses answered before the
 * next requests (503, 429 with Retry-After 0), a corrupt (truncated) file, raw files failing after a
 * number served (a publisher going down mid-sync).
 *
 * Layout DERIVED from ../shared/data (the nomi-sec repository itself was not obtained, see
 * shared/data/MANIFEST.md): one `<year>/<CVE>.json` per CVE holding the JSON array of repository
 * objects, written as nomi-sec writes it (4-space indent, `\/` escaped slashes, non-ASCII as \uXXXX:
 * {@link nomiSecText}, byte-exact on poc/nomi-sec-raw-sample/2024/CVE-2024-0001.json), from
 * - `poc/openpoc/nomisec-poc-in-github-2025-05-10.jsonl.gz` when present (openpoc's verbatim
 *   nomi-sec arrays, 6,772 CVEs);
 * - else `poc/trickest/trickest-cve-poc.jsonl.gz`: each CVE's `github_pocs`, minus the aggregator
 *   repositories the importer leaves out anyway, as repository objects reduced to what a URL gives
 *   (`name`, `full_name`, `owner.login`, `owner.html_url`, `html_url`, `fork: false`; no dates);
 * plus the byte-exact raw sample. The tree is written once under a cache directory (reused while the
 * data file is unchanged); archives are built per commit into it; memory stays bounded.
 */

export interface PocMirrorOptions {
  /** ../shared/data: the whole-data repository (derived, above). */
  dataDir?: string;
  /** A small repository instead: path (`2024/CVE-2024-0001.json`) → array (serialised as nomi-sec does) or exact text. */
  files?: Record<string, unknown[] | string>;
  owner?: string;
  name?: string;
  /** Where the tree and the archives are written (default: a directory under the system's temp dir). */
  cacheDir?: string;
  /** The date of the first commit. */
  date?: Date;
}

export interface PocMirror extends Mirror {
  readonly owner: string;
  readonly name: string;
  /** The newest commit's SHA. */
  head(): string;
  /** Number of CVE files in the newest commit's tree. */
  size(): number;
  /** Adds a commit changing these files (null: removed); returns its SHA. */
  publish(changes: Record<string, unknown[] | string | null>, date?: Date): string;
  /** Each request of this mirror: its path and whether it carried an Authorization header (and which). */
  readonly seen: { path: string; authorization?: string }[];
  /** Calls `fn` with the path of each request of this mirror before it is answered (null: no more). */
  onRequest(fn: ((path: string) => void) | null): void;
  /** The next requests of this mirror answer these statuses (with Retry-After: 0), in order. */
  failNext(...statuses: number[]): void;
  /** The file is served truncated (raw and in archives) from now on. */
  corrupt(path: string): void;
  /** After `n` more raw files served, every raw request answers 503 until {@link heal}. */
  breakRawAfter(n: number): void;
  heal(): void;
  /** Archives are served cut in half (a corrupt download) while on. */
  truncateArchives(on: boolean): void;
}

interface Commit {
  sha: string;
  date: Date;
  changes: Map<string, Buffer | null>;
}

/** A nomi-sec file's text: PHP's json_encode(JSON_PRETTY_PRINT) — 4 spaces, `\/`, non-ASCII escaped — and a final newline. */
export function nomiSecText(v: unknown): string {
  const json = JSON.stringify(v, null, 4)
    .replace(/\//g, "\\/")
    .replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return `${json}\n`;
}

/** Repository objects reduced to what a GitHub URL tells (trickest gives links only). */
export function reposOfLinks(urls: string[]): unknown[] {
  const out: unknown[] = [];
  const seen = new Set<string>();
  for (const url of urls) {
    const m = /^https?:\/\/(?:www\.)?github\.com\/([^/?#\s]+)\/([^/?#\s]+)/i.exec(url.trim());
    if (!m || isAggregatorRepo(url)) continue;
    const [owner, name] = [m[1]!, m[2]!.replace(/\.git$/i, "")];
    const key = `${owner}/${name}`.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({
      name,
      full_name: `${owner}/${name}`,
      owner: { login: owner, html_url: `https://github.com/${owner}` },
      html_url: `https://github.com/${owner}/${name}`,
      fork: false,
    });
  }
  return out;
}

function pathOf(cve: string): string {
  return `${cve.slice(4, 8)}/${cve}.json`;
}

function sha1(...parts: (string | Buffer)[]): string {
  const h = createHash("sha1");
  for (const p of parts) h.update(p);
  return h.digest("hex");
}

async function* gzLines(file: string): AsyncIterable<string> {
  for await (const line of createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Infinity }))
    if (line.trim()) yield line;
}

/** Writes the derived tree of ../shared/data under `dir/tree` once (a `.done` marker), returning its sorted paths. */
async function buildWholeTree(dataDir: string, dir: string): Promise<string[]> {
  const tree = join(dir, "tree");
  const list = join(dir, "paths.txt");
  if (existsSync(join(dir, ".done"))) return readFileSync(list, "utf8").split("\n").filter(Boolean);
  const paths = new Set<string>();
  const write = (cve: string, repos: unknown[]) => {
    const p = pathOf(cve);
    mkdirSync(join(tree, p.slice(0, 4)), { recursive: true });
    writeFileSync(join(tree, p), nomiSecText(repos));
    paths.add(p);
  };
  const openpoc = join(dataDir, "poc/openpoc/nomisec-poc-in-github-2025-05-10.jsonl.gz");
  if (existsSync(openpoc)) {
    for await (const line of gzLines(openpoc)) {
      const o = JSON.parse(line) as { cve: string; repos: unknown[] };
      write(o.cve, o.repos);
    }
  } else {
    for await (const line of gzLines(join(dataDir, "poc/trickest/trickest-cve-poc.jsonl.gz"))) {
      const o = JSON.parse(line) as { cve: string; github_pocs: string[] };
      const repos = reposOfLinks(o.github_pocs ?? []);
      if (repos.length) write(o.cve, repos);
    }
  }
  const sample = join(dataDir, "poc/nomi-sec-raw-sample/2024/CVE-2024-0001.json");
  if (existsSync(sample)) {
    mkdirSync(join(tree, "2024"), { recursive: true });
    writeFileSync(join(tree, "2024/CVE-2024-0001.json"), readFileSync(sample));
    paths.add("2024/CVE-2024-0001.json");
  }
  const sorted = [...paths].sort();
  writeFileSync(list, sorted.join("\n"));
  writeFileSync(join(dir, ".done"), "");
  return sorted;
}

function bytesOf(v: unknown[] | string): Buffer {
  return Buffer.from(typeof v === "string" ? v : nomiSecText(v));
}

/** The mirror; `await` it (the whole-data tree is written on first use of its cache directory). */
export async function pocMirror(opts: PocMirrorOptions = {}): Promise<PocMirror> {
  const owner = opts.owner ?? "nomi-sec";
  const name = opts.name ?? "PoC-in-GitHub";
  let dir: string;
  let base: Set<string>;
  if (opts.dataDir) {
    const data = ["openpoc/nomisec-poc-in-github-2025-05-10.jsonl.gz", "trickest/trickest-cve-poc.jsonl.gz"]
      .map((f) => join(opts.dataDir!, "poc", f))
      .find((f) => existsSync(f))!;
    const st = statSync(data);
    const key = sha1(data, String(st.size), String(st.mtimeMs)).slice(0, 12);
    dir = join(opts.cacheDir ?? join(tmpdir(), "vigie-mirror-poc"), key);
    mkdirSync(dir, { recursive: true });
    base = new Set(await buildWholeTree(opts.dataDir, dir));
  } else {
    dir = mkdtempSync(join(opts.cacheDir ?? tmpdir(), "vigie-mirror-poc-"));
    for (const [p, v] of Object.entries(opts.files ?? {})) {
      mkdirSync(dirname(join(dir, "tree", p)), { recursive: true });
      writeFileSync(join(dir, "tree", p), bytesOf(v));
    }
    base = new Set(Object.keys(opts.files ?? {}));
  }
  const commits: Commit[] = [
    { sha: sha1("poc-mirror", dir, [...base].length.toString()), date: opts.date ?? new Date("2025-05-10T00:00:00Z"), changes: new Map() },
  ];
  const failing: number[] = [];
  const seen: { path: string; authorization?: string }[] = [];
  let listener: ((path: string) => void) | null = null;
  const corrupted = new Set<string>();
  let rawLeft = Number.POSITIVE_INFINITY;
  let truncated = false;

  const indexOf = (ref: string): number => {
    if (ref === "HEAD" || ref === "master" || ref === "main") return commits.length - 1;
    return commits.findIndex((c) => c.sha === ref);
  };
  /** The file at a commit (null: absent), truncated when corrupted. */
  const contentAt = (idx: number, path: string): Buffer | null => {
    let body: Buffer | null | undefined;
    for (let i = idx; i >= 1 && body === undefined; i--) if (commits[i]!.changes.has(path)) body = commits[i]!.changes.get(path)!;
    if (body === undefined) body = base.has(path) ? readFileSync(join(dir, "tree", path)) : null;
    return body && corrupted.has(path) ? body.subarray(0, Math.floor(body.length / 2)) : body;
  };
  const treeAt = (idx: number): string[] => {
    const paths = new Set(base);
    for (let i = 1; i <= idx; i++) for (const [p, b] of commits[i]!.changes) b === null ? paths.delete(p) : paths.add(p);
    return [...paths].sort();
  };

  /** The commit's tree as GitHub's zipball: `<owner>-<name>-<sha7>/` then the files in path order. */
  const zipOf = async (idx: number): Promise<string> => {
    const c = commits[idx]!;
    const file = join(dir, `zip-${c.sha}-${[...corrupted].length}.zip`);
    if (existsSync(file)) return file;
    const zip = new yazl.ZipFile();
    const top = `${owner}-${name}-${c.sha.slice(0, 7)}/`;
    zip.addEmptyDirectory(top);
    zip.addBuffer(Buffer.from(`# PoC in GitHub (mirror of ${owner}/${name}, derived from ../shared/data)\n`), `${top}README.md`);
    let year = "";
    for (const p of treeAt(idx)) {
      if (p.slice(0, 4) !== year) {
        year = p.slice(0, 4);
        zip.addEmptyDirectory(`${top}${year}/`);
      }
      const changed = [...commits.slice(1, idx + 1)].some((k) => k.changes.has(p));
      if (!changed && !corrupted.has(p)) zip.addFile(join(dir, "tree", p), `${top}${p}`);
      else zip.addBuffer(contentAt(idx, p)!, `${top}${p}`);
    }
    zip.end();
    const part = `${file}.${process.pid}.part`;
    await pipeline(zip.outputStream, createWriteStream(part));
    renameSync(part, file);
    return file;
  };

  /** Answers and tells serveMirrors the request was this mirror's. */
  const send = (res: ServerResponse, status: number, body: string | Buffer, headers: Record<string, string> = {}): true => {
    res.writeHead(status, headers).end(body);
    return true;
  };
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): true =>
    send(res, status, JSON.stringify(body), { "content-type": "application/json; charset=utf-8", ...headers });

  const mirror: PocMirror = {
    source: "poc",
    owner,
    name,
    addresses: (origin) => [`${origin}/repos/${owner}/${name}`],
    seen,
    head: () => commits[commits.length - 1]!.sha,
    size: () => treeAt(commits.length - 1).length,
    publish(changes, date = new Date()) {
      const parent = commits[commits.length - 1]!;
      const map = new Map<string, Buffer | null>();
      for (const [p, v] of Object.entries(changes)) map.set(p, v === null ? null : bytesOf(v));
      const sha = sha1(parent.sha, JSON.stringify([...map].map(([p, b]) => [p, b ? sha1(b) : null])), String(commits.length));
      commits.push({ sha, date, changes: map });
      return sha;
    },
    onRequest(fn) {
      listener = fn;
    },
    failNext: (...statuses) => void failing.push(...statuses),
    corrupt: (path) => void corrupted.add(path),
    breakRawAfter(n) {
      rawLeft = n;
    },
    heal() {
      rawLeft = Number.POSITIVE_INFINITY;
    },
    truncateArchives(on) {
      truncated = on;
    },
    async handle(req, res, origin) {
      const url = new URL(req.url ?? "/", "http://mirror");
      const api = `/repos/${owner}/${name}/`;
      const raw = `/${owner}/${name}/raw/`;
      const codeload = `/codeload/${owner}/${name}/zip/`;
      const path = decodeURIComponent(url.pathname);
      if (!path.startsWith(api) && !path.startsWith(raw) && !path.startsWith(codeload)) return false;
      seen.push({ path, ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
      listener?.(path);
      if (failing.length) {
        return send(res, failing.shift()!, '{"message":"busy"}', { "retry-after": "0", "content-type": "application/json" });
      }
      if (path.startsWith(raw)) {
        const [sha, ...rest] = path.slice(raw.length).split("/");
        const idx = indexOf(sha!);
        const body = idx < 0 ? null : contentAt(idx, rest.join("/"));
        if (rawLeft <= 0) return send(res, 503, "down", { "content-type": "text/plain" });
        if (!body) return send(res, 404, "404: Not Found", { "content-type": "text/plain" });
        rawLeft--;
        return send(res, 200, body, { "content-type": "text/plain; charset=utf-8", etag: `"${sha1(body)}"` });
      }
      if (path.startsWith(codeload)) {
        const idx = indexOf(path.slice(codeload.length));
        if (idx < 0) return send(res, 404, "");
        const file = await zipOf(idx);
        const size = statSync(file).size;
        if (truncated) return send(res, 200, readFileSync(file).subarray(0, size >> 1), { "content-type": "application/zip" });
        res.writeHead(200, {
          "content-type": "application/zip",
          "content-length": String(size),
          "content-disposition": `attachment; filename=${owner}-${name}-${commits[idx]!.sha.slice(0, 7)}.zip`,
        });
        await pipeline(createReadStream(file), res);
        return true;
      }
      const rest = path.slice(api.length);
      let m = /^commits\/([^/]+)$/.exec(rest);
      if (m) {
        const idx = indexOf(m[1]!);
        if (idx < 0) return json(res, 422, { message: `No commit found for SHA: ${m[1]}` });
        const c = commits[idx]!;
        const headers = { etag: `"${c.sha}"`, "last-modified": c.date.toUTCString() };
        if (req.headers["if-none-match"] === headers.etag) return send(res, 304, "", headers);
        if (String(req.headers.accept).includes("application/vnd.github.sha"))
          return send(res, 200, c.sha, { ...headers, "content-type": "application/vnd.github.sha; charset=utf-8" });
        return json(res, 200, { sha: c.sha, commit: { committer: { date: c.date.toISOString() }, message: "Update" } }, headers);
      }
      m = /^compare\/([^.]+)\.\.\.([^.]+)$/.exec(rest);
      if (m) {
        const [from, to] = [indexOf(m[1]!), indexOf(m[2]!)];
        if (from < 0 || to < 0) return json(res, 404, { message: "Not Found" });
        if (from > to)
          return json(res, 200, { status: "behind", ahead_by: 0, behind_by: from - to, total_commits: 0, commits: [], files: [] });
        const touched = new Set<string>();
        for (let i = from + 1; i <= to; i++) for (const p of commits[i]!.changes.keys()) touched.add(p);
        const files: unknown[] = [];
        for (const p of [...touched].sort()) {
          const [a, b] = [contentAt(from, p), contentAt(to, p)];
          if (a && b && a.equals(b)) continue;
          if (!a && !b) continue;
          const status = !a ? "added" : !b ? "removed" : "modified";
          files.push({
            sha: b ? sha1(`blob ${b.length}\0`, b) : null,
            filename: p,
            status,
            raw_url: `${origin}${raw}${commits[to]!.sha}/${p}`,
            blob_url: `${origin}/${owner}/${name}/blob/${commits[to]!.sha}/${p}`,
          });
        }
        const perPage = Number(url.searchParams.get("per_page") ?? 250);
        const listed = commits.slice(from + 1, to + 1).slice(0, perPage);
        return json(res, 200, {
          status: from === to ? "identical" : "ahead",
          ahead_by: to - from,
          behind_by: 0,
          total_commits: to - from,
          commits: listed.map((c) => ({ sha: c.sha, commit: { committer: { date: c.date.toISOString() } } })),
          // GitHub lists at most 300 files of a comparison.
          files: files.slice(0, 300),
        });
      }
      m = /^zipball\/([^/]+)$/.exec(rest);
      if (m) {
        const idx = indexOf(m[1]!);
        if (idx < 0) return json(res, 404, { message: "Not Found" });
        return send(res, 302, "", { location: `${origin}${codeload}${commits[idx]!.sha}` });
      }
      return json(res, 404, { message: "Not Found" });
    },
  };
  return mirror;
}

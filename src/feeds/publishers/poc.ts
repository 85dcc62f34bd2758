import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { DAY, HOUR, publisher, type SyncContext } from "../sync/publisher.js";
import { ZipError, zipEntries } from "./zip.js";

/**
 * PoC evidence kept current from nomi-sec/PoC-in-GitHub, a GitHub repository a bot commits to
 * several times a day, one `<year>/CVE-….json` array of GitHub repositories per CVE (ADR 0023).
 *
 * - Each sync asks `GET <repo>/commits/HEAD` for the head commit's SHA alone (media type
 *   `application/vnd.github.sha`) with the ETag of the last answer: a 304 ends the sync (one
 *   request, no body; a 304 does not count against GitHub's rate limit).
 * - First sync: `GET <repo>/zipball/<sha>` (the tree of that commit, one archive), read with yauzl.
 * - Then: `GET <repo>/compare/<applied sha>...<head sha>` lists the files changed between the two
 *   commits; each added or modified CVE file is fetched from its `raw_url` (raw hosts are outside the
 *   API's rate limit), a removed one is applied as an empty array (the CVE has no nomi-sec PoC left).
 * - A comparison GitHub cannot list whole (300 files or more: its diff limit), a base commit the
 *   publisher no longer has (history rewritten: 404) or a head that is not ahead of the base falls
 *   back to the archive of the head commit.
 * - Units of {@link pocTuning.batch} files are imported then checkpointed (`pending`: the target
 *   commit and how many of its files are applied), so a kill resumes at the next file; the archive
 *   is downloaded again in that case (git lists a commit's tree in the same order each time).
 * - A file that is not a JSON array (a corrupt or truncated file) is reported and skipped.
 *
 * An address that is not a GitHub-like repository (`…/repos/<owner>/<name>`) is a single file (a
 * trickest or nomi-sec JSONL mirror): no incremental form exists, so it is fetched with a
 * conditional GET at most once a day whatever the source's rhythm.
 */

/** Files per import, then a checkpoint (tests lower it). */
export const pocTuning = { batch: 2000 };

/** GitHub's compare lists at most this many files: a comparison reaching it may miss some. */
export const COMPARE_FILE_LIMIT = 300;

/** A single-file address is fetched at most once per this many milliseconds. */
export const SINGLE_FILE_EVERY_MS = DAY * 1000;

export interface RepoCheckpoint {
  /** The commit whose tree is wholly applied. */
  sha?: string;
  /** ETag of the last `commits/HEAD` answer naming `sha`. */
  etag?: string;
  /** A commit being applied: from the archive (`from` null) or the comparison `from...head`; `done` files applied. */
  pending?: { head: string; from: string | null; done: number; until: string | null };
}

export interface FileCheckpoint {
  etag?: string;
  lastModified?: string;
  /** When the address was last asked (ISO). */
  checkedAt?: string;
}

/** One entry of a comparison's `files`, as GitHub serves it. */
export interface CompareFile {
  filename: string;
  status: string;
  raw_url?: string | null;
  previous_filename?: string;
}

/** What a comparison asks for, in path order: a file to fetch (`url`) or a CVE whose file was removed (`url` null). */
export interface PlannedFile {
  path: string;
  cve: string;
  url: string | null;
}

const CVE_PATH_RE = /(?:^|\/)\d{4}\/(CVE-\d{4}-\d{4,19})\.json$/i;
const SHA_RE = /^[0-9a-f]{40}$/;

/** `{api, owner, name}` of a repository address `…/repos/<owner>/<name>`, or null for any other address. */
export function repoOf(address: string): { api: string; owner: string; name: string } | null {
  let u: URL;
  try {
    u = new URL(address);
  } catch {
    return null;
  }
  const m = /^(.*)\/repos\/([^/]+)\/([^/]+?)\/?$/.exec(u.pathname);
  if (!m || u.search) return null;
  return { api: `${u.origin}${m[1]}/repos/${m[2]}/${m[3]}`, owner: m[2]!, name: m[3]! };
}

/** The CVE id of a nomi-sec path (`2024/CVE-2024-0001.json`, or inside an archive's top directory), or null. */
export function cveOfPath(path: string): string | null {
  const m = CVE_PATH_RE.exec(path);
  return m ? m[1]!.toUpperCase() : null;
}

/**
 * The files of a comparison to apply, sorted by path: added, modified, renamed, copied or changed
 * CVE files are fetched from their raw URL; a removed one (or the old name of a renamed one) is
 * applied as an empty array. Other files (README.md…) are left out.
 */
export function planCompare(files: readonly CompareFile[]): PlannedFile[] {
  const out = new Map<string, PlannedFile>();
  for (const f of files) {
    const cve = cveOfPath(f.filename);
    if (f.status === "renamed" && f.previous_filename) {
      const old = cveOfPath(f.previous_filename);
      if (old && old !== cve && !out.has(f.previous_filename))
        out.set(f.previous_filename, { path: f.previous_filename, cve: old, url: null });
    }
    if (!cve) continue;
    if (f.status === "removed") out.set(f.filename, { path: f.filename, cve, url: null });
    else if (f.raw_url) out.set(f.filename, { path: f.filename, cve, url: f.raw_url });
  }
  return [...out.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** A nomi-sec file's array of repositories, or why it cannot be applied (not JSON, not an array). */
export function parseNomiSecFile(text: string): { repos: unknown[] } | { problem: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    return { problem: `JSON illisible (${(err as Error).message})` };
  }
  return Array.isArray(v) ? { repos: v } : { problem: "le document n'est pas un tableau JSON" };
}

/** Why a nomi-sec file cannot be applied, or null when it can. */
export function nomiSecFileProblem(text: string): string | null {
  const r = parseNomiSecFile(text);
  return "problem" in r ? r.problem : null;
}

/** Whether a single-file address is due: never asked, or asked more than `everyMs` ago. */
export function singleFileDue(cp: FileCheckpoint, now: Date, everyMs = SINGLE_FILE_EVERY_MS): boolean {
  if (!cp.checkedAt) return true;
  const at = Date.parse(cp.checkedAt);
  return Number.isNaN(at) || now.getTime() - at >= everyMs;
}

function apiHeaders(token: string | null, accept = "application/vnd.github+json"): Record<string, string> {
  return { accept, "x-github-api-version": "2022-11-28", ...(token ? { authorization: `Bearer ${token}` } : {}) };
}

function dateOrNull(v: string | null | undefined): Date | null {
  if (!v) return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
}

export const pocPublisher = publisher({
  defaultAddresses: ["https://api.github.com/repos/nomi-sec/PoC-in-GitHub"],
  every: HOUR,
  githubApi: true,
  protocol:
    "dépôt GitHub (nomi-sec/PoC-in-GitHub) : SHA de la tête (requête conditionnelle), archive zip la première fois, puis compare <dernier SHA appliqué>...<tête> et les fichiers modifiés ; un fichier seul (JSONL) au plus une fois par jour",
  async sync(ctx) {
    const repo = repoOf(ctx.address);
    if (!repo) return syncSingleFile(ctx);
    let cp = { ...((ctx.checkpoint ?? {}) as RepoCheckpoint) };
    if (cp.pending) cp = await applyCommit(ctx, repo.api, cp, cp.pending);
    if (ctx.signal.aborted) return;
    const token = ctx.settings.githubToken;
    const got = await ctx.fetch(`${repo.api}/commits/HEAD`, {
      headers: apiHeaders(token, "application/vnd.github.sha"),
      conditional: cp.etag && cp.sha ? { etag: cp.etag } : null,
      name: "head.sha",
    });
    if (got.status === 304) return;
    if (!got.file) throw new Error(`${repo.api}/commits/HEAD : HTTP ${got.status}`);
    const head = readFileSync(got.file, "utf8").trim().toLowerCase();
    rmSync(got.file, { force: true });
    if (!SHA_RE.test(head)) throw new Error(`${repo.api}/commits/HEAD : SHA illisible ${JSON.stringify(head.slice(0, 60))}`);
    const etag = got.headers.get("etag") ?? undefined;
    const until = dateOrNull(got.headers.get("last-modified"))?.toISOString() ?? null;
    if (head === cp.sha) {
      if (etag !== cp.etag) await ctx.save({ sha: head, ...(etag ? { etag } : {}) }, dateOrNull(until));
      return;
    }
    await applyCommit(ctx, repo.api, { ...cp, etag }, { head, from: cp.sha ?? null, done: 0, until });
  },
});

type Pending = NonNullable<RepoCheckpoint["pending"]>;

/** Applies the tree of `p.head`, from the comparison with `p.from` or from the archive; returns the checkpoint saved. */
async function applyCommit(ctx: SyncContext, api: string, cp: RepoCheckpoint, p: Pending): Promise<RepoCheckpoint> {
  if (p.from) {
    const files = await compareFiles(ctx, api, p.from, p.head);
    if (files) return applyFiles(ctx, cp, p, planCompare(files));
    ctx.log.info({ from: p.from, head: p.head }, "feeds-sync poc : comparaison impossible, archive du commit");
    p = { ...p, from: null, done: 0 };
  }
  return applyArchive(ctx, api, cp, p);
}

/** The comparison's files, or null when it cannot be used (base unknown, not ahead, 300 files or more). */
async function compareFiles(ctx: SyncContext, api: string, from: string, head: string): Promise<CompareFile[] | null> {
  // per_page=1: the files of the whole comparison come with the first page; the commits are not needed.
  const got = await ctx.fetch(`${api}/compare/${from}...${head}?per_page=1`, {
    headers: apiHeaders(ctx.settings.githubToken),
    name: "compare.json",
  });
  if (got.status === 404 || got.status === 422) return null;
  if (!got.file) throw new Error(`${api}/compare : HTTP ${got.status}`);
  let body: { status?: string; files?: CompareFile[] };
  try {
    body = JSON.parse(readFileSync(got.file, "utf8"));
  } catch {
    throw new Error(`${api}/compare : réponse JSON illisible`);
  } finally {
    rmSync(got.file, { force: true });
  }
  const files = body.files ?? [];
  if (body.status !== "ahead" && body.status !== "identical") return null;
  if (files.length >= COMPARE_FILE_LIMIT) return null;
  return files;
}

/** Imports the planned files from `p.done` on, a unit at a time, each followed by its checkpoint. */
async function applyFiles(ctx: SyncContext, cp: RepoCheckpoint, p: Pending, plan: PlannedFile[]): Promise<RepoCheckpoint> {
  let done = Math.min(p.done, plan.length);
  while (done < plan.length) {
    if (ctx.signal.aborted) throw ctx.signal.reason ?? new Error("interrompu");
    const unit = plan.slice(done, done + pocTuning.batch);
    const dir = ctx.tempDir();
    const paths: string[] = [];
    for (const f of unit) {
      const target = join(dir, f.path);
      mkdirSync(dirname(target), { recursive: true });
      if (f.url === null) {
        writeFileSync(target, "[]\n");
        paths.push(target);
        continue;
      }
      const got = await ctx.fetch(f.url, { name: basename(f.path) });
      if (got.status === 404) {
        ctx.problem(f.path, `HTTP 404 (${f.url})`);
        continue;
      }
      if (!got.file) throw new Error(`${f.url} : HTTP ${got.status}`);
      const text = readFileSync(got.file, "utf8");
      rmSync(got.file, { force: true });
      const problem = nomiSecFileProblem(text);
      if (problem) {
        ctx.problem(f.path, problem);
        continue;
      }
      writeFileSync(target, text);
      paths.push(target);
    }
    if (paths.length) await ctx.import(paths);
    rmSync(dir, { recursive: true, force: true });
    done += unit.length;
    if (done < plan.length) {
      cp = { ...cp, pending: { ...p, done } };
      await ctx.save(cp, null);
    }
  }
  const applied: RepoCheckpoint = { sha: p.head, ...(cp.etag ? { etag: cp.etag } : {}) };
  await ctx.save(applied, dateOrNull(p.until) ?? new Date());
  return applied;
}

/** Imports the CVE files of the head commit's zip archive from `p.done` on, a unit at a time. */
async function applyArchive(ctx: SyncContext, api: string, cp: RepoCheckpoint, p: Pending): Promise<RepoCheckpoint> {
  const got = await ctx.fetch(`${api}/zipball/${p.head}`, { headers: apiHeaders(ctx.settings.githubToken), name: "repo.zip" });
  if (!got.file) throw new Error(`${api}/zipball/${p.head} : HTTP ${got.status}`);
  let index = 0;
  let done = p.done;
  let lines: string[] = [];
  let seen = 0;
  let units = 0;
  // A unit is imported as one JSON Lines file of `{"cve","repos"}` (the importer's nomi-sec JSONL
  // form, the CVE id taken from the file's name): one file instead of thousands, each read 3 times.
  const flush = async () => {
    if (lines.length) {
      const file = join(ctx.tempDir(), `nomi-sec-${p.head.slice(0, 7)}-${units++}.jsonl`);
      writeFileSync(file, lines.join(""));
      await ctx.import([file]);
      rmSync(file, { force: true });
    }
    done += seen;
    lines = [];
    seen = 0;
    cp = { ...cp, pending: { ...p, from: null, done } };
    await ctx.save(cp, null);
  };
  try {
    for await (const entry of zipEntries(got.file)) {
      const cve = cveOfPath(entry.name);
      if (!cve) continue;
      if (index++ < done) continue;
      if (ctx.signal.aborted) throw ctx.signal.reason ?? new Error("interrompu");
      seen++;
      // The archive's top directory (<owner>-<name>-<sha>/) is dropped in what is reported.
      const rel = entry.name.slice(entry.name.indexOf("/") + 1);
      const parsed = parseNomiSecFile((await entry.read()).toString("utf8"));
      if ("problem" in parsed) ctx.problem(rel, parsed.problem);
      else lines.push(`${JSON.stringify({ cve, repos: parsed.repos })}\n`);
      if (seen >= pocTuning.batch) await flush();
    }
    if (seen) await flush();
  } catch (err) {
    if (err instanceof ZipError) throw new Error(`${api}/zipball/${p.head} : archive endommagée (${err.message})`);
    throw err;
  } finally {
    rmSync(got.file, { force: true });
  }
  const applied: RepoCheckpoint = { sha: p.head, ...(cp.etag ? { etag: cp.etag } : {}) };
  await ctx.save(applied, dateOrNull(p.until) ?? new Date());
  return applied;
}

/** A file with no incremental form (a JSONL mirror): a conditional GET at most once a day. */
async function syncSingleFile(ctx: SyncContext): Promise<void> {
  const cp = (ctx.checkpoint ?? {}) as FileCheckpoint;
  const now = new Date();
  if (!singleFileDue(cp, now)) return;
  const got = await ctx.fetch(ctx.address, {
    conditional: { etag: cp.etag ?? null, lastModified: cp.lastModified ?? null },
  });
  if (got.status === 304) {
    await ctx.save({ ...cp, checkedAt: now.toISOString() }, dateOrNull(cp.lastModified));
    return;
  }
  if (!got.file) throw new Error(`HTTP ${got.status}`);
  await ctx.import([got.file]);
  const etag = got.headers.get("etag");
  const lastModified = got.headers.get("last-modified");
  await ctx.save(
    { ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}), checkedAt: now.toISOString() },
    dateOrNull(lastModified) ?? now,
  );
}

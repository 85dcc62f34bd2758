import { createWriteStream, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { HOUR, publisher, type SyncContext } from "../sync/publisher.js";
import { zipEntries } from "./zip.js";

/**
 * The CVE List as CVEProject/cvelistV5 publishes it: GitHub releases found through the releases API
 * (`<base>/releases?per_page=…&page=…`, newest first). Each release (tag `cve_YYYY-MM-DD_HHMMZ`,
 * hourly, and `cve_YYYY-MM-DD_at_end_of_day`) carries
 * - the day's baseline, `YYYY-MM-DD_all_CVEs_at_midnight.zip.zip`: a zip holding `cves.zip`, which
 *   holds every record as `cves/<year>/<n>xxx/CVE-….json`;
 * - the day's delta, `YYYY-MM-DD_delta_CVEs_at_HHMMZ.zip` (or `_at_end_of_day.zip`): every record
 *   added or modified since that midnight, as `deltaCves/CVE-….json`. Deltas are cumulative over
 *   their day: the newest delta of a day holds every earlier one of the same day.
 *
 * The checkpoint says up to which instant the records were applied (`covered`: a baseline's
 * midnight, a delta's hour, or the next midnight for an end-of-day delta), with the release it came
 * from. A sync lists the releases down to that instant, then applies for each day since, in order,
 * that day's newest delta only (a day already over needs its end-of-day delta, or the next days
 * cannot follow on); when the deltas do not follow on from the checkpoint (the first sync, a gap
 * older than the releases GitHub still lists, a missing end-of-day delta) it applies the newest
 * baseline, then that release's delta. Each archive is applied, then checkpointed.
 */

export interface Cve5Checkpoint {
  /** The instant up to which every record is applied (ISO). */
  covered: string;
  /** The date of the baseline the chain of deltas started from (YYYY-MM-DD). */
  baseline: string;
  /** The release whose archive was applied last, and its publication time. */
  tag: string;
  published: string;
}

export interface ReleaseAsset {
  name: string;
  url: string;
}

/** A release as the plan needs it: its baseline and delta assets, if any. */
export interface Release {
  tag: string;
  published: string;
  baseline: (ReleaseAsset & { date: string }) | null;
  delta: (ReleaseAsset & { date: string; covered: string }) | null;
}

export type Step =
  | { kind: "baseline"; release: Release; asset: ReleaseAsset & { date: string } }
  | { kind: "delta"; release: Release; asset: ReleaseAsset & { date: string; covered: string } };

const BASELINE = /^(\d{4}-\d{2}-\d{2})_all_CVEs(?:_at_midnight)?\.zip(?:\.zip)?$/;
const DELTA = /^(\d{4}-\d{2}-\d{2})_delta_CVEs_at_(?:(\d{2})(\d{2})Z|end_of_day)\.zip$/;
const PER_PAGE = 100;
/** At most this many listing pages (100 releases each: about four days of hourly releases). */
const MAX_PAGES = 10;
/** A record file of a baseline or a delta larger than this is refused (the biggest real ones are under 2 MB). */
const MAX_RECORD_BYTES = 16 << 20;

function nextDay(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}
function midnight(date: string): string {
  return `${date}T00:00:00.000Z`;
}

/** A release of the API's listing, reduced to the assets the protocol uses (unknown ones ignored). */
export function parseRelease(raw: unknown): Release | null {
  const r = raw as { tag_name?: unknown; published_at?: unknown; created_at?: unknown; assets?: unknown };
  if (!r || typeof r.tag_name !== "string" || !Array.isArray(r.assets)) return null;
  const published = typeof r.published_at === "string" ? r.published_at : typeof r.created_at === "string" ? r.created_at : null;
  if (!published || Number.isNaN(Date.parse(published))) return null;
  const out: Release = { tag: r.tag_name, published: new Date(published).toISOString(), baseline: null, delta: null };
  for (const a of r.assets as { name?: unknown; browser_download_url?: unknown }[]) {
    if (typeof a?.name !== "string" || typeof a.browser_download_url !== "string") continue;
    const asset = { name: a.name, url: a.browser_download_url };
    const b = BASELINE.exec(a.name);
    if (b) out.baseline = { ...asset, date: b[1]! };
    const d = DELTA.exec(a.name);
    if (d) {
      const covered = d[2] ? new Date(`${d[1]}T${d[2]}:${d[3]}:00Z`).toISOString() : midnight(nextDay(d[1]!));
      if (!Number.isNaN(Date.parse(covered))) out.delta = { ...asset, date: d[1]!, covered };
    }
  }
  return out;
}

/**
 * What to apply, in order, from a checkpoint and the releases listed (any order): for each day
 * since the checkpoint, its newest delta; the newest baseline first when the deltas do not follow
 * on from the checkpoint. Pure: the listing and the checkpoint are all it looks at.
 */
export function planSync(cp: Cve5Checkpoint | null, releases: Release[]): Step[] {
  const byCovered = releases.filter((r) => r.delta).sort((a, b) => a.delta!.covered.localeCompare(b.delta!.covered));
  const chain = (from: string): Step[] | null => {
    const newer = byCovered.filter((r) => r.delta!.covered > from);
    // The newest delta of each day (deltas are cumulative over their day).
    const perDay = new Map<string, Release>();
    for (const r of newer) perDay.set(r.delta!.date, r);
    const steps: Step[] = [];
    let covered = from;
    for (const [date, r] of [...perDay].sort(([a], [b]) => a.localeCompare(b))) {
      // A day's delta starts at its midnight: the records applied must reach it.
      if (covered < midnight(date)) return null;
      steps.push({ kind: "delta", release: r, asset: r.delta! });
      covered = r.delta!.covered;
    }
    return steps;
  };
  if (cp) {
    const steps = chain(cp.covered);
    if (steps) return steps;
  }
  const newest = releases
    .filter((r) => r.baseline)
    .sort((a, b) => b.baseline!.date.localeCompare(a.baseline!.date) || b.published.localeCompare(a.published))[0];
  if (!newest) return [];
  // The same baseline again is pointless when the checkpoint is already past its midnight.
  const from = midnight(newest.baseline!.date);
  if (cp && cp.covered >= from) return chain(cp.covered) ?? [];
  return [{ kind: "baseline", release: newest, asset: newest.baseline! }, ...(chain(from) ?? [])];
}

/** True once the listing has reached what the plan needs: releases the checkpoint already covers (the pages after are older). */
function reachedCheckpoint(page: Release[], cp: Cve5Checkpoint | null): boolean {
  // Without a checkpoint, the newest baseline and its day's newest delta are on the first page.
  if (!cp) return page.some((r) => r.baseline);
  return page.some((r) => (r.delta ? r.delta.covered <= cp.covered : r.published <= cp.published));
}

/** Entry texts of a zip, one at a time, streamed (an entry is read whole, up to MAX_RECORD_BYTES). */
async function* zipTexts(file: string, wanted: (name: string) => boolean): AsyncIterable<{ name: string; text: Buffer }> {
  for await (const entry of zipEntries(file)) {
    if (!wanted(entry.name)) continue;
    if (entry.size > MAX_RECORD_BYTES) throw new Error(`${entry.name} : entrée trop grande (${entry.size} octets)`);
    yield { name: entry.name, text: await entry.read() };
  }
}

/** Streams one entry of a zip to a file (the baseline's inner `cves.zip`). */
async function extractEntry(file: string, name: string, to: string): Promise<boolean> {
  for await (const entry of zipEntries(file)) {
    if (basename(entry.name) !== name) continue;
    await pipeline(await entry.open(), createWriteStream(to));
    return true;
  }
  return false;
}

/**
 * Writes the CVE records of an archive to `dir` (1,000 files per subdirectory), reporting an entry
 * that is no CVE record (not CVE JSON 5, truncated) and going on. Returns how many were written.
 */
async function unpackRecords(ctx: SyncContext, file: string, where: string, dir: string): Promise<number> {
  let n = 0;
  for await (const { name, text } of zipTexts(file, (f) => /(^|\/)CVE-\d{4}-\d+\.json$/.test(f))) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    const head = text.subarray(0, 65536).toString("utf8");
    const tail = text
      .subarray(Math.max(0, text.length - 64))
      .toString("utf8")
      .trimEnd();
    // What the importer's sniffing looks for in a file's first 64 KB (some records put cveMetadata after large containers).
    if (!(head.includes('"cveMetadata"') || head.includes("CVE_RECORD")) || !tail.endsWith("}")) {
      ctx.problem(`${where} : ${name}`, "pas un enregistrement CVE JSON 5 complet ; ignoré");
      continue;
    }
    const sub = join(dir, String(Math.floor(n / 1000)).padStart(3, "0"));
    if (n % 1000 === 0) mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, basename(name)), text);
    n++;
  }
  return n;
}

/** Downloads an asset; a non-2xx answer throws (the sync resumes from its checkpoint). */
async function download(ctx: SyncContext, asset: ReleaseAsset): Promise<string> {
  const got = await ctx.fetch(asset.url, { name: asset.name });
  if (!got.file) throw new Error(`${asset.name} : HTTP ${got.status}`);
  return got.file;
}

/** The headers of a GitHub API request: the token (never logged) when one is configured. */
function apiHeaders(ctx: SyncContext): Record<string, string> {
  return {
    accept: "application/vnd.github+json",
    "x-github-api-version": "2022-11-28",
    ...(ctx.settings.githubToken ? { authorization: `Bearer ${ctx.settings.githubToken}` } : {}),
  };
}

/** The releases down to the checkpoint (all listed pages the first time, at most MAX_PAGES). */
async function listReleases(ctx: SyncContext, cp: Cve5Checkpoint | null): Promise<Release[]> {
  const base = ctx.address.replace(/\/+$/, "");
  const out: Release[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const url = `${base}/releases?per_page=${PER_PAGE}&page=${page}`;
    const got = await ctx.fetch(url, { headers: apiHeaders(ctx), name: "releases.json" });
    // GitHub's rate limits never come back here: the request throws with the hold (sync/holds.ts).
    if (!got.file) throw new Error(`liste des releases : HTTP ${got.status}`);
    let raw: unknown;
    try {
      raw = JSON.parse(await readFile(got.file, "utf8"));
      rmSync(got.file, { force: true });
    } catch {
      throw new Error(`liste des releases (page ${page}) : réponse JSON illisible`);
    }
    if (!Array.isArray(raw)) throw new Error(`liste des releases (page ${page}) : un tableau de releases était attendu`);
    const releases = raw.map(parseRelease).filter((r): r is Release => r !== null);
    out.push(...releases);
    if (raw.length < PER_PAGE || reachedCheckpoint(releases, cp)) break;
  }
  return out;
}

/** Applies one baseline: outer zip → `cves.zip` → the records, imported at once. */
async function applyBaseline(ctx: SyncContext, step: Extract<Step, { kind: "baseline" }>): Promise<void> {
  const outer = await download(ctx, step.asset);
  const work = ctx.tempDir();
  const inner = join(work, "cves.zip");
  let archive = outer;
  try {
    if (await extractEntry(outer, "cves.zip", inner)) archive = inner;
  } catch (err) {
    throw new Error(`${step.asset.name} : archive illisible (${(err as Error).message})`);
  }
  const dir = join(work, "cves");
  let n: number;
  try {
    n = await unpackRecords(ctx, archive, step.asset.name, dir);
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    throw new Error(`${step.asset.name} : archive illisible (${(err as Error).message})`);
  }
  // The archives are no longer needed once unpacked (a whole baseline is ~130 MB of them).
  rmSync(outer, { force: true });
  rmSync(inner, { force: true });
  ctx.log.info({ release: step.release.tag, records: n }, "cve5 : baseline décompressée");
  if (n) await ctx.import([dir]);
}

/**
 * The CVE List's publisher (see the comment at the top). A corrupt delta is reported and not
 * applied, and the checkpoint stays before it: when it is the newest day's, the sync stops there and
 * the next hourly delta (cumulative over the day) carries its records again; when a later day
 * follows, the next day's baseline (which holds every record at its midnight) is applied in its
 * place and the chain goes on from there.
 */
export const cve5Publisher = publisher({
  defaultAddresses: ["https://api.github.com/repos/CVEProject/cvelistV5"],
  every: HOUR,
  githubApi: true,
  protocol:
    "releases GitHub de CVEProject/cvelistV5 : la baseline du jour une fois, puis le delta le plus récent de chaque jour (deltaCves/) ; point de reprise : l'instant couvert et la release",
  async sync(ctx) {
    let cp = (ctx.checkpoint as Cve5Checkpoint | null) ?? null;
    if (cp && (typeof cp.covered !== "string" || Number.isNaN(Date.parse(cp.covered)))) cp = null;
    const releases = await listReleases(ctx, cp);
    let steps = planSync(cp, releases);
    while (steps.length) {
      const step = steps.shift()!;
      if (ctx.signal.aborted) throw ctx.signal.reason;
      if (step.kind === "baseline") {
        await applyBaseline(ctx, step);
        cp = { covered: midnight(step.asset.date), baseline: step.asset.date, tag: step.release.tag, published: step.release.published };
        await ctx.save(cp, new Date(cp.covered));
        continue;
      }
      const file = await download(ctx, step.asset);
      const dir = ctx.tempDir();
      let n: number;
      try {
        n = await unpackRecords(ctx, file, step.asset.name, dir);
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        ctx.problem(step.asset.name, `archive illisible, non appliquée (${(err as Error).message})`);
        // The next day's baseline holds what this delta held; without one, the next run tries again.
        const next = releases.find((r) => r.baseline?.date === nextDay(step.asset.date));
        if (!next?.baseline) return;
        const after = {
          ...(cp ?? { baseline: next.baseline.date, tag: next.tag, published: next.published }),
          covered: midnight(next.baseline.date),
        };
        steps = [{ kind: "baseline", release: next, asset: next.baseline }, ...planSync(after, releases)];
        continue;
      }
      if (n) await ctx.import([dir]);
      cp = {
        covered: step.asset.covered,
        baseline: cp?.baseline ?? step.asset.date,
        tag: step.release.tag,
        published: step.release.published,
      };
      await ctx.save(cp, new Date(step.release.published));
    }
  },
});

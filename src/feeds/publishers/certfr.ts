import { readFile, rm } from "node:fs/promises";
import { basename } from "node:path";
import { parseCertfrAvis } from "../certfr.js";
import { parseFeed } from "../rss.js";
import { FetchError } from "../sync/fetch.js";
import { HOUR, publisher, type Publisher, type SyncContext } from "../sync/publisher.js";

/** CERT-FR's site: the avis feed is `<base>/avis/feed/`, each avis's JSON document `<base>/avis/<reference>/json/`. */
export const CERTFR_BASE = "https://www.cert.ssi.gouv.fr";
/** Documents fetched then imported together: one import (and one checkpoint) per batch. */
export const CERTFR_BATCH = 500;
/** Documents fetched at once. */
const PARALLEL = 4;

const AVIS_PATH = /\/avis\/(CERT(?:FR|A)-\d{4}-AVI-\d{3,4})\/?$/i;

/** An avis listed by the feed: its reference, and the date the feed gives it (RSS pubDate, ISO 8601). */
export interface FeedAvis {
  ref: string;
  date: string | null;
}

/** An avis applied from the feed: as listed (`date`), and the date of its latest revision applied (`rev`, YYYY-MM-DD). */
export interface AppliedAvis extends FeedAvis {
  rev: string | null;
}

/**
 * What a sync applied last: the feed's validators (only when every document it listed was
 * applied), the avis it listed that were applied, in the feed's order (nothing the feed no longer
 * lists), and the newest date applied.
 */
export interface CertfrCheckpoint {
  etag?: string;
  lastModified?: string;
  avis: AppliedAvis[];
  newest: string | null;
}

/** The base address without trailing slashes (`VIGIE_FEED_URLS_CERTFR` names the site's base). */
function baseOf(address: string): string {
  return address.replace(/\/+$/, "");
}

export function feedUrlOf(address: string): string {
  return `${baseOf(address)}/avis/feed/`;
}

export function documentUrlOf(address: string, ref: string): string {
  return `${baseOf(address)}/avis/${ref}/json/`;
}

/** The avis reference an item's link (or guid) names, or null (a bulletin d'actualité, an alerte…). */
export function avisRef(url: string | null): string | null {
  if (!url) return null;
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    path = url;
  }
  const m = AVIS_PATH.exec(path);
  return m ? m[1]!.toUpperCase() : null;
}

/**
 * The avis of a feed text (RSS 2.0 as CERT-FR serves it; any format parseFeed reads), in the
 * feed's order, each reference once (its newest date kept). Items that are not avis are left out.
 * Throws RecordError when the text is not a feed.
 */
export function feedAvis(text: string, feedUrl: string | null): FeedAvis[] {
  const out: FeedAvis[] = [];
  const at = new Map<string, number>();
  for (const item of parseFeed(text, feedUrl).items) {
    const ref = avisRef(item.url) ?? avisRef(item.guid);
    if (!ref) continue;
    const seen = at.get(ref);
    if (seen === undefined) {
      at.set(ref, out.length);
      out.push({ ref, date: item.published_at });
    } else if ((item.published_at ?? "") > (out[seen]!.date ?? "")) out[seen]!.date = item.published_at;
  }
  return out;
}

/**
 * The references listed both times whose place changed: those outside a longest common
 * subsequence of the two orders. CERT-FR lists avis by their latest revision and keeps an item's
 * guid and pubDate when it is revised, so a revised avis still listed shows only by moving.
 */
export function movedRefs(before: string[], now: string[]): Set<string> {
  const place = new Map(before.map((r, i) => [r, i]));
  const common = now.filter((r) => place.has(r));
  // Longest increasing subsequence of the former places, with its members.
  const tails: number[] = [];
  const prev: number[] = new Array(common.length).fill(-1);
  for (let i = 0; i < common.length; i++) {
    const v = place.get(common[i]!)!;
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (place.get(common[tails[mid]!]!)! < v) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[i] = tails[lo - 1]!;
    tails[lo] = i;
  }
  const kept = new Set<string>();
  for (let i = tails.length ? tails[tails.length - 1]! : -1; i >= 0; i = prev[i]!) kept.add(common[i]!);
  return new Set(common.filter((r) => !kept.has(r)));
}

/**
 * The avis whose document must be fetched: not applied (new, listed again after leaving the feed,
 * or failed last time), listed with another date, or moved in the feed's order (revised).
 */
export function avisToFetch(listed: FeedAvis[], applied: AppliedAvis[]): FeedAvis[] {
  const known = new Map(applied.map((a) => [a.ref, a]));
  const moved = movedRefs(
    applied.map((a) => a.ref),
    listed.map((a) => a.ref),
  );
  return listed.filter((a) => {
    const k = known.get(a.ref);
    return !k || k.date !== a.date || moved.has(a.ref);
  });
}

/** The checkpoint's avis after applying some: in the feed's order, only what the feed lists and was applied. */
export function appliedInFeedOrder(listed: FeedAvis[], applied: Map<string, AppliedAvis>): AppliedAvis[] {
  return listed.flatMap((a) => {
    const done = applied.get(a.ref);
    return done ? [done] : [];
  });
}

/** A stored checkpoint, or an empty one (first sync, or a shape of another version). */
export function readCheckpoint(v: unknown): CertfrCheckpoint {
  const cp = (typeof v === "object" && v !== null ? v : {}) as Partial<CertfrCheckpoint>;
  const avis = Array.isArray(cp.avis)
    ? cp.avis.filter((a): a is AppliedAvis => typeof a === "object" && a !== null && typeof a.ref === "string")
    : [];
  return {
    ...(typeof cp.etag === "string" ? { etag: cp.etag } : {}),
    ...(typeof cp.lastModified === "string" ? { lastModified: cp.lastModified } : {}),
    avis,
    newest: typeof cp.newest === "string" ? cp.newest : null,
  };
}

function later(a: string | null, b: string | null): string | null {
  if (!a) return b;
  if (!b) return a;
  return Date.parse(b) > Date.parse(a) ? b : a;
}

/** A fetched document, checked before the import: JSON, an avis, the one asked for. Returns its latest revision date. */
function checkDocument(text: string, ref: string): string | null {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new Error(`JSON invalide : ${(err as Error).message}`);
  }
  const avis = parseCertfrAvis(doc);
  if (avis.reference !== ref) throw new Error(`le document est celui de ${avis.reference}`);
  return avis.modified;
}

interface Fetched {
  ref: string;
  date: string | null;
  file: string;
  rev: string | null;
}

/** Fetches the documents of a batch, PARALLEL at a time; a document that fails is reported and left for the next sync. */
async function fetchDocuments(ctx: SyncContext, batch: FeedAvis[], failures: { network: number }): Promise<Fetched[]> {
  const out: Fetched[] = [];
  let next = 0;
  const worker = async () => {
    while (next < batch.length && !ctx.signal.aborted) {
      const item = batch[next++]!;
      const url = documentUrlOf(ctx.address, item.ref);
      try {
        const got = await ctx.fetch(url, { name: `${item.ref}.json` });
        if (!got.file) {
          if (got.status >= 500 || got.status === 429 || got.status === 403) failures.network++;
          ctx.problem(url, `HTTP ${got.status}`);
          continue;
        }
        try {
          const rev = checkDocument(await readFile(got.file, "utf8"), item.ref);
          out.push({ ...item, file: got.file, rev });
        } catch (err) {
          ctx.problem(url, (err as Error).message);
          await rm(got.file, { force: true });
        }
      } catch (err) {
        if (ctx.signal.aborted) return;
        if (!(err instanceof FetchError)) throw err;
        failures.network++;
        ctx.problem(url, err.message);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, batch.length) }, worker));
  // In the feed's order, whatever order the answers came in.
  const order = new Map(batch.map((a, i) => [a.ref, i]));
  return out.sort((a, b) => order.get(a.ref)! - order.get(b.ref)!);
}

/**
 * CERT-FR avis (issue 22): the avis feed, asked with the validators of the copy applied last (a
 * 304 costs one request and nothing else), then the JSON document of each avis that is new or was
 * revised since (see {@link avisToFetch}), imported by batches of CERTFR_BATCH documents, each
 * batch checkpointed once imported. A document that cannot be fetched or fails its check is
 * reported and not checkpointed: the feed's validators are then not saved either, so the next sync
 * reads the feed again and fetches that document alone.
 */
export const certfrPublisher: Publisher = publisher({
  defaultAddresses: [CERTFR_BASE],
  every: HOUR,
  protocol:
    "flux RSS des avis (/avis/feed/, requête conditionnelle) puis le document JSON de chaque avis nouveau ou révisé (/avis/<référence>/json/) ; point de reprise : validateurs du flux, avis appliqués (référence, date, dernière révision)",
  async sync(ctx) {
    const cp = readCheckpoint(ctx.checkpoint);
    const feedUrl = feedUrlOf(ctx.address);
    const got = await ctx.fetch(feedUrl, { conditional: cp, name: "avis-feed.xml" });
    if (got.status === 304) return;
    if (!got.file) throw new FetchError(`${feedUrl} : HTTP ${got.status}`, got.status);
    let listed: FeedAvis[];
    try {
      listed = feedAvis(await readFile(got.file, "utf8"), feedUrl);
    } catch (err) {
      throw new Error(`${feedUrl} : flux illisible (${(err as Error).message})`);
    }
    await rm(got.file, { force: true });

    const wanted = avisToFetch(listed, cp.avis);
    const wantedRefs = new Set(wanted.map((a) => a.ref));
    // What stays applied: listed, applied before, and not to be fetched again.
    const applied = new Map(cp.avis.filter((a) => !wantedRefs.has(a.ref)).map((a) => [a.ref, a]));
    let newest = cp.newest;
    const failures = { network: 0 };
    let fetched = 0;

    for (let i = 0; i < wanted.length; i += CERTFR_BATCH) {
      if (ctx.signal.aborted) break;
      const batch = wanted.slice(i, i + CERTFR_BATCH);
      const docs = await fetchDocuments(ctx, batch, failures);
      fetched += docs.length;
      if (docs.length) {
        const result = await ctx.import(docs.map((d) => d.file));
        // The importer's own refusals (none expected after the check): not applied either.
        const refused = new Set(result.errors.map((e) => e.file));
        for (const d of docs) {
          if (refused.has(basename(d.file))) continue;
          applied.set(d.ref, { ref: d.ref, date: d.date, rev: d.rev });
          newest = later(newest, later(d.date, d.rev));
        }
        await Promise.all(docs.map((d) => rm(d.file, { force: true })));
      }
      const complete = i + CERTFR_BATCH >= wanted.length && listed.every((a) => applied.has(a.ref));
      await save(ctx, got.headers, complete, { avis: appliedInFeedOrder(listed, applied), newest });
    }
    if (ctx.signal.aborted) throw ctx.signal.reason ?? new Error("interrompu");
    // A changed feed with nothing new to apply (an avis left it): its validators and list only.
    if (!wanted.length) await save(ctx, got.headers, true, { avis: appliedInFeedOrder(listed, applied), newest });
    // Every document failed on the network or the server: the publisher is down, not one document.
    if (wanted.length && !fetched && failures.network === wanted.length)
      throw new Error(`${ctx.address} : aucun document d'avis obtenu (${wanted.length} en échec)`);
  },
});

/**
 * Saves what is applied. Once every avis the feed lists is applied (`complete`), the feed's
 * validators too, and the data is current up to the feed's Last-Modified; before, up to the
 * newest date applied.
 */
async function save(ctx: SyncContext, headers: Headers, complete: boolean, cp: Omit<CertfrCheckpoint, "etag" | "lastModified">) {
  const etag = complete ? headers.get("etag") : null;
  const lastModified = complete ? headers.get("last-modified") : null;
  const until = complete && lastModified && !Number.isNaN(Date.parse(lastModified)) ? later(cp.newest, lastModified) : cp.newest;
  await ctx.save(
    { ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}), ...cp } satisfies CertfrCheckpoint,
    until ? new Date(until) : null,
  );
}

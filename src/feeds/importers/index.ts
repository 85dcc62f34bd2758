/**
 * The feed sources Vigie imports, in the order a first start imports the snapshot (records
 * first, then what enriches them).
 *
 * To add a source: write `src/feeds/importers/<source>.ts` (a `feedSource({...})` declaring its
 * endings, sniffing, tables, default addresses and importer) and name it in FEED_SOURCES below.
 * Nothing else changes: `--source` and the CLI help, `VIGIE_FEED_URLS_<SOURCE>` in the
 * configuration, `feeds sync`, the sync job and the snapshot all read this list.
 */
import { certfr } from "./certfr.js";
import { cve5 } from "./cve5.js";
import { epss } from "./epss.js";
import type { FeedSource } from "./feed-source.js";
import { kev } from "./kev.js";
import { nvd } from "./nvd.js";
import { osv } from "./osv.js";
import { poc } from "./poc.js";
import { rss } from "./rss.js";

/** The registry. */
export const FEED_SOURCES = [cve5, nvd, kev, epss, poc, osv, certfr, rss] as const;

/** A source id ("cve5", "nvd"…), derived from the registry. */
export type Source = (typeof FEED_SOURCES)[number]["id"];
/** The source ids, in the registry's order. */
export const SOURCES: readonly Source[] = FEED_SOURCES.map((s) => s.id);

/** True when `id` names a source of the registry. */
export function isSource(id: string): id is Source {
  return (SOURCES as readonly string[]).includes(id);
}

/** The declaration of a source of the registry. */
export function feedSourceOf(id: Source): FeedSource<Source> {
  return FEED_SOURCES.find((s) => s.id === id)!;
}

/** The configured addresses of each source: `VIGIE_FEED_URLS_<SOURCE>` (comma-separated; empty disables) or the default. */
export function feedUrls(env: NodeJS.ProcessEnv): Partial<Record<Source, string[]>> {
  const out: Partial<Record<Source, string[]>> = {};
  for (const { id, defaultUrls } of FEED_SOURCES) {
    const set = env[`VIGIE_FEED_URLS_${id.toUpperCase()}`];
    const urls = set === undefined ? [...defaultUrls] : set.split(",").map((u) => u.trim()).filter(Boolean);
    if (urls.length) out[id] = urls;
  }
  return out;
}

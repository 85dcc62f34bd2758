/**
 * The feed sources Vigie imports, in the order a first start imports the snapshot (records
 * first, then what enriches them).
 *
 * To add a source: write `src/feeds/importers/<source>.ts` (a `feedSource({...})` declaring its
 * endings, sniffing, tables, default addresses and importer) and name it in FEED_SOURCES below.
 * Nothing else changes: `--source` and the CLI help, `VIGIE_FEED_URLS_<SOURCE>` in the
 * configuration, `feeds sync`, the sync job and the snapshot all read this list.
 */
import { ConfigError } from "../../config.js";
import { certfr } from "./certfr.js";
import { cve5 } from "./cve5.js";
import { eol } from "./eol.js";
import { epss } from "./epss.js";
import type { FeedSource } from "./feed-source.js";
import { kev } from "./kev.js";
import { nvd } from "./nvd.js";
import { osv } from "./osv.js";
import { poc } from "./poc.js";
import { rss } from "./rss.js";

/** The registry. */
export const FEED_SOURCES = [cve5, nvd, kev, epss, poc, osv, certfr, rss, eol] as const;

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

/**
 * The publisher addresses synced for each source: those set in the configuration
 * (`VIGIE_FEED_URLS_<SOURCE>`, an empty list disabling the source), else the publisher's defaults.
 * A setting that names no source of the registry is a configuration error (a typo would silently
 * leave the official address in use).
 */
export function feedUrls(settings: Readonly<Record<string, string[]>>): Partial<Record<Source, string[]>> {
  const unknown = Object.keys(settings).filter((id) => !isSource(id));
  if (unknown.length) {
    const names = unknown.map((id) => `VIGIE_FEED_URLS_${id.toUpperCase()}`).join(", ");
    throw new ConfigError(`Configuration invalide :\n  ${names} : source inconnue (sources : ${SOURCES.join(", ")})`);
  }
  const out: Partial<Record<Source, string[]>> = {};
  for (const { id, publisher } of FEED_SOURCES) {
    const urls = settings[id] ?? publisher.defaultAddresses;
    if (urls.length) out[id] = [...urls];
  }
  return out;
}

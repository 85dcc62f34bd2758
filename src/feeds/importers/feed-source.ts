import type { Db } from "../../platform/db/client.js";
import type { ImportOptions, Tally } from "../records.js";
import type { Publisher } from "../sync/publisher.js";

/** Everything Vigie knows about one feed source: how its files look, where they come from, how they are imported. */
export interface FeedSource<Id extends string = string> {
  /** `--source`, the `VIGIE_FEED_URLS_<ID>` suffix, the snapshot's directory name. */
  id: Id;
  /** File endings the importer reads, each also gzip-compressed (`.gz`); a directory is expanded to them. */
  endings: readonly string[];
  /** The ending given to a downloaded file whose address has none of `endings`. */
  defaultEnding: string;
  /** Recognises a file of this source from its first bytes (and its name); `expected` names the format in the refusal. */
  sniff: { test(head: string, file: string): boolean; expected: string };
  /** The tables an import loads, analyzed after a big load. */
  tables: readonly string[];
  /** How the source is kept current from its publisher (addresses, rhythm, protocol: src/feeds/sync/publisher.ts). */
  publisher: Publisher;
  /** Imports files already recognised and read through whole (nothing is written before that). */
  importFiles(db: Db, files: string[], tally: Tally, opts: ImportOptions): Promise<void>;
}

/** Declares a source, keeping its id as a literal type (the `Source` union is derived from the registry). */
export function feedSource<const Id extends string>(def: FeedSource<Id>): FeedSource<Id> {
  return def;
}

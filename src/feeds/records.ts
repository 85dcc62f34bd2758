/**
 * What every importer shares before the database: the records of a file with their place (for
 * error reports), the running counts of an import, the format check that refuses a damaged file
 * before anything is written, and the re-import shortcut for texts already stored.
 */
import { createHash } from "node:crypto";
import { basename } from "node:path";
import type { Db } from "../platform/db/client.js";
import { FormatError, head, jsonArrayItems, lines, openText, readWhole } from "./reader.js";
import { feedStore } from "./store.js";
import { RecordError } from "./types.js";

export interface RecordFailure {
  file: string;
  line?: number;
  index?: number;
  message: string;
}

export interface ImportResult {
  source: string;
  read: number;
  inserted: number;
  updated: number;
  unchanged: number;
  skipped: number;
  errors: RecordFailure[];
  /** CVE 5 RESERVED records: counted, not stored. */
  reserved?: number;
  files: number;
  seconds: number;
}

export interface ImportOptions {
  /** EPSS score date when the file gives none (YYYY-MM-DD). */
  date?: string;
  /** Called after each batch with the records read so far. */
  progress?: (read: number) => void;
}

/** Where a record is in its file, for error reports. */
export type Loc = { line: number } | { index: number };
export interface SourceRecord {
  file: string;
  loc: Loc;
  text: string;
}

const MAX_ERRORS_KEPT = 1000;
/** Records per batch: one transaction of a batch writer, one lookup of known texts. */
export const BATCH = 1000;
/**
 * Record text per batch (UTF-16 code units): a batch closes at BATCH records or at this much text,
 * whichever comes first. A few records weigh hundreds of kilobytes (CVE-2024-20433 lists 4,868
 * affected versions, 1.3 MB; NVD items with hundreds of CPEs): 1,000 records of them made an
 * 11 MB statement, held with the texts and parsed records while the database works (ADR 0020).
 */
export const BATCH_TEXT = 4 << 20;

/** A short digest of a value's JSON: the stored hash that tells a changed record from an unchanged one. */
export function hashOf(value: unknown): string {
  return createHash("sha1").update(JSON.stringify(value)).digest("base64url");
}

/** The running counts of one import, shared by every source. */
export class Tally {
  readonly result: ImportResult;
  private readonly started = Date.now();
  constructor(
    source: string,
    files: number,
    private readonly progress?: (read: number) => void,
  ) {
    this.result = { source, read: 0, inserted: 0, updated: 0, unchanged: 0, skipped: 0, errors: [], files, seconds: 0 };
  }
  fail(rec: { file: string; loc: Loc }, message: string) {
    this.result.skipped++;
    if (this.result.errors.length < MAX_ERRORS_KEPT) this.result.errors.push({ file: rec.file, ...rec.loc, message });
  }
  tick() {
    this.progress?.(this.result.read);
  }
  done(): ImportResult {
    this.result.seconds = (Date.now() - this.started) / 1000;
    return this.result;
  }
}

/** Records of JSON files: JSON Lines (one per line), or documents holding an array of records, or one record per file. */
/** Runs `use` on each record; a record that fails is reported with its place and skipped. */
export async function eachRecord<R extends SourceRecord>(
  records: AsyncIterable<R>,
  tally: Tally,
  use: (rec: R) => Promise<void>,
): Promise<void> {
  for await (const rec of records) {
    tally.result.read++;
    try {
      await use(rec);
    } catch (err) {
      if (err instanceof RecordError) tally.fail(rec, err.message);
      else throw err;
    }
  }
}

/** Records of JSON files: JSON Lines (one per line), or documents holding an array of records, or one record per file. */
export async function* jsonRecords(files: string[], arrayKeys: string[]): AsyncIterable<SourceRecord> {
  for (const file of files) {
    const name = basename(file);
    if (/\.jsonl(\.gz)?$/.test(file)) {
      for await (const { line, text } of lines(file)) if (text.trim()) yield { file: name, loc: { line }, text };
      continue;
    }
    const start = (await head(file, 4096)).trimStart();
    const wrapped = start.startsWith("[") || arrayKeys.some((k) => start.includes(`"${k}"`));
    if (!wrapped) {
      yield { file: name, loc: { index: 0 }, text: await readWhole(file) };
      continue;
    }
    let index = 0;
    for await (const text of jsonArrayItems(openText(file), start.startsWith("[") ? null : arrayKeys)) {
      yield { file: name, loc: { index: index++ }, text };
    }
  }
}

/** Bump when a parser changes what it extracts: every record is then parsed again on re-import (3: CVE 5 `changes`, VMware update bounds; 4: CVE 5 workarounds and solutions). */
const PARSER_VERSION = "4";

/**
 * Passes on only the records whose exact text is not the one already stored for their CVE (the
 * others are counted unchanged without being parsed: a re-import costs little more than reading).
 * `idOf` finds a record's CVE id in its text; a record where it finds none is passed on.
 */
export async function* skipKnownTexts(
  db: Db,
  source: string,
  records: AsyncIterable<SourceRecord>,
  tally: Tally,
  idOf: (text: string) => string | undefined,
): AsyncIterable<SourceRecord & { rawHash?: string }> {
  let pending: (SourceRecord & { id?: string; rawHash?: string })[] = [];
  let text = 0;
  const drain = async function* () {
    const keyed = pending.filter((r) => r.id);
    const known = keyed.length
      ? await feedStore.knownTexts(
          db,
          source,
          keyed.map((r) => r.id!),
          keyed.map((r) => r.rawHash!),
        )
      : new Set<string>();
    for (const r of pending) {
      if (r.id && known.has(r.id)) {
        tally.result.read++;
        tally.result.unchanged++;
      } else yield r;
    }
    pending = [];
    text = 0;
  };
  for await (const rec of records) {
    const id = idOf(rec.text);
    pending.push({ ...rec, id, rawHash: id ? createHash("sha1").update(PARSER_VERSION).update(rec.text).digest("base64url") : undefined });
    text += rec.text.length;
    if (pending.length >= BATCH || text >= BATCH_TEXT) yield* drain();
  }
  yield* drain();
}

/** One record per file, whatever it holds (a nomi-sec file is a JSON array that is one record). */
export async function* wholeFiles(files: string[]): AsyncIterable<SourceRecord> {
  for (const file of files) yield { file: basename(file), loc: { index: 0 }, text: await readWhole(file) };
}

/** Parses a JSON record's text, reporting bad JSON as a record failure. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new RecordError(`JSON invalide : ${(err as Error).message}`);
  }
}

/**
 * Recognises each file's format from its first bytes, then reads it through once: a damaged
 * compressed file or a truncated JSON document fails here, before anything is written.
 */
export async function sniff(
  files: string[],
  source: string,
  format: { test(head: string, file: string): boolean; expected: string },
): Promise<void> {
  if (!files.length) throw new FormatError(`aucun fichier à importer pour ${source}`);
  for (const file of files) {
    let text: string;
    try {
      text = await head(file);
    } catch (err) {
      throw new FormatError(`${file} : illisible ou endommagé (${(err as Error).message}) ; rien n'a été importé`);
    }
    if (!format.test(text, file)) throw new FormatError(`${file} n'est pas au format ${source} attendu (${format.expected})`);
  }
  for (const file of files) await checkWhole(file);
}

/** Decompresses the whole file (gzip checks its CRC and length) and checks a JSON document is complete. */
async function checkWhole(file: string): Promise<void> {
  let tail = "";
  try {
    // Only the last characters are kept: appending whole chunks copied every file once more.
    for await (const chunk of openText(file)) tail = (tail + (chunk as string).slice(-64)).slice(-64);
  } catch (err) {
    throw new FormatError(`${file} : fichier endommagé (${(err as Error).message}) ; rien n'a été importé`);
  }
  if (/\.json(\.gz)?$/.test(file) && !/[}\]]\s*$/.test(tail)) {
    throw new FormatError(`${file} : document JSON tronqué ; rien n'a été importé`);
  }
}

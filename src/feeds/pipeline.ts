import { createHash } from "node:crypto";
import { basename } from "node:path";
import type { Db } from "../platform/db/client.js";
import { mergeCve } from "./merge.js";
import { expandPaths, FormatError, head, jsonArrayItems, lines, openText } from "./reader.js";
import { feedStore, type ContributionRow } from "./store.js";
import { RecordError } from "./types.js";

export const SOURCES = ["cve5", "nvd", "epss", "kev", "poc", "osv", "certfr", "rss"] as const;
export type Source = (typeof SOURCES)[number];

export interface RecordFailure {
  file: string;
  line?: number;
  index?: number;
  message: string;
}

export interface ImportResult {
  source: Source;
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
const BATCH = 1000;

export function hashOf(value: unknown): string {
  return createHash("sha1").update(JSON.stringify(value)).digest("base64url");
}

/** The running counts of one import, shared by every source. */
export class Tally {
  readonly result: ImportResult;
  private readonly started = Date.now();
  constructor(source: Source, files: number, private readonly progress?: (read: number) => void) {
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
      let text = "";
      for await (const chunk of openText(file)) text += chunk as string;
      yield { file: name, loc: { index: 0 }, text };
      continue;
    }
    let index = 0;
    for await (const text of jsonArrayItems(openText(file), start.startsWith("[") ? null : arrayKeys)) {
      yield { file: name, loc: { index: index++ }, text };
    }
  }
}

/**
 * Stores CVE contributions in batches; each batch, with the merge of the CVEs it changed, is one
 * transaction: a crash leaves every CVE either before or after a batch, never half-written.
 */
export class ContributionWriter {
  private pending = new Map<string, ContributionRow>();
  constructor(private readonly db: Db, private readonly tally: Tally) {}

  async add(row: ContributionRow): Promise<void> {
    const key = `${row.cve_id}\u0000${row.source}`;
    const prev = this.pending.get(key);
    // The same CVE twice in one batch: keep the newer record.
    if (!prev || (row.source_modified ?? "") >= (prev.source_modified ?? "")) this.pending.set(key, row);
    if (this.pending.size >= BATCH) await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.pending.size) return;
    const rows = [...this.pending.values()];
    this.pending = new Map();
    const written = await this.db.transaction(async (tx) => {
      const changed = await feedStore.upsertContributions(tx, rows);
      await mergeIds(tx, [...new Set(changed.map((c) => c.cve_id))]);
      return changed;
    });
    const inserted = written.filter((w) => w.inserted).length;
    this.tally.result.inserted += inserted;
    this.tally.result.updated += written.length - inserted;
    this.tally.result.unchanged += rows.length - written.length;
    this.tally.tick();
  }
}

/** Re-merges these CVEs from everything stored about them. */
export async function mergeIds(ex: Parameters<typeof feedStore.mergeInputs>[0], ids: string[]): Promise<number> {
  if (!ids.length) return 0;
  const inputs = await feedStore.mergeInputs(ex, ids);
  const merged = [...inputs.values()].map(mergeCve).filter((m): m is NonNullable<typeof m> => m !== null);
  await feedStore.writeMerged(ex, merged);
  return merged.length;
}

/** Parses a JSON record's text, reporting bad JSON as a record failure. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new RecordError(`JSON invalide : ${(err as Error).message}`);
  }
}

/** Recognises a file's format from its first bytes; throws FormatError before anything is written. */
export async function sniff(files: string[], source: Source, test: (head: string, file: string) => boolean, expected: string): Promise<void> {
  if (!files.length) throw new FormatError(`aucun fichier à importer pour ${source}`);
  for (const file of files) {
    let text: string;
    try {
      text = await head(file);
    } catch (err) {
      throw new FormatError(`${file} : illisible (${(err as Error).message})`);
    }
    if (!test(text, file)) throw new FormatError(`${file} n'est pas au format ${source} attendu (${expected})`);
  }
}

export { expandPaths, FormatError };

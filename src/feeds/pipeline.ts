import { createHash } from "node:crypto";
import { basename } from "node:path";
import { learnEquivalences } from "../matching/equivalences.js";
import { matchChangedCves, rekeyAdvisoryAlerts } from "../matching/matcher.js";
import type { Db, Executor } from "../platform/db/client.js";
import { ADVISORY_SOURCES, advisoryPart, isCveId, mergeCve, pocPart, sourcesOf } from "./merge.js";
import { expandPaths, FormatError, head, jsonArrayItems, lines, openText, readWhole } from "./reader.js";
import { feedStore, type AdvisoryRow, type ContributionRow } from "./store.js";
import { RecordError } from "./types.js";

import { SOURCES, type Source } from "./sources.js";
export { SOURCES, type Source };

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
const MAX_IN_FLIGHT = 2;
const MERGE_SLICE = 250;

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
      yield { file: name, loc: { index: 0 }, text: await readWhole(file) };
      continue;
    }
    let index = 0;
    for await (const text of jsonArrayItems(openText(file), start.startsWith("[") ? null : arrayKeys)) {
      yield { file: name, loc: { index: index++ }, text };
    }
  }
}

/** Bump when a parser changes what it extracts: every record is then parsed again on re-import. */
const PARSER_VERSION = "2";

/**
 * Passes on only the records whose exact text is not the one already stored for their CVE (the
 * others are counted unchanged without being parsed: a re-import costs little more than reading).
 * `idOf` finds a record's CVE id in its text; a record where it finds none is passed on.
 */
export async function* skipKnownTexts(db: Db, source: string, records: AsyncIterable<SourceRecord>, tally: Tally, idOf: (text: string) => string | undefined): AsyncIterable<SourceRecord & { rawHash?: string }> {
  let pending: (SourceRecord & { id?: string; rawHash?: string })[] = [];
  const drain = async function* () {
    const keyed = pending.filter((r) => r.id);
    const known = keyed.length ? await feedStore.knownTexts(db, source, keyed.map((r) => r.id!), keyed.map((r) => r.rawHash!)) : new Set<string>();
    for (const r of pending) {
      if (r.id && known.has(r.id)) {
        tally.result.read++;
        tally.result.unchanged++;
      } else yield r;
    }
    pending = [];
  };
  for await (const rec of records) {
    const id = idOf(rec.text);
    pending.push({ ...rec, id, rawHash: id ? createHash("sha1").update(PARSER_VERSION).update(rec.text).digest("base64url") : undefined });
    if (pending.length >= BATCH) yield* drain();
  }
  yield* drain();
}

/** One record per file, whatever it holds (a nomi-sec file is a JSON array that is one record). */
export async function* wholeFiles(files: string[]): AsyncIterable<SourceRecord> {
  for (const file of files) yield { file: basename(file), loc: { index: 0 }, text: await readWhole(file) };
}

/** What a batch writer needs to know of its rows: identity, age, and the batch's SQL. */
interface BatchSpec<R> {
  key(row: R): string;
  modified(row: R): string | null;
  /** Writes one batch inside its transaction; returns the rows actually written. */
  write(tx: Executor, rows: R[]): Promise<{ inserted: boolean }[]>;
}

/**
 * Writes records in batches, each batch one transaction (a crash leaves every record before or
 * after a batch, never half-written). Up to two batches are in flight while the next one is
 * parsed: the importer waits on the database half of the time otherwise.
 */
export class BatchWriter<R> {
  private pending = new Map<string, R>();
  private inflight: Promise<void>[] = [];
  constructor(private readonly db: Db, private readonly tally: Tally, private readonly spec: BatchSpec<R>) {}

  async add(row: R): Promise<void> {
    const key = this.spec.key(row);
    const prev = this.pending.get(key);
    // The same record twice in one batch: keep the newer; the other is counted unchanged (not written).
    if (prev) this.tally.result.unchanged++;
    if (!prev || (this.spec.modified(row) ?? "") >= (this.spec.modified(prev) ?? "")) this.pending.set(key, row);
    if (this.pending.size >= BATCH) await this.launch();
  }

  /** Writes what is pending and waits for every batch. */
  async flush(): Promise<void> {
    await this.launch();
    while (this.inflight.length) await this.inflight.shift();
  }

  private async launch(): Promise<void> {
    if (!this.pending.size) return;
    // Rows in key order: two batches in flight lock shared rows in the same order (no deadlock).
    const rows = [...this.pending.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
    this.pending = new Map();
    const batch = retryOnDeadlock(() => this.db.transaction(async (tx) => {
      const written = await this.spec.write(tx, rows);
      // Last, so that two batches in flight wait on this row only for the other's commit.
      if (written.length) await feedStore.bumpVersion(tx, "cves");
      return written;
    })).then((written) => {
      const inserted = written.filter((w) => w.inserted).length;
      this.tally.result.inserted += inserted;
      this.tally.result.updated += written.length - inserted;
      this.tally.result.unchanged += rows.length - written.length;
      this.tally.tick();
    });
    batch.catch(() => undefined); // awaited below or by flush(); not an unhandled rejection meanwhile
    this.inflight.push(batch);
    if (this.inflight.length >= MAX_IN_FLIGHT) await this.inflight.shift();
  }
}

/**
 * Runs a batch transaction again when PostgreSQL aborts it as a deadlock victim (two batches in
 * flight sharing CVE rows): the whole batch was rolled back, so running it again is safe.
 */
async function retryOnDeadlock<T>(run: () => Promise<T>, attempts = 4): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await run();
    } catch (err) {
      const code = (err as { code?: string; cause?: { code?: string } }).cause?.code ?? (err as { code?: string }).code;
      if (i >= attempts || (code !== "40P01" && code !== "40001")) throw err;
      await new Promise((r) => setTimeout(r, 50 * i));
    }
  }
}

/** CVE contributions of one source: each batch re-merges the CVEs it changed. */
export function contributionWriter(db: Db, tally: Tally): BatchWriter<ContributionRow> {
  return new BatchWriter(db, tally, {
    key: (r) => `${r.cve_id}\u0000${r.source}`,
    modified: (r) => r.source_modified,
    write: async (tx, rows) => {
      const changed = await feedStore.upsertContributions(tx, rows);
      const ids = new Set(changed.map((c) => c.cve_id));
      // PoC evidence decides a few columns only: no need to re-read and re-merge the whole record.
      if (rows.every((r) => r.source.startsWith("poc:"))) await refreshPoc(tx, [...ids]);
      else {
        await mergeIds(tx, [...ids], rows.filter((r) => ids.has(r.cve_id)));
        await learnEquivalences(tx, [...ids]);
      }
      // In the same transaction: an alert (and its event) exists exactly when its CVE change is committed.
      await matchChangedCves(tx, [...ids]);
      return changed;
    },
  });
}

/**
 * Advisories (OSV, CERT-FR): each batch re-merges the records they name, before and after the
 * change. OSV advisories can build records (a CVE known only from them; an advisory naming no CVE,
 * keyed by its own id): the keys they name are merged whole, in the batch's few set-based
 * statements. CERT-FR avis add aliases and measures to the CVEs another source describes (a
 * partial refresh), build the thin record of a CVE no other source describes, and date one that
 * no other source dates (KEV-only): those are merged whole (found in one query per batch).
 */
export function advisoryWriter(db: Db, tally: Tally): BatchWriter<AdvisoryRow> {
  return new BatchWriter(db, tally, {
    key: (r) => r.id,
    modified: (r) => r.modified,
    write: async (tx, rows) => {
      const changed = await feedStore.upsertAdvisories(tx, rows);
      const byId = new Map(rows.map((r) => [r.id, r]));
      const whole = new Set<string>();
      const partial = new Set<string>();
      const rekey: { from: string; to: string }[] = [];
      for (const c of changed) {
        const row = byId.get(c.id)!;
        if (row.source === "certfr") {
          for (const a of c.aliases) if (isCveId(a)) partial.add(a);
          continue;
        }
        // The CVEs it names or named; its own id when it names none (a record keyed by it).
        for (const a of c.aliases) if (isCveId(a)) whole.add(a);
        const cve = row.aliases.filter(isCveId).sort()[0];
        if (!cve) whole.add(c.id);
        // An advisory that names a CVE now: the alerts raised under its own id become the CVE's.
        else rekey.push({ from: c.id, to: cve });
      }
      // Those that name a CVE now: their own id only where a record is still keyed by it (to remove).
      for (const id of await feedStore.heldKeys(tx, rekey.map((r) => r.from))) whole.add(id);
      for (const key of whole) partial.delete(key);
      // Records the avis build or date (no record yet, one built from avis, a KEV-only one): merged whole.
      for (const id of await feedStore.avisDatedKeys(tx, [...partial])) {
        partial.delete(id);
        whole.add(id);
      }
      await mergeIds(tx, [...whole]);
      await refreshAdvisories(tx, [...partial]);
      await rekeyAdvisoryAlerts(tx, rekey);
      // Only records merged whole can change their evidence (packages, affected rows); a partial refresh adds aliases and measures.
      await learnEquivalences(tx, [...whole]);
      await matchChangedCves(tx, [...whole, ...partial]);
      return changed;
    },
  });
}

/** Recomputes the PoC columns of the held CVEs among `ids`. */
async function refreshPoc(ex: Executor, ids: string[]): Promise<void> {
  ids.sort();
  for (let i = 0; i < ids.length; i += MERGE_SLICE) {
    const inputs = await feedStore.pocInputs(ex, ids.slice(i, i + MERGE_SLICE));
    const rows = inputs.map((c) => ({
      cve_id: c.cve_id,
      ...pocPart(c.pocs, c.is_kev),
      sources: sourcesOf([...c.sources.filter((s) => !s.startsWith("poc:")), ...c.pocs.map((p) => p.source)]),
    }));
    await feedStore.updateCveParts(ex, rows, ["has_poc", "poc_count", "poc_first_date", "maturite_exploit", "sources"]);
  }
}

/** Recomputes the advisory columns of the held CVEs among `ids` (an avis names up to hundreds of CVEs, most unknown here). */
async function refreshAdvisories(ex: Executor, ids: string[]): Promise<void> {
  ids.sort();
  for (let i = 0; i < ids.length; i += MERGE_SLICE) {
    const inputs = await feedStore.advisoryInputs(ex, ids.slice(i, i + MERGE_SLICE));
    const rows = inputs.map((c) => ({
      cve_id: c.cve_id,
      ...advisoryPart(c.cve_id, c.advisories),
      sources: sourcesOf([...c.sources.filter((s) => !ADVISORY_SOURCES.has(s)), ...c.advisories.map((a) => a.source)]),
    }));
    await feedStore.updateCveParts(ex, rows, ["contournement_disponible", "mesures_provisoires", "aliases", "fusion_de", "sources"]);
  }
}

/** The affected-product origins each source provides (the others change none). */
const AFFECTED_ORIGINS: Record<string, string[]> = { cve5: ["cna", "adp"], nvd: ["nvd"], kev: ["kev"] };

/**
 * Re-merges these CVEs from everything stored about them. `written`: the contributions this batch
 * has just stored, used from memory instead of being read back.
 */
export async function mergeIds(ex: Executor, ids: string[], written: ContributionRow[] = []): Promise<number> {
  const byId = new Map(written.map((r) => [r.cve_id, r]));
  const sources = [...new Set(written.map((r) => r.source))];
  const except = sources.length === 1 ? sources[0] : undefined;
  // Without batch rows (a plain re-merge) every origin is rewritten.
  const origins = written.length ? sources.flatMap((src) => AFFECTED_ORIGINS[src] ?? []) : null;
  let count = 0;
  ids.sort();
  // In slices: a CVE's stored contributions, parsed, weigh tens of kilobytes.
  for (let i = 0; i < ids.length; i += MERGE_SLICE) {
    const inputs = await feedStore.mergeInputs(ex, ids.slice(i, i + MERGE_SLICE), except);
    for (const [id, input] of inputs) {
      const r = except ? byId.get(id) : undefined;
      if (r) input.contributions.push({ source: r.source, data: r.data, source_modified: r.source_modified ? new Date(r.source_modified) : null });
    }
    const all = [...inputs.values()].map((input) => ({ id: input.cve_id, merged: mergeCve(input) }));
    const merged = all.flatMap((m) => (m.merged ? [m.merged] : []));
    await feedStore.writeMerged(ex, merged, origins);
    // No source describes these any more (an advisory withdrawn, or now merged into its CVE).
    await feedStore.deleteRecords(ex, all.filter((m) => !m.merged).map((m) => m.id));
    count += merged.length;
  }
  return count;
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
export async function sniff(files: string[], source: Source, test: (head: string, file: string) => boolean, expected: string): Promise<void> {
  if (!files.length) throw new FormatError(`aucun fichier à importer pour ${source}`);
  for (const file of files) {
    let text: string;
    try {
      text = await head(file);
    } catch (err) {
      throw new FormatError(`${file} : illisible ou endommagé (${(err as Error).message}) ; rien n'a été importé`);
    }
    if (!test(text, file)) throw new FormatError(`${file} n'est pas au format ${source} attendu (${expected})`);
  }
  for (const file of files) await checkWhole(file);
}

/** Decompresses the whole file (gzip checks its CRC and length) and checks a JSON document is complete. */
async function checkWhole(file: string): Promise<void> {
  let tail = "";
  try {
    for await (const chunk of openText(file)) tail = (tail + (chunk as string)).slice(-64);
  } catch (err) {
    throw new FormatError(`${file} : fichier endommagé (${(err as Error).message}) ; rien n'a été importé`);
  }
  if (/\.json(\.gz)?$/.test(file) && !/[}\]]\s*$/.test(tail)) {
    throw new FormatError(`${file} : document JSON tronqué ; rien n'a été importé`);
  }
}

export { expandPaths, FormatError };

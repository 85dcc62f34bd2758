import { once } from "node:events";
import { createReadStream, createWriteStream, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { RecordError } from "../types.js";
import { HOUR, publisher, type SyncContext } from "../sync/publisher.js";
import { zipEntries } from "./zip.js";
import {
  appliedUntil,
  checkAdvisory,
  ecosystemPath,
  later,
  rowsSince,
  timeKey,
  type CsvRow,
  type EcosystemCheckpoint,
} from "./osv-index.js";

/** OSV's bucket, served over HTTP (https://google.github.io/osv.dev/data/#data-dumps). */
export const OSV_BASE = "https://osv-vulnerabilities.storage.googleapis.com";
/**
 * The first bytes of modified_id.csv asked for (a Range request): an hour of changes of the busiest
 * ecosystem fits many times over (~45 bytes a row). The whole index (npm's lists every malicious
 * package, megabytes) is fetched only when the changes since the checkpoint go past them.
 */
export const INDEX_HEAD_BYTES = 256 * 1024;
/** Advisories fetched by id then imported and checkpointed together. */
export const DOCS_PER_IMPORT = 100;
/** An advisory larger than this in an archive is reported, not read (the largest real ones weigh ~1 MB). */
const MAX_ADVISORY_BYTES = 32 << 20;

/** The checkpoint of an address: per ecosystem, whether its all.zip was applied and the newest `modified` applied. */
export interface OsvCheckpoint {
  ecosystems: Record<string, EcosystemCheckpoint>;
}

function readCheckpoint(v: unknown): OsvCheckpoint {
  const eco = (v as Partial<OsvCheckpoint> | null)?.ecosystems;
  return { ecosystems: eco && typeof eco === "object" ? { ...eco } : {} };
}

/** The newest `modified` applied over the ecosystems, as a date (null: none, or only Go's placeholder year 1). */
function newestApplied(cp: OsvCheckpoint): Date | null {
  let newest: string | null = null;
  for (const e of Object.values(cp.ecosystems)) newest = later(newest, e.modified);
  const t = newest === null ? Number.NaN : Date.parse(timeKey(newest)!.slice(0, 23) + "Z");
  return Number.isNaN(t) || t < 0 ? null : new Date(t);
}

/**
 * OSV, per ecosystem of VIGIE_OSV_ECOSYSTEMS: `<base>/<ecosystem>/all.zip` once, then
 * `<base>/<ecosystem>/modified_id.csv` (a conditional Range request: a 304 when nothing changed)
 * and `<base>/<ecosystem>/<id>.json` of each advisory modified since the checkpoint, oldest first.
 */
export const osvPublisher = publisher({
  defaultAddresses: [OSV_BASE],
  every: HOUR,
  protocol:
    "par écosystème : all.zip une fois, puis modified_id.csv (requête conditionnelle) et le document de chaque avis modifié depuis le dernier appliqué",
  async sync(ctx) {
    const cp = readCheckpoint(ctx.checkpoint);
    const failures: string[] = [];
    // An ecosystem that fails is retried at the source's next attempt from its own checkpoint; the others go on.
    for (const ecosystem of ctx.settings.osvEcosystems) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      try {
        await syncEcosystem(ctx, cp, ecosystem);
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        failures.push(`${ecosystem} : ${(err as Error).message}`);
      }
    }
    if (failures.length) throw new Error(failures.join(" ; "));
  },
});

async function syncEcosystem(ctx: SyncContext, cp: OsvCheckpoint, ecosystem: string): Promise<void> {
  const dir = `${ctx.address.replace(/\/+$/, "")}/${ecosystemPath(ecosystem)}`;
  const save = async (state: EcosystemCheckpoint) => {
    cp.ecosystems[ecosystem] = state;
    await ctx.save({ ecosystems: { ...cp.ecosystems } } satisfies OsvCheckpoint, newestApplied(cp));
  };
  let state = cp.ecosystems[ecosystem] ?? { zip: false, modified: null };
  if (!state.zip) {
    const got = await ctx.fetch(`${dir}/all.zip`, { name: "all.zip" });
    if (got.status === 404) return ctx.problem(`${ecosystem}/all.zip`, "écosystème non publié à cette adresse (HTTP 404)");
    if (!got.file) throw new Error(`all.zip : HTTP ${got.status}`);
    try {
      const newest = await applyArchive(ctx, ecosystem, got.file);
      state = { zip: true, modified: newest };
      await save(state);
    } finally {
      rmSync(got.file, { force: true });
    }
  }
  await followIndex(ctx, ecosystem, dir, state, save);
}

/**
 * Reads an ecosystem's all.zip entry by entry (streamed, never whole in memory), checks each
 * advisory (a bad one is reported, the rest goes on), writes the good ones as JSON Lines and
 * imports them. Returns the newest `modified` of the archive: the index is followed from there.
 */
async function applyArchive(ctx: SyncContext, ecosystem: string, zipFile: string): Promise<string | null> {
  const file = join(ctx.tempDir(), "all.jsonl");
  const out = createWriteStream(file);
  let newest: string | null = null;
  let count = 0;
  try {
    await eachZipEntry(zipFile, ctx.signal, async (name, text) => {
      const where = `${ecosystem}/all.zip:${name}`;
      if (text instanceof Error) return ctx.problem(where, `entrée illisible : ${text.message}`);
      try {
        const a = checkAdvisory(text);
        newest = later(newest, a.modified);
        count++;
        if (!out.write(`${a.line}\n`)) await once(out, "drain");
      } catch (err) {
        if (err instanceof RecordError) ctx.problem(where, err.message);
        else throw err;
      }
    });
  } catch (err) {
    out.destroy();
    if (ctx.signal.aborted) throw err;
    throw new Error(`all.zip illisible : ${(err as Error).message}`);
  }
  out.end();
  await once(out, "close");
  try {
    if (count) await ctx.import([file]);
  } finally {
    rmSync(file, { force: true });
  }
  return newest;
}

/** Each .json entry of a zip, with its text or the error reading it; the archive's own damage rejects. */
async function eachZipEntry(path: string, signal: AbortSignal, use: (name: string, text: string | Error) => Promise<void>): Promise<void> {
  for await (const entry of zipEntries(path)) {
    if (signal.aborted) throw signal.reason;
    if (!entry.name.endsWith(".json")) continue;
    if (entry.size > MAX_ADVISORY_BYTES) {
      await use(entry.name, new Error(`${entry.size} octets`));
      continue;
    }
    let text: string | Error;
    try {
      text = (await entry.read()).toString("utf8");
    } catch (err) {
      text = err as Error;
    }
    await use(entry.name, text);
  }
}

/** Lines of a file; the last one left out when `cut` (the file ends inside it: a Range answer). */
async function* fileLines(path: string, cut: boolean): AsyncIterable<string> {
  const stream = createReadStream(path, { encoding: "utf8" });
  let rest = "";
  try {
    for await (const chunk of stream) {
      const parts = (rest + (chunk as string)).split("\n");
      rest = parts.pop()!;
      yield* parts;
    }
    if (!cut && rest) yield rest;
  } finally {
    stream.destroy();
  }
}

/** `bytes 0-262143/1234567` → whether bytes follow the range (unknown: assumed so). */
function moreAfter(contentRange: string | null): boolean {
  const m = /bytes\s+\d+-(\d+)\/(\d+|\*)/.exec(contentRange ?? "");
  if (!m || m[2] === "*") return true;
  return Number(m[1]) + 1 < Number(m[2]);
}

/**
 * Applies what the ecosystem's modified_id.csv lists after the checkpoint. The first request is
 * conditional (a 304: nothing new, one small answer) and asks for the index's first bytes only;
 * the whole index is fetched when the changes go past them. Then each advisory by id, oldest
 * first, imported by DOCS_PER_IMPORT with the checkpoint moved after each import. A document that
 * cannot be fetched (after the retries) stops the ecosystem there, keeping what came before it; a
 * document gone (404) or damaged is reported and passed.
 */
async function followIndex(
  ctx: SyncContext,
  ecosystem: string,
  dir: string,
  state: EcosystemCheckpoint,
  save: (s: EcosystemCheckpoint) => Promise<void>,
): Promise<void> {
  const url = `${dir}/modified_id.csv`;
  const conditional = state.etag || state.lastModified ? { etag: state.etag, lastModified: state.lastModified } : null;
  let got = await ctx.fetch(url, { name: "modified_id.csv", conditional, headers: { range: `bytes=0-${INDEX_HEAD_BYTES - 1}` } });
  if (got.status === 304) return;
  if (got.status === 404) return ctx.problem(`${ecosystem}/modified_id.csv`, "index non publié à cette adresse (HTTP 404)");
  // 416: an empty index cannot answer a range.
  if (got.status === 416) got = await ctx.fetch(url, { name: "modified_id.csv" });
  if (!got.file) throw new Error(`modified_id.csv : HTTP ${got.status}`);
  let found = await rowsSince(fileLines(got.file, got.status === 206 && moreAfter(got.headers.get("content-range"))), state.modified);
  if (got.status === 206 && !found.reached && moreAfter(got.headers.get("content-range"))) {
    rmSync(got.file, { force: true });
    got = await ctx.fetch(url, { name: "modified_id.csv" });
    if (!got.file) throw new Error(`modified_id.csv : HTTP ${got.status}`);
    found = await rowsSince(fileLines(got.file, false), state.modified);
  }
  rmSync(got.file, { force: true });
  for (const b of found.bad) ctx.problem(`${ecosystem}/modified_id.csv:${b.line}`, `ligne illisible : ${b.text}`);
  const validators = { etag: got.headers.get("etag"), lastModified: got.headers.get("last-modified") };
  await applyDocuments(ctx, ecosystem, dir, found.rows, state, validators, save);
}

async function applyDocuments(
  ctx: SyncContext,
  ecosystem: string,
  dir: string,
  rows: CsvRow[],
  state: EcosystemCheckpoint,
  validators: { etag: string | null; lastModified: string | null },
  save: (s: EcosystemCheckpoint) => Promise<void>,
): Promise<void> {
  let batch: string[] = [];
  let modified = state.modified;
  /** Imports what was fetched of the first `done` rows and moves the checkpoint past them. */
  const flush = async (done: number) => {
    if (batch.length) {
      const file = join(ctx.tempDir(), "modified.jsonl");
      await writeLines(file, batch);
      try {
        await ctx.import([file]);
      } finally {
        rmSync(file, { force: true });
      }
      batch = [];
    }
    modified = appliedUntil(rows, done, modified);
    // The index's validators are kept only once everything it listed is applied.
    const complete = done >= rows.length;
    await save({ zip: true, modified, etag: complete ? validators.etag : null, lastModified: complete ? validators.lastModified : null });
  };
  for (let i = 0; i < rows.length; i++) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    const { id } = rows[i]!;
    const where = `${ecosystem}/${id}.json`;
    let got: Awaited<ReturnType<SyncContext["fetch"]>>;
    try {
      got = await ctx.fetch(`${dir}/${encodeURIComponent(id)}.json`, { name: "advisory.json" });
    } catch (err) {
      if (!ctx.signal.aborted) await flush(i);
      throw err;
    }
    if (got.status === 404) ctx.problem(where, "document absent (HTTP 404) : retiré depuis l'index");
    else if (!got.file) {
      await flush(i);
      throw new Error(`${id}.json : HTTP ${got.status}`);
    } else {
      const text = await readFile(got.file, "utf8");
      rmSync(got.file, { force: true });
      try {
        batch.push(checkAdvisory(text, id).line);
      } catch (err) {
        if (err instanceof RecordError) ctx.problem(where, err.message);
        else throw err;
      }
    }
    if (batch.length >= DOCS_PER_IMPORT) await flush(i + 1);
  }
  await flush(rows.length);
}

async function writeLines(file: string, lines: string[]): Promise<void> {
  const out = createWriteStream(file);
  for (const l of lines) if (!out.write(`${l}\n`)) await once(out, "drain");
  out.end();
  await once(out, "close");
}

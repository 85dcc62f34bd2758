/**
 * The pure parts of following OSV's bucket (https://google.github.io/osv.dev/data/#data-dumps):
 * its timestamps, its per-ecosystem `modified_id.csv` index and the checks an advisory passes
 * before it is applied. The publisher (osv.ts) does the network and the database.
 *
 * modified_id.csv, as OSV's exporter writes it (osv.dev go/cmd/exporter/ecosystemworker.go): one
 * row `<modified>,<id>` per advisory of the ecosystem, no header, `modified` formatted as Go's
 * RFC3339Nano (UTC, trailing zeros of the fraction dropped), sorted by that text newest first, then
 * by id. Sorting the text rather than the time only misorders rows within one second ("…05.1Z"
 * sorts before "…05Z"), so a reader may stop at the first row of an earlier second than its
 * checkpoint's, never before.
 */
import { RecordError } from "../types.js";
import { parseOsvRecord } from "../osv.js";

/** The per-ecosystem state kept in the checkpoint of an address. */
export interface EcosystemCheckpoint {
  /** The ecosystem's all.zip was applied once (afterwards only modified_id.csv is followed). */
  zip: boolean;
  /** The newest `modified` applied, as the publisher wrote it (every advisory up to it is applied). */
  modified: string | null;
  /** Validators of the modified_id.csv read through last (a 304 then means nothing new). */
  etag?: string | null;
  lastModified?: string | null;
}

/** A row of modified_id.csv. */
export interface CsvRow {
  /** Comparable form of `modified` (timeKey). */
  key: string;
  modified: string;
  id: string;
}

const STAMP = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|z|[+-]\d{2}:\d{2})$/;

/**
 * A timestamp as text that sorts like the time, to the nanosecond: `YYYY-MM-DDTHH:MM:SS.fffffffffZ`.
 * OSV writes UTC; an offset is converted (to the millisecond). Null when the text is no RFC 3339 time.
 */
export function timeKey(stamp: string): string | null {
  const m = STAMP.exec(stamp.trim());
  if (!m) return null;
  const [, day, time, frac = "", zone] = m;
  if (zone === "Z" || zone === "z") return `${day}T${time}.${frac.padEnd(9, "0")}Z`;
  const t = Date.parse(`${day}T${time}${frac ? `.${frac.slice(0, 3)}` : ""}${zone}`);
  if (Number.isNaN(t)) return null;
  return `${new Date(t).toISOString().slice(0, 23)}${frac.slice(3).padEnd(6, "0")}Z`;
}

/** The later of two timestamps as the publisher wrote them (null: none). */
export function later(a: string | null, b: string | null): string | null {
  if (a === null || timeKey(a) === null) return b;
  if (b === null || timeKey(b) === null) return a;
  return timeKey(b)! > timeKey(a)! ? b : a;
}

/** A row of the index; null for a line that is none (reported by the caller). */
export function parseCsvRow(line: string): CsvRow | null {
  const text = line.endsWith("\r") ? line.slice(0, -1) : line;
  const comma = text.indexOf(",");
  if (comma < 0) return null;
  const modified = text.slice(0, comma).trim();
  // The id is a CSV field: quoted only if it held a comma or a quote, which OSV ids never do.
  const id = text
    .slice(comma + 1)
    .trim()
    .replace(/^"(.*)"$/, "$1");
  const key = timeKey(modified);
  if (!key || !id || /[/\\]/.test(id)) return null;
  return { key, modified, id };
}

/** What reading the index found. */
export interface NewRows {
  /** The rows modified after the checkpoint, oldest first (ties by id). */
  rows: CsvRow[];
  /** A row of an earlier second than the checkpoint's was reached: the rest is older. */
  reached: boolean;
  /** Lines that are no row, with their number. */
  bad: { line: number; text: string }[];
}

/**
 * The rows of an index (lines newest first) modified after `since` (a timestamp as written, null:
 * every row). Stops reading at the first row of an earlier second than `since`'s.
 */
export async function rowsSince(lines: AsyncIterable<string>, since: string | null, firstLine = 1): Promise<NewRows> {
  const sinceKey = since === null ? null : timeKey(since);
  const out: NewRows = { rows: [], reached: false, bad: [] };
  let n = firstLine - 1;
  for await (const line of lines) {
    n++;
    if (!line.trim()) continue;
    const row = parseCsvRow(line);
    if (!row) {
      if (out.bad.length < 20) out.bad.push({ line: n, text: line.slice(0, 120) });
      continue;
    }
    if (sinceKey !== null && row.key.slice(0, 19) < sinceKey.slice(0, 19)) {
      out.reached = true;
      break;
    }
    if (sinceKey === null || row.key > sinceKey) out.rows.push(row);
  }
  out.rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  // An id listed twice (never, in OSV's export) is fetched once, at its newest row.
  const last = new Map(out.rows.map((r, i) => [r.id, i]));
  out.rows = out.rows.filter((r, i) => last.get(r.id) === i);
  return out;
}

/**
 * The checkpoint once the first `done` rows (oldest first) are applied: the newest time of which
 * every row is applied. Rows sharing a time with a row not yet applied are not counted, so that a
 * resume (which asks for rows strictly after the checkpoint) loses none of them.
 */
export function appliedUntil(rows: readonly CsvRow[], done: number, previous: string | null): string | null {
  for (let j = Math.min(done, rows.length) - 1; j >= 0; j--) {
    if (j + 1 >= rows.length || rows[j + 1]!.key !== rows[j]!.key) return rows[j]!.modified;
  }
  return previous;
}

/** An advisory that passed its checks: its compact text (one JSON Lines line) and `modified`. */
export interface CheckedAdvisory {
  id: string;
  modified: string;
  line: string;
}

/**
 * Checks an advisory's text before it is applied: JSON, an object with the fields OSV's schema
 * requires (`id`, `modified` an RFC 3339 time) and what Vigie reads of it (parseOsvRecord); when
 * `expectedId` is given (the document of that id), the same id. Throws RecordError with the reason.
 */
export function checkAdvisory(text: string, expectedId?: string): CheckedAdvisory {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new RecordError(`JSON invalide : ${(err as Error).message}`);
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) throw new RecordError("le document OSV n'est pas un objet");
  const { id, modified } = doc as { id?: unknown; modified?: unknown };
  if (typeof id !== "string" || !id.trim()) throw new RecordError("document OSV sans id");
  if (typeof modified !== "string" || timeKey(modified) === null) throw new RecordError(`${id} : modified absent ou invalide`);
  if (expectedId !== undefined && id !== expectedId) throw new RecordError(`document de ${id} à l'adresse de ${expectedId}`);
  parseOsvRecord(doc);
  return { id, modified, line: JSON.stringify(doc) };
}

/** An ecosystem's path segment in the bucket: OSV's name, percent-encoded (`crates.io` stays, `Rocky Linux` → `Rocky%20Linux`). */
export function ecosystemPath(ecosystem: string): string {
  return encodeURIComponent(ecosystem);
}

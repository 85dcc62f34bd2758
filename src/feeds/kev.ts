/**
 * CISA Known Exploited Vulnerabilities (KEV) catalog: one catalog entry → KevRecord.
 *
 * Two published forms of the same data (cisagov/kev-data):
 * - JSON `{title, catalogVersion, dateReleased, count, vulnerabilities: [...]}` — parse each
 *   element of `vulnerabilities` with {@link parseKevJsonEntry};
 * - CSV with the same columns (`cwes` joined as "CWE-59, CWE-436") — iterate with
 *   {@link csvRecords} and parse each row with {@link parseKevCsvRow}.
 *
 * Both give identical records for the same catalog (checked on catalog 2025.08.25: 1,404 entries,
 * no difference). Text values are trimmed (the catalog has stray leading/trailing spaces, e.g.
 * `vendorProject: "SimpleHelp "`); empty strings become null.
 */
import { RecordError, type KevFacts } from "./types.js";

export interface KevRecord extends KevFacts {
  cve_id: string;
  /** "CWE-NNN" identifiers, deduplicated, in catalog order (empty when none). */
  cwes: string[];
  /** CISA notes (usually reference URLs separated by " ; "), or null. */
  notes: string | null;
  /** CISA `shortDescription`, or null. */
  short_description: string | null;
}

const CVE_RE = /^CVE-\d{4}-\d{4,19}$/;
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const CWE_RE = /^CWE-\d+$/;

function text(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== "string") throw new RecordError(`expected a string, got ${typeof v}`);
  const t = v.trim();
  return t === "" ? null : t;
}

function date(v: unknown, field: string, required: boolean): string | null {
  const t = text(v);
  if (t === null) {
    if (required) throw new RecordError(`missing ${field}`);
    return null;
  }
  // The catalog uses YYYY-MM-DD; tolerate a full timestamp by keeping its date part.
  const d = t.slice(0, 10);
  if (!DATE_RE.test(d) || Number.isNaN(Date.parse(`${d}T00:00:00Z`))) {
    throw new RecordError(`invalid ${field}: ${JSON.stringify(t)}`);
  }
  return d;
}

function ransomware(v: unknown): string | null {
  const t = text(v);
  if (t === null) return null;
  const l = t.toLowerCase();
  if (l === "known") return "Known";
  if (l === "unknown") return "Unknown";
  return t;
}

function cweList(values: unknown[]): string[] {
  const out: string[] = [];
  for (const v of values) {
    const t = text(v);
    if (t === null) continue;
    const id = t.toUpperCase();
    if (!CWE_RE.test(id)) throw new RecordError(`invalid CWE ${JSON.stringify(t)}`);
    if (!out.includes(id)) out.push(id);
  }
  return out;
}

function build(get: (key: string) => unknown, cwes: string[]): KevRecord {
  const cve = text(get("cveID"))?.toUpperCase() ?? null;
  if (cve === null) throw new RecordError("missing cveID");
  if (!CVE_RE.test(cve)) throw new RecordError(`invalid cveID ${JSON.stringify(cve)}`);
  return {
    cve_id: cve,
    date_added: date(get("dateAdded"), "dateAdded", true)!,
    due_date: date(get("dueDate"), "dueDate", false),
    ransomware: ransomware(get("knownRansomwareCampaignUse")),
    required_action: text(get("requiredAction")),
    name: text(get("vulnerabilityName")),
    vendor: text(get("vendorProject")),
    product: text(get("product")),
    cwes,
    notes: text(get("notes")),
    short_description: text(get("shortDescription")),
  };
}

/** One element of the JSON catalog's `vulnerabilities` array. Throws RecordError when unusable. */
export function parseKevJsonEntry(v: unknown): KevRecord {
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw new RecordError("KEV entry is not an object");
  }
  const o = v as Record<string, unknown>;
  const rawCwes = o.cwes;
  let cwes: string[] = [];
  if (Array.isArray(rawCwes)) cwes = cweList(rawCwes);
  else if (typeof rawCwes === "string") cwes = cweList(rawCwes.split(","));
  else if (rawCwes !== undefined && rawCwes !== null) throw new RecordError("invalid cwes");
  return build((k) => o[k], cwes);
}

/** One CSV row keyed by the header (see {@link csvRecords}). Throws RecordError when unusable. */
export function parseKevCsvRow(row: Record<string, string>): KevRecord {
  const cwes = cweList((row.cwes ?? "").split(","));
  return build((k) => row[k], cwes);
}

/**
 * Splits one CSV line into fields (RFC 4180): comma separator, fields optionally enclosed in
 * double quotes, `""` inside a quoted field is a literal quote, commas and line breaks inside
 * quotes are data. Unquoted fields are returned as is (no trimming). A trailing CR is ignored.
 * Throws RecordError on an unterminated quoted field or text after a closing quote.
 */
export function parseCsvLine(line: string): string[] {
  const { fields, complete } = splitCsv(line.endsWith("\r") ? line.slice(0, -1) : line);
  if (!complete) throw new RecordError("unterminated quoted field");
  return fields;
}

/** Splits CSV text; `complete` is false when the text ends inside a quoted field. */
function splitCsv(s: string): { fields: string[]; complete: boolean } {
  const fields: string[] = [];
  let i = 0;
  const n = s.length;
  for (;;) {
    if (s[i] === '"') {
      let value = "";
      i++;
      for (;;) {
        const q = s.indexOf('"', i);
        if (q === -1) {
          return { fields: [...fields, value + s.slice(i)], complete: false };
        }
        value += s.slice(i, q);
        if (s[q + 1] === '"') {
          value += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      fields.push(value);
      if (i === n) return { fields, complete: true };
      if (s[i] !== ",") throw new RecordError(`unexpected character after closing quote at ${i}`);
      i++;
      if (i === n) {
        fields.push("");
        return { fields, complete: true };
      }
    } else {
      const comma = s.indexOf(",", i);
      if (comma === -1) {
        fields.push(s.slice(i));
        return { fields, complete: true };
      }
      fields.push(s.slice(i, comma));
      i = comma + 1;
      if (i === n) {
        fields.push("");
        return { fields, complete: true };
      }
    }
  }
}

/**
 * CSV records from a stream of lines (e.g. node:readline over a file): the first non-comment
 * line is the header; a leading `#...` line before it is skipped (EPSS-style comment); a quoted
 * field may span several lines (the line breaks are kept as "\n"). Empty lines between records
 * are skipped. `line` is the 1-based number of the line where the record starts.
 *
 * Throws RecordError (with the line number) on a malformed line and when a record's field count
 * differs from the header's; the stream ending inside a quoted field is also an error.
 */
export async function* csvRecords(lines: AsyncIterable<string>): AsyncIterable<{ line: number; row: Record<string, string> }> {
  let header: string[] | null = null;
  let lineNo = 0;
  let pending: string | null = null;
  let startLine = 0;
  for await (let raw of lines) {
    lineNo++;
    if (raw.endsWith("\r")) raw = raw.slice(0, -1);
    if (pending === null) {
      if (lineNo === 1 && raw.charCodeAt(0) === 0xfeff) raw = raw.slice(1);
      if (header === null && raw.startsWith("#")) continue;
      if (raw === "") continue;
      startLine = lineNo;
    }
    const text: string = pending === null ? raw : `${pending}\n${raw}`;
    let split: { fields: string[]; complete: boolean };
    try {
      split = splitCsv(text);
    } catch (e) {
      throw new RecordError(`line ${startLine}: ${(e as Error).message}`);
    }
    if (!split.complete) {
      pending = text;
      continue;
    }
    pending = null;
    if (header === null) {
      header = split.fields.map((h) => h.trim());
      continue;
    }
    if (split.fields.length !== header.length) {
      throw new RecordError(`line ${startLine}: ${split.fields.length} fields, the header has ${header.length}`);
    }
    const row: Record<string, string> = {};
    header.forEach((h, k) => {
      row[h] = split.fields[k]!;
    });
    yield { line: startLine, row };
  }
  if (pending !== null) throw new RecordError(`line ${startLine}: unterminated quoted field`);
}

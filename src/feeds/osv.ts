/**
 * OSV advisories (https://ossf.github.io/osv-schema/): GitHub (GHSA), Go vulndb (GO), PyPA
 * (PYSEC), RustSec (RUSTSEC) and any other OSV database → OsvRecord.
 *
 * One parsed OSV JSON document in, one record out ({@link parseOsvRecord}). Dates are normalised
 * to ISO 8601 (`toISOString()`); the Go vulndb placeholder `0001-01-01T00:00:00Z` (and any date
 * before 1970) becomes null. The CVSS score is computed from the v3.x vector when only a vector
 * is given (OSV never carries a numeric score).
 */
import type { OsvEvent } from "../matching/osv-range.js";
import { cvss3BaseScore, severityFromScore } from "./cvss.js";
import { RecordError } from "./types.js";

export type OsvSource = "ghsa" | "go" | "pysec" | "rustsec" | "osv";
export type OsvRangeType = "SEMVER" | "ECOSYSTEM" | "GIT";

export interface OsvRange {
  type: OsvRangeType;
  events: OsvEvent[];
  /** Repository URL of a GIT range (OSV `repo`). */
  repo?: string;
}

export interface OsvPackage {
  ecosystem: string;
  name: string;
  purl: string | null;
  ranges: OsvRange[];
  versions: string[];
  /** RustSec `database_specific.informational` ("unmaintained", "unsound", "notice"), when set. */
  informational?: string;
}

export interface OsvRecord {
  id: string;
  source: OsvSource;
  url: string;
  summary: string | null;
  details: string | null;
  /** Other ids of the same vulnerability (CVE, GHSA, PYSEC…), deduplicated, as given. */
  aliases: string[];
  published: string | null;
  modified: string | null;
  /** Lower-case: the database's own rating (GHSA `database_specific.severity`) or else the band of `cvss_score`; null when neither. */
  severity: string | null;
  /** CVSS v3.x base score computed from `cvss_vector` (null for a v4-only or absent vector). */
  cvss_score: number | null;
  /** The CVSS vector: the v3.x one when present, else the v4.0 one, else null. */
  cvss_vector: string | null;
  /** "CWE-NNN" ids (GHSA `database_specific.cwe_ids`). */
  cwes: string[];
  packages: OsvPackage[];
  references: string[];
  /** OSV `withdrawn` timestamp (ISO) when the advisory was withdrawn, else null. */
  withdrawn: string | null;
}

const RANGE_TYPES: readonly string[] = ["SEMVER", "ECOSYSTEM", "GIT"];
const EVENT_KEYS = ["introduced", "fixed", "last_affected", "limit"] as const;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | null {
  if (typeof v !== "string") return null;
  const t = v.trim();
  return t === "" ? null : t;
}

/** ISO 8601 from an OSV timestamp; null when absent, unparsable or a placeholder before 1970. */
export function osvDate(v: unknown): string | null {
  const s = str(v);
  if (s === null) return null;
  // Up to nanosecond fractions are allowed by RFC 3339; Date.parse wants at most milliseconds.
  const normalised = s.replace(/(\.\d{3})\d+/, "$1");
  const t = Date.parse(normalised);
  if (Number.isNaN(t) || t < 0) return null;
  return new Date(t).toISOString();
}

/** The source database of an OSV id, from its prefix. */
export function osvSource(id: string): OsvSource {
  const prefix = id.split("-")[0]!.toUpperCase();
  switch (prefix) {
    case "GHSA":
      return "ghsa";
    case "GO":
      return "go";
    case "PYSEC":
      return "pysec";
    case "RUSTSEC":
      return "rustsec";
    default:
      return "osv";
  }
}

/** The advisory's public page for its database (or database_specific.url when given). */
export function osvUrl(id: string, databaseUrl?: string | null): string {
  if (databaseUrl) return databaseUrl;
  switch (osvSource(id)) {
    case "ghsa":
      return `https://github.com/advisories/${id}`;
    case "go":
      return `https://pkg.go.dev/vuln/${id}`;
    case "rustsec":
      return `https://rustsec.org/advisories/${id}.html`;
    default:
      return `https://osv.dev/vulnerability/${id}`;
  }
}

function uniqueStrings(v: unknown): string[] {
  if (!Array.isArray(v)) return [];
  const out: string[] = [];
  for (const x of v) {
    const s = str(x);
    if (s !== null && !out.includes(s)) out.push(s);
  }
  return out;
}

function parseRange(v: unknown): OsvRange | null {
  if (!isObject(v)) throw new RecordError("range is not an object");
  const type = str(v.type)?.toUpperCase();
  if (!type || !RANGE_TYPES.includes(type)) return null; // unknown range type: skipped
  if (!Array.isArray(v.events)) throw new RecordError("range without events");
  const events: OsvEvent[] = [];
  for (const e of v.events) {
    if (!isObject(e)) throw new RecordError("range event is not an object");
    const ev: OsvEvent = {};
    for (const k of EVENT_KEYS) {
      const val = e[k];
      if (typeof val === "string") ev[k] = val;
      else if (typeof val === "number") ev[k] = String(val);
    }
    if (Object.keys(ev).length > 0) events.push(ev);
  }
  const range: OsvRange = { type: type as OsvRangeType, events };
  const repo = str(v.repo);
  if (repo !== null) range.repo = repo;
  return range;
}

function parsePackage(v: unknown): OsvPackage | null {
  if (!isObject(v)) throw new RecordError("affected entry is not an object");
  const pkg = isObject(v.package) ? v.package : null;
  // OSV allows an affected entry without package (GIT ranges only); keep it under an empty name.
  const ecosystem = str(pkg?.ecosystem) ?? "";
  const name = str(pkg?.name) ?? "";
  const ranges: OsvRange[] = [];
  if (Array.isArray(v.ranges)) {
    for (const r of v.ranges) {
      const range = parseRange(r);
      if (range) ranges.push(range);
    }
  }
  const versions = Array.isArray(v.versions) ? v.versions.filter((x): x is string => typeof x === "string") : [];
  if (!ecosystem && !name && ranges.length === 0 && versions.length === 0) return null;
  const out: OsvPackage = { ecosystem, name, purl: str(pkg?.purl), ranges, versions };
  const informational = isObject(v.database_specific) ? str(v.database_specific.informational) : null;
  if (informational !== null) out.informational = informational;
  return out;
}

interface Cvss {
  vector: string | null;
  score: number | null;
}

/** CVSS from `severity[]` (v3 preferred over v4) or, for RustSec, `affected[].database_specific.cvss`. */
function cvssOf(doc: Record<string, unknown>): Cvss {
  const vectors: string[] = [];
  if (Array.isArray(doc.severity)) {
    for (const s of doc.severity) {
      if (isObject(s) && typeof s.score === "string") vectors.push(s.score.trim());
    }
  }
  if (Array.isArray(doc.affected)) {
    for (const a of doc.affected) {
      if (isObject(a) && isObject(a.database_specific) && typeof a.database_specific.cvss === "string") {
        vectors.push(a.database_specific.cvss.trim());
      }
    }
  }
  const v3 = vectors.find((v) => /^CVSS:3\.[01]\//.test(v));
  if (v3) return { vector: v3, score: cvss3BaseScore(v3) };
  const v4 = vectors.find((v) => v.startsWith("CVSS:4.0/"));
  if (v4) return { vector: v4, score: null };
  return { vector: vectors[0] ?? null, score: null };
}

/** One OSV document (already JSON-parsed). Throws RecordError when it has no usable id. */
export function parseOsvRecord(v: unknown): OsvRecord {
  if (!isObject(v)) throw new RecordError("OSV document is not an object");
  const id = str(v.id);
  if (id === null) throw new RecordError("OSV document without id");
  const db = isObject(v.database_specific) ? v.database_specific : {};

  const packages: OsvPackage[] = [];
  if (Array.isArray(v.affected)) {
    for (const a of v.affected) {
      const p = parsePackage(a);
      if (p) packages.push(p);
    }
  }

  const references: string[] = [];
  if (Array.isArray(v.references)) {
    for (const r of v.references) {
      const url = isObject(r) ? str(r.url) : null;
      if (url !== null && !references.includes(url)) references.push(url);
    }
  }

  const cwes = uniqueStrings(db.cwe_ids)
    .map((c) => c.toUpperCase())
    .filter((c) => /^CWE-\d+$/.test(c));

  const { vector, score } = cvssOf(v);
  // GitHub rates LOW / MODERATE / HIGH / CRITICAL: MODERATE is CVSS "medium".
  let dbSeverity = str(db.severity)?.toLowerCase() ?? null;
  if (dbSeverity === "moderate") dbSeverity = "medium";
  let severity: string | null = dbSeverity;
  if (severity === null && score !== null) severity = severityFromScore(score);

  return {
    id,
    source: osvSource(id),
    url: osvUrl(id, str(db.url)),
    summary: str(v.summary),
    details: str(v.details),
    aliases: uniqueStrings(v.aliases).filter((a) => a !== id),
    published: osvDate(v.published),
    modified: osvDate(v.modified),
    severity,
    cvss_score: score,
    cvss_vector: vector,
    cwes,
    packages,
    references,
    withdrawn: osvDate(v.withdrawn),
  };
}

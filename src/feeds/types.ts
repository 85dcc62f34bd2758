/**
 * What each importer's parser produces from one source record: plain, source-independent values
 * that the merge step combines into one CVE record. Parsers are pure functions (record → result),
 * so they are unit-tested on real records; the pipeline (reading files, batching, database writes,
 * provenance) is shared by every source.
 */

/** Where a piece of CVE data came from (precedence is decided by the merge step). */
export type Origin = "cna" | "adp" | "nvd";
/** Who stated an affected product: a CVE-record source, KEV (vendor and product, no versions) or an OSV advisory (packages). */
export type AffectedOrigin = Origin | "kev" | "osv";

export interface CvssMetric {
  version: "4.0" | "3.1" | "3.0" | "2.0";
  score: number;
  vector: string | null;
  /** Lower-case as given by the source (critical, high, medium, low, none), or null. */
  severity: string | null;
  origin: Origin;
  /** Who provided it: CNA short name, "CISA-ADP", "nvd@nist.gov"… */
  provider: string | null;
}

/**
 * One affected-product statement. For a single version: version_from = version_to = that
 * version, both inclusive. For a range: bounds with their inclusiveness (null = unbounded).
 */
export interface AffectedEntry {
  origin: AffectedOrigin;
  /** As written by the source (display form). */
  vendor: string | null;
  product: string | null;
  /** CPE 2.3 string when the source gives one. */
  cpe: string | null;
  version_from: string | null;
  version_from_inclusive: boolean;
  version_to: string | null;
  version_to_inclusive: boolean;
  /** "affected" | "unaffected" | "unknown". */
  version_status: string;
  /** CVE 5 versionType (semver, custom, rpm, git…) or null. */
  version_type: string | null;
  /** CVE 5 defaultStatus of the product entry, or null. */
  default_status: string | null;
  /** For NVD CPE matches: whether the configuration node says "vulnerable". */
  vulnerable?: boolean;
}

export interface KevFacts {
  date_added: string; // YYYY-MM-DD
  due_date: string | null;
  ransomware: string | null; // "Known" | "Unknown"
  required_action: string | null;
  name: string | null;
  vendor: string | null;
  product: string | null;
}

/** A CVE as one source describes it. */
export interface CveContribution {
  cve_id: string;
  state: "PUBLISHED" | "REJECTED" | "RESERVED";
  /** The record's own modification date (ISO 8601), used to keep the newest version. */
  modified: string | null;
  published: string | null;
  reserved?: string | null;
  /** English description (or the first one when none is in English). */
  description: string | null;
  cvss: CvssMetric[];
  /** "CWE-79"…, without NVD-CWE-Other / NVD-CWE-noinfo. */
  cwes: string[];
  affected: AffectedEntry[];
  references: string[];
  /** CISA ADP "kev" metric, when the record carries one. */
  kev?: { date_added: string; reference: string | null } | null;
  /** CISA ADP SSVC decision points, when present. */
  ssvc?: { exploitation: string | null; automatable: string | null; technical_impact: string | null } | null;
  assigner?: string | null;
}

/** A record a parser could not use: reported with its location, never aborting the batch. */
export class RecordError extends Error {
  override name = "RecordError";
}

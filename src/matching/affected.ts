/**
 * The affected-product statement every source is reduced to: what the feed parsers produce and
 * what matching decides on (a stored cve_affected row carries the same fields).
 */

/** Where a piece of CVE data came from (precedence is decided by the merge step). */
export type Origin = "cna" | "adp" | "nvd";
/** Who stated an affected product: a CVE-record source, KEV (vendor and product, no versions) or an OSV advisory (packages). */
export type AffectedOrigin = Origin | "kev" | "osv";

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

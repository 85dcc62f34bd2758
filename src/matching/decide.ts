/**
 * Whether a CVE hits a stack item, and why — pure logic over the candidate rows the indexes found.
 *
 * Affected products (CVE 5 `affected` of the CNA and the ADPs, NVD configurations), for an item
 * that names a version V:
 * 0. the CNA decides: where its rows state versions of the product, the ADP rows are set aside (cnaDecides);
 * 1. a row that says V is unaffected (status `unaffected`, bounded) wins: the vendor said so;
 * 2. else a row that says V is affected (status `affected`, or an NVD vulnerable CPE) whose range
 *    holds V is a match — a CNA row without any bound means every version (NVD and ADP rows
 *    without bounds are not taken as a statement about V);
 * 3. else an entry's `defaultStatus: affected` is a match when the entry lists no affected range
 *    (only unaffected ones, or none): it holds for every version no listed range covers;
 * 3b. else, when no row gives a range and KEV names the product (exploited, versions unknown), a
 *    match saying the version could not be checked;
 * 4. else no match (a version outside every range is not noise to report).
 * An item without a version matches when any row says some version is affected.
 * Vendors compare in a squashed form ("palo_alto_networks" = "paloaltonetworks"): CNAs write display
 * names, NVD and the CISA ADP write CPE names.
 */
import type { AffectedEntry } from "./affected.js";
import { osvAffects, osvIntervals, type OsvEvent } from "./osv-range.js";
import { parseCpe } from "./cpe.js";
import { vendorKey, vendorWithin } from "./names.js";
import { compareVersions, inRange, isConcreteVersion } from "./version.js";

/** A stored cve_affected row (see AffectedEntry), as the candidate query reads it. */
export interface AffectedRow extends Omit<AffectedEntry, "origin" | "vulnerable"> {
  origin: string;
  vendor_norm: string | null;
  /** As stored; read by the package links (packages.ts). */
  product_norm?: string | null;
  vulnerable: boolean;
}

export interface OsvPackageRow {
  advisory: string;
  ecosystem: string;
  name: string;
  ranges: { type: string; events: OsvEvent[] }[];
  versions: string[];
}

/** The rules an alert can be raised by (its `correspondance.rule`; the alert list filters on them). */
export const MATCH_RULES = [
  "version_range",
  "all_versions",
  "default_status",
  "unversioned",
  "osv_range",
  "vendor",
  "keyword",
  "cve",
  "vendor_advisory",
] as const;

/** Why an alert was raised: shown in the alert's `source`, kept whole in its `match`. */
export interface MatchReason {
  rule: (typeof MATCH_RULES)[number];
  version: string | null;
  range: string | null;
  origin: string | null;
  vendor: string | null;
  product: string | null;
}

// One comparison of vendors for matching and the CVE list filter.
const squash = vendorKey;

const SEVERITY_RANK: Record<string, number> = { unknown: 0, none: 0, low: 1, medium: 2, high: 3, critical: 4 };

/** A CVE of this severity passes the item's `min_severity` (an unscored CVE passes none; it alerts once scored). */
export function meetsSeverity(severity: string, min: string | null): boolean {
  return !min || (SEVERITY_RANK[severity] ?? 0) >= (SEVERITY_RANK[min] ?? 0);
}

export function severityRank(severity: string): number {
  return SEVERITY_RANK[severity] ?? 0;
}

function rangeText(r: AffectedRow): string {
  if (r.version_from !== null && r.version_from === r.version_to) return `= ${exactUpdate(r) ?? r.version_from}`;
  const lo = r.version_from === null ? "]*" : `${r.version_from_inclusive ? "[" : "]"}${r.version_from}`;
  const hi = r.version_to === null ? "*[" : `${r.version_to}${r.version_to_inclusive ? "]" : "["}`;
  return `${lo}, ${hi}`;
}

/** A row that names no vendor (a CNA that gave the product alone, or "n/a") matches on the product. */
const namedVendor = (r: AffectedRow) => r.vendor_norm !== null && r.vendor_norm !== "n/a" && r.vendor_norm !== "";
const bounded = (r: AffectedRow) => r.version_from !== null || r.version_to !== null;
const says = (r: AffectedRow, status: string) =>
  status === "affected" ? r.version_status === "affected" && r.vulnerable : r.version_status === status;
const comparable = (r: AffectedRow) => r.version_type !== "git";

const POST_RELEASE = /^[-_.]?(p|h|patch|hotfix|update|u|sp)\d+$/i;

/** An exact NVD version whose CPE names an update (openssh:9.9:p1, pan-os:10.2.9:h1) is that update's release. */
function exactUpdate(r: AffectedRow): string | null {
  if (r.version_from === null || r.version_from !== r.version_to || !r.cpe) return null;
  const update = parseCpe(r.cpe)?.update;
  return update && isConcreteVersion(update) ? `${r.version_from}-${update}` : null;
}

function holds(r: AffectedRow, version: string): boolean {
  const exact = exactUpdate(r);
  if (exact) return compareVersions(version, exact) === 0;
  if (
    inRange(version, {
      from: r.version_from,
      fromInclusive: r.version_from_inclusive,
      to: r.version_to,
      toInclusive: r.version_to_inclusive,
    })
  )
    return true;
  // A range "up to 9.8 inclusive" names the release, its patch levels included: OpenSSH 9.8p1,
  // PAN-OS 10.2.9-h1 (an exact version "= 9.9" does not: 9.9p2 is another release).
  const to = r.version_to;
  return (
    r.version_to_inclusive &&
    to !== null &&
    r.version_from !== to &&
    version.toLowerCase().startsWith(to.toLowerCase()) &&
    POST_RELEASE.test(version.slice(to.length)) &&
    inRange(version, { from: r.version_from, fromInclusive: r.version_from_inclusive, to: null, toInclusive: false })
  );
}

/**
 * A version as written in a bound ("10.2.9-h1", "8.0 U2d", "2019.4 HF 5", "V2010 SP3", "9.1 Service
 * Pack 3", "2022 SU5", "8.2 CU8"), not text kept as written ("10.4.1, 10.4.2").
 */
const VERSION_TEXT =
  /^[vV]?\d[\w.+~:()-]*(?:\s*(?:u|update|hf|hotfix|sp|service\s*pack|su|cu|fp|fix\s*pack|patch|build|p|r)\s*\d+[a-z]*)*$/i;
const readable = (bound: string | null) => bound === null || VERSION_TEXT.test(bound);

/**
 * The CNA decides for its product: when its rows among these (one product, reached by its own name
 * or a learned equivalent, of the item's vendor) state versions, the ADP rows are set aside. The
 * CISA ADP restates CNA entries as CPE ranges, sometimes a whole line (ESXi "0" < 8.0 U2b where
 * VMware lists 7.0 and 8.0 only): its ranges count where the CNA gives no version of the product,
 * does not name it, writes a bound that is no version (IBM's "10.4.1, 10.4.2, 11.0.0", which the
 * ADP restates as three versions) or only ranges that hold nothing.
 */
export function cnaDecides(rows: AffectedRow[]): AffectedRow[] {
  const cna = rows.filter((r) => r.origin === "cna" && bounded(r));
  const decides = cna.some(holdsSome) && cna.every((r) => readable(r.version_from) && readable(r.version_to));
  return decides ? rows.filter((r) => r.origin !== "adp") : rows;
}

/** A range that holds a version: Google writes Chrome's fix as both ends ([126.0.6478.54, 126.0.6478.54[), which says nothing. */
function holdsSome(r: AffectedRow): boolean {
  if (r.version_from === null || r.version_to === null) return true;
  const c = compareVersions(r.version_from, r.version_to);
  return c < 0 || (c === 0 && r.version_from_inclusive && r.version_to_inclusive);
}

const reason = (rule: MatchReason["rule"], r: AffectedRow | null, version: string | null, range: string | null): MatchReason => ({
  rule,
  version,
  range,
  origin: r?.origin ?? null,
  vendor: r?.vendor ?? null,
  product: r?.product ?? null,
});

/** The affected rows of one CVE (already narrowed to the item's product) against the item's version. */
export function decideAffected(
  rows: AffectedRow[],
  itemVendor: string | null,
  version: string | null,
  vendorAliases: string[] = [],
): MatchReason | null {
  const ofVendor = vendorTest(itemVendor, vendorAliases);
  const mine = cnaDecides(rows.filter((r) => comparable(r) && ofVendor(r)));
  if (!mine.length) return null;
  if (version === null || !isConcreteVersion(version)) {
    const hit = mine.find((r) => says(r, "affected")) ?? mine.find((r) => r.default_status === "affected");
    return hit ? reason("all_versions", hit, null, says(hit, "affected") && bounded(hit) ? rangeText(hit) : null) : null;
  }
  if (mine.some((r) => says(r, "unaffected") && bounded(r) && holds(r, version))) return null;
  // The narrowest statement first: a bounded range before an "every version" row.
  // An unbounded row counts for a versioned item only when the CNA wrote it: NVD and ADP write
  // "every version" for old records whose versions were never analysed (OpenSSH 9.6p1 is not hit
  // by CVE-2008-3844).
  const hit = mine
    .filter((r) => says(r, "affected") && (bounded(r) ? holds(r, version) : r.origin === "cna"))
    .sort((a, b) => Number(bounded(b)) - Number(bounded(a)))[0];
  if (hit) return reason(bounded(hit) ? "version_range" : "all_versions", hit, version, bounded(hit) ? rangeText(hit) : null);
  // defaultStatus "affected" holds for every version no listed range covers — when the entry lists
  // no affected range of its own (Jenkins lists only the unaffected lines: CVE-2024-23897); an entry
  // listing affected ranges states them, and V lies outside them.
  const entry = (r: AffectedRow) => `${r.origin}\u0000${r.vendor_norm}\u0000${r.product}`;
  // (An exact affected version is a point, not a range: Linux lists "5.10 affected" beside its
  // unaffected ranges to say where the bug came in.)
  const statesAffected = new Set(mine.filter((r) => says(r, "affected") && bounded(r) && r.version_from !== r.version_to).map(entry));
  const def = mine.find((r) => r.default_status === "affected" && !statesAffected.has(entry(r)));
  if (def) return reason("default_status", def, version, null);
  return unverifiable(mine, version);
}

/**
 * Whether a row is the item's vendor's: the same once squashed, a learned other name of it
 * (equivalences.ts: "oracle" = "oracle_corporation"), a name holding its words ("apache" in
 * "Apache Software Foundation", names.ts vendorWithin), or a row naming no vendor. Each row vendor
 * is judged once per call (a CVE lists hundreds of rows of a few vendors).
 */
function vendorTest(itemVendor: string | null, vendorAliases: string[]): (r: AffectedRow) => boolean {
  if (itemVendor === null) return () => true;
  const keys = new Set([itemVendor, ...vendorAliases].map(squash));
  const seen = new Map<string, boolean>();
  return (r) => {
    if (!namedVendor(r)) return true;
    const vendor = r.vendor_norm!;
    let ok = seen.get(vendor);
    if (ok === undefined) {
      ok = keys.has(squash(vendor)) || vendorWithin(itemVendor, vendor);
      seen.set(vendor, ok);
    }
    return ok;
  };
}

/**
 * KEV says the product is exploited, not which versions: the item is told, its version unchecked,
 * only when no source gives a range for the product under any name linked to the item's (its own,
 * a learned equivalent, a display name folded: `rows` hold them all); a range that excludes the
 * version (FortiClientEMS [7.0.1, 7.0.10] for FortiClient EMS 7.2.4) is a statement, not a gap.
 */
function unverifiable(rows: AffectedRow[], version: string): MatchReason | null {
  const kev = rows.find((r) => r.origin === "kev" && says(r, "affected"));
  return kev && !rows.some(bounded) ? reason("unversioned", kev, version, null) : null;
}

/**
 * A versioned package against CPE data naming its product: only version ranges count, of the rows
 * `linked` says are the package's (packages.ts: evidence of the same ecosystem, never the bare name;
 * a bare "every version" statement about a product of that name is too weak a link).
 */
export function decidePackageCpe(rows: AffectedRow[], version: string | null, linked: (r: AffectedRow) => boolean): MatchReason | null {
  return version === null
    ? null
    : decideAffected(
        rows.filter((r) => bounded(r) && linked(r)),
        null,
        version,
      );
}

/** A vendor item: any product of the vendor said to be affected. */
export function decideVendor(rows: AffectedRow[]): MatchReason | null {
  const r = rows.find((row) => says(row, "affected"));
  return r ? reason("vendor", r, null, null) : null;
}

/** OSV packages (already narrowed to the item's package) against the item's version. */
export function decideOsv(packages: OsvPackageRow[], version: string | null): MatchReason | null {
  for (const p of packages) {
    if (version !== null && !osvAffects(version, p)) continue;
    const range = version === null ? null : osvInterval(version, p);
    return { rule: "osv_range", version, range, origin: p.advisory, vendor: p.ecosystem, product: p.name };
  }
  return null;
}

/** The interval of an OSV package's events that holds the version, written as CPE ranges are ("[4.2, 4.2.3["). */
function osvInterval(version: string, p: OsvPackageRow): string | null {
  const holds = (type: string, events: OsvEvent[]) => osvAffects(version, { ranges: [{ type, events }], versions: [] });
  for (const r of p.ranges) {
    for (const { introduced, end, endInclusive } of osvIntervals(r.events)) {
      const events: OsvEvent[] = end === null ? [{ introduced }] : [{ introduced }, endInclusive ? { last_affected: end } : { fixed: end }];
      if (holds(r.type, events)) return `[${introduced}, ${end ?? "*"}${end !== null && endInclusive ? "]" : "["}`;
    }
  }
  return p.versions.includes(version) ? `= ${version}` : null;
}

/** One line for the alert's `source`: item, rule, versions compared. */
export function describe(itemType: string, value: string, r: MatchReason): string {
  const what = `${itemType} ${value}`;
  switch (r.rule) {
    case "version_range":
      return `${what} : version ${r.version} dans ${r.range} (${r.origin})`;
    case "all_versions":
      return `${what} : toutes versions concernées${r.range ? ` (${r.range})` : ""} (${r.origin})`;
    case "unversioned":
      return `${what} : version ${r.version} non vérifiable — ${r.origin === "kev" ? "KEV (exploitée)" : r.origin} nomme le produit sans versions et aucune source ne donne de plage`;
    case "default_status":
      return `${what} : version ${r.version}, produit affecté par défaut (${r.origin})`;
    case "osv_range":
      return r.version
        ? `${what} : version ${r.version} dans ${r.range ?? "les versions listées"} (${r.origin})`
        : `${what} : paquet concerné (${r.origin})`;
    case "vendor":
      return `${what} : produit ${r.vendor ?? ""}/${r.product ?? ""} du vendor (${r.origin})`;
    case "keyword":
      return `${what} : mots présents dans la CVE`;
    case "cve":
      return `${what} : CVE surveillée`;
    case "vendor_advisory":
      return `${what} : concerné selon l'avis de l'éditeur${r.vendor ? ` ${r.vendor}` : ""} (${r.origin ?? "csaf"})`;
  }
}

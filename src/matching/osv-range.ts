/**
 * OSV `affected[]` evaluation for one package version, after the schema's `IsVulnerable`
 * pseudocode (https://ossf.github.io/osv-schema/#evaluation):
 * - a version equal to one of `versions` is affected (equal in the sense of compareVersions, so
 *   "v1.2.3" matches "1.2.3");
 * - SEMVER and ECOSYSTEM ranges: events sorted by version, the running state becomes affected at
 *   an `introduced` <= v, unaffected at a `fixed` <= v or a `last_affected` < v; the range only
 *   counts when v is below one of its `limit`s (none = no limit, "*" = infinity);
 * - GIT ranges (commit hashes) and unknown types are skipped: they cannot be ordered without
 *   the repository, and OSV producers enumerate their tags in `versions` anyway.
 * Both range types use compareVersions; ECOSYSTEM orderings it approximates are listed there.
 */
import { compareVersions, isConcreteVersion } from "./version.js";

/** One event of an OSV range, as the advisory writes it. */
export interface OsvEvent {
  introduced?: string;
  fixed?: string;
  last_affected?: string;
  limit?: string;
}

export interface OsvRange {
  type: string;
  events: OsvEvent[];
}

export interface OsvAffectedPackage {
  ranges: OsvRange[];
  versions: string[];
}

type Kind = "introduced" | "fixed" | "last_affected";

/** At equal versions `introduced` goes first, so {introduced: X, fixed: X} stays an empty range. */
const KIND_ORDER: Record<Kind, number> = { introduced: 0, last_affected: 1, fixed: 2 };

/** "0" is below every version, including pre-releases and Go pseudo-versions of 0.0.0. */
function isZero(v: string): boolean {
  return v.trim() === "0";
}

function cmpEventVersion(a: string, b: string): number {
  if (isZero(a) || isZero(b)) return isZero(a) === isZero(b) ? 0 : isZero(a) ? -1 : 1;
  return compareVersions(a, b);
}

function beforeLimits(version: string, events: readonly OsvEvent[]): boolean {
  const limits = events.flatMap((e) => (typeof e.limit === "string" ? [e.limit] : []));
  if (limits.length === 0) return true;
  return limits.some((l) => l.includes("*") || compareVersions(version, l) < 0);
}

function rangeAffects(version: string, events: readonly OsvEvent[]): boolean {
  if (!beforeLimits(version, events)) return false;
  const sorted: { kind: Kind; at: string }[] = [];
  for (const e of events) {
    if (typeof e.introduced === "string") sorted.push({ kind: "introduced", at: e.introduced });
    else if (typeof e.fixed === "string") sorted.push({ kind: "fixed", at: e.fixed });
    else if (typeof e.last_affected === "string") sorted.push({ kind: "last_affected", at: e.last_affected });
  }
  sorted.sort((x, y) => cmpEventVersion(x.at, y.at) || KIND_ORDER[x.kind] - KIND_ORDER[y.kind]);

  let affected = false;
  for (const e of sorted) {
    const c = cmpEventVersion(version, e.at);
    if (e.kind === "introduced") {
      if (c >= 0) affected = true;
    } else if (e.kind === "fixed") {
      if (c >= 0) affected = false;
    } else if (c > 0) affected = false;
  }
  return affected;
}

/** One interval of a range's events: from `introduced` up to `end` (excluded when fixed, included when last_affected; none: unbounded). */
export interface OsvInterval {
  introduced: string;
  end: string | null;
  endInclusive: boolean;
}

/**
 * The intervals a range's events state, in the order written: each `introduced` opens one (a
 * second before any end is redundant), the next `fixed` or `last_affected` closes it, and one left
 * open runs to infinity. Read by the merge (affected rows) and by the match description.
 */
export function osvIntervals(events: readonly OsvEvent[]): OsvInterval[] {
  const out: OsvInterval[] = [];
  let open: string | undefined;
  for (const e of events) {
    if (e.introduced !== undefined) open ??= e.introduced;
    else if (open !== undefined && (e.fixed !== undefined || e.last_affected !== undefined)) {
      out.push({ introduced: open, end: (e.fixed ?? e.last_affected)!, endInclusive: e.fixed === undefined });
      open = undefined;
    }
  }
  if (open !== undefined) out.push({ introduced: open, end: null, endInclusive: false });
  return out;
}

/** Whether `version` of the package is affected according to one OSV `affected[]` entry. */
export function osvAffects(version: string, pkg: OsvAffectedPackage): boolean {
  if (!isConcreteVersion(version)) return false;
  for (const v of pkg.versions ?? []) {
    if (v === version || compareVersions(v, version) === 0) return true;
  }
  for (const r of pkg.ranges ?? []) {
    const type = typeof r.type === "string" ? r.type.toUpperCase() : "";
    if ((type === "SEMVER" || type === "ECOSYSTEM") && rangeAffects(version, r.events ?? [])) return true;
  }
  return false;
}

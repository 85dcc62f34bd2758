// The inbox's filters, kept in the URL's search params so that a view can be shared (validateSearch
// of the route in web/src/router.tsx). Apart from the screen: the router does not load its chunk.

export const PALIERS = ["P1", "P2", "P3", "P4"] as const;
export const SEVERITIES = ["critical", "high", "medium", "low", "none", "unknown"] as const;
export const SORTS = ["palier", "-triggered_at", "triggered_at", "-cvss", "-epss"] as const;
/**
 * The inbox's order when the URL names none: what to handle first — the API's `palier` sort (tier,
 * a verified match before a "non vérifiable" one, severity, newest). Another choice stays in the URL.
 */
export const DEFAULT_SORT = "palier" satisfies (typeof SORTS)[number];
/** The rules of src/matching/decide.ts whose version was checked (all but `unversioned`). */
export const VERIFIED_RULES = ["version_range", "all_versions", "default_status", "osv_range", "vendor", "keyword", "cve"] as const;

export type Palier = (typeof PALIERS)[number];
export type Severity = (typeof SEVERITIES)[number];
export type Sort = (typeof SORTS)[number];
export type VerifiedRule = (typeof VERIFIED_RULES)[number];

export interface AlertSearch {
  /** The "non vérifiable" alerts (rule unversioned), on their own. */
  unverified?: boolean;
  palier?: Palier[];
  severity?: Severity[];
  is_kev?: boolean;
  has_poc?: boolean;
  min_epss?: number;
  tag?: string;
  is_read?: boolean;
  rule?: VerifiedRule[];
  q?: string;
  /** A digest's id: exactly the alerts that digest listed (the link a digest carries, docs/digests.md). */
  resume?: string;
  sort?: Sort;
  page?: number;
}

const listOf = <T extends string>(value: unknown, allowed: readonly T[]): T[] | undefined => {
  const list = (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter((v): v is T => allowed.includes(v as T));
  return list.length ? [...new Set(list)] : undefined;
};
const bool = (v: unknown): boolean | undefined => (v === true || v === "true" ? true : v === false || v === "false" ? false : undefined);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const text = (v: unknown): string | undefined => (typeof v === "string" && v.trim() && v.length <= 200 ? v.trim() : undefined);

/** The search params, each one checked (an unknown value is dropped, never sent to the server). */
export function validateAlertSearch(s: Record<string, unknown>): AlertSearch {
  const epss = Number(s.min_epss);
  const page = Number(s.page);
  const out: AlertSearch = {
    unverified: bool(s.unverified) || undefined,
    palier: listOf(s.palier, PALIERS),
    severity: listOf(s.severity, SEVERITIES),
    is_kev: bool(s.is_kev),
    has_poc: bool(s.has_poc),
    min_epss: s.min_epss !== undefined && s.min_epss !== "" && epss >= 0 && epss <= 1 ? epss : undefined,
    tag: text(s.tag),
    is_read: bool(s.is_read),
    rule: listOf(s.rule, VERIFIED_RULES),
    q: text(s.q),
    resume: typeof s.resume === "string" && UUID.test(s.resume) ? s.resume.toLowerCase() : undefined,
    sort: SORTS.includes(s.sort as Sort) ? (s.sort as Sort) : undefined,
    page: Number.isInteger(page) && page > 1 && page <= 100_000 ? page : undefined,
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as AlertSearch;
}

export const PAGE_SIZE = 50;

/** The query of GET …/alerts for a view: the tab decides the rules (unversioned alone, or the others). */
export function alertQuery(s: AlertSearch, unverified = !!s.unverified) {
  const { unverified: _u, rule, page, ...rest } = s;
  return {
    ...rest,
    sort: rest.sort ?? DEFAULT_SORT,
    rule: unverified ? ["unversioned" as const] : rule?.length ? rule : [...VERIFIED_RULES],
    page: page ?? 1,
    page_size: PAGE_SIZE,
  };
}

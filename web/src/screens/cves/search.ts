// The CVE search's filters in the URL (validateSearch of /cves in web/src/router.tsx).

export const SEVERITIES = ["critical", "high", "medium", "low", "none", "unknown"] as const;
export const CVE_SORTS = ["-date_published", "date_published", "-cvss", "-epss"] as const;
/** The API's `state` filters; `published` (the CVEs with a record of their own) is the default, left out of the URL. */
export const CVE_STATES = ["published", "reference_only", "rejected", "all"] as const;

export interface CveSearch {
  q?: string;
  vendor?: string;
  product?: string;
  severity?: (typeof SEVERITIES)[number][];
  is_kev?: boolean;
  has_poc?: boolean;
  min_cvss?: number;
  min_epss?: number;
  published_from?: string;
  published_to?: string;
  sort?: (typeof CVE_SORTS)[number];
  state?: Exclude<(typeof CVE_STATES)[number], "published">;
  page?: number;
}

const text = (v: unknown): string | undefined => (typeof v === "string" && v.trim() && v.length <= 200 ? v.trim() : undefined);
const bool = (v: unknown): boolean | undefined => (v === true || v === "true" ? true : v === false || v === "false" ? false : undefined);
const num = (v: unknown, max: number): number | undefined => {
  const n = Number(v);
  return v !== undefined && v !== "" && v !== null && n >= 0 && n <= max ? n : undefined;
};
const day = (v: unknown): string | undefined => (typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : undefined);

export function validateCveSearch(s: Record<string, unknown>): CveSearch {
  const sev = (Array.isArray(s.severity) ? s.severity : s.severity === undefined ? [] : [s.severity]).filter((v) =>
    SEVERITIES.includes(v as never),
  ) as CveSearch["severity"];
  const page = Number(s.page);
  const out: CveSearch = {
    q: text(s.q),
    vendor: text(s.vendor),
    product: text(s.product),
    severity: sev?.length ? [...new Set(sev)] : undefined,
    is_kev: bool(s.is_kev),
    has_poc: bool(s.has_poc),
    min_cvss: num(s.min_cvss, 10),
    min_epss: num(s.min_epss, 1),
    published_from: day(s.published_from),
    published_to: day(s.published_to),
    sort: CVE_SORTS.includes(s.sort as never) ? (s.sort as CveSearch["sort"]) : undefined,
    state: CVE_STATES.includes(s.state as never) && s.state !== "published" ? (s.state as CveSearch["state"]) : undefined,
    page: Number.isInteger(page) && page > 1 && page <= 100_000 ? page : undefined,
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as CveSearch;
}

export const CVE_PAGE_SIZE = 25;

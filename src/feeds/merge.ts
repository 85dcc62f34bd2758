import { normalizeName } from "./cpe.js";
import { severityFromScore } from "./cvss.js";
import { exploitMaturity } from "./poc.js";
import type { AffectedEntry, CveContribution, CvssMetric, KevFacts } from "./types.js";

/**
 * Merging: one CVE record from every source. Precedence (documented in the README):
 * - CVSS: the highest version wins (4.0, then 3.1, 3.0, 2.0); at equal version the CNA's, then an
 *   ADP's (CISA), then NVD's (NVD's own "Primary" score before others). `cvss_source` says which.
 * - description: the CVE List (CNA) English text, else NVD's, else the KEV name.
 * - CWE ids, references, affected products: the union of CVE 5 (CNA + ADP), NVD and KEV.
 * - vendor/product shown: the CNA's first affected product, else an ADP's, else NVD's first
 *   vulnerable CPE, else KEV's; with normalised forms (CPE style) for filters and matching.
 * - dates: published from the CVE List, else NVD; updated = the newest of the sources.
 * - KEV: the CISA catalog; else a KEV marker in the CISA ADP container or in NVD.
 * - EPSS is not merged: the newest score stays in epss_current, joined when CVEs are read.
 * - PoC: distinct PoC URLs over trickest and nomi-sec; maturity from KEV and PoC evidence.
 * - advisories (GHSA, GO, PYSEC, RUSTSEC) listing the CVE as an alias are merged into it:
 *   their ids go to `aliases` and `fusion_de`; CERT-FR avis naming the CVE go to `aliases` and
 *   bring `mesures_provisoires`.
 */

export interface MergeInput {
  cve_id: string;
  contributions: { source: string; data: unknown; source_modified: Date | null }[];
  advisories: { id: string; source: string; url: string; aliases: string[]; data: unknown }[];
}

export interface MergedCve {
  cve_id: string;
  state: string;
  description: string | null;
  severity: string;
  cvss_score: number | null;
  cvss_vector: string | null;
  cvss_version: string | null;
  cvss_source: string | null;
  cwe_ids: string[];
  vendor: string | null;
  product: string | null;
  vendor_norm: string | null;
  product_norm: string | null;
  date_published: string | null;
  date_updated: string | null;
  is_kev: boolean;
  kev: (Partial<KevFacts> & { source: string }) | null;
  has_poc: boolean;
  poc_count: number;
  poc_first_date: string | null;
  maturite_exploit: string;
  contournement_disponible: boolean;
  mesures_provisoires: unknown[];
  aliases: string[];
  fusion_de: string[];
  references: string[];
  ssvc: unknown;
  sources: string[];
}

export interface MergedAffected extends Omit<AffectedEntry, "vulnerable"> {
  cve_id: string;
  vendor_norm: string | null;
  product_norm: string | null;
  vulnerable: boolean;
}

const VERSION_RANK: Record<CvssMetric["version"], number> = { "4.0": 4, "3.1": 3, "3.0": 2, "2.0": 1 };
const ORIGIN_RANK = { cna: 3, adp: 2, nvd: 1 } as const;

/** The retained CVSS metric among all sources' (see the precedence above). */
export function pickCvss(metrics: CvssMetric[]): CvssMetric | null {
  let best: CvssMetric | null = null;
  const rank = (m: CvssMetric) => VERSION_RANK[m.version] * 100 + ORIGIN_RANK[m.origin] * 10 + (m.provider === "nvd@nist.gov" ? 1 : 0);
  for (const m of metrics) if (!best || rank(m) > rank(best)) best = m;
  return best;
}

const NA = /^(n\/?a|unknown|\*|-)$/i;
const usable = (s: string | null | undefined): s is string => !!s && !NA.test(s.trim());

function maxDate(a: string | null, b: string | null): string | null {
  if (!a) return b;
  if (!b) return a;
  return new Date(a) >= new Date(b) ? a : b;
}

/** The fields PoC evidence decides (with is_kev, for the maturity). */
export function pocPart(contributions: { source: string; data: unknown }[], isKev: boolean) {
  const pocs = contributions.filter((c) => c.source.startsWith("poc:")).map((c) => c.data as { urls: string[]; first_seen: string | null });
  const urls = new Set(pocs.flatMap((p) => p.urls));
  const first = pocs.map((p) => p.first_seen).filter((d): d is string => !!d).sort()[0] ?? null;
  return {
    has_poc: urls.size > 0,
    poc_count: urls.size,
    poc_first_date: first ? first.slice(0, 10) : null,
    maturite_exploit: exploitMaturity({ is_kev: isKev, poc_count: urls.size }),
  };
}

/** The fields the advisories naming a CVE decide: OSV ones are merged into it, CERT-FR avis bring measures. */
export function advisoryPart(cveId: string, advisories: MergeInput["advisories"]) {
  const osv = advisories.filter((a) => a.source !== "certfr");
  const certfr = advisories.filter((a) => a.source === "certfr");
  const mesures = certfr.flatMap((a) => ((a.data as { mesures?: unknown[] }).mesures ?? []));
  // An avis names the CVE (it is listed under aliases) but covers others too: it is not merged into it.
  const aliases = new Set<string>(certfr.map((a) => a.id));
  for (const a of osv) {
    aliases.add(a.id);
    for (const x of a.aliases) if (x !== cveId) aliases.add(x);
  }
  return {
    contournement_disponible: mesures.some((m) => (m as { categorie?: string }).categorie === "contournement"),
    mesures_provisoires: mesures,
    aliases: [...aliases].sort(),
    fusion_de: osv.map((a) => a.id).sort(),
  };
}

/** Sources whose statements are advisories (public_vulns), not CVE contributions. */
export const ADVISORY_SOURCES: ReadonlySet<string> = new Set(["ghsa", "go", "pysec", "rustsec", "osv", "certfr"]);

/** The `sources` column: distinct, sorted. */
export function sourcesOf(list: string[]): string[] {
  return [...new Set(list)].sort();
}

/** Merges one CVE; null when no source describes the CVE itself (only EPSS, PoC or advisories). */
export function mergeCve(input: MergeInput): { cve: MergedCve; affected: MergedAffected[] } | null {
  const by = new Map(input.contributions.map((c) => [c.source, c]));
  const cve5 = by.get("cve5")?.data as CveContribution | undefined;
  const nvd = by.get("nvd")?.data as CveContribution | undefined;
  const kevData = by.get("kev")?.data as (KevFacts & { cwes?: string[]; short_description?: string | null }) | undefined;
  if (!cve5 && !nvd && !kevData) return null;
  const main = [cve5, nvd].filter((c): c is CveContribution => !!c);

  const cvss = pickCvss(main.flatMap((c) => c.cvss));
  const affected = main.flatMap((c) => c.affected);
  const primary =
    affected.find((a) => a.origin === "cna" && usable(a.vendor) && usable(a.product)) ??
    affected.find((a) => a.origin === "adp" && usable(a.vendor) && usable(a.product)) ??
    affected.find((a) => a.origin === "nvd" && a.vulnerable !== false && usable(a.vendor) && usable(a.product));
  const vendor = primary?.vendor ?? kevData?.vendor ?? null;
  const product = primary?.product ?? kevData?.product ?? null;

  const kevMarker = cve5?.kev ?? nvd?.kev ?? null;
  const kev = kevData
    ? { ...kevData, source: "cisa-kev" }
    : kevMarker
      ? { date_added: kevMarker.date_added, source: cve5?.kev ? "cisa-adp" : "nvd" }
      : null;

  const state = cve5?.state ?? nvd?.state ?? "PUBLISHED";
  const isKev = kev !== null;
  const cve: MergedCve = {
    cve_id: input.cve_id,
    state,
    description: cve5?.description ?? nvd?.description ?? kevData?.short_description ?? kevData?.name ?? null,
    severity: severityFromScore(cvss?.score ?? null),
    cvss_score: cvss?.score ?? null,
    cvss_vector: cvss?.vector ?? null,
    cvss_version: cvss?.version ?? null,
    cvss_source: cvss ? `${cvss.origin}${cvss.provider ? `:${cvss.provider}` : ""}` : null,
    cwe_ids: [...new Set([...main.flatMap((c) => c.cwes), ...(kevData?.cwes ?? [])])].sort(),
    vendor,
    product,
    vendor_norm: vendor ? normalizeName(vendor) : null,
    product_norm: product ? normalizeName(product) : null,
    date_published: cve5?.published ?? nvd?.published ?? null,
    date_updated: main.reduce<string | null>((d, c) => maxDate(d, c.modified), null),
    is_kev: isKev,
    kev,
    ...pocPart(input.contributions, isKev),
    ...advisoryPart(input.cve_id, input.advisories),
    references: [...new Set(main.flatMap((c) => c.references))],
    ssvc: cve5?.ssvc ?? null,
    sources: sourcesOf([...by.keys(), ...input.advisories.map((a) => a.source)]),
  };
  const seen = new Set<string>();
  const rows: MergedAffected[] = [];
  for (const a of affected) {
    const key = [a.origin, a.vendor, a.product, a.cpe, a.version_from, a.version_from_inclusive, a.version_to, a.version_to_inclusive, a.version_status].join("\u0000");
    if (seen.has(key)) continue;
    seen.add(key);
    rows.push({
      ...a,
      cve_id: input.cve_id,
      vendor_norm: a.vendor ? normalizeName(a.vendor) : null,
      product_norm: a.product ? normalizeName(a.product) : null,
      vulnerable: a.vulnerable ?? true,
    });
  }
  return { cve, affected: rows };
}

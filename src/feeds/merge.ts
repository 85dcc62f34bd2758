import { normalizeName } from "../matching/cpe.js";
import { severityFromScore } from "./cvss.js";
import { exploitMaturity } from "./poc.js";
import type { OsvPackage } from "./osv.js";
import { osvIntervals } from "../matching/osv-range.js";
import type { AffectedEntry } from "../matching/affected.js";
import type { CveContribution, CvssMetric, KevFacts } from "./types.js";

/**
 * Merging: one CVE record from every source. Precedence (documented in the README):
 * - CVSS: the highest version wins (4.0, then 3.1, 3.0, 2.0); at equal version the CNA's, then an
 *   ADP's (CISA), then NVD's (NVD's own "Primary" score before others). `cvss_source` says which.
 * - CVSS from an OSV advisory (its v3 vector) only when no CVE-record source scores the CVE;
 *   `cvss_source` then names the advisory (`ghsa:GHSA-…`).
 * - description: the CVE List (CNA) English text, else NVD's, else the KEV name, else the
 *   advisory's summary and details.
 * - CWE ids, references: the union of CVE 5 (CNA + ADP), NVD and KEV (the advisories' when none
 *   of CVE 5 and NVD speaks of the CVE). Affected products: the union of CVE 5, NVD, KEV (its
 *   vendor and product, without versions) and the OSV advisories' packages and ranges.
 * - a CVE known only from OSV advisories gets a record built from them; an OSV advisory naming
 *   no CVE at all gets a record keyed by its own id (see buildingAdvisories); a CVE known only
 *   from CERT-FR avis gets a thin record: id, dates, attributed description, no product or score
 *   (see avisRecord).
 * - vendor/product shown: the CNA's first affected product, else an ADP's, else NVD's first
 *   vulnerable CPE, else KEV's; with normalised forms (CPE style) for filters and matching.
 * - dates: published from the CVE List, else NVD, else the earliest OSV advisory, else the earliest
 *   CERT-FR avis naming the CVE (its first publication); updated = the newest
 *   of the CVE-record sources (of the advisories for a record built from them).
 * - KEV: the CISA catalog; else a KEV marker in the CISA ADP container or in NVD.
 * - EPSS is not merged: the newest score stays in epss_current, joined when CVEs are read.
 * - PoC: distinct PoC URLs over trickest and nomi-sec; maturity from KEV and PoC evidence.
 * - advisories (GHSA, GO, PYSEC, RUSTSEC) listing the CVE as an alias are merged into it:
 *   their ids go to `aliases` and `fusion_de`; CERT-FR avis naming the CVE go to `aliases` and
 *   bring `mesures_provisoires`, after the CVE 5 record's own workarounds and solutions (CNA, ADP).
 */

/** An advisory naming the CVE (or, for a record keyed by an advisory id, that advisory). */
export interface MergeAdvisory {
  id: string;
  source: string;
  url: string;
  aliases: string[];
  /** CERT-FR: {mesures}; OSV: {packages, details, cvss_vector, cwes, references}. */
  data: unknown;
  summary?: string | null;
  published?: string | null;
  modified?: string | null;
  cvss_score?: number | null;
}

export interface MergeInput {
  cve_id: string;
  contributions: { source: string; data: unknown; source_modified: Date | null }[];
  advisories: MergeAdvisory[];
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
  date_reserved: string | null;
  assigner: string | null;
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
  const first =
    pocs
      .map((p) => p.first_seen)
      .filter((d): d is string => !!d)
      .sort()[0] ?? null;
  return {
    has_poc: urls.size > 0,
    poc_count: urls.size,
    poc_first_date: first ? first.slice(0, 10) : null,
    maturite_exploit: exploitMaturity({ is_kev: isKev, poc_count: urls.size }),
  };
}

/**
 * The fields the advisories naming a CVE decide: OSV ones are merged into it, CERT-FR avis bring
 * measures, after the record's own (`recordMesures`: the CVE 5 workarounds and solutions).
 */
export function advisoryPart(cveId: string, advisories: MergeInput["advisories"], recordMesures: unknown[] = []) {
  const osv = advisories.filter((a) => a.source !== "certfr");
  const certfr = advisories.filter((a) => a.source === "certfr");
  const mesures = [...recordMesures, ...certfr.flatMap((a) => (a.data as { mesures?: unknown[] }).mesures ?? [])];
  // An avis names the CVE (it is listed under aliases) but covers others too: it is not merged into it.
  const aliases = new Set<string>(certfr.map((a) => a.id));
  for (const a of osv) {
    aliases.add(a.id);
    for (const x of a.aliases) aliases.add(x);
  }
  // A record keyed by an advisory id is that advisory: it is not its own alias.
  aliases.delete(cveId);
  return {
    contournement_disponible: mesures.some((m) => (m as { categorie?: string }).categorie === "contournement"),
    mesures_provisoires: mesures,
    aliases: [...aliases].sort(),
    fusion_de: osv
      .map((a) => a.id)
      .filter((id) => id !== cveId)
      .sort(),
  };
}

/**
 * Mixed into the hashes of the KEV and OSV records: bumped when the merge starts using more of them
 * (2: KEV products as affected products, records built from advisories, advisory CVSS; 3: OSV intervals of a redundant `introduced`), so that
 * the next import of those sources rewrites them and re-merges their CVEs in an existing database.
 */
export const MERGE_RULES_VERSION = "3";

/** Sources whose statements are advisories (public_vulns), not CVE contributions. */
export const ADVISORY_SOURCES: ReadonlySet<string> = new Set(["ghsa", "go", "pysec", "rustsec", "osv", "certfr"]);

/**
 * The sources that give a vulnerability a record of its own (mergeCve's `described`: the CVE List,
 * NVD, KEV, an OSV advisory). A CVE whose `sources` hold none of them is known only by reference:
 * CERT-FR avis cite it (the thin record of avisRecord), nothing describes it yet — the CVE
 * "reference only" state of the API (src/modules/cves).
 */
export const RECORD_SOURCES: readonly string[] = ["cve5", "nvd", "kev", ...[...ADVISORY_SOURCES].filter((s) => s !== "certfr")];

/** The `sources` column: distinct, sorted. */
export function sourcesOf(list: string[]): string[] {
  return [...new Set(list)].sort();
}

const CVE_ID = /^CVE-\d{4}-\d{4,}$/;
/** Whether a record key (or an alias) is a CVE id. */
export const isCveId = (id: string) => CVE_ID.test(id);

interface OsvData {
  packages?: OsvPackage[];
  details?: string | null;
  cvss_vector?: string | null;
  cwes?: string[];
  references?: string[];
}
const osvData = (a: MergeAdvisory) => (a.data ?? {}) as OsvData;
const OSV_PREFERENCE: Record<string, number> = { ghsa: 0, pysec: 1, go: 2, rustsec: 3, osv: 4 };
const byPreference = (a: MergeAdvisory, b: MergeAdvisory) =>
  (OSV_PREFERENCE[a.source] ?? 9) - (OSV_PREFERENCE[b.source] ?? 9) || (a.id < b.id ? -1 : 1);

/** A RustSec maintenance notice ("unmaintained", "notice" on every package) is not a vulnerability. */
function isNotice(a: MergeAdvisory): boolean {
  const pkgs = osvData(a).packages ?? [];
  return pkgs.length > 0 && pkgs.every((p) => p.informational === "unmaintained" || p.informational === "notice");
}

/**
 * The OSV advisories a record is built from, for this key, most authoritative first (GHSA, PYSEC,
 * GO, RUSTSEC, others): for a CVE id, every OSV advisory listing it as an alias; for an advisory
 * id, that advisory when neither it nor any advisory naming it lists a CVE (else the CVE's record
 * holds it), unless it is a maintenance notice. CERT-FR avis are not among them (see avisRecord).
 */
export function buildingAdvisories(key: string, advisories: MergeAdvisory[]): MergeAdvisory[] {
  const osv = advisories.filter((a) => a.source !== "certfr").sort(byPreference);
  if (isCveId(key)) return osv.filter((a) => a.aliases.includes(key));
  const own = osv.find((a) => a.id === key);
  if (!own || isNotice(own) || osv.some((a) => a.aliases.some(isCveId))) return [];
  return [own, ...osv.filter((a) => a !== own)];
}

/** The CVSS of the first advisory (in preference order) whose v3 vector gives a score, with its provenance. */
export function advisoryCvss(advisories: MergeAdvisory[]): { score: number; vector: string; version: string; source: string } | null {
  for (const a of advisories) {
    const vector = osvData(a).cvss_vector;
    const m = vector ? /^CVSS:(3\.[01])\//.exec(vector) : null;
    if (m && typeof a.cvss_score === "number")
      return { score: a.cvss_score, vector: vector!, version: m[1]!, source: `${a.source}:${a.id}` };
  }
  return null;
}

/**
 * An advisory's packages as affected products (origin "osv", vendor = ecosystem, product = package),
 * one row per interval of its SEMVER/ECOSYSTEM ranges ("introduced: 0" is unbounded); a package
 * with no such range is one row without bounds.
 */
export function osvAffected(advisories: MergeAdvisory[]): AffectedEntry[] {
  const rows: AffectedEntry[] = [];
  for (const a of advisories) {
    for (const p of osvData(a).packages ?? []) {
      if (!p.name) continue;
      const row = (from: string | null, to: string | null, toInclusive: boolean, type: string | null): AffectedEntry => ({
        origin: "osv",
        vendor: p.ecosystem || null,
        product: p.name,
        cpe: null,
        version_from: from,
        version_from_inclusive: true,
        version_to: to,
        version_to_inclusive: toInclusive,
        version_status: "affected",
        version_type: type,
        default_status: null,
      });
      const ranges = (p.ranges ?? []).filter((r) => r.type !== "GIT");
      if (!ranges.length) rows.push(row(null, null, true, null));
      for (const r of ranges) {
        for (const iv of osvIntervals(r.events)) {
          rows.push(row(/^0(\.0\.0(-0)?)?$/.test(iv.introduced) ? null : iv.introduced, iv.end, iv.endInclusive, r.type.toLowerCase()));
        }
      }
    }
  }
  return rows;
}

/** KEV's vendor and product: an affected product like any other source's, without versions. */
function kevAffected(kev: KevFacts | undefined): AffectedEntry[] {
  if (!kev || !usable(kev.product)) return [];
  return [
    {
      origin: "kev",
      vendor: usable(kev.vendor) ? kev.vendor : null,
      product: kev.product,
      cpe: null,
      version_from: null,
      version_from_inclusive: true,
      version_to: null,
      version_to_inclusive: true,
      version_status: "affected",
      version_type: null,
      default_status: null,
    },
  ];
}

/** The CERT-FR avis naming this CVE, the earliest first (by first publication, then reference). */
function avisNaming(key: string, advisories: MergeAdvisory[]): MergeAdvisory[] {
  const day = (a: MergeAdvisory) => (a.published ? Date.parse(a.published) : Infinity);
  return advisories
    .filter((a) => a.source === "certfr" && a.aliases.includes(key))
    .sort((a, b) => day(a) - day(b) || (a.id < b.id ? -1 : 1));
}

/**
 * The thin record of a CVE known only from CERT-FR avis: an avis covers up to hundreds of CVEs
 * under one collective title and product list, none of which is this CVE's own. So the record says
 * only what the avis establish: the CVE exists, since when (the earliest avis' first publication),
 * who names it (description attributed to that avis, its page in references, every avis in
 * `aliases`, their measures). No product (the avis' list would alert products the CVE may not
 * touch), no score, no CWE: unknown until a CVE-record source or an OSV advisory speaks.
 */
function avisRecord(avis: MergeAdvisory[]): { description: string; modified: string | null; references: string[] } {
  const first = avis[0]!;
  const day = first.published ? ` (${new Date(first.published).toISOString().slice(0, 10)})` : "";
  const others = avis.length > 1 ? ` ; également par ${avis.length - 1} autre${avis.length > 2 ? "s" : ""} avis (voir aliases)` : "";
  return {
    description: `Mentionnée par l'avis CERT-FR ${first.id}${day} : ${first.summary ?? first.id}${others}`,
    modified: avis.reduce<string | null>((d, a) => maxDate(d, a.modified ?? null), null),
    references: avis.map((a) => a.url),
  };
}

/** The text of an advisory: its summary, then its details (when they do not repeat it). */
function advisoryText(a: MergeAdvisory | undefined): string | null {
  if (!a) return null;
  const details = osvData(a).details ?? null;
  const summary = a.summary ?? null;
  if (!details) return summary;
  return summary && !details.startsWith(summary) ? `${summary}\n\n${details}` : details;
}

const minDate = (dates: (string | null | undefined)[]) =>
  dates.filter((d): d is string => !!d).sort((a, b) => Date.parse(a) - Date.parse(b))[0] ?? null;

/**
 * Merges one record; null when nothing names the vulnerability but EPSS or PoC evidence. The key is
 * a CVE id, or the id of an OSV advisory that names no CVE. A CVE named only by CERT-FR avis gets
 * a thin record (avisRecord), which the other sources replace field by field when they arrive.
 */
export function mergeCve(input: MergeInput): { cve: MergedCve; affected: MergedAffected[] } | null {
  const by = new Map(input.contributions.map((c) => [c.source, c]));
  const cve5 = by.get("cve5")?.data as CveContribution | undefined;
  const nvd = by.get("nvd")?.data as CveContribution | undefined;
  const kevData = by.get("kev")?.data as (KevFacts & { cwes?: string[]; short_description?: string | null }) | undefined;
  const built = buildingAdvisories(input.cve_id, input.advisories);
  const avis = isCveId(input.cve_id) ? avisNaming(input.cve_id, input.advisories) : [];
  const described = !!(cve5 || nvd || kevData || built.length);
  if (!described && !avis.length) return null;
  const thin = described ? null : avisRecord(avis);
  const main = [cve5, nvd].filter((c): c is CveContribution => !!c);

  const scored = pickCvss(main.flatMap((c) => c.cvss));
  const fromAdvisory = scored ? null : advisoryCvss(built);
  const cvss = scored
    ? {
        score: scored.score,
        vector: scored.vector,
        version: scored.version,
        source: `${scored.origin}${scored.provider ? `:${scored.provider}` : ""}`,
      }
    : fromAdvisory;
  const affected = [...main.flatMap((c) => c.affected), ...kevAffected(kevData), ...osvAffected(built)];
  const primary =
    affected.find((a) => a.origin === "cna" && usable(a.vendor) && usable(a.product)) ??
    affected.find((a) => a.origin === "adp" && usable(a.vendor) && usable(a.product)) ??
    affected.find((a) => a.origin === "nvd" && a.vulnerable !== false && usable(a.vendor) && usable(a.product));
  const pkg = affected.find((a) => a.origin === "osv");
  const vendor = primary?.vendor ?? kevData?.vendor ?? pkg?.vendor ?? null;
  const product = primary?.product ?? kevData?.product ?? pkg?.product ?? null;

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
    description:
      cve5?.description ??
      nvd?.description ??
      kevData?.short_description ??
      kevData?.name ??
      advisoryText(built[0]) ??
      thin?.description ??
      null,
    severity: severityFromScore(cvss?.score ?? null),
    cvss_score: cvss?.score ?? null,
    cvss_vector: cvss?.vector ?? null,
    cvss_version: cvss?.version ?? null,
    cvss_source: cvss?.source ?? null,
    cwe_ids: [
      ...new Set([
        ...main.flatMap((c) => c.cwes),
        ...(kevData?.cwes ?? []),
        ...(main.length ? [] : built.flatMap((a) => osvData(a).cwes ?? [])),
      ]),
    ].sort(),
    vendor,
    product,
    vendor_norm: vendor ? normalizeName(vendor) : null,
    product_norm: product ? normalizeName(product) : null,
    // The earliest avis dates a CVE no other source dates (a KEV-only CVE, a record built from avis).
    date_published: cve5?.published ?? nvd?.published ?? minDate(built.map((a) => a.published)) ?? avis[0]?.published ?? null,
    date_updated: main.length
      ? main.reduce<string | null>((d, c) => maxDate(d, c.modified), null)
      : (thin?.modified ?? built.reduce<string | null>((d, a) => maxDate(d, a.modified ?? null), null)),
    date_reserved: cve5?.reserved ?? null,
    assigner: cve5?.assigner ?? nvd?.assigner ?? null,
    is_kev: isKev,
    kev,
    ...pocPart(input.contributions, isKev),
    ...advisoryPart(input.cve_id, input.advisories, cve5?.mesures),
    references: [
      ...new Set(main.length ? main.flatMap((c) => c.references) : (thin?.references ?? built.flatMap((a) => osvData(a).references ?? []))),
    ],
    ssvc: cve5?.ssvc ?? null,
    sources: sourcesOf([...by.keys(), ...input.advisories.map((a) => a.source)]),
  };
  const seen = new Set<string>();
  const rows: MergedAffected[] = [];
  for (const a of affected) {
    const key = [
      a.origin,
      a.vendor,
      a.product,
      a.cpe,
      a.version_from,
      a.version_from_inclusive,
      a.version_to,
      a.version_to_inclusive,
      a.version_status,
    ].join("\u0000");
    if (seen.has(key)) continue;
    seen.add(key);
    // An advisory's packages are matched by the OSV path (ecosystem, package name, its own version
    // scheme): without normalised names they are shown, never compared as CPE-style products.
    const named = a.origin !== "osv";
    rows.push({
      ...a,
      cve_id: input.cve_id,
      vendor_norm: named && a.vendor ? normalizeName(a.vendor) : null,
      product_norm: named && a.product ? normalizeName(a.product) : null,
      vulnerable: a.vulnerable ?? true,
    });
  }
  return { cve, affected: rows };
}

import { parseCpe, normalizeName } from "../../matching/cpe.js";
import { canonicalPurl, parsePurl, type Purl } from "../../matching/purl.js";
import { compareVersions, isConcreteVersion } from "../../matching/version.js";
import type { CsafProduct, CsafRemediation, CsafVulnerability, ProductStatus } from "./csaf.document.js";

/**
 * What a vendor's CSAF advisory says of one stack item, for one vulnerability (docs/adr/0038):
 * the item meets a product of the advisory's tree through its identification helper (purl: the
 * same package, by the purl library's canonical form; CPE: the same vendor and product) or, where
 * the tree gives only names, its vendor and product_name branches (CPE-style names). The product
 * then speaks of the item's version when its own version (purl or CPE version, product_version
 * branch) is the item's, or its product_version_range (vers:) holds it; a product naming no version
 * speaks of every version. Pure.
 */

/** A stack item as the matching reads it (stack_items' keys). */
export interface CsafItem {
  id: string;
  project_id: string;
  item_type: string;
  value: string;
  match_vendor: string | null;
  match_product: string | null;
  match_version: string | null;
}

export type CsafVerdict = "affected" | "not_affected" | "fixed" | "under_investigation";

export interface CsafDecision {
  verdict: CsafVerdict;
  /** The statuses that decided, in the advisory's words. */
  status: ProductStatus;
  /** The products of the advisory the item is (those of the deciding status). */
  products: CsafProduct[];
  /** How the item met them: purl, cpe or names. */
  via: "purl" | "cpe" | "names";
  /** Versions the vendor says fixed (fixed, first_fixed products of the same package), sorted. */
  fixed_versions: string[];
  vendor_fix: CsafRemediation[];
  /** workaround and mitigation remediations for the item's products: interim measures. */
  measures: CsafRemediation[];
  /** none_available, no_fix_planned. */
  other_remediations: CsafRemediation[];
  /** The not_affected justification (a flag's label) and the impact threat's details. */
  justification: string | null;
  impact: string | null;
}

type Met = { product: CsafProduct; via: CsafDecision["via"]; version: string | null };

function purlOf(value: string | null): Purl | null {
  if (!value) return null;
  try {
    return parsePurl(value);
  } catch {
    return null;
  }
}

/** The item's identity keys: a purl package, or a (vendor, product) pair with a version. */
function itemIdentity(item: CsafItem): { purl: string | null; vendor: string | null; product: string | null; version: string | null } {
  if (item.item_type === "purl") {
    const p = purlOf(item.value);
    return {
      purl: p ? canonicalPurl(p, { withVersion: false }) : null,
      vendor: null,
      product: null,
      version: p?.version ?? item.match_version,
    };
  }
  if (item.item_type === "cpe" || item.item_type === "product")
    return { purl: null, vendor: item.match_vendor, product: item.match_product, version: item.match_version };
  return { purl: null, vendor: null, product: null, version: null };
}

/** The products of the tree the item is (whatever their version), each with the version it names. */
export function productsMet(item: CsafItem, products: CsafProduct[]): Met[] {
  const id = itemIdentity(item);
  const out: Met[] = [];
  for (const p of products) {
    if (id.purl && p.purl) {
      const pp = purlOf(p.purl);
      if (pp && canonicalPurl(pp, { withVersion: false }) === id.purl)
        out.push({ product: p, via: "purl", version: pp.version ?? p.version });
      continue;
    }
    if (!id.vendor || !id.product) continue;
    if (p.cpe) {
      const c = parseCpe(p.cpe);
      if (c && c.vendor.toLowerCase() === id.vendor && c.product.toLowerCase() === id.product) {
        out.push({ product: p, via: "cpe", version: isConcreteVersion(c.version) ? c.version : p.version });
        continue;
      }
    }
    if (p.vendor && p.product_name && normalizeName(p.vendor) === id.vendor && normalizeName(p.product_name) === id.product)
      out.push({ product: p, via: "names", version: p.version });
  }
  return out;
}

/**
 * A range written as vers: constraints without the scheme, as CISA's CSAF documents write their
 * product_version_range branches (`<=16.0.0.23211`, `>= 1.220 | <= 1.281`, `<=BF`): every
 * `|`-separated part one comparator and one version (no space inside it). Read as vers:generic.
 */
const BARE_CONSTRAINTS = /^\s*(>=|<=|>|<|=|!=)\s*[^\s|<>=!]+\s*(\|\s*(>=|<=|>|<|=|!=)\s*[^\s|<>=!]+\s*)*$/;

/**
 * A vers: range (`vers:generic/>=2.9|<=4.1`), or bare vers constraints (BARE_CONSTRAINTS), holding
 * `version`; null when the range is neither (a vendor's words: « 10.4 and earlier » is not read).
 */
export function versHolds(range: string, version: string): boolean | null {
  const bare = BARE_CONSTRAINTS.test(range) ? `vers:generic/${range.replace(/\s+/g, "")}` : range;
  const m = /^vers:[a-z0-9.+-]+\/(.+)$/i.exec(bare.trim());
  if (!m) return null;
  const constraints = m[1]!.split("|").map((c) => c.trim());
  if (constraints.length === 1 && constraints[0] === "*") return true;
  // vers: constraints sorted by version; "=" alone or ranges of </<= after >/>=. Each interval checked.
  let lower: { v: string; inclusive: boolean } | null = null;
  for (const c of constraints) {
    const cm = /^(>=|<=|>|<|!=|=)?(.+)$/.exec(c);
    if (!cm) return null;
    const op = cm[1] ?? "=";
    const v = decodeURIComponent(cm[2]!);
    const cmp = compareVersions(version, v);
    if (op === "=" && cmp === 0) return true;
    if (op === "!=" && cmp === 0) return false;
    if (op === ">=" || op === ">") lower = { v, inclusive: op === ">=" };
    if (op === "<=" || op === "<") {
      const above = lower ? compareVersions(version, lower.v) > 0 || (lower.inclusive && compareVersions(version, lower.v) === 0) : true;
      const below = cmp < 0 || (op === "<=" && cmp === 0);
      if (above && below) return true;
      lower = null;
    }
  }
  return lower ? compareVersions(version, lower.v) > 0 || (lower.inclusive && compareVersions(version, lower.v) === 0) : false;
}

/** Whether a product met speaks of the item's version: the same version, a range holding it, or no version (every version). */
function speaksOf(m: Met, version: string | null): boolean {
  if (m.version && isConcreteVersion(m.version)) return !!version && compareVersions(version, m.version) === 0;
  if (m.product.version_range) return !!version && versHolds(m.product.version_range, version) === true;
  return true;
}

const forProducts = (list: CsafRemediation[], ids: Set<string>) => list.filter((r) => r.product_ids.some((id) => ids.has(id)));

/**
 * The vendor's word on the item for this vulnerability, or null when the advisory names no product
 * the item is. Order: known_not_affected, then fixed/first_fixed (the item's own version, or at or
 * above a first_fixed version of the same package), then known_affected (first_affected,
 * last_affected), then under_investigation.
 */
export function decide(item: CsafItem, v: CsafVulnerability, products: CsafProduct[]): CsafDecision | null {
  const met = productsMet(item, products);
  if (!met.length) return null;
  const version = itemIdentity(item).version;
  const at = (s: ProductStatus) => met.filter((m) => v.statuses[s]?.includes(m.product.product_id));
  const fixedMet = [...at("fixed"), ...at("first_fixed")];
  const fixedVersions = [...new Set(fixedMet.map((m) => m.version).filter((x): x is string => !!x && isConcreteVersion(x)))].sort(
    compareVersions,
  );
  const verdict = (status: ProductStatus, kind: CsafVerdict, list: Met[]): CsafDecision => {
    const ids = new Set(list.map((m) => m.product.product_id));
    const flag = v.flags.find((f) => f.product_ids.some((id) => ids.has(id)));
    const threat = v.threats.find((t) => t.category === "impact" && t.product_ids.some((id) => ids.has(id)));
    return {
      verdict: kind,
      status,
      products: list.map((m) => m.product),
      via: list[0]!.via,
      fixed_versions: fixedVersions,
      vendor_fix: forProducts(
        v.remediations.filter((r) => r.category === "vendor_fix"),
        ids,
      ),
      measures: forProducts(
        v.remediations.filter((r) => r.category === "workaround" || r.category === "mitigation"),
        ids,
      ),
      other_remediations: forProducts(
        v.remediations.filter((r) => r.category === "none_available" || r.category === "no_fix_planned"),
        ids,
      ),
      justification: flag?.label ?? null,
      impact: threat?.details ?? null,
    };
  };
  const notAffected = at("known_not_affected").filter((m) => speaksOf(m, version));
  if (notAffected.length) return verdict("known_not_affected", "not_affected", notAffected);
  const fixed = fixedMet.filter((m) => speaksOf(m, version));
  if (fixed.length) return verdict(at("first_fixed").some((m) => fixed.includes(m)) ? "first_fixed" : "fixed", "fixed", fixed);
  // first_fixed bounds: the item at or above a version the vendor says first fixed is fixed.
  const firstFixed = at("first_fixed").filter((m) => m.version && isConcreteVersion(m.version));
  const bound = version && isConcreteVersion(version) ? firstFixed.filter((m) => compareVersions(version, m.version!) >= 0) : [];
  if (bound.length) return verdict("first_fixed", "fixed", bound);
  const affected = [...at("known_affected"), ...at("first_affected"), ...at("last_affected")].filter((m) => speaksOf(m, version));
  if (affected.length) return verdict("known_affected", "affected", affected);
  const investigating = at("under_investigation").filter((m) => speaksOf(m, version));
  if (investigating.length) return verdict("under_investigation", "under_investigation", investigating);
  return null;
}

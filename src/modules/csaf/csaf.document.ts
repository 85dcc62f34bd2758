/**
 * A CSAF 2.0 document read into what Vigie keeps of it (issue 36): its tracking (id, version,
 * revision history), its product tree flattened (each product with the vendor, product name and
 * version its branches give and its identification helpers), and its vulnerabilities with their
 * product statuses, remediations, scores, CWE, notes and threats — product groups expanded into
 * product ids. Pure: the schema check is done before (vex.import.ts csafSchemaErrors).
 */

export const PRODUCT_STATUSES = [
  "known_affected",
  "first_affected",
  "last_affected",
  "fixed",
  "first_fixed",
  "recommended",
  "known_not_affected",
  "under_investigation",
] as const;
export type ProductStatus = (typeof PRODUCT_STATUSES)[number];

/** One product of the tree, with what its branches and helper say of it. */
export interface CsafProduct {
  product_id: string;
  name: string;
  vendor: string | null;
  product_name: string | null;
  /** A product_version branch's name. */
  version: string | null;
  /** A product_version_range branch's name (vers: or a vendor's words). */
  version_range: string | null;
  purl: string | null;
  cpe: string | null;
  /** The whole identification helper (hashes, model and serial numbers, SBOM URLs, skus, x_generic_uris…). */
  helper: Record<string, unknown> | null;
  /** A relationship's product: the product it is a component of (relates_to_product_reference) and the component. */
  relationship: { category: string; component: string; of: string } | null;
}

export interface CsafRemediation {
  category: string;
  details: string;
  url: string | null;
  date: string | null;
  product_ids: string[];
}

export interface CsafScore {
  version: string;
  vector: string;
  base_score: number;
  base_severity: string | null;
  product_ids: string[];
}

export interface CsafVulnerability {
  cve: string | null;
  ids: { system_name: string; text: string }[];
  title: string | null;
  cwe: { id: string; name: string } | null;
  /** The description (notes of category description, else summary), joined. */
  description: string | null;
  scores: CsafScore[];
  statuses: Partial<Record<ProductStatus, string[]>>;
  remediations: CsafRemediation[];
  threats: { category: string; details: string; product_ids: string[] }[];
  flags: { label: string; product_ids: string[] }[];
}

export interface CsafAdvisory {
  tracking_id: string;
  version: string;
  tracking_status: string;
  category: string;
  title: string;
  publisher: string;
  tlp: string | null;
  lang: string | null;
  initial_release_date: string | null;
  current_release_date: string;
  revision_history: { number: string; date: string; summary: string }[];
  products: CsafProduct[];
  vulnerabilities: CsafVulnerability[];
  cves: string[];
}

const str = (v: unknown): string | null => (typeof v === "string" && v.trim() ? v.trim() : null);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

function flattenProducts(tree: Record<string, unknown>): CsafProduct[] {
  const out = new Map<string, CsafProduct>();
  const add = (
    p: Record<string, unknown>,
    path: { vendor: string | null; product_name: string | null; version: string | null; version_range: string | null },
    relationship: CsafProduct["relationship"] = null,
  ) => {
    const id = str(p.product_id);
    if (!id) return;
    const helper = p.product_identification_helper ? obj(p.product_identification_helper) : null;
    out.set(id, {
      product_id: id,
      name: str(p.name) ?? id,
      ...path,
      purl: helper ? str(helper.purl) : null,
      cpe: helper ? str(helper.cpe) : null,
      helper,
      relationship,
    });
  };
  const walk = (branches: unknown[], path: Parameters<typeof add>[1]) => {
    for (const b of branches.map(obj)) {
      const name = str(b.name);
      const category = str(b.category);
      const next = { ...path };
      if (category === "vendor") next.vendor = name;
      else if (category === "product_name") next.product_name = name;
      else if (category === "product_version") next.version = name;
      else if (category === "product_version_range") next.version_range = name;
      if (b.product) add(obj(b.product), next);
      walk(arr(b.branches), next);
    }
  };
  for (const p of arr(tree.full_product_names)) add(obj(p), { vendor: null, product_name: null, version: null, version_range: null });
  walk(arr(tree.branches), { vendor: null, product_name: null, version: null, version_range: null });
  for (const r of arr(tree.relationships).map(obj)) {
    const component = str(r.product_reference);
    const of = str(r.relates_to_product_reference);
    const base = component ? out.get(component) : undefined;
    add(
      obj(r.full_product_name),
      // The component as its own branches name it (a package of a platform is still that package).
      {
        vendor: base?.vendor ?? null,
        product_name: base?.product_name ?? null,
        version: base?.version ?? null,
        version_range: base?.version_range ?? null,
      },
      component && of ? { category: str(r.category) ?? "default_component_of", component, of } : null,
    );
  }
  return [...out.values()];
}

/** The product ids an element names: its product_ids and the products of its group_ids. */
function idsOf(el: Record<string, unknown>, groups: Map<string, string[]>, key = "product_ids"): string[] {
  const ids = new Set(arr(el[key]).map(String));
  for (const g of arr(el.group_ids)) for (const id of groups.get(String(g)) ?? []) ids.add(id);
  return [...ids];
}

function scoresOf(v: Record<string, unknown>): CsafScore[] {
  const out: CsafScore[] = [];
  for (const s of arr(v.scores).map(obj)) {
    const products = arr(s.products).map(String);
    for (const key of ["cvss_v3", "cvss_v2"]) {
      const c = obj(s[key]);
      const vector = str(c.vectorString);
      if (!vector || typeof c.baseScore !== "number") continue;
      out.push({
        version: str(c.version) ?? (key === "cvss_v2" ? "2.0" : "3.1"),
        vector,
        base_score: c.baseScore,
        base_severity: str(c.baseSeverity)?.toLowerCase() ?? null,
        product_ids: products,
      });
    }
  }
  return out;
}

/** The document read; `tlp` is the document's own label (WHITE, CLEAR, GREEN…), null when it has none. */
export function readCsafAdvisory(doc: Record<string, unknown>): CsafAdvisory {
  const d = obj(doc.document);
  const tracking = obj(d.tracking);
  const tree = obj(doc.product_tree);
  const groups = new Map(arr(tree.product_groups).map((g) => [String(obj(g).group_id), arr(obj(g).product_ids).map(String)] as const));
  const vulnerabilities: CsafVulnerability[] = arr(doc.vulnerabilities)
    .map(obj)
    .map((v) => {
      const status = obj(v.product_status);
      const statuses: CsafVulnerability["statuses"] = {};
      for (const s of PRODUCT_STATUSES) if (arr(status[s]).length) statuses[s] = arr(status[s]).map(String);
      const notes = arr(v.notes).map(obj);
      const description =
        notes
          .filter((n) => n.category === "description")
          .map((n) => str(n.text))
          .filter(Boolean)
          .join("\n\n") ||
        notes
          .filter((n) => n.category === "summary")
          .map((n) => str(n.text))
          .filter(Boolean)
          .join("\n\n") ||
        null;
      const cwe = obj(v.cwe);
      return {
        cve: str(v.cve)?.toUpperCase() ?? null,
        ids: arr(v.ids)
          .map(obj)
          .map((i) => ({ system_name: str(i.system_name) ?? "", text: str(i.text) ?? "" }))
          .filter((i) => i.text),
        title: str(v.title),
        cwe: str(cwe.id) ? { id: str(cwe.id)!, name: str(cwe.name) ?? "" } : null,
        description,
        scores: scoresOf(v),
        statuses,
        remediations: arr(v.remediations)
          .map(obj)
          .map((r) => ({
            category: str(r.category) ?? "",
            details: str(r.details) ?? "",
            url: str(r.url),
            date: str(r.date),
            product_ids: idsOf(r, groups),
          })),
        threats: arr(v.threats)
          .map(obj)
          .map((t) => ({ category: str(t.category) ?? "", details: str(t.details) ?? "", product_ids: idsOf(t, groups) })),
        flags: arr(v.flags)
          .map(obj)
          .map((f) => ({ label: str(f.label) ?? "", product_ids: idsOf(f, groups) })),
      };
    });
  return {
    tracking_id: str(tracking.id) ?? "",
    version: str(tracking.version) ?? "",
    tracking_status: str(tracking.status) ?? "",
    category: str(d.category) ?? "",
    title: str(d.title) ?? "",
    publisher: str(obj(d.publisher).name) ?? "",
    tlp: str(obj(obj(d.distribution).tlp).label),
    lang: str(d.lang),
    initial_release_date: str(tracking.initial_release_date),
    current_release_date: str(tracking.current_release_date) ?? "",
    revision_history: arr(tracking.revision_history)
      .map(obj)
      .map((r) => ({ number: str(r.number) ?? "", date: str(r.date) ?? "", summary: str(r.summary) ?? "" })),
    products: flattenProducts(tree),
    vulnerabilities,
    cves: [...new Set(vulnerabilities.map((v) => v.cve).filter((c): c is string => !!c))].sort(),
  };
}

/**
 * Compares two tracking versions (CSAF 2.0 §3.2.1.12.8: integer versioning or semantic versioning):
 * negative when `a` is older. Integers compare as numbers; semver by major, minor, patch, then a
 * pre-release below its release.
 */
export function compareTrackingVersions(a: string, b: string): number {
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) return Number(a) - Number(b);
  const parse = (v: string) => {
    const m = /^(\d+)\.(\d+)\.(\d+)(?:-([^+]+))?/.exec(v);
    return m ? { n: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ?? null } : { n: [Number.parseInt(v, 10) || 0, 0, 0], pre: null };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) if (x.n[i] !== y.n[i]) return x.n[i]! - y.n[i]!;
  if (x.pre === y.pre) return 0;
  if (x.pre === null) return 1;
  if (y.pre === null) return -1;
  return x.pre < y.pre ? -1 : 1;
}

/** TLP labels Vigie reads without credentials (CSAF 2.0 TLP:WHITE, its 2.0 successor TLP:CLEAR). */
export const PUBLIC_TLP = new Set(["WHITE", "CLEAR"]);
/** The labels read when the organization gave the provider credentials (TLP:RED is never distributed this way). */
export const CREDENTIALED_TLP = new Set(["WHITE", "CLEAR", "GREEN", "AMBER", "AMBER+STRICT"]);

/** What a revision changed, as the advisory's history keeps it: CVEs added or removed, each product's status that changed. */
export interface CsafChanges {
  cves_ajoutees: string[];
  cves_retirees: string[];
  /** One row per (vulnerability, product name) whose status changed; `de`/`a` null: not named. At most 200. */
  statuts: { cve: string; produit: string; de: string | null; a: string | null }[];
  /** More status rows than kept. */
  statuts_tronques: boolean;
}

const CHANGES_KEPT = 200;

/** The changes from one version of an advisory to the next, products compared by name (product ids are often renumbered). */
export function revisionChanges(
  before: Pick<CsafAdvisory, "cves" | "products" | "vulnerabilities">,
  after: Pick<CsafAdvisory, "cves" | "products" | "vulnerabilities">,
): CsafChanges {
  const statusOf = (a: typeof before) => {
    const names = new Map(a.products.map((p) => [p.product_id, p.name]));
    const out = new Map<string, string>();
    for (const v of a.vulnerabilities) {
      const id = v.cve ?? v.ids[0]?.text ?? "";
      for (const [status, ids] of Object.entries(v.statuses))
        for (const pid of ids ?? []) out.set(`${id}\u0000${names.get(pid) ?? pid}`, status);
    }
    return out;
  };
  const [b, a] = [statusOf(before), statusOf(after)];
  const statuts: CsafChanges["statuts"] = [];
  for (const key of [...new Set([...b.keys(), ...a.keys()])].sort()) {
    const [de, to] = [b.get(key) ?? null, a.get(key) ?? null];
    if (de === to) continue;
    const [cve, produit] = key.split("\u0000") as [string, string];
    statuts.push({ cve, produit, de, a: to });
  }
  return {
    cves_ajoutees: after.cves.filter((c) => !before.cves.includes(c)).sort(),
    cves_retirees: before.cves.filter((c) => !after.cves.includes(c)).sort(),
    statuts: statuts.slice(0, CHANGES_KEPT),
    statuts_tronques: statuts.length > CHANGES_KEPT,
  };
}

import type { CveAffectedRow, CveListRow, CveReferenceRow, CveRow } from "./cves.repository.js";
import type { CveDetailOut, CveListItem, CveListOut, CveListQuery, ProductSuggestion } from "./cves.schemas.js";

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function presentCveListItem(r: CveListRow): CveListItem {
  return {
    cve_id: r.cveId,
    severity: r.severity,
    cvss_score: r.cvssScore,
    epss_score: r.epssScore,
    is_kev: r.isKev,
    has_poc: r.hasPoc,
    vendor: r.vendor,
    product: r.product,
    date_published: iso(r.datePublished),
    epss_publie: r.epssScore !== null,
    contournement_disponible: r.contournementDisponible,
    maturite_exploit: r.maturiteExploit,
    state: r.shownState as CveListItem["state"],
  };
}

export function presentAffected(a: CveAffectedRow) {
  return {
    vendor: a.vendor,
    product: a.product,
    version_from: a.versionFrom,
    version_to: a.versionTo,
    version_status: a.versionStatus,
    cpe: a.cpe,
    origin: a.origin,
    version_from_inclusive: a.versionFromInclusive,
    version_to_inclusive: a.versionToInclusive,
  };
}

interface KevJson {
  date_added?: string;
  due_date?: string | null;
  ransomware?: string | null;
  required_action?: string | null;
  source: string;
}

function presentKev(k: KevJson | null): CveDetailOut["kev"] {
  if (!k) return null;
  return {
    date_added: k.date_added ?? null,
    due_date: k.due_date ?? null,
    ransomware: k.ransomware ?? null,
    required_action: k.required_action ?? null,
    source: k.source,
  };
}

interface MesureJson {
  source: string;
  reference: string;
  categorie: string;
  attribution: string;
  date?: string | null;
  lien_seulement?: boolean;
  produits?: string[];
  republication?: string | null;
  texte?: string | null;
  url?: string | null;
  liens?: string[];
}

/** A CERT-FR day (YYYY-MM-DD) as the date-time the specification asks for: that day at 00:00 UTC. */
const dayTime = (d: string | null | undefined) => (d ? `${d.slice(0, 10)}T00:00:00Z` : null);

/** MesureProvisoireApiOut, field by field from the stored measure. */
export function presentMesure(m: MesureJson): CveDetailOut["mesures_provisoires"][number] {
  return {
    source: m.source,
    reference: m.reference,
    categorie: m.categorie,
    attribution: m.attribution,
    date: dayTime(m.date),
    lien_seulement: m.lien_seulement ?? false,
    produits: m.produits ?? [],
    republication: dayTime(m.republication),
    texte: m.texte ?? null,
    url: m.url ?? null,
    liens: m.liens ?? [],
  };
}

export function presentCveDetail(r: CveRow, affected: CveAffectedRow[], referencedBy: CveReferenceRow[]): CveDetailOut {
  return {
    ...presentCveListItem(r),
    affected: affected.map(presentAffected),
    description: r.description,
    cvss_vector: r.cvssVector,
    epss_percentile: r.epssPercentile,
    cwe_ids: r.cweIds,
    poc_count: r.pocCount,
    date_updated: iso(r.dateUpdated),
    aliases: r.aliases,
    mesures_provisoires: (r.mesuresProvisoires as MesureJson[]).map(presentMesure),
    state: r.shownState as CveDetailOut["state"],
    referenced_by: referencedBy.map((a) => ({ id: a.id, source: a.source, url: a.url, title: a.title, published: iso(a.published) })),
    cvss_version: r.cvssVersion,
    cvss_source: r.cvssSource,
    epss_date: r.epssDate,
    kev: presentKev(r.kev as KevJson | null),
    poc_first_date: r.pocFirstDate,
    fusion_de: r.fusionDe,
    references: r.references,
    sources: r.epssScore !== null ? [...r.sources, "epss"].sort() : r.sources,
  };
}

/** A page of the CVE search (GET /api/v1/cves and the MCP tool search_cves). */
export function presentCveList(r: { rows: CveListRow[]; total: number }, q: Pick<CveListQuery, "page" | "page_size">): CveListOut {
  return { items: r.rows.map(presentCveListItem), total: r.total, page: q.page, page_size: q.page_size };
}

/** A product of the corpus, with the stack item that watches it. */
export function presentProductSuggestion(p: {
  vendor: string;
  product: string;
  vendor_name: string | null;
  product_name: string | null;
  cves: number;
  origins?: string[];
  latest?: string[];
}): ProductSuggestion {
  return {
    vendor: p.vendor,
    product: p.product,
    vendor_name: p.vendor_name,
    product_name: p.product_name,
    cve_count: p.cves,
    origins: p.origins ?? [],
    latest_cves: p.latest ?? [],
    item: { item_type: "product", value: `${p.vendor}:${p.product}` },
  };
}

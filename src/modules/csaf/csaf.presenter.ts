import type { AdvisoryRow, ProviderListRow } from "./csaf.repository.js";
import type { AggregatorList } from "./csaf.fetch.js";
import type { CsafAdvisoryDetailOut, CsafAdvisoryOut, CsafAggregatorOut, CsafFeedProviderOut, CsafProviderOut } from "./csaf.schemas.js";

const iso = (d: Date | string) => new Date(d).toISOString();
const isoOrNull = (d: Date | string | null) => (d === null ? null : iso(d));

export function presentProvider(p: ProviderListRow): CsafProviderOut {
  return {
    id: p.id,
    fournisseur: p.requested,
    metadata_url: p.metadata_url,
    decouvert_par: p.discovered_via,
    editeur: p.publisher_name,
    namespace: p.publisher_namespace,
    role: p.role,
    cles: p.keys.map((k) => ({ fingerprint: k.fingerprint, url: k.url })),
    identifiants: (p.credentials_kind as CsafProviderOut["identifiants"]) ?? null,
    statut: p.status as CsafProviderOut["statut"],
    derniere_tentative: isoOrNull(p.last_attempt_at),
    dernier_succes: isoOrNull(p.last_success_at),
    derniere_erreur: p.last_error,
    dernier_document: isoOrNull(p.last_document_at),
    documents: p.documents,
    refus: p.refusals,
    created_at: iso(p.created_at),
  };
}

export function presentAdvisory(a: AdvisoryRow): CsafAdvisoryOut {
  return {
    id: a.id,
    provider_id: a.provider_id,
    tracking_id: a.tracking_id,
    version: a.version,
    tracking_status: a.tracking_status,
    category: a.category,
    title: a.title,
    editeur: a.publisher,
    tlp: a.tlp,
    initial_release_date: isoOrNull(a.initial_release_date),
    current_release_date: iso(a.current_release_date),
    url: a.url,
    sha256: a.sha256,
    cves: a.cves,
    revision_history: a.revision_history,
    versions_remplacees: a.history,
  };
}

export function presentAdvisoryDetail(a: AdvisoryRow): CsafAdvisoryDetailOut {
  return { ...presentAdvisory(a), products: a.products, vulnerabilities: a.vulnerabilities };
}

/** A provider as GET /feeds lists it: its organization, state, newest document and latest refusals. */
export function presentFeedProvider(
  p: ProviderListRow,
  refusals: { url: string; raison: string; at: Date | string }[],
): CsafFeedProviderOut {
  return { org_id: p.org_id, ...presentProvider(p), refus_recents: refusals.map((r) => ({ url: r.url, raison: r.raison, at: iso(r.at) })) };
}

/** An aggregator's list, each provider with the organization's provider id when it follows it (by metadata address). */
export function presentAggregator(url: string, list: AggregatorList, followed: Map<string, string>): CsafAggregatorOut {
  return {
    url,
    nom: list.name,
    namespace: list.namespace,
    categorie: list.category,
    derniere_maj: list.last_updated,
    fournisseurs: list.providers.map((p) => ({
      type: p.kind,
      metadata_url: p.metadata_url,
      editeur: p.publisher.name,
      namespace: p.publisher.namespace,
      categorie: p.publisher.category,
      role: p.role,
      derniere_maj: p.last_updated,
      miroirs: p.mirrors,
      suivi: followed.get(p.metadata_url) ?? null,
    })),
  };
}

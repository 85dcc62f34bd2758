import type { Facts } from "../../engine/evaluate.js";
import { isCveId } from "../../feeds/merge.js";
import type { Db, Executor } from "../../platform/db/client.js";
import { readVersion, VersionedCache } from "../../platform/db/versions.js";
import { NotFound } from "../../platform/errors.js";
import { NOT_FOUND } from "../../platform/messages.js";
import { cvesRepository as repo, type CveAffectedRow, type CveListRow, type CveReferenceRow, type CveRow } from "./cves.repository.js";
import type { CveListQuery, ProductSuggestQuery } from "./cves.schemas.js";
import { productKey } from "../../matching/names.js";

/** The merged CVE records: search and detail. Public data, the same for every tenant. */
export class CvesService {
  private readonly totals = new VersionedCache<number>();
  constructor(private readonly db: Db) {}

  /**
   * One page and the total. Totals are cached per filter set while the CVE data version is
   * unchanged (every import transaction that changes CVEs bumps it): counting a broad filter over
   * the whole corpus costs far more than the page itself.
   */
  async list(q: CveListQuery): Promise<{ rows: CveListRow[]; total: number }> {
    const { sort: _s, page: _p, page_size: _ps, ...filters } = q;
    const key = JSON.stringify(filters);
    // The version is read before counting: a count newer than its version is only recounted once more.
    const [rows, version] = await Promise.all([repo.page(this.db, q), readVersion(this.db, "cves")]);
    return { rows, total: await this.totals.through(key, version, () => repo.count(this.db, q)) };
  }

  /** A CVE by id, or by an alias (GHSA-…, GO-…, PYSEC-…, RUSTSEC-…, CERTFR-…); 404 "CVE introuvable". */
  async get(idOrAlias: string): Promise<{ cve: CveRow; affected: CveAffectedRow[]; referencedBy: CveReferenceRow[] }> {
    const key = idOrAlias.trim();
    // A CVE id (any case), else the key of a record built from an advisory naming no CVE, else an alias.
    let cve = await repo.get(this.db, isCveId(key.toUpperCase()) ? key.toUpperCase() : key);
    if (!cve) {
      const aliasOf = await repo.cveOfAlias(this.db, key);
      if (aliasOf) cve = await repo.get(this.db, aliasOf);
    }
    if (!cve) throw new NotFound(NOT_FOUND.cve);
    const [affected, referencedBy] = await Promise.all([repo.affected(this.db, cve.cveId), repo.referencedBy(this.db, cve.cveId)]);
    return { cve, affected, referencedBy };
  }

  /**
   * The CVE's proofs of concept: each distinct URL the PoC sources hold (the same ones `poc_count`
   * counts), with the sources naming it and its GitHub stars where a source gives them (nomi-sec),
   * most stars first, then by URL.
   */
  async pocs(idOrAlias: string): Promise<{ cve_id: string; items: { url: string; sources: string[]; stars: number | null }[] }> {
    const { cve } = await this.get(idOrAlias);
    const byUrl = new Map<string, { url: string; sources: string[]; stars: number | null }>();
    for (const e of await repo.pocEvidence(this.db, cve.cveId)) {
      const source = e.source.replace(/^poc:/, "");
      for (const url of e.data.urls ?? []) {
        const item = byUrl.get(url) ?? { url, sources: [], stars: null };
        byUrl.set(url, item);
        if (!item.sources.includes(source)) item.sources.push(source);
        const stars = e.data.stars?.[url];
        if (typeof stars === "number") item.stars = Math.max(item.stars ?? 0, stars);
      }
    }
    const items = [...byUrl.values()].sort((a, b) => (b.stars ?? -1) - (a.stars ?? -1) || a.url.localeCompare(b.url));
    return { cve_id: cve.cveId, items };
  }

  /** Products of the corpus a stack item may name, from the start of their vendor or product name, most CVEs first. */
  async suggestProducts(q: ProductSuggestQuery) {
    return repo.productsStartingWith(this.db, productKey(q.q), q.limit);
  }

  /** The CVE fields a workflow condition may test, or null when Vigie holds no record of it. */
  async facts(ex: Executor, cveId: string): Promise<Facts | null> {
    const c = await repo.get(ex, cveId);
    return c ? factsOf(c) : null;
  }

  /** `facts` of many CVEs in one query (a batch of workflow runs), by id; a CVE Vigie holds no record of is absent. */
  async factsMany(ex: Executor, cveIds: string[]): Promise<Map<string, Facts>> {
    if (!cveIds.length) return new Map();
    return new Map((await repo.getMany(ex, cveIds)).map((c) => [c.cveId, factsOf(c)]));
  }
}

function factsOf(c: CveRow): Facts {
  return {
    "cve.id": c.cveId,
    "cve.severity": c.severity,
    "cve.cvss_score": c.cvssScore,
    "cve.epss_score": c.epssScore,
    "cve.epss_percentile": c.epssPercentile,
    "cve.is_kev": c.isKev,
    "cve.has_poc": c.hasPoc,
    "cve.poc_count": c.pocCount,
    "cve.vendor": c.vendor,
    "cve.product": c.product,
    "cve.description": c.description,
    "cve.cwe_ids": c.cweIds,
    "cve.maturite_exploit": c.maturiteExploit,
    "cve.contournement_disponible": c.contournementDisponible,
    "cve.age_days": c.datePublished ? Math.floor((Date.now() - c.datePublished.getTime()) / 86_400_000) : null,
  };
}

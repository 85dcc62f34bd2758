import { and, asc, desc, eq, getTableColumns, gte, inArray, lte, sql, type SQL } from "drizzle-orm";
import type { Executor } from "../../platform/db/client.js";
import { likeStartsWith, rowsOf } from "../../platform/db/sql.js";
import { cveAffected, cves, epssCurrent, publicVulns } from "../../platform/db/schema/index.js";
import { productKey, vendorKey } from "../../matching/names.js";
import { RECORD_SOURCES } from "../../feeds/merge.js";
import type { CveListQuery } from "./cves.schemas.js";

/**
 * Whether the CVE has a record of its own (a source of RECORD_SOURCES), written as a literal: the
 * partial index cves_record_published_idx (migration 0032) has this very predicate, which the
 * planner matches only in this form.
 */
const HAS_RECORD = sql.raw(`"cves"."sources" && '{${RECORD_SOURCES.join(",")}}'::text[]`);
/** The state shown: the stored one, or REFERENCE_ONLY for a CVE that only advisories cite (see CVE_STATES). */
const SHOWN_STATE = sql<string>`case when ${HAS_RECORD} then ${cves.state} else 'REFERENCE_ONLY' end`;

/** A CVE with its current EPSS score (kept apart in epss_current: see the schema). */
const DETAIL_COLUMNS = {
  ...getTableColumns(cves),
  shownState: SHOWN_STATE,
  epssScore: epssCurrent.epss,
  epssPercentile: epssCurrent.percentile,
  epssDate: epssCurrent.scoreDate,
};
export type CveRow = typeof cves.$inferSelect & {
  shownState: string;
  epssScore: number | null;
  epssPercentile: number | null;
  epssDate: string | null;
};
export type CveAffectedRow = typeof cveAffected.$inferSelect;
export type CveReferenceRow = Awaited<ReturnType<(typeof cvesRepository)["referencedBy"]>>[number];

const LIST_COLUMNS = {
  cveId: cves.cveId,
  severity: cves.severity,
  cvssScore: cves.cvssScore,
  epssScore: epssCurrent.epss,
  isKev: cves.isKev,
  hasPoc: cves.hasPoc,
  vendor: cves.vendor,
  product: cves.product,
  datePublished: cves.datePublished,
  contournementDisponible: cves.contournementDisponible,
  maturiteExploit: cves.maturiteExploit,
  shownState: SHOWN_STATE,
};
export type CveListRow = Pick<CveRow, keyof typeof LIST_COLUMNS>;

function filters(q: CveListQuery): SQL | undefined {
  const where: (SQL | undefined)[] = [];
  if (q.q) {
    const id = q.q.trim().toUpperCase();
    where.push(/^CVE-\d{4}-\d{4,}$/.test(id) ? eq(cves.cveId, id) : sql`${cves.search} @@ plainto_tsquery('simple', ${q.q})`);
  }
  if (q.state === "published") where.push(sql`${cves.state} = 'PUBLISHED' and ${HAS_RECORD}`);
  else if (q.state === "rejected") where.push(eq(cves.state, "REJECTED"));
  else if (q.state === "reference_only") where.push(sql`not (${HAS_RECORD})`);
  // The comparison matching uses (src/matching/names.ts), on indexed expressions.
  if (q.vendor) where.push(sql`vigie_vendor_key(${cves.vendorNorm}) = ${vendorKey(q.vendor)}`);
  if (q.product) where.push(eq(cves.productNorm, productKey(q.product)));
  if (q.cwe) where.push(sql`${cves.cweIds} @> array[${q.cwe}]::text[]`);
  if (q.severity?.length) where.push(sql`${cves.severity} = any(${`{${q.severity.join(",")}}`}::text[])`);
  if (q.is_kev !== undefined) where.push(eq(cves.isKev, q.is_kev));
  if (q.has_poc !== undefined) where.push(eq(cves.hasPoc, q.has_poc));
  if (q.min_cvss !== undefined) where.push(gte(cves.cvssScore, q.min_cvss));
  if (q.min_epss !== undefined) where.push(gte(epssCurrent.epss, q.min_epss));
  if (q.published_from) where.push(gte(cves.datePublished, new Date(`${q.published_from}T00:00:00Z`)));
  if (q.published_to) where.push(lte(cves.datePublished, new Date(`${q.published_to}T23:59:59.999Z`)));
  return where.length ? and(...where) : undefined;
}

const ORDER: Record<CveListQuery["sort"], SQL[]> = {
  "-date_published": [sql`${cves.datePublished} desc nulls last`, desc(cves.cveId)],
  date_published: [sql`${cves.datePublished} asc nulls last`, asc(cves.cveId)],
  "-cvss": [sql`${cves.cvssScore} desc nulls last`, desc(cves.cveId)],
  cvss: [sql`${cves.cvssScore} asc nulls last`, asc(cves.cveId)],
  "-epss": [sql`${epssCurrent.epss} desc nulls last`, desc(cves.cveId)],
  epss: [sql`${epssCurrent.epss} asc nulls last`, asc(cves.cveId)],
};

/** SQL of the merged CVE records (shared by every tenant: public data). */
export const cvesRepository = {
  /** One page. */
  page(ex: Executor, q: CveListQuery): Promise<CveListRow[]> {
    return ex
      .select(LIST_COLUMNS)
      .from(cves)
      .leftJoin(epssCurrent, eq(epssCurrent.cveId, cves.cveId))
      .where(filters(q))
      .orderBy(...ORDER[q.sort])
      .limit(q.page_size)
      .offset((q.page - 1) * q.page_size);
  },

  /** How many CVEs match the filters. */
  async count(ex: Executor, q: CveListQuery): Promise<number> {
    // The join is dropped by the planner when no EPSS filter uses it.
    const [row] = await ex
      .select({ n: sql<number>`count(*)::int` })
      .from(cves)
      .leftJoin(epssCurrent, eq(epssCurrent.cveId, cves.cveId))
      .where(filters(q));
    return row!.n;
  },

  /** A record by its key: a CVE id, or the id of an advisory that names no CVE (RUSTSEC-…, GO-…, GHSA-…). */
  async get(ex: Executor, cveId: string): Promise<CveRow | undefined> {
    const [row] = await ex
      .select(DETAIL_COLUMNS)
      .from(cves)
      .leftJoin(epssCurrent, eq(epssCurrent.cveId, cves.cveId))
      .where(eq(cves.cveId, cveId));
    return row;
  },

  /** `get` for many CVEs in one query (absent ones left out). */
  async getMany(ex: Executor, cveIds: string[]): Promise<CveRow[]> {
    return ex.select(DETAIL_COLUMNS).from(cves).leftJoin(epssCurrent, eq(epssCurrent.cveId, cves.cveId)).where(inArray(cves.cveId, cveIds));
  },

  /**
   * Products of the corpus whose vendor or product name starts with `prefix` (normalised), with how
   * many CVEs name each: a range on the (vendor_norm, product_norm) and product_norm indexes, the
   * LIKE keeping only true prefixes whatever the collation.
   */
  async productsStartingWith(ex: Executor, prefix: string, limit: number) {
    const upper = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
    const like = likeStartsWith(prefix);
    return rowsOf<{
      vendor: string;
      product: string;
      vendor_name: string | null;
      product_name: string | null;
      cves: number;
      origins: string[];
      latest: string[];
    }>(
      ex,
      // What each covers, to choose between two spellings of one product: which sources name it, its newest CVE ids.
      sql`select vendor_norm as vendor, product_norm as product, min(vendor) as vendor_name, min(product) as product_name,
                 count(distinct cve_id)::int as cves, array_agg(distinct origin order by origin) as origins,
                 (array_agg(distinct cve_id order by cve_id desc))[1:3] as latest
          from cve_affected
          where vendor_norm is not null and product_norm is not null and (
            (product_norm >= ${prefix} and product_norm < ${upper} and product_norm like ${like})
            or (vendor_norm >= ${prefix} and vendor_norm < ${upper} and vendor_norm like ${like}))
          group by vendor_norm, product_norm
          order by cves desc, vendor_norm, product_norm
          limit ${limit}`,
    );
  },

  /** The advisories citing the CVE (by their aliases, indexed), oldest first: where a reference-only CVE was seen. */
  async referencedBy(ex: Executor, cveId: string) {
    return ex
      .select({
        id: publicVulns.id,
        source: publicVulns.source,
        url: publicVulns.url,
        title: publicVulns.summary,
        published: publicVulns.published,
      })
      .from(publicVulns)
      .where(sql`${publicVulns.aliases} @> array[${cveId}]::text[]`)
      .orderBy(sql`${publicVulns.published} asc nulls last`, asc(publicVulns.id))
      .limit(100);
  },

  /** The PoC evidence each PoC source holds for a CVE (`poc:trickest`, `poc:nomi-sec`: urls, first_seen, stars). */
  async pocEvidence(ex: Executor, cveId: string): Promise<{ source: string; data: { urls?: string[]; stars?: Record<string, number> } }[]> {
    return rowsOf(ex, sql`select source, data from cve_sources where cve_id = ${cveId} and source like 'poc:%' order by source`);
  },

  async affected(ex: Executor, cveId: string): Promise<CveAffectedRow[]> {
    return ex.select().from(cveAffected).where(eq(cveAffected.cveId, cveId)).orderBy(asc(cveAffected.id));
  },

  /**
   * The CVE an advisory (GHSA, GO, PYSEC, RUSTSEC, CERT-FR…) or one of its aliases stands for:
   * only when the advisory names exactly one CVE (an avis covering ten CVEs is none of them).
   */
  async cveOfAlias(ex: Executor, id: string): Promise<string | undefined> {
    const cveOf = sql<
      string | null
    >`(select case when count(*) = 1 then min(a) end from unnest(${publicVulns.aliases}) a where a like 'CVE-%')`;
    const find = (cond: SQL) => ex.select({ cve: cveOf }).from(publicVulns).where(cond).limit(2);
    // Exact id or alias (indexed); advisory ids are mixed-case (GHSA-gfw2-…), so then without case.
    let rows = await find(sql`${publicVulns.id} = ${id} or ${publicVulns.aliases} @> array[${id}]::text[]`);
    if (!rows.length) rows = await find(sql`upper(${publicVulns.id}) = upper(${id})`);
    const cves = new Set(rows.map((r) => r.cve).filter((c): c is string => !!c));
    return cves.size === 1 ? [...cves][0] : undefined;
  },
};

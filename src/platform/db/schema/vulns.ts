import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  customType,
  date,
  doublePrecision,
  index,
  integer,
  json,
  jsonb,
  pgTable,
  primaryKey,
  real,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";

const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });
const tz = (name: string) => timestamp(name, { withTimezone: true });

/**
 * One row per CVE, merged from every source (see src/feeds/merge.ts for the precedence rules).
 * Rebuilt from cve_sources and public_vulns whenever one of them changes; the EPSS score is read
 * from epss_current (joined), so that the daily file never rewrites these wide, heavily indexed rows.
 */
export const cves = pgTable(
  "cves",
  {
    cveId: text("cve_id").primaryKey(),
    state: text("state").notNull(),
    description: text("description"),
    severity: text("severity").notNull().default("unknown"),
    cvssScore: real("cvss_score"),
    cvssVector: text("cvss_vector"),
    cvssVersion: text("cvss_version"),
    /** Which source the retained CVSS came from, e.g. "cna:palo_alto" or "nvd". */
    cvssSource: text("cvss_source"),
    cweIds: text("cwe_ids").array().notNull().default([]),
    vendor: text("vendor"),
    product: text("product"),
    vendorNorm: text("vendor_norm"),
    productNorm: text("product_norm"),
    datePublished: tz("date_published"),
    dateUpdated: tz("date_updated"),
    /** When the CVE id was reserved (CVE List); the statistics' reservation-to-publication delay. */
    dateReserved: tz("date_reserved"),
    /** The CNA that assigned the id: its CVE List short name, else NVD's assigner (an e-mail). */
    assigner: text("assigner"),
    isKev: boolean("is_kev").notNull().default(false),
    kev: jsonb("kev"),
    hasPoc: boolean("has_poc").notNull().default(false),
    pocCount: integer("poc_count").notNull().default(0),
    pocFirstDate: date("poc_first_date"),
    maturiteExploit: text("maturite_exploit"),
    contournementDisponible: boolean("contournement_disponible").notNull().default(false),
    mesuresProvisoires: jsonb("mesures_provisoires").notNull().default([]),
    aliases: text("aliases").array().notNull().default([]),
    fusionDe: text("fusion_de").array().notNull().default([]),
    references: text("references").array().notNull().default([]),
    ssvc: jsonb("ssvc"),
    /** Sources that contributed, e.g. {cve5, nvd, kev}. */
    sources: text("sources").array().notNull().default([]),
    search: tsvector("search").generatedAlwaysAs(
      sql`to_tsvector('simple', coalesce(cve_id, '') || ' ' || coalesce(vendor, '') || ' ' || coalesce(product, '') || ' ' || coalesce(description, ''))`,
    ),
    mergedAt: tz("merged_at").notNull().defaultNow(),
  },
  (t) => [
    // GET /cves default order and date filters.
    index("cves_published_idx").on(t.datePublished.desc().nullsLast(), t.cveId),
    // The same order over the CVEs that have a record of their own (RECORD_SOURCES, src/feeds/merge.ts):
    // GET /cves leaves the reference-only ones out by default, and they are the newest (the bundled
    // snapshot's first 11,400 rows in date order were such CVEs, each read and dropped: 14 ms → 0.1 ms).
    index("cves_record_published_idx")
      .on(t.datePublished.desc().nullsLast(), t.cveId)
      .where(sql`${t.sources} && '{cve5,nvd,kev,ghsa,go,pysec,rustsec,osv}'::text[]`),
    // vendor / product filters, in the default order: a page is read off the index. Vendors compare
    // by their key (src/matching/names.ts vendorKey = SQL vigie_vendor_key, migration 0013).
    index("cves_vendor_key_idx").on(sql`vigie_vendor_key(${t.vendorNorm})`, t.datePublished.desc().nullsLast(), t.cveId),
    index("cves_product_idx").on(t.productNorm, t.datePublished.desc().nullsLast(), t.cveId),
    // cwe filter and full-text q.
    index("cves_cwe_idx").using("gin", t.cweIds),
    index("cves_search_idx").using("gin", t.search),
    // sort by cvss (EPSS lives in epss_current: a daily rescore of every CVE never rewrites these wide rows).
    index("cves_cvss_idx").on(t.cvssScore.desc().nullsLast()),
    // is_kev filter: count and the default order on the ~1,500 KEV CVEs.
    index("cves_kev_idx").on(t.datePublished.desc().nullsLast(), t.cveId).where(sql`${t.isKev}`),
  ],
);

/** What each source said of a CVE (the merge input), with provenance. One row per (CVE, source). */
export const cveSources = pgTable(
  "cve_sources",
  {
    cveId: text("cve_id").notNull(),
    /** cve5, nvd, kev, poc:trickest, poc:nomi-sec, certfr:<reference>… */
    source: text("source").notNull(),
    /** json, not jsonb: stored and read back whole, never queried inside; json costs half as much to write. */
    data: json("data").notNull(),
    /** Hash of `data`: an unchanged record is recognised without rewriting anything. */
    hash: text("hash").notNull(),
    /** Hash of the record's text as read (and of the parser version): a re-import skips it unparsed. */
    rawHash: text("raw_hash"),
    /** The record's own modification date. */
    sourceModified: tz("source_modified"),
    file: text("file"),
    importedAt: tz("imported_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.cveId, t.source] })],
);

/** Affected products of a CVE (CVE 5 affected + NVD configurations), for display and matching. */
export const cveAffected = pgTable(
  "cve_affected",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    cveId: text("cve_id")
      .notNull()
      .references(() => cves.cveId, { onDelete: "cascade" }),
    origin: text("origin").notNull(),
    vendor: text("vendor"),
    product: text("product"),
    vendorNorm: text("vendor_norm"),
    productNorm: text("product_norm"),
    cpe: text("cpe"),
    versionFrom: text("version_from"),
    versionFromInclusive: boolean("version_from_inclusive").notNull().default(true),
    versionTo: text("version_to"),
    versionToInclusive: boolean("version_to_inclusive").notNull().default(true),
    versionStatus: text("version_status").notNull(),
    versionType: text("version_type"),
    defaultStatus: text("default_status"),
    vulnerable: boolean("vulnerable").notNull().default(true),
  },
  (t) => [
    index("cve_affected_cve_idx").on(t.cveId),
    // The matcher finds candidate CVEs of a stack item by normalised vendor/product.
    index("cve_affected_product_idx").on(t.vendorNorm, t.productNorm),
    // A new product or cpe stack item finds the CVEs that name its product, whatever the vendor's spelling.
    index("cve_affected_product_only_idx").on(t.productNorm),
    // A product item finds the display names of CNAs, ADPs and KEV that carry their vendor's words or
    // another spelling ("Apache Airflow" → airflow, "FortiClientEMS" → forticlientems): matcher.ts,
    // names.ts productCore = SQL vigie_product_core (migration 0025).
    index("cve_affected_product_core_idx")
      .on(sql`vigie_product_core(${t.vendorNorm}, ${t.productNorm})`)
      .where(sql`${t.origin} in ('cna', 'adp', 'kev')`),
    // A new product item → the CNA display names that are its product and edition words ("NGINX Open
    // Source" → nginx: names.ts productBase = SQL vigie_product_base, migration 0033); only the rows
    // that carry such words are kept.
    index("cve_affected_product_base_idx")
      .on(sql`vigie_product_base(${t.vendorNorm}, ${t.productNorm})`)
      .where(sql`${t.origin} = 'cna' and vigie_product_base(${t.vendorNorm}, ${t.productNorm}) is not null`),
  ],
);

/**
 * The EPSS scores of the last VIGIE_EPSS_HISTORY_DAYS days before the newest score date held
 * (maintenance-purge deletes older ones). Rows arrive in date order, a daily file at a time: a BRIN
 * index on the date (a few pages) lets the purge find what is past the window without reading the table.
 */
export const epssScores = pgTable(
  "epss_scores",
  {
    cveId: text("cve_id").notNull(),
    scoreDate: date("score_date").notNull(),
    epss: doublePrecision("epss").notNull(),
    percentile: doublePrecision("percentile").notNull(),
  },
  (t) => [primaryKey({ columns: [t.cveId, t.scoreDate] }), index("epss_scores_score_date_brin").using("brin", t.scoreDate)],
);

/**
 * The newest EPSS score of each CVE (also of CVEs Vigie has no record of yet), and the date of its
 * earliest score ever imported (epss_scores keeps a window only): the statistics read both from here (ADR 0012,
 * revised), the importer's one upsert keeps them (feedStore.upsertEpss).
 */
export const epssCurrent = pgTable(
  "epss_current",
  {
    cveId: text("cve_id").primaryKey(),
    scoreDate: date("score_date").notNull(),
    epss: doublePrecision("epss").notNull(),
    percentile: doublePrecision("percentile").notNull(),
    /** The earliest score date ever imported: an older file imported later moves it back. */
    firstDate: date("first_date", { mode: "string" }).notNull(),
  },
  (t) => [
    // GET /cves sort by EPSS and min_epss filter.
    index("epss_current_epss_idx").on(t.epss.desc()),
  ],
);

/** Public advisories (GHSA, GO, PYSEC, RUSTSEC, CERT-FR…) linked to CVEs by their aliases. */
export const publicVulns = pgTable(
  "public_vulns",
  {
    id: text("id").primaryKey(),
    source: text("source").notNull(),
    url: text("url").notNull(),
    summary: text("summary"),
    aliases: text("aliases").array().notNull().default([]),
    severity: text("severity"),
    cvssScore: real("cvss_score"),
    published: tz("published"),
    modified: tz("modified"),
    /** Source-specific details: affected packages and ranges (OSV), products and measures (CERT-FR). */
    data: jsonb("data").notNull(),
    hash: text("hash").notNull(),
    file: text("file"),
    importedAt: tz("imported_at").notNull().defaultNow(),
  },
  (t) => [
    // Alias lookups: GET /cves/{GHSA id}, and the aliases of a CVE.
    // Without the pending list: imports probe this index right after writing to it.
    index("public_vulns_aliases_idx").using("gin", t.aliases).with({ fastupdate: false }),
    index("public_vulns_source_idx").on(t.source, t.published.desc().nullsLast()),
  ],
);

/** Security news items (deduplicated by GUID, else URL), with the CVE ids they mention. */
export const articles = pgTable(
  "articles",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    guid: text("guid"),
    url: text("url").notNull(),
    title: text("title").notNull(),
    description: text("description"),
    publishedAt: tz("published_at"),
    source: text("source"),
    author: text("author"),
    imageUrl: text("image_url"),
    cveIds: text("cve_ids").array().notNull().default([]),
    hash: text("hash").notNull(),
    file: text("file"),
    importedAt: tz("imported_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("articles_url_uq").on(t.url),
    uniqueIndex("articles_guid_uq").on(t.guid).where(sql`${t.guid} is not null`),
    index("articles_published_idx").on(t.publishedAt.desc().nullsLast()),
    index("articles_cves_idx").using("gin", t.cveIds),
  ],
);

/**
 * The sync of each source (src/feeds/sync/): who holds it (a lease, so two processes never sync one
 * source at once and a killed one is relieved when it expires) and how the last attempts went (its
 * next run follows from them: the rhythm after a success, a backoff counted by failures after a
 * failure; failing_since flags a source failing for a day).
 */
export const feedSources = pgTable("feed_sources", {
  source: text("source").primaryKey(),
  leaseOwner: text("lease_owner"),
  leaseUntil: tz("lease_until"),
  lastAttemptAt: tz("last_attempt_at"),
  lastSuccessAt: tz("last_success_at"),
  lastError: text("last_error"),
  failures: integer("failures").notNull().default(0),
  failingSince: tz("failing_since"),
  /** Records inserted or updated by the last successful sync. */
  lastApplied: integer("last_applied").notNull().default(0),
});

/**
 * A publisher's host that refused requests for a while (GitHub's primary or secondary rate limit,
 * src/feeds/sync/holds.ts): no request goes to it before `until`, whichever process syncs and
 * across restarts. Keyed by the host and a hash of the token it was asked with (never the token).
 */
export const feedHolds = pgTable("feed_holds", {
  key: text("key").primaryKey(),
  until: tz("until").notNull(),
  reason: text("reason").notNull(),
  /** Refusals in a row without `x-ratelimit-remaining: 0` nor Retry-After: each doubles the next wait. */
  strikes: integer("strikes").notNull().default(0),
  updatedAt: tz("updated_at").notNull().defaultNow(),
});

/**
 * Per source and publisher address: what was applied last (a release, a window's end, a modified
 * date, validators…, shaped by the source's protocol), written after the unit it names was imported.
 */
export const feedCheckpoints = pgTable(
  "feed_checkpoints",
  {
    source: text("source").notNull(),
    address: text("address").notNull(),
    checkpoint: jsonb("checkpoint").notNull(),
    /** The publisher's time of the newest data applied (its lag is now − this). */
    appliedUntil: tz("applied_until"),
    recordsApplied: bigint("records_applied", { mode: "number" }).notNull().default(0),
    updatedAt: tz("updated_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.source, t.address] })],
);

/** Provenance of each import run. */
export const feedImports = pgTable("feed_imports", {
  id: uuid("id").primaryKey().defaultRandom(),
  source: text("source").notNull(),
  path: text("path").notNull(),
  startedAt: tz("started_at").notNull().defaultNow(),
  finishedAt: tz("finished_at"),
  stats: jsonb("stats"),
});

/**
 * A counter per data set ("cves", "articles"), bumped in every transaction that changes it: caches
 * of derived figures (list totals) are valid while the counter is unchanged.
 */
export const dataVersions = pgTable("data_versions", {
  name: text("name").primaryKey(),
  version: bigint("version", { mode: "number" }).notNull().default(0),
});

/**
 * Progress of the first-start snapshot (src/feeds/snapshot.ts), one row per source: started_at
 * when its import begins, completed_at when it ends; a start that finds an incomplete snapshot
 * resumes it at the sources not completed.
 */
export const snapshotProgress = pgTable("snapshot_progress", {
  source: text("source").primaryKey(),
  startedAt: tz("started_at").notNull().defaultNow(),
  completedAt: tz("completed_at"),
  stats: jsonb("stats"),
});

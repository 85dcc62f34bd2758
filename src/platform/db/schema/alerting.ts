import { sql } from "drizzle-orm";
import {
  bigserial,
  boolean,
  check,
  doublePrecision,
  index,
  jsonb,
  pgTable,
  primaryKey,
  real,
  text,
  timestamp,
  uniqueIndex,
  uuid,
  integer,
} from "drizzle-orm/pg-core";
import { organizations, projects } from "./tenancy.js";

const tz = (name: string) => timestamp(name, { withTimezone: true });

/** Tags of a project, attached to alerts and stack items. */
export const tags = pgTable(
  "tags",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    color: text("color").notNull(),
    createdAt: tz("created_at").notNull().defaultNow(),
  },
  (t) => [uniqueIndex("tags_project_name_uq").on(t.projectId, sql`lower(${t.name})`)],
);

/** A named list of watched items of a project. */
export const stacks = pgTable(
  "stacks",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    createdAt: tz("created_at").notNull().defaultNow(),
  },
  (t) => [uniqueIndex("stacks_project_name_uq").on(t.projectId, t.name)],
);

export const SBOM_FORMATS = ["cyclonedx", "spdx"] as const;
export type SbomFormat = (typeof SBOM_FORMATS)[number];

/**
 * An SBOM a stack was loaded from, by its identity (CycloneDX `serialNumber`, SPDX
 * `documentNamespace`): uploading it again replaces its items (those with its `sbom_id`) and
 * answers the difference. A stack may hold several SBOMs beside items typed by hand.
 */
export const stackSboms = pgTable(
  "stack_sboms",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    stackId: uuid("stack_id")
      .notNull()
      .references(() => stacks.id, { onDelete: "cascade" }),
    format: text("format").$type<SbomFormat>().notNull(),
    specVersion: text("spec_version").notNull(),
    /** json or xml. */
    encoding: text("encoding").notNull(),
    /** CycloneDX serialNumber, SPDX documentNamespace, else a key derived from the described component. */
    documentKey: text("document_key").notNull(),
    /** CycloneDX `version` of the document (null for SPDX). */
    documentVersion: integer("document_version"),
    /** The described software (CycloneDX metadata.component, SPDX name). */
    name: text("name"),
    componentCount: integer("component_count").notNull(),
    itemCount: integer("item_count").notNull(),
    /** Loaded leniently: how many faults against its schema the document had (0: valid), and the first 100 ({at, message}). */
    faultCount: integer("fault_count").notNull().default(0),
    faults: jsonb("faults").$type<{ at: string; message: string }[]>().notNull().default(sql`'[]'::jsonb`),
    createdAt: tz("created_at").notNull().defaultNow(),
    updatedAt: tz("updated_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("stack_sboms_stack_document_uq").on(t.stackId, t.documentKey),
    check("stack_sboms_format_valid", sql`${t.format} in ('cyclonedx', 'spdx')`),
  ],
);

/**
 * The components of an SBOM that made no stack item (neither purl nor CPE, or a purl type no
 * advisory database uses): kept as inventory, in document order, with why they cannot be matched;
 * never matched. Replaced whole at each upload of the document (they have no identity to diff by).
 */
export const sbomInventory = pgTable(
  "sbom_inventory",
  {
    sbomId: uuid("sbom_id")
      .notNull()
      .references(() => stackSboms.id, { onDelete: "cascade" }),
    ord: integer("ord").notNull(),
    ref: text("ref"),
    name: text("name").notNull(),
    version: text("version"),
    purl: text("purl"),
    cpe: text("cpe"),
    raison: text("raison").notNull(),
  },
  (t) => [primaryKey({ columns: [t.sbomId, t.ord] })],
);

export const STACK_ITEM_TYPES = ["cpe", "product", "vendor", "purl", "keyword", "cve"] as const;
export type StackItemType = (typeof STACK_ITEM_TYPES)[number];

/**
 * One watched item, with the keys the matcher looks it up by (see src/matching/items.ts): a new
 * CVE finds the items it may hit through the partial indexes below, never by scanning them all.
 */
export const stackItems = pgTable(
  "stack_items",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    stackId: uuid("stack_id")
      .notNull()
      .references(() => stacks.id, { onDelete: "cascade" }),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    itemType: text("item_type").$type<StackItemType>().notNull(),
    value: text("value").notNull(),
    minSeverity: text("min_severity"),
    /** Normalised vendor (cpe, product with a vendor, vendor). */
    matchVendor: text("match_vendor"),
    /** Normalised product (cpe, product) or package name (purl). */
    matchProduct: text("match_product"),
    /** The version the project runs; null when it watches every version. */
    matchVersion: text("match_version"),
    /** purl: the OSV ecosystem (PyPI, npm, Go, Maven, crates.io…). */
    matchEcosystem: text("match_ecosystem"),
    /** purl with a version: the package's name as CPE data would name the product (see items.ts). */
    matchCpeProduct: text("match_cpe_product"),
    /** keyword: the words, as lexemes, and the longest one, by which a CVE finds the item. */
    matchWords: text("match_words").array(),
    matchAnchor: text("match_anchor"),
    /** cve: the CVE id (or an alias Vigie did not know when the item was added). */
    matchCve: text("match_cve"),
    /** The SBOM the item came from (null: typed by hand) and its identity within it (the purl or CPE without version). */
    sbomId: uuid("sbom_id").references(() => stackSboms.id, { onDelete: "cascade" }),
    sbomKey: text("sbom_key"),
    createdAt: tz("created_at").notNull().defaultNow(),
  },
  (t) => [
    index("stack_items_stack_idx").on(t.stackId, t.createdAt),
    index("stack_items_sbom_idx").on(t.sbomId, t.sbomKey).where(sql`${t.sbomId} is not null`),
    // A CVE's affected products → cpe and product items (and vendor items, on the vendor alone).
    index("stack_items_product_idx").on(t.matchProduct, t.matchVendor).where(sql`${t.itemType} in ('cpe', 'product')`),
    index("stack_items_vendor_idx").on(t.matchVendor).where(sql`${t.itemType} = 'vendor'`),
    // An advisory's packages → purl items.
    index("stack_items_purl_idx").on(t.matchEcosystem, t.matchProduct).where(sql`${t.itemType} = 'purl'`),
    // A CVE's affected products → purl items by their CPE-style product name.
    index("stack_items_purl_cpe_idx").on(t.matchCpeProduct).where(sql`${t.itemType} = 'purl'`),
    // A CVE's display names, folded (vigie_product_core) → product and cpe items by their product folded.
    index("stack_items_product_key_idx").on(sql`vigie_vendor_key(${t.matchProduct})`).where(sql`${t.itemType} in ('cpe', 'product')`),
    index("stack_items_cve_idx").on(t.matchCve).where(sql`${t.itemType} = 'cve'`),
    // A CVE's words → keyword items by their longest word (then every word is checked): a GIN
    // "contained by" probe would read the items of every common word of the description.
    index("stack_items_anchor_idx").on(t.matchAnchor).where(sql`${t.itemType} = 'keyword'`),
    check("stack_items_type_valid", sql`${t.itemType} in ('cpe', 'product', 'vendor', 'purl', 'keyword', 'cve')`),
  ],
);

export const ITEM_MATCHING_STATES = ["pending", "running", "done"] as const;
export type ItemMatchingState = (typeof ITEM_MATCHING_STATES)[number];

/**
 * The background matching of an item whose candidates were too many for its request (ADR 0037,
 * docs/broad-items.md): the items-match job raises its alerts VIGIE_MATCH_BATCH CVEs per
 * transaction, after `cursor` (the last CVE id done), counting what it processed and raised in the
 * same transaction. Kept once done: the item shows what its matching raised.
 */
export const stackItemMatching = pgTable(
  "stack_item_matching",
  {
    itemId: uuid("item_id")
      .primaryKey()
      .references(() => stackItems.id, { onDelete: "cascade" }),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    state: text("state").$type<ItemMatchingState>().notNull().default("pending"),
    /** The CVEs the item may match (its candidates), counted when it was added. */
    candidates: integer("candidates").notNull(),
    processed: integer("processed").notNull().default(0),
    raised: integer("raised").notNull().default(0),
    cursor: text("cursor"),
    createdAt: tz("created_at").notNull().defaultNow(),
    updatedAt: tz("updated_at").notNull().defaultNow(),
  },
  (t) => [
    index("stack_item_matching_open_idx").on(t.createdAt).where(sql`${t.state} <> 'done'`),
    check("stack_item_matching_state_valid", sql`${t.state} in ('pending', 'running', 'done')`),
  ],
);

export const stackItemTags = pgTable(
  "stack_item_tags",
  {
    itemId: uuid("item_id")
      .notNull()
      .references(() => stackItems.id, { onDelete: "cascade" }),
    tagId: uuid("tag_id")
      .notNull()
      .references(() => tags.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.itemId, t.tagId] }), index("stack_item_tags_tag_idx").on(t.tagId)],
);

/**
 * One alert per (project, CVE). The CVE facts the list filters on are kept here (updated when the
 * CVE changes), so that a page of a 50,000-alert project is read off one index.
 */
export const alerts = pgTable(
  "alerts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    cveId: text("cve_id").notNull(),
    triggeredAt: tz("triggered_at").notNull().defaultNow(),
    isRead: boolean("is_read").notNull().default(false),
    severity: text("severity").notNull(),
    cvssScore: real("cvss_score"),
    isKev: boolean("is_kev").notNull().default(false),
    hasPoc: boolean("has_poc").notNull().default(false),
    /** The CVE's current EPSS score (updated with each EPSS import): sorts and filters read the alert alone. */
    epss: doublePrecision("epss"),
    palier: text("palier").notNull(),
    /** The matched product, as the CVE names it. */
    vendor: text("vendor"),
    product: text("product"),
    /** Why it matched, in one line (item, rule, versions compared). */
    source: text("source").notNull(),
    /** The same, structured: {item_id, item_type, value, rule, version, range, origin}. */
    match: jsonb("match").notNull(),
    itemId: uuid("item_id").references(() => stackItems.id, { onDelete: "set null" }),
    /**
     * Whether the project's items still match the CVE after its last change: an upstream change
     * of its affected ranges may exclude them (the alert is kept; cve.updated says so), or include
     * them again.
     */
    matching: boolean("matching").notNull().default(true),
    updatedAt: tz("updated_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("alerts_project_cve_uq").on(t.projectId, t.cveId),
    // The alert list, newest first, and its counts.
    index("alerts_project_triggered_idx").on(t.projectId, t.triggeredAt.desc(), t.id.desc()),
    index("alerts_project_unread_idx").on(t.projectId).where(sql`not ${t.isRead}`),
    // The list sorted by CVSS, and filtered on KEV (about 1% of alerts), read off an index too.
    index("alerts_project_cvss_idx").on(t.projectId, t.cvssScore.desc().nullsLast(), t.triggeredAt.desc(), t.id.desc()),
    index("alerts_project_kev_idx").on(t.projectId, t.triggeredAt.desc(), t.id.desc()).where(sql`${t.isKev}`),
    // The inbox's default order, what to handle first (sort=palier, src/modules/alerts/alerts.repository.ts
    // spells the same expressions): tier, verified before "non vérifiable", severity, newest. A page is
    // read off it instead of sorting the project's alerts (44 ms for 47,500 on PGlite).
    index("alerts_project_priority_idx").on(
      t.projectId,
      t.palier,
      sql`((${t.match} ->> 'rule') = 'unversioned')`,
      sql`(case ${t.severity} when 'critical' then 0 when 'high' then 1 when 'medium' then 2 when 'low' then 3 when 'unknown' then 4 else 5 end)`,
      t.triggeredAt.desc(),
      t.id.desc(),
    ),
    // A changed CVE → the alerts to update.
    index("alerts_cve_idx").on(t.cveId),
  ],
);

export const alertTags = pgTable(
  "alert_tags",
  {
    alertId: uuid("alert_id")
      .notNull()
      .references(() => alerts.id, { onDelete: "cascade" }),
    tagId: uuid("tag_id")
      .notNull()
      .references(() => tags.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.alertId, t.tagId] }), index("alert_tags_tag_idx").on(t.tagId)],
);

/**
 * Events written in the transaction of the change that caused them, through src/events/outbox.ts
 * (the catalog: src/events/catalog.ts); the workflow engine consumes them. A trigger (migration
 * 0025) notifies the dispatchers at commit.
 */
export const outboxEvents = pgTable(
  "outbox_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    orgId: uuid("org_id").notNull(),
    projectId: uuid("project_id").notNull(),
    event: text("event").notNull(),
    cveId: text("cve_id"),
    alertId: uuid("alert_id"),
    payload: jsonb("payload").notNull(),
    createdAt: tz("created_at").notNull().defaultNow(),
    processedAt: tz("processed_at"),
  },
  (t) => [
    index("outbox_events_pending_idx").on(t.id).where(sql`${t.processedAt} is null`),
    // maintenance-purge: processed events past retention (VIGIE_EVENTS_RETENTION_DAYS).
    index("outbox_events_processed_idx").on(t.processedAt).where(sql`${t.processedAt} is not null`),
  ],
);

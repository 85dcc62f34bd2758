import { sql } from "drizzle-orm";
import { index, jsonb, pgTable, primaryKey, text, timestamp, unique, uuid } from "drizzle-orm/pg-core";
import { organizations } from "./tenancy.js";

const tz = (name: string) => timestamp(name, { withTimezone: true });

/**
 * CSAF providers an organization follows (issue 36, migration 0041, docs/adr/0038): the provider
 * as discovered (CSAF 2.0 §7), its public OpenPGP keys, its sync state (checkpoint, lease, outcome).
 * The module's SQL is in src/modules/csaf/csaf.repository.ts.
 */
export const csafProviders = pgTable(
  "csaf_providers",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** What the organization typed: a domain or a provider-metadata URL. */
    requested: text("requested").notNull(),
    metadataUrl: text("metadata_url"),
    /** Which §7 step found the provider-metadata (well-known, security.txt, dns, url). */
    discoveredVia: text("discovered_via"),
    publisherName: text("publisher_name"),
    publisherNamespace: text("publisher_namespace"),
    role: text("role"),
    /** The public keys the provider-metadata names: `[{fingerprint, url, armored}]`. */
    keys: jsonb("keys").notNull().default(sql`'[]'::jsonb`),
    /** basic or entete: the kind of the credentials given for TLP:GREEN/AMBER (migration 0043), shown by the API. */
    credentialsKind: text("credentials_kind"),
    /** The credentials themselves, encrypted (platform/secrets.ts, enc:v1): never returned nor logged. */
    credentials: text("credentials"),
    /** Per distribution: ROLIE feed validators, changes.csv position. */
    checkpoint: jsonb("checkpoint").notNull().default(sql`'{}'::jsonb`),
    /** nouveau, a_jour, en_echec. */
    status: text("status").notNull().default("nouveau"),
    lastAttemptAt: tz("last_attempt_at"),
    lastSuccessAt: tz("last_success_at"),
    lastError: text("last_error"),
    lastDocumentAt: tz("last_document_at"),
    leaseOwner: text("lease_owner"),
    leaseUntil: tz("lease_until"),
    createdAt: tz("created_at").notNull().defaultNow(),
  },
  (t) => [unique("csaf_providers_org_requested_uq").on(t.orgId, t.requested)],
);

/**
 * The advisories read from a provider: one row per tracking id, the newest version kept, the older
 * versions' summaries in `history`; the product tree flattened in `products`.
 */
export const csafAdvisories = pgTable(
  "csaf_advisories",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    providerId: uuid("provider_id")
      .notNull()
      .references(() => csafProviders.id, { onDelete: "cascade" }),
    trackingId: text("tracking_id").notNull(),
    version: text("version").notNull(),
    trackingStatus: text("tracking_status").notNull(),
    category: text("category").notNull(),
    title: text("title").notNull(),
    publisher: text("publisher").notNull(),
    tlp: text("tlp"),
    lang: text("lang"),
    initialReleaseDate: tz("initial_release_date"),
    currentReleaseDate: tz("current_release_date").notNull(),
    url: text("url").notNull(),
    sha256: text("sha256").notNull(),
    cves: text("cves").array().notNull().default(sql`'{}'::text[]`),
    revisionHistory: jsonb("revision_history").notNull().default(sql`'[]'::jsonb`),
    products: jsonb("products").notNull().default(sql`'[]'::jsonb`),
    vulnerabilities: jsonb("vulnerabilities").notNull().default(sql`'[]'::jsonb`),
    /** The replaced versions: `[{version, current_release_date, sha256, replaced_at, …}]`. */
    history: jsonb("history").notNull().default(sql`'[]'::jsonb`),
    fetchedAt: tz("fetched_at").notNull().defaultNow(),
  },
  (t) => [
    unique("csaf_advisories_provider_tracking_uq").on(t.providerId, t.trackingId),
    // The advisories list, newest release first.
    index("csaf_advisories_org_release_idx").on(t.orgId, t.currentReleaseDate.desc().nullsFirst(), t.id),
    // A CVE's page: the advisories naming it.
    index("csaf_advisories_cves_idx").using("gin", t.cves),
  ],
);

/** The documents refused, the latest reason per address (said in GET /feeds). */
export const csafRefusals = pgTable(
  "csaf_refusals",
  {
    providerId: uuid("provider_id")
      .notNull()
      .references(() => csafProviders.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    raison: text("raison").notNull(),
    at: tz("at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: "csaf_refusals_pk", columns: [t.providerId, t.url] })],
);

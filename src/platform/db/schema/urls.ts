import { sql } from "drizzle-orm";
import { boolean, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { organizations, projects } from "./tenancy.js";

const tz = (name: string) => timestamp(name, { withTimezone: true });

/** What the last scan of a URL found (docs/eol-and-urls.md); `pending` until the first scan. */
export const URL_STATUSES = [
  "pending",
  "up",
  "http_error",
  "down",
  "redirect_loop",
  "tls_error",
  "timeout",
  "refused",
  "dns_error",
  "network_error",
  "blocked",
] as const;
export type UrlStatus = (typeof URL_STATUSES)[number];

/**
 * A URL a project watches: scanned every `scan_interval_hours` (HTTP status, TLS certificate,
 * technologies), by the `urls-scan-due` job. The scan state (consecutive failures, whether
 * `url.down` was sent, the certificate expiry already warned about) lives on the row so that each
 * event is written once, in the transaction that records the scan.
 */
export const monitoredUrls = pgTable(
  "monitored_urls",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    label: text("label"),
    isEnabled: boolean("is_enabled").notNull().default(true),
    scanIntervalHours: integer("scan_interval_hours").notNull().default(24),
    /** Failed scans in a row before `url.down` (null: VIGIE_URLS_DOWN_AFTER). */
    downAfter: integer("down_after"),
    /** Days before the certificate's expiry when `url.cert_expiring` is written (null: VIGIE_URLS_CERT_WARNING_DAYS). */
    certWarningDays: integer("cert_warning_days"),
    lastStatus: text("last_status").$type<UrlStatus>().notNull().default("pending"),
    lastHttpStatus: integer("last_http_status"),
    lastError: text("last_error"),
    finalUrl: text("final_url"),
    lastDurationMs: integer("last_duration_ms"),
    certExpiresAt: tz("cert_expires_at"),
    certIssuer: text("cert_issuer"),
    certSubject: text("cert_subject"),
    certValid: boolean("cert_valid"),
    certError: text("cert_error"),
    technologies: jsonb("technologies").notNull().default(sql`'[]'::jsonb`),
    lastScannedAt: tz("last_scanned_at"),
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    /** `url.down` was written and no success came since (the next success writes `url.recovered`). */
    isDown: boolean("is_down").notNull().default(false),
    /** The certificate expiry `url.cert_expiring` was written for (once per expiry date). */
    certWarnedFor: tz("cert_warned_for"),
    nextScanAt: tz("next_scan_at").notNull().defaultNow(),
    /** A worker took the scan at this instant (a lease: taken again when older than 10 minutes). */
    scanStartedAt: tz("scan_started_at"),
    createdAt: tz("created_at").notNull().defaultNow(),
    updatedAt: tz("updated_at").notNull().defaultNow(),
  },
  (t) => [
    // One row per URL in a project (409 url_deja_surveillee).
    uniqueIndex("monitored_urls_project_url_uq").on(t.projectId, t.url),
    // The list, newest first.
    index("monitored_urls_project_created_idx").on(t.projectId, t.createdAt.desc(), t.id.desc()),
    // urls-scan-due: enabled URLs by next scan time.
    index("monitored_urls_due_idx").on(t.nextScanAt).where(sql`${t.isEnabled}`),
    check("monitored_urls_interval", sql`${t.scanIntervalHours} between 1 and 720`),
    check("monitored_urls_down_after", sql`${t.downAfter} is null or ${t.downAfter} between 1 and 100`),
    check("monitored_urls_cert_days", sql`${t.certWarningDays} is null or ${t.certWarningDays} between 0 and 365`),
  ],
);

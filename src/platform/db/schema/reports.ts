import { sql } from "drizzle-orm";
import {
  bigserial,
  boolean,
  check,
  customType,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { organizations, projects } from "./tenancy.js";

const tz = (name: string) => timestamp(name, { withTimezone: true });
const bytea = customType<{ data: Uint8Array }>({ dataType: () => "bytea" });

export const REPORT_TYPES = ["rapport_projet", "conformite_kev", "exceptions", "inventaire"] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

/** Stored states; `perimee` is derived on read (the data versions moved since the current version). */
export const STORED_SYNC_STATES = ["a_jour", "en_cours", "erreur"] as const;

/**
 * An evidence report of a project, or of the organization (project_id null): what it covers (type, period, language), its current version
 * and its synchronisation (kept in step with the data until frozen). Each generation whose
 * fingerprint differs adds a row to report_versions.
 */
export const reports = pgTable(
  "reports",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** The project of a project report; null for an organization report (every project of the organization). */
    projectId: uuid("project_id").references(() => projects.id, { onDelete: "cascade" }),
    reportType: text("report_type").$type<ReportType>().notNull(),
    titre: text("titre").notNull(),
    language: text("language").$type<"fr" | "en">().notNull(),
    periodFrom: date("period_from", { mode: "string" }),
    periodTo: date("period_to", { mode: "string" }),
    currentVersion: integer("current_version").notNull().default(0),
    synchroFigee: boolean("synchro_figee").notNull().default(false),
    synchroEtat: text("synchro_etat").notNull().default("en_cours"),
    synchroErreur: text("synchro_erreur"),
    /** The data versions read before the current content was computed (see reports.sync). */
    sources: jsonb("sources").notNull().default({}),
    genereLe: tz("genere_le"),
    derniereSynchroLe: tz("derniere_synchro_le"),
    figeLe: tz("fige_le"),
    /** The workflow delivery that generated it (`generate_report`): a retried run finds it again. */
    deliveryId: text("delivery_id"),
    createdAt: tz("created_at").notNull().defaultNow(),
  },
  (t) => [
    // The project's report list, newest first.
    index("reports_project_idx").on(t.projectId, t.createdAt.desc(), t.id.desc()),
    // The organization's own reports (project_id null), newest first.
    index("reports_org_idx").on(t.orgId, t.createdAt.desc(), t.id.desc()).where(sql`${t.projectId} is null`),
    // The sync job: the reports that follow the data.
    index("reports_unfrozen_idx").on(t.id).where(sql`not ${t.synchroFigee}`),
    uniqueIndex("reports_delivery_uq").on(t.deliveryId).where(sql`${t.deliveryId} is not null`),
    check("reports_type_valid", sql`${t.reportType} in ('rapport_projet', 'conformite_kev', 'exceptions', 'inventaire')`),
    check("reports_state_valid", sql`${t.synchroEtat} in ('a_jour', 'en_cours', 'erreur', 'figee')`),
    check("reports_language_valid", sql`${t.language} in ('fr', 'en')`),
  ],
);

/**
 * One version of a report: its canonical JSON content (the bytes the fingerprint is taken of) and
 * the files produced from it, stored as produced so that a download returns exactly what was
 * fingerprinted. Each file's SHA-256 is kept for find-again.
 */
export const reportVersions = pgTable(
  "report_versions",
  {
    reportId: uuid("report_id")
      .notNull()
      .references(() => reports.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    /** SHA-256 (hex) of `contenu`, the canonical JSON — also the JSON file's hash. */
    empreinte: text("empreinte").notNull(),
    genereLe: tz("genere_le").notNull(),
    contenu: text("contenu").notNull(),
    pdf: bytea("pdf").notNull(),
    pdfSha256: text("pdf_sha256").notNull(),
    csv: text("csv"),
    csvSha256: text("csv_sha256"),
  },
  (t) => [
    primaryKey({ columns: [t.reportId, t.version] }),
    // Find again: by fingerprint, by a PDF's or a CSV's hash.
    index("report_versions_empreinte_idx").on(t.empreinte),
    index("report_versions_pdf_idx").on(t.pdfSha256),
    index("report_versions_csv_idx").on(t.csvSha256).where(sql`${t.csvSha256} is not null`),
  ],
);

/** What happened to a report, who did it and when: created, a new version, frozen, an error. */
export const reportHistory = pgTable(
  "report_history",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    reportId: uuid("report_id")
      .notNull()
      .references(() => reports.id, { onDelete: "cascade" }),
    event: text("event").notNull(),
    version: integer("version"),
    actorType: text("actor_type").notNull(),
    actorId: text("actor_id"),
    actorLabel: text("actor_label"),
    detail: text("detail"),
    createdAt: tz("created_at").notNull().defaultNow(),
  },
  (t) => [index("report_history_report_idx").on(t.reportId, t.id)],
);

/** A project's scheduled report: generated each month on `day_of_month` (Paris time) for the previous month. */
export const reportSettings = pgTable(
  "report_settings",
  {
    projectId: uuid("project_id")
      .primaryKey()
      .references(() => projects.id, { onDelete: "cascade" }),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    enabled: boolean("enabled").notNull().default(false),
    reportType: text("report_type").$type<ReportType>().notNull().default("rapport_projet"),
    language: text("language").$type<"fr" | "en">().notNull().default("fr"),
    dayOfMonth: integer("day_of_month").notNull().default(1),
    /** The first day of the last month a scheduled report was generated for (idempotence of the job). */
    lastPeriodFrom: date("last_period_from", { mode: "string" }),
    updatedAt: tz("updated_at").notNull().defaultNow(),
  },
  (t) => [
    index("report_settings_enabled_idx").on(t.projectId).where(sql`${t.enabled}`),
    check("report_settings_day_valid", sql`${t.dayOfMonth} between 1 and 28`),
  ],
);

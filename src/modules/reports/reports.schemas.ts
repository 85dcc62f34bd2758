import { z } from "zod";
import { REPORT_TYPES } from "../../platform/db/schema/index.js";
import { PAGING, pageOf } from "../../platform/http/paging.js";
import { OrgParams } from "../organizations/organizations.schemas.js";
import { ProjectParams } from "../projects/projects.schemas.js";

export const SYNC_STATES = ["a_jour", "perimee", "en_cours", "figee", "erreur"] as const;
export type SyncState = (typeof SYNC_STATES)[number];
export const REPORT_FORMATS = ["pdf", "json", "csv"] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];
/** Reports that are a table: they have a CSV. */
export const TABLE_TYPES = ["conformite_kev", "exceptions", "inventaire"] as const;

const ReportTypeEnum = z
  .enum(REPORT_TYPES)
  .describe(
    "rapport_projet: the project's vulnerability report for a period; conformite_kev: KEV CVEs against CISA's due dates; exceptions: exceptions in force and register entries; inventaire: stacks and items",
  );
const Language = z.enum(["fr", "en"]);
const Sha256 = z.string().regex(/^[0-9a-fA-F]{64}$/);

export const ReportIn = z
  .object({
    report_type: ReportTypeEnum,
    from: z.iso.date().optional().describe("rapport_projet: first day of the period (Paris), default `to` − 29 days"),
    to: z.iso.date().optional().describe("rapport_projet: last day of the period (Paris), default today"),
    language: Language.default("fr"),
  })
  .meta({ id: "ReportIn" });
export type ReportIn = z.infer<typeof ReportIn>;

/** The spec's record (PreuveRetrouvee), shared by every answer about a report. */
const PREUVE = {
  id: z.uuid(),
  titre: z.string(),
  report_type: z.string(),
  empreinte: z.string().describe("SHA-256 (hex) of the canonical JSON content of the version (ADR 0015)"),
  genere_le: z.string().nullable().describe("When the version was generated (ISO 8601 UTC)"),
  derniere_synchro_le: z.string().nullable().describe("When the report was last checked against the data, or regenerated"),
  synchro_figee: z.boolean(),
  synchro_etat: z
    .enum(SYNC_STATES)
    .nullable()
    .describe("a_jour, perimee (the data changed; the sync job regenerates it), en_cours, figee, erreur (see synchro_erreur)"),
};

export const PreuveRetrouvee = z.object(PREUVE).meta({ id: "PreuveRetrouvee" });

export const ReportOut = z
  .object({
    ...PREUVE,
    synchro_erreur: z.string().nullable().describe("Why the last regeneration failed (synchro_etat erreur)"),
    project_id: z.uuid().nullable().describe("null: an organization report (every project of the organization)"),
    language: Language,
    from: z.iso.date().nullable(),
    to: z.iso.date().nullable(),
    version: z.int().describe("The current version (1 for a new report)"),
    versions_count: z.int(),
    formats: z.array(z.enum(REPORT_FORMATS)).describe("What the download offers: pdf and json, and csv for the reports that are a table"),
    fige_le: z.iso.datetime().nullable(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "ReportOut" });
export type ReportOut = z.infer<typeof ReportOut>;

export const ReportFileOut = z.object({ format: z.enum(REPORT_FORMATS), sha256: z.string(), size: z.int() }).meta({ id: "ReportFileOut" });

export const ReportVersionOut = z
  .object({ version: z.int(), empreinte: z.string(), genere_le: z.iso.datetime(), files: z.array(ReportFileOut) })
  .meta({ id: "ReportVersionOut" });

export const ReportHistoryOut = z
  .object({
    event: z.string().describe("created, version, frozen, error"),
    version: z.int().nullable(),
    actor: z.object({ type: z.string(), id: z.string().nullable(), label: z.string().nullable() }),
    detail: z.string().nullable(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "ReportHistoryOut" });

export const ReportDetailOut = ReportOut.extend({
  versions: z.array(ReportVersionOut).describe("Every version, newest first, each with its fingerprint and file hashes"),
  history: z.array(ReportHistoryOut).describe("Oldest first: creation, versions, freeze (with the actor), errors"),
}).meta({ id: "ReportDetailOut" });

export const ReportListOut = pageOf(ReportOut, "ReportListOut");
export const ReportListQuery = z.object({ ...PAGING, report_type: z.enum(REPORT_TYPES).optional() });
export type ReportListQuery = z.infer<typeof ReportListQuery>;

export const ReportParams = ProjectParams.extend({ report_id: z.uuid() });
export const OrgReportParams = OrgParams.extend({ report_id: z.uuid() });
export const ReportDownloadQuery = z.object({
  format: z.enum(REPORT_FORMATS).default("pdf"),
  version: z.int().min(1).max(1_000_000).optional().describe("Default: the current version"),
});

export const ReportSettingsOut = z
  .object({
    enabled: z.boolean(),
    report_type: z.enum(REPORT_TYPES),
    language: Language,
    day_of_month: z.int().describe("Day of the month (Paris time, 1–28) the previous month's report is generated"),
    last_period_from: z.iso.date().nullable().describe("First day of the last month a scheduled report covered"),
  })
  .meta({ id: "ReportSettingsOut" });
export type ReportSettingsOut = z.infer<typeof ReportSettingsOut>;

export const ReportSettingsIn = z
  .object({
    enabled: z.boolean().optional(),
    report_type: z.enum(REPORT_TYPES).optional(),
    language: Language.optional(),
    day_of_month: z.int().min(1).max(28).optional(),
  })
  .meta({ id: "ReportSettingsIn" });
export type ReportSettingsIn = z.infer<typeof ReportSettingsIn>;

export const EvidenceFindIn = z
  .object({ empreinte: Sha256.describe("The fingerprint printed in the report's footer (64 hex digits)") })
  .meta({ id: "EvidenceFindIn", description: 'JSON `{"empreinte": …}`, or multipart/form-data with the file in the field `file`' });

export const EvidenceFoundOut = z
  .object({
    ...PREUVE,
    project_id: z.uuid().nullable().describe("null: an organization report"),
    version: z.int().describe("The version the file or fingerprint belongs to"),
    version_courante: z.boolean().describe("True when that version is the report's current one"),
    current_version: z.int(),
    current_empreinte: z.string(),
    format: z.enum(REPORT_FORMATS).nullable().describe("The format the uploaded file matched (null for a fingerprint lookup)"),
  })
  .meta({
    id: "EvidenceFoundOut",
    description: "PreuveRetrouvee of the matching version (genere_le, empreinte: that version's), with the report's current state",
  });
export type EvidenceFoundOut = z.infer<typeof EvidenceFoundOut>;

export const EvidenceParams = OrgParams;

import { z } from "zod";
import { EXCEPTION_NATURES, VEX_JUSTIFICATIONS } from "../../platform/db/schema/index.js";
import { SEVERITY_VALUES } from "../cves/cves.schemas.js";
import { PAGING, pageOf } from "../../platform/http/paging.js";
import { ProjectParams } from "../projects/projects.schemas.js";
import { TagBrief } from "../tags/tags.schemas.js";
import { CASE_STATUSES } from "./cases.states.js";

export { EXCEPTION_NATURES };

/** A CVE id as CVE List names it (CVE-YYYY-NNNN…); a lower-case `cve-` is accepted (the service upper-cases it). */
export const CveId = z
  .string()
  .regex(/^[Cc][Vv][Ee]-\d{4}-\d{4,}$/)
  .describe("CVE-YYYY-NNNN… (case aside)");

export const CaseStatusEnum = z.enum(CASE_STATUSES);

/** Why a case is non_concerne, in the VEX vocabulary of CISA (OpenVEX justifications, CSAF flag labels). */
export const JustificationVexEnum = z
  .enum(VEX_JUSTIFICATIONS)
  .describe(
    "Why the project is not affected (VEX): component_not_present, vulnerable_code_not_present, vulnerable_code_not_in_execute_path, vulnerable_code_cannot_be_controlled_by_adversary, inline_mitigations_already_exist",
  );
export const SeverityEnum = z.enum(SEVERITY_VALUES);

export const CaseExceptionOut = z
  .object({
    nature: z.enum(EXCEPTION_NATURES).describe("MITIGATED (a measure reduces the risk) or ACCEPTED_RISK (accepted outside the register)"),
    measure: z.string().nullable(),
    justification: z.string(),
    expires_on: z.iso.date().describe("Last day of validity, Paris time: the case reopens at 00:00 Europe/Paris the next day"),
    set_at: z.iso.datetime().nullable(),
  })
  .meta({ id: "CaseExceptionOut" });

/** The register entry covering a case (beyond the specification). */
export const CaseRiskRef = z
  .object({ id: z.uuid(), title: z.string(), expires_on: z.iso.date() })
  .meta({ id: "CaseRiskRef", description: "The risk-register entry that covers the case (status risque_accepte)" });

export const CaseOut = z
  .object({
    cve_id: z.string(),
    status: CaseStatusEnum,
    severity: z
      .string()
      .nullable()
      .describe("The CVE's severity, followed on each import, unless set by hand; null while Vigie does not know the CVE"),
    notes: z.string().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    exception: CaseExceptionOut.nullable()
      .optional()
      .describe(
        "The case's own exception in force: MITIGATED, or an accepted risk outside the register (a register entry shows in `risque`)",
      ),
    tags: z.array(TagBrief).default([]),
    // Beyond the specification.
    risque: CaseRiskRef.nullable().describe("The register entry covering the case, or null"),
    severity_manual: z.boolean().describe("true: severity was set by hand and no longer follows the CVE"),
    justification_vex: JustificationVexEnum.nullable().describe(
      "Why the case is non_concerne (VEX not_affected justification); null otherwise: cleared whenever the case leaves non_concerne",
    ),
  })
  .meta({ id: "CaseOut" });

export const CaseActor = z
  .object({
    type: z.enum(["api_key", "user", "workflow", "job"]),
    id: z.string().nullable(),
    label: z.string().nullable().describe("The API key's name, the user's e-mail, the workflow's or job's name"),
  })
  .meta({ id: "CaseActor" });

export const CASE_EVENTS = [
  "created",
  "status",
  "severity",
  "notes",
  "comment",
  "exception_set",
  "exception_changed",
  "exception_removed",
  "exception_expired",
  "risk_linked",
  "risk_unlinked",
  "risk_expired",
  "tag_added",
  "tag_removed",
  "vex_justification",
] as const;
export type CaseEvent = (typeof CASE_EVENTS)[number];

export const CaseHistoryOut = z
  .object({
    from_status: z.string().nullable(),
    to_status: z.string(),
    comment: z.string().nullable(),
    created_at: z.iso.datetime(),
    // Beyond the specification.
    event: z.enum(CASE_EVENTS).describe("What changed"),
    actor: CaseActor,
    details: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe("The facts of the change: the exception's content, the register entry, the old and new values"),
  })
  .meta({ id: "CaseHistoryOut" });

export const CaseDetailOut = CaseOut.extend({
  history: z.array(CaseHistoryOut).describe("Oldest first"),
  // Beyond the specification: what a client may offer (the web application's status buttons).
  transitions: z
    .array(CaseStatusEnum)
    .describe("The statuses a PUT may ask for from the current one (docs/cases.md, statuses and transitions)"),
}).meta({ id: "CaseDetailOut" });

const COMMENT = z.string().max(2000).nullable().optional().describe("Why: kept in the history row");

export const CaseIn = z
  .object({
    status: CaseStatusEnum.optional().describe("New status (docs/cases.md gives the allowed transitions); nouveau when creating"),
    notes: z.string().max(10_000).nullable().optional(),
    severity: SeverityEnum.nullable().optional().describe("Set by hand; null: follow the CVE's severity again"),
    comment: COMMENT,
    // Beyond the specification.
    justification_vex: JustificationVexEnum.nullable()
      .optional()
      .describe("Only when the status is or becomes non_concerne (422 otherwise); null removes it. Exported as the VEX justification"),
  })
  .meta({ id: "CaseIn" });

export const CaseExceptionIn = z
  .object({
    nature: z.enum(EXCEPTION_NATURES),
    measure: z.string().trim().min(1).max(5000).nullable().optional().describe("Required for MITIGATED: the measure in place"),
    justification: z.string().trim().min(1).max(5000),
    expires_on: z.iso.date().describe("Last day of validity (Paris time), today or later"),
    comment: COMMENT,
  })
  .meta({ id: "CaseExceptionIn" });

export const CaseCommentIn = z.object({ comment: COMMENT }).meta({ id: "CaseCommentIn" });

export const CaseParams = ProjectParams.extend({ cve_id: CveId });

export type CaseOut = z.infer<typeof CaseOut>;
export type CaseDetailOut = z.infer<typeof CaseDetailOut>;
export type CaseHistoryOut = z.infer<typeof CaseHistoryOut>;
export type CaseIn = z.output<typeof CaseIn>;
export type CaseExceptionIn = z.output<typeof CaseExceptionIn>;

// ---------------------------------------------------------------------------------------------
// The list, bulk changes, export and statistics.
// ---------------------------------------------------------------------------------------------

export const CASE_SORTS = [
  "-updated_at",
  "updated_at",
  "-created_at",
  "created_at",
  "cve_id",
  "-cve_id",
  "expires_on",
  "severity",
] as const;
export type CaseSort = (typeof CASE_SORTS)[number];

/** The filters of the list, shared by the export and by a bulk change's `filter`. */
const FILTERS = {
  status: z.array(CaseStatusEnum).optional().describe("Repeatable: any of these statuses"),
  severity: z.array(SeverityEnum).optional().describe("Repeatable: any of these severities (unknown: also the cases without one)"),
  tag: z.string().min(1).max(100).optional().describe("A tag id or name"),
  q: z.string().min(1).max(200).optional().describe("Part of the CVE id or of the notes (case-insensitive)"),
  has_exception: z
    .boolean()
    .optional()
    .describe("true: an exception in force, the case's own or a register entry covering it; false: neither"),
  expiring_before: z.iso
    .date()
    .optional()
    .describe("Effective expiry (own exception's expires_on, or the covering register entry's) on or before this day"),
  risk_id: z.uuid().optional().describe("Covered by this register entry"),
};

export const CaseFilter = z.object(FILTERS).meta({ id: "CaseFilter", description: "The filters of the case list" });
export type CaseFilter = z.output<typeof CaseFilter>;

const SORT = z
  .enum(CASE_SORTS)
  .default("-updated_at")
  .describe(
    "expires_on: soonest effective expiry first, cases without one last; severity: critical, high, medium, low, none, unknown, then cases without one; ties by CVE id",
  );

export const CaseListQuery = z.object({ ...FILTERS, sort: SORT, ...PAGING });
export type CaseListQuery = z.output<typeof CaseListQuery>;

export const CaseListOut = pageOf(CaseOut, "CaseListOut");
export type CaseListOut = z.infer<typeof CaseListOut>;

export const EXPORT_FORMATS = ["csv", "json"] as const;
export const CaseExportQuery = z.object({ format: z.enum(EXPORT_FORMATS).default("csv"), ...FILTERS, sort: SORT });
export type CaseExportQuery = z.output<typeof CaseExportQuery>;

/** One exported case: the columns of the CSV, the keys of the JSON objects. */
export const CaseExportRow = z
  .object({
    cve_id: z.string(),
    status: CaseStatusEnum,
    severity: z.string().nullable(),
    severity_manual: z.boolean(),
    notes: z.string().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    exception_nature: z.enum(EXCEPTION_NATURES).nullable(),
    exception_measure: z.string().nullable(),
    exception_justification: z.string().nullable(),
    exception_expires_on: z.iso.date().nullable(),
    exception_set_at: z.iso.datetime().nullable(),
    risk_id: z.uuid().nullable(),
    risk_title: z.string().nullable(),
    risk_expires_on: z.iso.date().nullable(),
    tags: z.string().describe('The tag names, joined by "; "'),
  })
  .meta({ id: "CaseExportRow" });
export type CaseExportRow = z.infer<typeof CaseExportRow>;

export const MAX_BULK_IDS = 10_000;
/** The most cases a bulk change by filter may select. */
export const MAX_BULK_CASES = 50_000;

export const CaseBulkIn = z
  .object({
    cve_ids: z
      .array(CveId)
      .min(1)
      .max(MAX_BULK_IDS)
      .optional()
      .describe("These cases of the project (every id must have one: 422 otherwise)"),
    filter: CaseFilter.optional().describe("Or the cases these list filters select (at most 50,000)"),
    create_missing: z
      .boolean()
      .default(false)
      .describe("With cve_ids: create the cases the project does not have yet (nouveau, a `created` history row), then apply `set`"),
    set: z
      .object({
        status: CaseStatusEnum.optional().describe("Under the transition rules; cases already in it are left alone"),
        severity: SeverityEnum.nullable().optional().describe("Set by hand; null: follow the CVE's severity again"),
        justification_vex: JustificationVexEnum.nullable()
          .optional()
          .describe("Only with status non_concerne, or on cases all non_concerne already (422 otherwise); null removes it"),
        add_tags: z.array(z.uuid()).max(100).optional().describe("Tag ids of the project"),
        remove_tags: z.array(z.uuid()).max(100).optional(),
      })
      .describe("At least one change"),
    comment: COMMENT,
  })
  .meta({
    id: "CaseBulkIn",
    description: "Either cve_ids or filter, not both; set holds at least one change (422 otherwise). All or nothing.",
    oneOf: [{ required: ["cve_ids"] }, { required: ["filter"] }],
  });
export type CaseBulkIn = z.output<typeof CaseBulkIn>;

export const CaseBulkOut = z
  .object({
    matched: z.int().describe("Cases selected"),
    created: z.int().describe("Cases created (create_missing)"),
    updated: z.int().describe("Cases changed (a history row each per change)"),
  })
  .meta({ id: "CaseBulkOut" });

export const CaseStatsOut = z
  .object({
    total: z.int(),
    by_status: z.record(CaseStatusEnum, z.int()).describe("Every status, 0 when none"),
    by_severity: z.record(z.string(), z.int()).describe("Severity → cases; cases without one under unknown"),
    open: z.int().describe("nouveau + en_analyse + en_remediation"),
    closed: z.int().describe("The other statuses"),
    with_exception: z.int().describe("Cases with their own exception in force"),
    covered_by_register: z.int().describe("Cases covered by a risk-register entry"),
    expiring_soon: z
      .int()
      .describe("Effective expiry within the project's exception_warning_days from today (Paris), or already past and not yet processed"),
  })
  .meta({ id: "CaseStatsOut" });
export type CaseStatsOut = z.infer<typeof CaseStatsOut>;

export const CaseSettingsOut = z
  .object({
    exception_warning_days: z
      .int()
      .describe("Days before an exception's or register entry's expiry when case.exception_expiring is written (once per expiry date)"),
  })
  .meta({ id: "CaseSettingsOut" });

export const CaseSettingsIn = z
  .object({
    exception_warning_days: z.int().min(0).max(365).optional().describe("0–365 (default 7); 0 warns on the last day of validity"),
  })
  .meta({ id: "CaseSettingsIn" });

export type CaseSettingsOut = z.infer<typeof CaseSettingsOut>;
export type CaseSettingsIn = z.output<typeof CaseSettingsIn>;

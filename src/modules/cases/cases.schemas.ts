import { z } from "zod";
import { EXCEPTION_NATURES } from "../../platform/db/schema/index.js";
import { SEVERITY_VALUES } from "../cves/cves.schemas.js";
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

export const CaseDetailOut = CaseOut.extend({ history: z.array(CaseHistoryOut).describe("Oldest first") }).meta({ id: "CaseDetailOut" });

const COMMENT = z.string().max(2000).nullable().optional().describe("Why: kept in the history row");

export const CaseIn = z
  .object({
    status: CaseStatusEnum.optional().describe("New status (see the README for the allowed transitions); nouveau when creating"),
    notes: z.string().max(10_000).nullable().optional(),
    severity: SeverityEnum.nullable().optional().describe("Set by hand; null: follow the CVE's severity again"),
    comment: COMMENT,
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

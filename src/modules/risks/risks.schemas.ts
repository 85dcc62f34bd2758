import { z } from "zod";
import { PAGING, pageOf } from "../../platform/http/paging.js";
import { CaseStatusEnum, CveId } from "../cases/cases.schemas.js";
import { OrgParams } from "../organizations/organizations.schemas.js";

export const RISK_STATUSES = ["active", "expiree"] as const;
export type RiskStatus = (typeof RISK_STATUSES)[number];

const TEXT = (max: number) => z.string().trim().min(1).max(max);
const COMMENT = z.string().max(2000).nullable().optional().describe("Why: kept in the history row of each case changed");

/** A case of one of the organization's projects, named by project and CVE. */
export const RiskCaseRef = z
  .object({ project_id: z.uuid(), cve_id: CveId })
  .meta({ id: "RiskCaseRef", description: "A case named by its project and CVE (created when the project has none)" });

export const RiskOut = z
  .object({
    id: z.uuid(),
    title: z.string(),
    owner: z.string(),
    justification: z.string(),
    review_on: z.iso.date().nullable().describe("When the acceptance is to be reviewed"),
    expires_on: z.iso.date().describe("Last day of validity, Paris time: the covered cases reopen at 00:00 Europe/Paris the next day"),
    status: z.enum(RISK_STATUSES).describe("expiree from 00:00 Paris the day after expires_on (the expiry job then reopens its cases)"),
    cases_count: z.int().describe("Cases the entry covers, among those the key may see"),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "RiskOut" });

export const RiskCaseOut = z
  .object({ project_id: z.uuid(), cve_id: z.string(), status: CaseStatusEnum, severity: z.string().nullable() })
  .meta({ id: "RiskCaseOut" });

export const RiskDetailOut = RiskOut.extend({
  cases: z.array(RiskCaseOut).describe("The covered cases the key may see, by project then CVE"),
}).meta({ id: "RiskDetailOut" });

export const RiskListOut = pageOf(RiskOut, "RiskListOut");

export const RiskListQuery = z.object({
  status: z.enum(RISK_STATUSES).optional(),
  q: z.string().min(1).max(200).optional().describe("Words of the title or the owner"),
  review_before: z.iso.date().optional().describe("Review date on or before this day"),
  expiring_before: z.iso.date().optional().describe("Expiry date on or before this day"),
  ...PAGING,
});

export const RiskIn = z
  .object({
    title: TEXT(200),
    owner: TEXT(200).describe("Who answers for the acceptance"),
    justification: TEXT(5000),
    review_on: z.iso.date().nullable().optional(),
    expires_on: z.iso.date().describe("Last day of validity (Paris time), today or later"),
    cases: z.array(RiskCaseRef).max(1000).optional().describe("Cases to cover at once (all or nothing)"),
    comment: COMMENT,
  })
  .meta({ id: "RiskIn" });

export const RiskUpdateIn = z
  .object({
    title: TEXT(200).optional(),
    owner: TEXT(200).optional(),
    justification: TEXT(5000).optional(),
    review_on: z.iso.date().nullable().optional(),
    expires_on: z.iso.date().optional().describe("Today or later (Paris time)"),
  })
  .meta({ id: "RiskUpdateIn" });

export const RiskCoverIn = z
  .object({ cases: z.array(RiskCaseRef).min(1).max(1000), comment: COMMENT })
  .meta({ id: "RiskCoverIn", description: "Cases to cover, all or nothing" });

export const RiskCommentIn = z.object({ comment: COMMENT }).meta({ id: "RiskCommentIn" });

export const RiskParams = OrgParams.extend({ risk_id: z.uuid() });
export const RiskCaseParams = RiskParams.extend({ project_id: z.uuid(), cve_id: CveId });

export type RiskOut = z.infer<typeof RiskOut>;
export type RiskDetailOut = z.infer<typeof RiskDetailOut>;
export type RiskListQuery = z.output<typeof RiskListQuery>;
export type RiskIn = z.output<typeof RiskIn>;
export type RiskUpdateIn = z.output<typeof RiskUpdateIn>;
export type RiskCaseRef = z.output<typeof RiskCaseRef>;

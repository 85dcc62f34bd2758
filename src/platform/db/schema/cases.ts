import { sql } from "drizzle-orm";
import {
  bigserial,
  check,
  date,
  index,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
  boolean,
} from "drizzle-orm/pg-core";
import { tags } from "./alerting.js";
import { organizations, projects } from "./tenancy.js";

const tz = (name: string) => timestamp(name, { withTimezone: true });

export const CASE_STATUSES = ["nouveau", "en_analyse", "en_remediation", "corrige", "non_concerne", "attenue", "risque_accepte"] as const;
export type CaseStatus = (typeof CASE_STATUSES)[number];

/**
 * Why a case is non_concerne, in the CISA minimum VEX vocabulary (OpenVEX 0.2 justifications,
 * CSAF 2.0 flag labels; CycloneDX maps them to its own, see docs/adr).
 */
export const VEX_JUSTIFICATIONS = [
  "component_not_present",
  "vulnerable_code_not_present",
  "vulnerable_code_not_in_execute_path",
  "vulnerable_code_cannot_be_controlled_by_adversary",
  "inline_mitigations_already_exist",
] as const;
export type VexJustification = (typeof VEX_JUSTIFICATIONS)[number];

export const EXCEPTION_NATURES = ["MITIGATED", "ACCEPTED_RISK"] as const;
export type ExceptionNature = (typeof EXCEPTION_NATURES)[number];

/**
 * The organization's risk register: accepted risks, each covering cases across its projects. An
 * entry whose expiry date has passed (Paris time) is `expiree`: the cases it covered reopened.
 */
export const risks = pgTable(
  "risks",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    owner: text("owner").notNull(),
    justification: text("justification").notNull(),
    /** When the acceptance is to be reviewed (Paris calendar day). */
    reviewOn: date("review_on", { mode: "string" }),
    /** Last day of validity, Paris time; the covered cases reopen the next day. */
    expiresOn: date("expires_on", { mode: "string" }).notNull(),
    status: text("status").$type<"active" | "expiree">().notNull().default("active"),
    createdAt: tz("created_at").notNull().defaultNow(),
    updatedAt: tz("updated_at").notNull().defaultNow(),
  },
  (t) => [
    index("risks_org_idx").on(t.orgId, t.createdAt),
    // The expiry job: active entries by expiry date.
    index("risks_active_expiry_idx").on(t.expiresOn).where(sql`${t.status} = 'active'`),
    check("risks_status_valid", sql`${t.status} in ('active', 'expiree')`),
  ],
);

/**
 * One case per (project, CVE): what the team does about it. The exception in force is kept on the
 * row (its own, MITIGATED or an accepted risk outside the register), or the register entry that
 * covers it (`risk_id`): never both. The list filters read the row alone.
 */
export const cases = pgTable(
  "cases",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    cveId: text("cve_id").notNull(),
    status: text("status").$type<CaseStatus>().notNull(),
    /** The CVE's severity (followed on each import) unless set by hand (`severity_manual`); null while the CVE is unknown. */
    severity: text("severity"),
    severityManual: boolean("severity_manual").notNull().default(false),
    notes: text("notes"),
    exceptionNature: text("exception_nature").$type<ExceptionNature>(),
    exceptionMeasure: text("exception_measure"),
    exceptionJustification: text("exception_justification"),
    exceptionExpiresOn: date("exception_expires_on", { mode: "string" }),
    exceptionSetAt: tz("exception_set_at"),
    riskId: uuid("risk_id").references(() => risks.id, { onDelete: "set null" }),
    /** Why the case is non_concerne (VEX not_affected justification); cleared when the case leaves non_concerne. */
    vexJustification: text("vex_justification").$type<VexJustification>(),
    /** The expiry date (own exception's or register entry's) for which `case.exception_expiring` was written. */
    expiryWarnedFor: date("expiry_warned_for", { mode: "string" }),
    createdAt: tz("created_at").notNull().defaultNow(),
    updatedAt: tz("updated_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("cases_project_cve_uq").on(t.projectId, t.cveId),
    // The case list, most recently changed first.
    index("cases_project_updated_idx").on(t.projectId, t.updatedAt.desc(), t.id.desc()),
    // The list filtered by status.
    index("cases_project_status_idx").on(t.projectId, t.status, t.updatedAt.desc(), t.id.desc()),
    // The list filtered by severity (one value), most recently changed first.
    index("cases_project_severity_idx").on(t.projectId, t.severity, t.updatedAt.desc(), t.id.desc()),
    // The list and export sorted by created_at (either way); ties by id, as the keyset needs.
    index("cases_project_created_idx").on(t.projectId, t.createdAt.desc(), t.id.desc()),
    // The list and export sorted by severity: the rank expression of cases.filters.ts (SEVERITY_RANK), then the CVE id.
    index("cases_project_severity_rank_idx").on(
      t.projectId,
      sql`(case ${t.severity} when 'critical' then 0 when 'high' then 1 when 'medium' then 2 when 'low' then 3 when 'none' then 4 when 'unknown' then 5 else 6 end)`,
      t.cveId,
    ),
    // The expiry job and the `expiring_before` filter: own exceptions by expiry date.
    index("cases_exception_expiry_idx").on(t.exceptionExpiresOn).where(sql`${t.exceptionExpiresOn} is not null`),
    // The expiry job's warning: own exceptions not yet warned for their date (the hourly run then reads nothing).
    index("cases_exception_warning_idx")
      .on(t.exceptionExpiresOn)
      .where(sql`${t.exceptionExpiresOn} is not null and ${t.expiryWarnedFor} is distinct from ${t.exceptionExpiresOn}`),
    // A register entry → the cases it covers.
    index("cases_risk_idx").on(t.riskId).where(sql`${t.riskId} is not null`),
    // A changed CVE → the cases whose severity follows it.
    index("cases_cve_idx").on(t.cveId),
    check(
      "cases_status_valid",
      sql`${t.status} in ('nouveau', 'en_analyse', 'en_remediation', 'corrige', 'non_concerne', 'attenue', 'risque_accepte')`,
    ),
    check(
      "cases_exception_whole",
      sql`(${t.exceptionNature} is null) = (${t.exceptionExpiresOn} is null) and (${t.exceptionNature} is null) = (${t.exceptionJustification} is null)`,
    ),
    check("cases_exception_nature_valid", sql`${t.exceptionNature} in ('MITIGATED', 'ACCEPTED_RISK')`),
    check("cases_one_exception", sql`${t.exceptionNature} is null or ${t.riskId} is null`),
    check(
      "cases_vex_justification_valid",
      sql`${t.vexJustification} in ('component_not_present', 'vulnerable_code_not_present', 'vulnerable_code_not_in_execute_path',
        'vulnerable_code_cannot_be_controlled_by_adversary', 'inline_mitigations_already_exist')`,
    ),
  ],
);

/**
 * Every change of a case, written in the transaction of the change: who (an API key, a user, the
 * workflow engine or a job), what (`event`), the status before and after, a comment and the facts
 * (`details`: the exception's content, the register entry…).
 */
export const caseHistory = pgTable(
  "case_history",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    caseId: uuid("case_id")
      .notNull()
      .references(() => cases.id, { onDelete: "cascade" }),
    event: text("event").notNull(),
    fromStatus: text("from_status"),
    toStatus: text("to_status").notNull(),
    comment: text("comment"),
    actorType: text("actor_type").notNull(),
    actorId: text("actor_id"),
    actorLabel: text("actor_label"),
    details: jsonb("details"),
    createdAt: tz("created_at").notNull().defaultNow(),
  },
  (t) => [index("case_history_case_idx").on(t.caseId, t.id)],
);

export const caseTags = pgTable(
  "case_tags",
  {
    caseId: uuid("case_id")
      .notNull()
      .references(() => cases.id, { onDelete: "cascade" }),
    tagId: uuid("tag_id")
      .notNull()
      .references(() => tags.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.caseId, t.tagId] }), index("case_tags_tag_idx").on(t.tagId)],
);

export const VEX_PROPOSAL_STATUSES = ["proposee", "acceptee", "rejetee"] as const;
export type VexProposalStatus = (typeof VEX_PROPOSAL_STATUSES)[number];

/**
 * A supplier's VEX statement about a CVE of the project (imported through POST …/vex): a proposal
 * the team accepts (the case becomes non_concerne with the statement's justification) or rejects.
 * Importing the same document again changes nothing already decided.
 */
export const vexProposals = pgTable(
  "vex_proposals",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    cveId: text("cve_id").notNull(),
    status: text("status").$type<VexProposalStatus>().notNull().default("proposee"),
    /** The statement's status as its format says it (not_affected). */
    vexStatus: text("vex_status").notNull(),
    justification: text("justification").$type<VexJustification>(),
    impactStatement: text("impact_statement"),
    /** The products the statement names (purl, CPE or the document's product ids). */
    products: jsonb("products").notNull().default([]),
    sourceFormat: text("source_format").notNull(),
    /** The document's identity (CycloneDX serialNumber, CSAF tracking id, OpenVEX @id). */
    sourceDocument: text("source_document").notNull(),
    sourceAuthor: text("source_author"),
    sourceTimestamp: tz("source_timestamp"),
    createdAt: tz("created_at").notNull().defaultNow(),
    decidedAt: tz("decided_at"),
    /** {type, id, label} of who accepted or rejected it. */
    decidedBy: jsonb("decided_by"),
    decisionComment: text("decision_comment"),
  },
  (t) => [
    uniqueIndex("vex_proposals_project_cve_document_uq").on(t.projectId, t.cveId, t.sourceDocument),
    index("vex_proposals_project_status_idx").on(t.projectId, t.status, t.createdAt.desc()),
    check("vex_proposals_status_valid", sql`${t.status} in ('proposee', 'acceptee', 'rejetee')`),
  ],
);

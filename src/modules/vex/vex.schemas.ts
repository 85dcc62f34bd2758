import { z } from "zod";
import { VEX_JUSTIFICATIONS, VEX_PROPOSAL_STATUSES } from "../../platform/db/schema/index.js";
import { PAGING, pageOf } from "../../platform/http/paging.js";
import { CaseActor, CaseStatusEnum } from "../cases/cases.schemas.js";
import { ProjectParams } from "../projects/projects.schemas.js";

export { VEX_JUSTIFICATIONS, VEX_PROPOSAL_STATUSES };

/** The three VEX formats Vigie writes and reads. */
export const VEX_FORMATS = ["cyclonedx", "csaf", "openvex"] as const;
export type VexFormat = (typeof VEX_FORMATS)[number];

export const VexJustificationEnum = z
  .enum(VEX_JUSTIFICATIONS)
  .describe("Why the product is not affected, in the CISA / OpenVEX vocabulary (CSAF flag labels)");

export const VexExportQuery = z.object({
  format: z
    .enum(VEX_FORMATS)
    .default("cyclonedx")
    .describe("cyclonedx: CycloneDX 1.6 VEX (BOM with vulnerabilities); csaf: CSAF 2.0, csaf_vex profile; openvex: OpenVEX 0.2"),
});
export type VexExportQuery = z.output<typeof VexExportQuery>;

/** The document answered, as its format's JSON schema describes it (validated in the tests). */
export const CycloneDxVexDocument = z
  .record(z.string(), z.unknown())
  .meta({ id: "CycloneDxVexDocument", description: "A CycloneDX 1.6 BOM whose vulnerabilities[] carry analysis and affects (JSON)" });
export const CsafOrOpenVexDocument = z.record(z.string(), z.unknown()).meta({
  id: "CsafOrOpenVexDocument",
  description: "format=csaf: a CSAF 2.0 document of category csaf_vex; format=openvex: an OpenVEX 0.2 document",
});

/** The raw VEX document of an import: its format is detected from its content. */
export const VexDocumentIn = z.record(z.string(), z.unknown()).meta({
  id: "VexDocumentIn",
  description:
    "A supplier's VEX document as published: CycloneDX (bomFormat CycloneDX with vulnerabilities[].analysis), CSAF 2.0 (document.csaf_version 2.0, category csaf_vex) or OpenVEX (@context https://openvex.dev/ns…). Checked against its format's official JSON schema (422 with the JSON pointers of the faults).",
});

export const VexIgnoredItem = z
  .object({
    cve_id: z.string().describe("The vulnerability as the document names it"),
    raison: z.string().describe("Why no proposal was made (another status, a CVE the project has neither alert nor case for…)"),
  })
  .meta({ id: "VexIgnoredItem" });

export const VexImportOut = z
  .object({
    format: z.enum(VEX_FORMATS),
    document: z.string().describe("The document's identity: CycloneDX serialNumber, CSAF tracking id, OpenVEX @id"),
    proposees: z.int().describe("Proposals created (status proposee)"),
    deja_connues: z.int().describe("Statements of this document already proposed (whatever their decision): left as they are"),
    ignorees: z.object({
      count: z.int(),
      items: z.array(VexIgnoredItem).describe("At most 1,000, in document order"),
    }),
  })
  .meta({ id: "VexImportOut" });
export type VexImportOut = z.infer<typeof VexImportOut>;

export const VexProposalSource = z
  .object({
    format: z.enum(VEX_FORMATS),
    document: z.string(),
    author: z.string().nullable().describe("CycloneDX metadata.supplier/manufacturer/authors, CSAF publisher name, OpenVEX author"),
    timestamp: z.iso.datetime().nullable().describe("When the document (or the statement) says it was issued"),
  })
  .meta({ id: "VexProposalSource" });

export const VexProposalOut = z
  .object({
    id: z.uuid(),
    cve_id: z.string(),
    status: z.enum(VEX_PROPOSAL_STATUSES).describe("proposee: waiting for the team; acceptee or rejetee: decided"),
    vex_status: z
      .string()
      .describe(
        "The statement's status as its format says it: not_affected (CycloneDX, OpenVEX), false_positive (CycloneDX), known_not_affected (CSAF)",
      ),
    justification: VexJustificationEnum.nullable().describe(
      "Mapped to the CISA vocabulary; null when the statement gives only an impact statement",
    ),
    impact_statement: z.string().nullable().describe("The statement's own words (analysis.detail, threat impact, impact_statement)"),
    products: z.array(z.string()).describe("The products the statement names: purl, CPE or the document's product names"),
    source: VexProposalSource,
    created_at: z.iso.datetime(),
    decided_at: z.iso.datetime().nullable(),
    decided_by: CaseActor.nullable(),
    decision_comment: z.string().nullable(),
    case_status: CaseStatusEnum.nullable().describe("The project's case for the CVE now, or null when it has only the alert"),
  })
  .meta({ id: "VexProposalOut" });
export type VexProposalOut = z.infer<typeof VexProposalOut>;

export const VexProposalListQuery = z.object({
  status: z.enum(VEX_PROPOSAL_STATUSES).optional().describe("Only these proposals"),
  ...PAGING,
});
export type VexProposalListQuery = z.output<typeof VexProposalListQuery>;

export const VexProposalListOut = pageOf(VexProposalOut, "VexProposalListOut");
export type VexProposalListOut = z.infer<typeof VexProposalListOut>;

export const VexDecisionIn = z
  .object({
    comment: z.string().max(2000).nullable().optional().describe("Why: kept on the proposal (and in the case's history when accepted)"),
  })
  .meta({ id: "VexDecisionIn" });
export type VexDecisionIn = z.output<typeof VexDecisionIn>;

export const VexProposalParams = ProjectParams.extend({ proposal_id: z.uuid() });

/** A CSAF document's file name (CSAF 2.0 §5.1: its tracking id in lower case). */
export const VexCsafFileParams = ProjectParams.extend({
  file_name: z
    .string()
    .regex(/^[+\-a-z0-9_]+\.json$/)
    .max(200)
    .describe("The CSAF file name, as document.references[category=self] gives it"),
});

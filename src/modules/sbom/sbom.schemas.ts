import { z } from "zod";
import { SBOM_FORMATS, STACK_ITEM_TYPES } from "../../platform/db/schema/alerting.js";
import type { RawBodySpec } from "../../platform/http/raw-body.js";
import { ProjectParams } from "../projects/projects.schemas.js";
import { StackParams } from "../stacks/stacks.schemas.js";

/** The media types an SBOM is accepted under (the reader tells CycloneDX from SPDX, JSON from XML, by the content). */
export const SBOM_MEDIA_TYPES = [
  "application/vnd.cyclonedx+json",
  "application/vnd.cyclonedx+xml",
  "application/spdx+json",
  "application/json",
  "application/xml",
  "text/xml",
] as const;

/** 50 MiB: a 50,000-component CycloneDX JSON document with hashes and licences takes about 40. */
export const MAX_SBOM_BYTES = 50 * 1024 * 1024;

/** The upload routes' body. */
export const SBOM_BODY: RawBodySpec = {
  mediaTypes: SBOM_MEDIA_TYPES,
  maxBytes: MAX_SBOM_BYTES,
  description: "The SBOM document: CycloneDX 1.2 to 1.7 (JSON or XML) or SPDX 2.2 or 2.3 (JSON), as its tool wrote it",
};

/** How many entries of each list of the difference an answer carries (the counts are whole). */
export const DIFF_SAMPLE = 1000;

export const SbomFault = z
  .object({
    loc: z
      .array(z.union([z.string(), z.int()]))
      .describe("Where: `body` then the JSON pointer's segments (indexes as numbers), or `body` and `line N` of an XML document"),
    msg: z.string().describe("What the schema says (ajv's or libxml2's message)"),
  })
  .meta({ id: "SbomFaultOut" });

export const StackSbom = z
  .object({
    id: z.uuid(),
    stack_id: z.uuid(),
    format: z.enum(SBOM_FORMATS),
    spec_version: z.string().describe("1.2 to 1.7 (CycloneDX) or 2.2, 2.3 (SPDX)"),
    encoding: z.enum(["json", "xml"]),
    document_key: z
      .string()
      .describe(
        "The document's identity in the stack: its CycloneDX serialNumber, else its SPDX documentNamespace, else `nom:` and the name (and version) of the software it describes, else the upload's: `pile:` and the stack's id. Uploading a document with the same identity replaces this SBOM's items.",
      ),
    document_version: z.int().nullable().describe("The CycloneDX `version` of the document last loaded (null for SPDX)"),
    name: z.string().nullable().describe("The software the document describes (CycloneDX metadata.component, SPDX name)"),
    component_count: z.int().describe("Components the document lists, nested ones included, before duplicates are merged"),
    item_count: z.int().describe("Stack items the SBOM holds (purl and CPE items, duplicates merged)"),
    inventory_count: z
      .int()
      .describe(
        "Components kept as inventory: they made no item (neither purl nor CPE, or a purl type no advisory database uses), are never matched; GET …/sboms/{sbom_id}/inventaire lists them with why",
      ),
    fault_count: z
      .int()
      .describe("How many faults against its schema the document last loaded had: 0 unless it was loaded with accepter_non_conforme=true"),
    faults: z.array(SbomFault).max(100).describe("The first 100 of those faults, in document order (empty for a valid document)"),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime().describe("When the document was last loaded"),
  })
  .meta({ id: "StackSbomOut" });

const ITEM_TYPE = z.enum(STACK_ITEM_TYPES);
const KEY = z
  .string()
  .describe(
    "The item's identity within its SBOM: the purl without version, qualifiers nor subpath, or the CPE with * for version and update",
  );

export const SbomItem = z
  .object({
    id: z.uuid().describe("The stack item (for a removed item, the id it had)"),
    item_type: ITEM_TYPE,
    value: z.string(),
    sbom_key: KEY,
    version: z.string().nullable(),
  })
  .meta({ id: "SbomItemOut" });

export const SbomVersionChange = z
  .object({
    id: z.uuid().describe("The stack item, kept: its tags and its alerts' link stay"),
    item_type: ITEM_TYPE,
    sbom_key: KEY,
    value: z.string().describe("The new value"),
    from: z.string().nullable(),
    to: z.string().nullable(),
  })
  .meta({ id: "SbomVersionChangeOut" });

export const SbomIgnored = z
  .object({
    ref: z.string().nullable().describe("The component's reference in the document (CycloneDX bom-ref, SPDX SPDXID)"),
    name: z.string(),
    version: z.string().nullable(),
    raison: z.string().describe("Why no item was made of it: « ni purl ni CPE », or why its purl or CPE cannot be matched"),
  })
  .meta({ id: "SbomIgnoredOut" });

const sample = <T extends z.ZodType>(item: T, id: string, what: string) =>
  z
    .object({
      count: z.int().describe(`How many ${what}`),
      items: z.array(item).max(DIFF_SAMPLE).describe(`The first ${DIFF_SAMPLE}, in document order`),
    })
    .meta({ id });

export const SbomImport = z
  .object({
    sbom: StackSbom,
    ajoutes: sample(SbomItem, "SbomAddedListOut", "items were added (new to this SBOM), then matched against the stored CVEs"),
    retires: sample(SbomItem, "SbomRemovedListOut", "items were removed (no longer in the document)"),
    versions_changees: sample(SbomVersionChange, "SbomVersionChangesOut", "items changed version (updated in place, then matched again)"),
    inchanges: z.int().describe("Items the document lists as before: untouched, not matched again"),
    ignores: sample(SbomIgnored, "SbomIgnoredListOut", "components made no item"),
    identifiants_ignores: sample(
      SbomIgnored,
      "SbomPartialListOut",
      "components made an item of one identifier while the other (an old purl type such as pkg:alpine or pkg:dotnet beside a CPE, an unreadable CPE beside a purl) could not be matched; `raison` says which and why",
    ),
    alertes_creees: z
      .int()
      .describe(
        "Alerts raised by the added and changed items in this request (see correspondances_en_arriere_plan for those raised after it)",
      ),
    correspondances_en_arriere_plan: z
      .int()
      .optional()
      .describe(
        "Added and changed items whose candidates were more than VIGIE_MATCH_INLINE_MAX together: their alerts are raised after the answer by the items-match job, in batches (each item's `matching` in GET …/stacks/{stack_id}/items says how far); 0: every item was matched in this request",
      ),
    avertissement: z
      .string()
      .nullable()
      .optional()
      .describe("Set when an item may match more than VIGIE_ITEM_ALERT_WARN stored CVEs: it names them and their candidates"),
    alertes_plus_correspondantes: z
      .int()
      .describe(
        "Alerts of the project whose CVE no item matches any more once removed and changed items are gone: kept, marked matching=false, with a cve.updated event (correspondance: true → false); their read state, tags and case stay",
      ),
    alertes_correspondantes_a_nouveau: z
      .int()
      .describe("Alerts marked matching=false that an item of the project matches again: matching=true, with a cve.updated event"),
  })
  .meta({ id: "SbomImportOut" });

export const StackSummary = z
  .object({
    id: z.uuid(),
    name: z.string(),
    project_id: z.uuid(),
    item_count: z.int().describe("The stack's items (read them with GET …/stacks/{stack_id}/items)"),
  })
  .meta({ id: "StackSummaryOut" });

export const StackFromSbom = SbomImport.extend({ stack: StackSummary }).meta({ id: "StackFromSbomOut" });

const LENIENT = z
  .boolean()
  .default(false)
  .describe(
    "true: a document that fails its official schema but can be read (many generators write such documents) is loaded all the same, its faults kept in the SBOM's `faults`; components that cannot be read are ignored. Default false: such a document is refused (422, every fault). A document that cannot be read at all (not JSON/XML, another format or version) is refused either way.",
  );

/** The upload's options. */
export const SbomUploadQuery = z.object({ accepter_non_conforme: LENIENT });

export const StackFromSbomQuery = z.object({
  accepter_non_conforme: LENIENT,
  name: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .describe("The stack's name (unique in the project); default: the software the document describes"),
});

/**
 * The stack as a CycloneDX 1.6 JSON document (the full schema: http://cyclonedx.org/schema/bom-1.6.schema.json):
 * one component per purl or CPE item.
 */
export const CycloneDxBom = z
  .looseObject({
    bomFormat: z.literal("CycloneDX"),
    specVersion: z.literal("1.6"),
    serialNumber: z
      .string()
      .regex(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      .describe("Stable for the stack: urn:uuid: of a UUID derived from the stack's id"),
    version: z.int().min(1).describe("Grows each time the stack's items change"),
    metadata: z.looseObject({ timestamp: z.string().optional() }),
    components: z.array(z.looseObject({ type: z.string(), name: z.string() })),
  })
  .meta({ id: "CycloneDxBomOut" });

export const SbomParams = StackParams.extend({ sbom_id: z.uuid() });

export const SbomInventoryQuery = z.object({
  q: z.string().trim().min(1).max(200).optional().describe("Found in the name, version, purl or CPE (contains, case-insensitive)"),
  page: z.int().min(1).default(1),
  page_size: z.int().min(1).max(500).default(100),
});

export const SbomInventoryEntry = z
  .object({
    ref: z.string().nullable().describe("The component's reference in the document (CycloneDX bom-ref, SPDX SPDXID)"),
    name: z.string(),
    version: z.string().nullable(),
    purl: z.string().nullable().describe("The purl as the document gives it (one no advisory database uses), or null"),
    cpe: z.string().nullable(),
    raison: z.string().describe("Why it cannot be matched: « ni purl ni CPE », or why its purl or CPE is not usable"),
  })
  .meta({ id: "SbomInventoryEntryOut" });

export const SbomInventoryPage = z
  .object({
    items: z.array(SbomInventoryEntry).describe("In document order"),
    total: z.int(),
    page: z.int(),
    page_size: z.int(),
  })
  .meta({ id: "SbomInventoryPageOut" });
export const StacksParams = ProjectParams;

export type StackFromSbomQuery = z.output<typeof StackFromSbomQuery>;
export type SbomUploadQuery = z.output<typeof SbomUploadQuery>;

export const SbomRemoved = z
  .object({
    items_retires: z.int().describe("Items removed with the SBOM"),
    alertes_plus_correspondantes: z
      .int()
      .describe("Alerts whose CVE no item of the project matches any more: kept, marked matching=false, with a cve.updated event"),
  })
  .meta({ id: "SbomRemovalOut" });

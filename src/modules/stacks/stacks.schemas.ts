import { z } from "zod";
import { ITEM_MATCHING_STATES, STACK_ITEM_TYPES } from "../../platform/db/schema/alerting.js";
import { ProjectParams } from "../projects/projects.schemas.js";
import { TagBrief } from "../tags/tags.schemas.js";
import { StackItemEol } from "../eol/eol.schemas.js";
import { pageOf, PAGING } from "../../platform/http/paging.js";

export const MIN_SEVERITIES = ["critical", "high", "medium", "low"] as const;

const ITEM_TYPE = z
  .enum(STACK_ITEM_TYPES)
  .describe(
    "cpe (CPE 2.3, version * or concrete), product (vendor:product[@version]), vendor, purl (pkg:type/name@version), keyword (words of the description), cve (a CVE id or alias)",
  );
const MIN_SEVERITY = z
  .enum(MIN_SEVERITIES)
  .nullable()
  .describe("Only CVEs of this severity or above alert (an unscored CVE alerts once scored)");

/** An item's background matching (docs/broad-items.md). */
export const ItemMatching = z
  .object({
    state: z
      .enum(ITEM_MATCHING_STATES)
      .describe("pending: waiting for the items-match job; running: raising its alerts in batches; done: every candidate decided"),
    candidates: z.int().describe("The stored CVEs the item may match, counted when it was added (an upper bound of its alerts)"),
    processed: z.int().describe("Candidates decided so far"),
    raised: z.int().describe("Alerts raised so far (a CVE another item of the project already alerted on raises none)"),
  })
  .meta({ id: "StackItemMatchingOut" });

export const StackItem = z
  .object({
    id: z.uuid(),
    item_type: z.string(),
    value: z.string(),
    min_severity: z.string().nullable().optional(),
    tags: z.array(TagBrief).default([]),
    created_at: z.iso.datetime(),
    eol: StackItemEol.nullable()
      .optional()
      .describe(
        "The endoflife.date cycle the item runs (its CPE, purl or vendor:product names a product, its version falls in a cycle), else null",
      ),
    sbom_id: z
      .uuid()
      .nullable()
      .optional()
      .describe("The SBOM the item came from (GET …/stacks/{stack_id}/sboms), null for an item added by hand"),
    matching: ItemMatching.nullable()
      .optional()
      .describe(
        "Null: the item was matched with the request that added it. Otherwise its candidates were more than VIGIE_MATCH_INLINE_MAX (with those of the items added with it) and the items-match job raises its alerts in batches: how far it got",
      ),
  })
  .meta({ id: "StackItemOut" });

export const Stack = z
  .object({
    id: z.uuid(),
    name: z.string(),
    project_id: z.uuid().nullable(),
    items: z.array(StackItem),
  })
  .meta({ id: "StackOut" });

/**
 * What each item_type's value looks like, as JSON Schema conditions for the OpenAPI document: each
 * pattern is one every accepted value matches (the value is trimmed first); src/matching/items.ts
 * decides, and a value it cannot match is a 422 on `value` saying why.
 */
export const VALUE_FORMATS: Record<(typeof STACK_ITEM_TYPES)[number], { pattern: string; description: string }> = {
  cpe: {
    pattern: "^\\s*(cpe:2\\.3:|[Cc][Pp][Ee]:/)",
    description:
      "CPE 2.3 (cpe:2.3:a:vendor:product:version:…, 11 attributes) or a CPE 2.2 URI (cpe:/a:vendor:product); vendor and product named",
  },
  product: {
    pattern: "\\S",
    description:
      "vendor:product or product, optional version after @ or as a third part (paloaltonetworks:pan-os@10.2.5, openbsd:openssh:9.6p1)",
  },
  vendor: { pattern: "^[^:]*\\S[^:]*$", description: "a vendor name alone, without ':'" },
  purl: {
    pattern: "^\\s*[Pp][Kk][Gg]:/*[A-Za-z][A-Za-z0-9.+-]*/[^?#]",
    description:
      "a package URL, pkg:type/namespace/name@version?qualifiers#subpath, read as the purl specification says (packageurl-js, names normalised per type; qualifiers and subpath accepted and ignored for matching; types: pypi, npm, maven, golang, cargo, gem, nuget, composer, hex, pub, hackage, cran, swift, cocoapods, deb, apk, rpm)",
  },
  keyword: { pattern: "\\S", description: "words that must all appear in the CVE (at least one letter or digit)" },
  cve: {
    pattern: "^\\s*([Cc][Vv][Ee]-[A-Za-z0-9][A-Za-z0-9._:-]*|[A-Z][A-Z0-9]*-[A-Za-z0-9][A-Za-z0-9._:-]*)\\s*$",
    description: "a CVE id (CVE-2024-3400) or an alias (GHSA-…, PYSEC-…, GO-…)",
  },
};
const valueFormats = {
  allOf: Object.entries(VALUE_FORMATS).map(([type, f]) => ({
    if: { required: ["item_type", "value"], properties: { item_type: { const: type } } },
    then: { properties: { value: { pattern: f.pattern, description: f.description } } },
  })),
};

export const StackItemIn = z
  .object({
    item_type: ITEM_TYPE,
    value: z.string().min(1).max(500),
    min_severity: MIN_SEVERITY.optional(),
    tag_ids: z.array(z.uuid()).max(50).default([]),
  })
  .meta({ id: "StackItemIn", ...valueFormats });

export const StackItemUpdateIn = z
  .object({
    item_type: ITEM_TYPE.optional(),
    value: z.string().min(1).max(500).optional(),
    min_severity: MIN_SEVERITY.optional(),
    tag_ids: z.array(z.uuid()).max(50).optional(),
  })
  .meta({ id: "StackItemUpdateIn", ...valueFormats });

export const StackIn = z
  .object({
    name: z.string().trim().min(1).max(100),
    items: z.array(StackItemIn).max(1000).default([]),
  })
  .meta({ id: "StackIn" });

export const StackUpdateIn = z.object({ name: z.string().trim().min(1).max(100) }).meta({ id: "StackUpdateIn" });

const RAISED = z
  .int()
  .describe(
    "Alerts raised on the stored CVEs by what was added (see the project's alert_backfill setting), in this request; those of items left to background matching (their `matching`) are raised after it",
  );
const WARNING = z
  .string()
  .nullable()
  .optional()
  .describe(
    "Set when an item may match more than VIGIE_ITEM_ALERT_WARN stored CVEs: it names them and their candidates; the items are kept and their alerts raised (in the background)",
  );
/** A stack or an item just created, with the alerts it raised. */
export const StackCreated = Stack.extend({ alertes_creees: RAISED, avertissement: WARNING }).meta({ id: "StackCreatedOut" });
export const StackItemCreated = StackItem.extend({ alertes_creees: RAISED, avertissement: WARNING }).meta({ id: "StackItemCreatedOut" });

export const StackParams = ProjectParams.extend({ stack_id: z.uuid() });

/** The paged list of a stack's items (a stack loaded from an SBOM holds tens of thousands). */
export const StackItemListQuery = z.object({
  q: z.string().min(1).max(500).optional().describe("Items whose value contains this text (case-insensitive)"),
  item_type: z.enum(STACK_ITEM_TYPES).optional(),
  sbom_id: z.uuid().optional().describe("Only the items of this SBOM of the stack"),
  ...PAGING,
});
export const StackItemPage = pageOf(StackItem, "StackItemPageOut");
export type StackItemListQuery = z.output<typeof StackItemListQuery>;
export const StackItemParams = StackParams.extend({ item_id: z.uuid() });

export type StackItemIn = z.output<typeof StackItemIn>;
export type StackItemUpdateIn = z.output<typeof StackItemUpdateIn>;
export type StackIn = z.output<typeof StackIn>;

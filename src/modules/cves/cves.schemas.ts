import { z } from "zod";
import { pageOf, PAGING } from "../../platform/http/paging.js";

export const SEVERITY_VALUES = ["critical", "high", "medium", "low", "none", "unknown"] as const;

/**
 * What Vigie knows of a CVE: PUBLISHED or REJECTED (the CVE List's states, NVD's when it alone
 * speaks), or REFERENCE_ONLY — an advisory (a CERT-FR avis) cites it and no source holding CVE
 * records (CVE List, NVD, KEV, an OSV advisory) describes it yet: a CVE reserved and cited before
 * its publication, or one whose record has not been imported. Its record is thin (no product, no
 * score); lists, counts and statistics leave it out unless asked.
 */
export const CVE_STATES = ["PUBLISHED", "REJECTED", "REFERENCE_ONLY"] as const;
const STATE_DOC =
  "PUBLISHED, REJECTED (kept), or REFERENCE_ONLY: only an advisory (CERT-FR) cites it, no CVE List, NVD, KEV or OSV record describes it yet (no product, no score); see referenced_by";

export const CveAffected = z
  .object({
    vendor: z.string().nullable(),
    product: z.string().nullable(),
    version_from: z.string().nullable(),
    version_to: z.string().nullable(),
    version_status: z.string().nullable(),
    cpe: z.string().nullable(),
    // Beyond the specification: which statement gives the range.
    origin: z.string().describe("Which source states it: cna, adp, nvd, kev, ghsa…"),
    version_from_inclusive: z.boolean(),
    version_to_inclusive: z.boolean().describe("false: up to version_to excluded (lessThan)"),
  })
  .meta({ id: "CveAffectedOut" });

export const MesureProvisoire = z
  .object({
    source: z.string(),
    reference: z.string(),
    categorie: z.string(),
    attribution: z.string(),
    date: z.iso.datetime().nullable().optional().describe("First publication of the avis: its day (Paris) at 00:00 UTC"),
    lien_seulement: z.boolean().default(false),
    produits: z.array(z.string()).default([]),
    republication: z.iso.datetime().nullable().optional().describe("Latest revision when the avis was revised: its day at 00:00 UTC"),
    texte: z.string().nullable().optional(),
    url: z.string().nullable().optional(),
    // Beyond the specification.
    liens: z
      .array(z.string())
      .default([])
      .describe("The avis' documentation links (vendor advisories first), which a link-only text refers to"),
  })
  .meta({ id: "MesureProvisoireApiOut" });

export const CveListItem = z
  .object({
    cve_id: z.string(),
    severity: z.string().describe("critical (CVSS ≥ 9.0), high (≥ 7.0), medium (≥ 4.0), low (≥ 0.1), none (0), unknown (no score)"),
    cvss_score: z.number().nullable(),
    epss_score: z.number().nullable(),
    is_kev: z.boolean(),
    has_poc: z.boolean(),
    vendor: z.string().nullable(),
    product: z.string().nullable(),
    date_published: z.iso.datetime().nullable(),
    epss_publie: z.boolean().describe("false until FIRST has published a score; the score is then null, never 0"),
    affected: z.array(CveAffected).nullable().optional(),
    contournement_disponible: z.boolean().default(false),
    maturite_exploit: z.string().nullable().optional().describe("none, poc, functional, weaponised, in_the_wild"),
    // Beyond the specification.
    state: z.enum(CVE_STATES).optional().describe(STATE_DOC),
  })
  .meta({ id: "CveListItem" });

export const CveListOut = pageOf(CveListItem, "CveListOut");

export const CveDetailOut = CveListItem.extend({
  affected: z.array(CveAffected),
  description: z.string().nullable(),
  cvss_vector: z.string().nullable(),
  epss_percentile: z.number().nullable(),
  cwe_ids: z.array(z.string()).nullable(),
  poc_count: z.int(),
  date_updated: z.iso.datetime().nullable(),
  aliases: z.array(z.string()).default([]),
  mesures_provisoires: z.array(MesureProvisoire).default([]),
  // Beyond the specification: provenance and the facts a responder asks for next.
  state: z.enum(CVE_STATES).describe(STATE_DOC),
  referenced_by: z
    .array(
      z
        .object({
          id: z.string().describe("The advisory's id (CERTFR-2025-AVI-0123, GHSA-…)"),
          source: z.string().describe("certfr, ghsa, go, pysec, rustsec, osv"),
          url: z.string(),
          title: z.string().nullable(),
          published: z.iso.datetime().nullable(),
        })
        .meta({ id: "CveReferenceOut" }),
    )
    .default([])
    .describe("The advisories that cite the CVE, oldest first: where a REFERENCE_ONLY CVE was seen"),
  cvss_version: z.string().nullable().describe("4.0, 3.1, 3.0 or 2.0"),
  cvss_source: z.string().nullable().describe("Which statement won: cna:<short name>, adp:CISA-ADP, nvd:nvd@nist.gov…"),
  epss_date: z.iso.date().nullable().describe("Score date of epss_score (YYYY-MM-DD)"),
  kev: z
    .object({
      date_added: z.iso.date().nullable(),
      due_date: z.iso.date().nullable(),
      ransomware: z.string().nullable().describe("Known, Unknown"),
      required_action: z.string().nullable(),
      source: z.string().describe("cisa-kev (the catalog), cisa-adp or nvd (a KEV marker only)"),
    })
    .nullable(),
  poc_first_date: z.iso.date().nullable(),
  fusion_de: z.array(z.string()).default([]),
  references: z.array(z.string()),
  sources: z.array(z.string()).describe("Feeds that contributed: cve5, nvd, kev, epss, poc:trickest, ghsa, certfr…"),
}).meta({ id: "CveDetailOut" });

export const CveListQuery = z.object({
  q: z.string().min(1).max(200).optional().describe("Full text over id, description, vendor and product"),
  vendor: z.string().min(1).max(200).optional(),
  product: z.string().min(1).max(200).optional(),
  cwe: z
    .string()
    .regex(/^CWE-\d{1,6}$/)
    .optional(),
  severity: z.array(z.enum(SEVERITY_VALUES)).optional().describe("Repeatable"),
  is_kev: z.boolean().optional(),
  has_poc: z.boolean().optional(),
  min_cvss: z.number().min(0).max(10).optional(),
  min_epss: z.number().min(0).max(1).optional(),
  published_from: z.iso.date().optional().describe("A date (YYYY-MM-DD), inclusive"),
  published_to: z.iso.date().optional().describe("A date (YYYY-MM-DD), inclusive"),
  state: z
    .enum(["published", "rejected", "reference_only", "all"])
    .default("published")
    .describe(
      "published: CVEs with a record of their own; rejected: kept, listed on request; reference_only: CVEs only an advisory (CERT-FR) cites, not described yet (no product, no score); all: every one",
    ),
  sort: z.enum(["-date_published", "date_published", "-cvss", "cvss", "-epss", "epss"]).default("-date_published"),
  ...PAGING,
});

/** The path of GET /api/v1/cves/{cve_id} (and the MCP tool get_cve): a CVE id, any case, or an alias. */
export const CveParams = z.object({ cve_id: z.string().min(1).max(100) });

export type CveListQuery = z.output<typeof CveListQuery>;
export type CveListOut = z.infer<typeof CveListOut>;
export type CveListItem = z.infer<typeof CveListItem>;
export type CveDetailOut = z.infer<typeof CveDetailOut>;

export const ProductSuggestQuery = z.object({
  q: z.string().trim().min(2).max(100).describe("The start of a vendor or product name, as typed (« apache », « pan-os »)"),
  limit: z.int().min(1).max(50).default(20),
});

export const ProductSuggestion = z
  .object({
    vendor: z.string().describe("The vendor's CPE-style name"),
    product: z.string().describe("The product's CPE-style name"),
    vendor_name: z.string().nullable().describe("A display spelling the sources give"),
    product_name: z.string().nullable(),
    cve_count: z.int().describe("How many CVEs of the corpus name this product"),
    origins: z
      .array(z.string())
      .optional()
      .describe("The sources naming it this way (cna, adp, nvd, kev, osv): what tells two spellings of one product apart"),
    latest_cves: z.array(z.string()).optional().describe("Up to three of the CVEs it covers, the highest ids first"),
    item: z
      .object({ item_type: z.literal("product"), value: z.string() })
      .describe("The stack item that watches it, ready for POST …/stacks/{stack_id}/items"),
  })
  .meta({ id: "ProductSuggestion" });

export type ProductSuggestQuery = z.output<typeof ProductSuggestQuery>;
export type ProductSuggestion = z.infer<typeof ProductSuggestion>;

export const CvePocOut = z
  .object({
    url: z.string().describe("The proof of concept: a GitHub repository, an Exploit-DB or Packet Storm page, a gist"),
    sources: z.array(z.string()).describe("The PoC sources naming it: trickest, nomi-sec"),
    stars: z.int().nullable().describe("GitHub stars when a source gives them (nomi-sec), else null"),
  })
  .meta({ id: "CvePocOut" });

export const CvePocListOut = z
  .object({
    cve_id: z.string(),
    total: z.int().describe("Equals the CVE's poc_count"),
    items: z.array(CvePocOut).describe("Most stars first, then by URL"),
  })
  .meta({ id: "CvePocListOut" });

import { z } from "zod";
import { PAGING, pageOf } from "../../platform/http/paging.js";
import { OrgParams } from "../organizations/organizations.schemas.js";

/** A domain (`example.com`, `host:port`) or the https address of a provider-metadata.json. */
const DOMAIN = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(:\d{1,5})?$/i;
const METADATA_URL = /^https?:\/\/[^\s/]+\/\S*\.json$/i;

export const CsafProviderIn = z
  .object({
    fournisseur: z
      .string()
      .trim()
      .min(1)
      .max(2000)
      .regex(new RegExp(`${DOMAIN.source}|${METADATA_URL.source}`, "i"))
      .describe(
        "The provider's domain (discovery: /.well-known/csaf/provider-metadata.json, then security.txt's CSAF: field, then csaf.data.security.<domain>) or the address of its provider-metadata.json",
      ),
  })
  .meta({ id: "CsafProviderIn" });
export type CsafProviderIn = z.output<typeof CsafProviderIn>;

/** HTTP header names a provider may ask credentials in (RFC 9110 token); the framing and session headers are not. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]{1,100}$/i;
/** Headers a provider's credentials may not name (the service refuses them: a 422 on nom). */
export const RESERVED_HEADERS = new Set(["host", "content-length", "transfer-encoding", "connection", "cookie"]);

export const CsafCredentialsIn = z
  .discriminatedUnion("type", [
    z.object({
      type: z.literal("basic").describe("HTTP basic authentication"),
      utilisateur: z
        .string()
        .min(1)
        .max(200)
        .regex(/^[^:\r\n]+$/, "sans « : » ni fin de ligne"),
      mot_de_passe: z
        .string()
        .min(1)
        .max(1000)
        .regex(/^[^\r\n]+$/, "sans fin de ligne"),
    }),
    z.object({
      type: z.literal("entete").describe("A header the provider names (an API key, a token)"),
      nom: z
        .string()
        .regex(HEADER_NAME, "nom d'en-tête HTTP")
        .describe("Not Host, Content-Length, Transfer-Encoding, Connection nor Cookie"),
      valeur: z
        .string()
        .min(1)
        .max(4000)
        .regex(/^[^\r\n]+$/, "sans fin de ligne"),
    }),
  ])
  .meta({ id: "CsafCredentialsIn" });
export type CsafCredentialsIn = z.output<typeof CsafCredentialsIn>;

export const CsafAggregatorQuery = z.object({
  agregateur: z
    .string()
    .trim()
    .min(1)
    .max(2000)
    .regex(new RegExp(`${DOMAIN.source}|${METADATA_URL.source}`, "i"))
    .describe("The aggregator's domain (its /.well-known/csaf-aggregator/aggregator.json) or the address of its aggregator.json"),
});

export const CsafAggregatedProviderOut = z
  .object({
    type: z.enum(["csaf_provider", "csaf_publisher"]).describe("Listed in csaf_providers or in csaf_publishers"),
    metadata_url: z.string().describe("Its provider-metadata.json: what POST …/csaf/providers takes to follow it"),
    editeur: z.string(),
    namespace: z.string(),
    categorie: z.string().describe("The publisher's category (vendor, coordinator, …)"),
    role: z.string().nullable(),
    derniere_maj: z.string().nullable().describe("When the aggregator last read its metadata"),
    miroirs: z.array(z.string()).describe("The aggregator's mirrors of its metadata"),
    suivi: z.uuid().nullable().describe("The organization's provider when it follows it already"),
  })
  .meta({ id: "CsafAggregatedProviderOut" });

export const CsafAggregatorOut = z
  .object({
    url: z.string().describe("The aggregator.json read"),
    nom: z.string(),
    namespace: z.string(),
    categorie: z.string().describe("aggregator (mirrors) or lister (lists only)"),
    derniere_maj: z.string().nullable(),
    fournisseurs: z.array(CsafAggregatedProviderOut),
  })
  .meta({ id: "CsafAggregatorOut" });

export type CsafAggregatorOut = z.infer<typeof CsafAggregatorOut>;

export const CsafProviderParams = OrgParams.extend({ provider_id: z.uuid() });
export const CsafAdvisoryParams = OrgParams.extend({ advisory_id: z.uuid() });

export const CsafRefusal = z
  .object({
    url: z.string().describe("The document's address as the provider lists it"),
    raison: z
      .string()
      .describe("Why it was not kept: wrong hash, bad signature, key unknown to the provider, HTTP status, schema, TLP, lower version…"),
    at: z.iso.datetime(),
  })
  .meta({ id: "CsafRefusal" });

export const CsafProviderOut = z
  .object({
    id: z.uuid(),
    fournisseur: z.string().describe("As the organization gave it"),
    metadata_url: z.string().nullable().describe("The provider-metadata.json found (null before the first discovery)"),
    decouvert_par: z.string().nullable().describe("url, well-known, security.txt or dns"),
    editeur: z.string().nullable().describe("The metadata's publisher name"),
    namespace: z.string().nullable(),
    role: z.string().nullable().describe("csaf_publisher, csaf_provider or csaf_trusted_provider"),
    cles: z
      .array(z.object({ fingerprint: z.string(), url: z.string() }))
      .describe("The OpenPGP keys read and checked against their fingerprints"),
    identifiants: z
      .enum(["basic", "entete"])
      .nullable()
      .describe("The kind of credentials given for TLP:GREEN/AMBER documents (never the credentials themselves), null when none"),
    statut: z.enum(["nouveau", "a_jour", "en_echec"]),
    derniere_tentative: z.iso.datetime().nullable(),
    dernier_succes: z.iso.datetime().nullable(),
    derniere_erreur: z.string().nullable(),
    dernier_document: z.iso.datetime().nullable().describe("The newest current_release_date of the advisories kept"),
    documents: z.int().describe("Advisories kept"),
    refus: z.int().describe("Documents refused (the latest reason per address)"),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "CsafProviderOut" });
export type CsafProviderOut = z.infer<typeof CsafProviderOut>;

export const CsafProviderDetailOut = CsafProviderOut.extend({
  refus_recents: z.array(CsafRefusal).describe("The 100 latest refusals"),
}).meta({ id: "CsafProviderDetailOut" });

export const CsafFeedProviderOut = CsafProviderOut.extend({
  org_id: z.uuid().describe("The organization that follows the provider"),
  refus_recents: z.array(CsafRefusal).describe("The 20 latest refusals (GET …/csaf/providers/{provider_id} lists 100)"),
}).meta({ id: "CsafFeedProviderOut" });
export type CsafFeedProviderOut = z.infer<typeof CsafFeedProviderOut>;

export const CsafProviderListOut = z.object({ items: z.array(CsafProviderOut) }).meta({ id: "CsafProviderListOut" });

export const CsafSyncOut = z
  .object({
    provider_id: z.uuid(),
    status: z.enum(["synced", "failed", "busy"]).describe("busy: another process is syncing this provider"),
    appliquees: z.int().describe("Documents kept (new, or a newer version)"),
    inchangees: z.int(),
    refusees: z.array(z.object({ url: z.string(), raison: z.string() })),
    alertes: z.int().describe("Alerts raised by the vendor's known_affected statements"),
    propositions: z.int().describe("VEX proposals made from the vendor's known_not_affected statements"),
    error: z.string().optional(),
  })
  .meta({ id: "CsafSyncOut" });

export const CsafCreatedOut = z.object({ fournisseur: CsafProviderOut, synchronisation: CsafSyncOut }).meta({ id: "CsafCreatedOut" });

export const CsafAdvisoryListQuery = z.object({
  provider_id: z.uuid().optional().describe("Only this provider's"),
  cve: z
    .string()
    .regex(/^CVE-\d{4}-\d{4,}$/i)
    .optional()
    .describe("Only the advisories naming this CVE"),
  q: z.string().trim().min(1).max(200).optional().describe("Words of the tracking id or title"),
  ...PAGING,
});
export type CsafAdvisoryListQuery = z.output<typeof CsafAdvisoryListQuery>;

const Remediation = z.object({
  category: z.string().describe("vendor_fix, workaround, mitigation, none_available, no_fix_planned"),
  details: z.string(),
  url: z.string().nullable(),
  date: z.string().nullable(),
  product_ids: z.array(z.string()),
});

export const CsafVulnerabilityOut = z
  .object({
    cve: z.string().nullable(),
    ids: z.array(z.object({ system_name: z.string(), text: z.string() })),
    title: z.string().nullable(),
    cwe: z.object({ id: z.string(), name: z.string() }).nullable(),
    description: z.string().nullable(),
    scores: z.array(
      z.object({
        version: z.string(),
        vector: z.string(),
        base_score: z.number(),
        base_severity: z.string().nullable(),
        product_ids: z.array(z.string()),
      }),
    ),
    statuses: z
      .record(z.string(), z.array(z.string()))
      .describe("known_affected, fixed, first_fixed, known_not_affected, recommended, under_investigation… → product ids"),
    remediations: z.array(Remediation),
    threats: z.array(z.object({ category: z.string(), details: z.string(), product_ids: z.array(z.string()) })),
    flags: z.array(z.object({ label: z.string(), product_ids: z.array(z.string()) })),
  })
  .meta({ id: "CsafVulnerabilityOut" });

export const CsafProductOut = z
  .object({
    product_id: z.string(),
    name: z.string(),
    vendor: z.string().nullable(),
    product_name: z.string().nullable(),
    version: z.string().nullable(),
    version_range: z.string().nullable(),
    purl: z.string().nullable(),
    cpe: z.string().nullable(),
    helper: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe("The whole product_identification_helper (hashes, model numbers, SBOM URLs…)"),
    relationship: z.object({ category: z.string(), component: z.string(), of: z.string() }).nullable(),
  })
  .meta({ id: "CsafProductOut" });

export const CsafAdvisoryOut = z
  .object({
    id: z.uuid(),
    provider_id: z.uuid(),
    tracking_id: z.string(),
    version: z.string(),
    tracking_status: z.string(),
    category: z.string().describe("csaf_security_advisory, csaf_vex, csaf_base…"),
    title: z.string(),
    editeur: z.string(),
    tlp: z.string().nullable(),
    initial_release_date: z.iso.datetime().nullable(),
    current_release_date: z.iso.datetime(),
    url: z.string(),
    sha256: z.string(),
    cves: z.array(z.string()),
    revision_history: z.array(z.object({ number: z.string(), date: z.string(), summary: z.string() })),
    versions_remplacees: z
      .array(
        z.object({
          version: z.string(),
          current_release_date: z.string(),
          sha256: z.string(),
          replaced_at: z.string(),
          par_version: z.string().optional().describe("The version that replaced it"),
          changements: z
            .object({
              cves_ajoutees: z.array(z.string()),
              cves_retirees: z.array(z.string()),
              statuts: z
                .array(z.object({ cve: z.string(), produit: z.string(), de: z.string().nullable(), a: z.string().nullable() }))
                .describe("Each (vulnerability, product name) whose status changed; null: not named in that version"),
              statuts_tronques: z.boolean().describe("More changed statuses than the 200 kept"),
            })
            .optional()
            .describe("What the replacing version changed (absent for versions replaced before Vigie compared them)"),
        }),
      )
      .describe("The versions Vigie kept before this one, oldest first, each with what the next version changed"),
  })
  .meta({ id: "CsafAdvisoryOut" });
export type CsafAdvisoryOut = z.infer<typeof CsafAdvisoryOut>;

export const CsafAdvisoryDetailOut = CsafAdvisoryOut.extend({
  products: z.array(CsafProductOut),
  vulnerabilities: z.array(CsafVulnerabilityOut),
}).meta({ id: "CsafAdvisoryDetailOut" });
export type CsafAdvisoryDetailOut = z.infer<typeof CsafAdvisoryDetailOut>;

export const CsafAdvisoryListOut = pageOf(CsafAdvisoryOut, "CsafAdvisoryListOut");

import { route, type RouteDef } from "../../platform/http/route.js";
import { OrgParams } from "../organizations/organizations.schemas.js";
import { presentAdvisory, presentAdvisoryDetail, presentAggregator, presentProvider } from "./csaf.presenter.js";
import {
  CsafAdvisoryDetailOut, CsafAdvisoryListOut, CsafAggregatorOut, CsafAggregatorQuery, CsafCredentialsIn, CsafAdvisoryListQuery, CsafAdvisoryParams, CsafCreatedOut, CsafProviderDetailOut, CsafProviderIn, CsafProviderListOut, CsafProviderParams, CsafSyncOut,
} from "./csaf.schemas.js";
import type { CsafService } from "./csaf.service.js";

const BASE = "/api/v1/organizations/:org_id/csaf";
const TAGS = ["csaf"];
/** Following a provider changes what the organization's projects are alerted for: the stacks' scope. */
const WRITE = "stacks-write";
const RESTRICTED = "the key is restricted to projects: following a provider changes the whole organization";

/** The CSAF providers an organization follows, and the vendors' advisories read from them. */
export function csafRoutes(service: CsafService): RouteDef[] {
  return [
    route({
      operationId: "addCsafProvider",
      errors: { 403: RESTRICTED, 409: "the organization already follows this provider (fournisseur_deja_suivi)" },
      method: "POST", url: `${BASE}/providers`, auth: "both", org: true, scope: WRITE, tags: TAGS, status: 201,
      summary: "Follow a CSAF provider by its domain or its provider-metadata.json address; it is synced at once",
      description:
        "Discovery as CSAF 2.0 section 7 says (/.well-known/csaf/provider-metadata.json, then security.txt's CSAF: field, then csaf.data.security.<domain>); the metadata's OpenPGP keys are fetched and checked against their fingerprints; " +
        "each TLP:WHITE/CLEAR document of its ROLIE feeds or directories (changes.csv, else index.txt) is kept only when its SHA-512/256 hash and detached signature hold. " +
        "A failed discovery or sync is not an error of this request: the provider is created with statut en_echec and derniere_erreur says why.",
      params: OrgParams, body: CsafProviderIn,
      responses: { 201: CsafCreatedOut },
      handler: async ({ org, body }) => {
        const r = await service.add(org, body.fournisseur);
        return { fournisseur: presentProvider(r.provider), synchronisation: r.outcome };
      },
    }),
    route({
      operationId: "readCsafAggregator",
      errors: { 403: RESTRICTED },
      method: "GET", url: `${BASE}/aggregator`, auth: "both", org: true, scope: WRITE, tags: TAGS,
      summary: "The providers and publishers a CSAF aggregator lists, to pick one to follow",
      description:
        "Reads the aggregator.json (CSAF 2.0 section 7.1.21) at the address given, or at <domain>/.well-known/csaf-aggregator/aggregator.json, through the outbound address guard; " +
        "lists its csaf_providers and csaf_publishers with their provider-metadata.json address (follow one with POST …/csaf/providers) and whether the organization follows it already. " +
        "Nothing is stored. An aggregator that cannot be read is a 422 on agregateur saying why.",
      params: OrgParams, query: CsafAggregatorQuery,
      responses: { 200: CsafAggregatorOut },
      handler: async ({ org, query }) => {
        const r = await service.aggregator(org, query.agregateur);
        return presentAggregator(r.url, r.list, r.followed);
      },
    }),
    route({
      operationId: "listCsafProviders",
      method: "GET", url: `${BASE}/providers`, auth: "both", org: true, tags: TAGS, summary: "The CSAF providers the organization follows, with their sync state",
      params: OrgParams,
      responses: { 200: CsafProviderListOut },
      handler: async ({ org }) => ({ items: (await service.list(org)).map(presentProvider) }),
    }),
    route({
      operationId: "getCsafProvider",
      method: "GET", url: `${BASE}/providers/:provider_id`, auth: "both", org: true, tags: TAGS, summary: "One CSAF provider: its state and the documents it refused, with the reasons",
      params: CsafProviderParams,
      responses: { 200: CsafProviderDetailOut },
      handler: async ({ org, params }) => {
        const r = await service.get(org, params.provider_id);
        return { ...presentProvider(r.provider), refus_recents: r.refusals.map((x) => ({ ...x, at: new Date(x.at).toISOString() })) };
      },
    }),
    route({
      operationId: "syncCsafProvider",
      errors: { 403: RESTRICTED },
      method: "POST", url: `${BASE}/providers/:provider_id/sync`, auth: "both", org: true, scope: WRITE, tags: TAGS,
      summary: "Sync a CSAF provider now (conditional requests: an unchanged listing costs a 304)",
      params: CsafProviderParams,
      responses: { 200: CsafSyncOut },
      handler: async ({ org, params }) => service.syncNow(org, params.provider_id),
    }),
    route({
      operationId: "setCsafProviderCredentials",
      errors: { 403: RESTRICTED },
      method: "PUT", url: `${BASE}/providers/:provider_id/identifiants`, auth: "both", org: true, scope: WRITE, tags: TAGS, status: 204,
      summary: "Give a CSAF provider credentials for its TLP:GREEN and TLP:AMBER documents",
      description:
        "HTTP basic (utilisateur, mot_de_passe) or a header the provider names (nom, valeur). Stored encrypted like webhook secrets, never returned nor logged, " +
        "sent only to the provider-metadata's origin; with them, the sync reads the TLP:GREEN and TLP:AMBER feeds and keeps documents so labelled (never TLP:RED).",
      params: CsafProviderParams, body: CsafCredentialsIn,
      responses: { 204: null },
      handler: async ({ org, params, body }) => {
        await service.setCredentials(org, params.provider_id, body);
        return null;
      },
    }),
    route({
      operationId: "deleteCsafProviderCredentials",
      errors: { 403: RESTRICTED },
      method: "DELETE", url: `${BASE}/providers/:provider_id/identifiants`, auth: "both", org: true, scope: WRITE, tags: TAGS, status: 204,
      summary: "Take back a CSAF provider's credentials: only its TLP:WHITE/CLEAR documents are read again",
      params: CsafProviderParams,
      responses: { 204: null },
      handler: async ({ org, params }) => {
        await service.setCredentials(org, params.provider_id, null);
        return null;
      },
    }),
    route({
      operationId: "deleteCsafProvider",
      errors: { 403: RESTRICTED },
      method: "DELETE", url: `${BASE}/providers/:provider_id`, auth: "both", org: true, scope: WRITE, tags: TAGS, status: 204,
      summary: "Stop following a CSAF provider: its advisories and refusals are deleted (the alerts and proposals they made stay)",
      params: CsafProviderParams,
      responses: { 204: null },
      handler: async ({ org, params }) => {
        await service.remove(org, params.provider_id);
        return null;
      },
    }),
    route({
      operationId: "listCsafAdvisories",
      method: "GET", url: `${BASE}/advisories`, auth: "both", org: true, tags: TAGS, summary: "The vendors' advisories kept from the organization's providers, newest release first",
      description: "Filter by provider, by CVE (the vendor advisories of a CVE) or by words of the tracking id or title.",
      params: OrgParams, query: CsafAdvisoryListQuery,
      responses: { 200: CsafAdvisoryListOut },
      handler: async ({ org, query }) => {
        const r = await service.advisories(org, query);
        return { items: r.rows.map(presentAdvisory), total: r.total, page: query.page, page_size: query.page_size };
      },
    }),
    route({
      operationId: "getCsafAdvisory",
      method: "GET", url: `${BASE}/advisories/:advisory_id`, auth: "both", org: true, tags: TAGS,
      summary: "One vendor advisory: its flattened product tree (identification helpers) and vulnerabilities (statuses, remediations, scores, CWE)",
      params: CsafAdvisoryParams,
      responses: { 200: CsafAdvisoryDetailOut },
      handler: async ({ org, params }) => presentAdvisoryDetail(await service.advisory(org, params.advisory_id)),
    }),
  ];
}

import { z } from "zod";
import { route, type RouteDef } from "../../platform/http/route.js";
import { presentCveDetail, presentCveList, presentProductSuggestion } from "./cves.presenter.js";
import { CveDetailOut, CveListOut, CveListQuery, CveParams, CvePocListOut, ProductSuggestion, ProductSuggestQuery } from "./cves.schemas.js";
import type { CvesService } from "./cves.service.js";

/** GET /api/v1/cves, GET /api/v1/cves/{cve_id} and the corpus's products: reads, no scope needed. */
export function cvesRoutes(service: CvesService): RouteDef[] {
  return [
    route({
      operationId: "listCves",
      method: "GET", url: "/api/v1/cves", auth: "both", tags: ["cves"],
      summary: "Search CVEs (merged from CVE List, NVD, EPSS, KEV, PoC, advisories)",
      query: CveListQuery,
      responses: { 200: CveListOut },
      handler: async ({ query }) => presentCveList(await service.list(query), query),
    }),
    route({
      operationId: "getCve",
      method: "GET", url: "/api/v1/cves/:cve_id", auth: "both", tags: ["cves"],
      summary: "One CVE with every merged field; an alias (GHSA-…) resolves to its CVE",
      params: CveParams,
      responses: { 200: CveDetailOut },
      handler: async ({ params }) => {
        const { cve, affected, referencedBy } = await service.get(params.cve_id);
        return presentCveDetail(cve, affected, referencedBy);
      },
    }),
    route({
      operationId: "listCvePocs",
      method: "GET", url: "/api/v1/cves/:cve_id/pocs", auth: "both", tags: ["cves"],
      summary: "The CVE's proofs of concept (the URLs poc_count counts), with their sources and GitHub stars where known",
      params: CveParams,
      responses: { 200: CvePocListOut },
      handler: async ({ params }) => {
        const { cve_id, items } = await service.pocs(params.cve_id);
        return { cve_id, total: items.length, items };
      },
    }),
    route({
      operationId: "suggestProducts",
      method: "GET", url: "/api/v1/products", auth: "both", tags: ["cves"],
      summary: "Products the corpus names, from the start of a vendor or product name: suggestions for stack items",
      query: ProductSuggestQuery,
      responses: { 200: z.array(ProductSuggestion) },
      handler: async ({ query }) => (await service.suggestProducts(query)).map(presentProductSuggestion),
    }),
  ];
}

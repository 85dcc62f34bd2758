import { route, type RouteDef } from "../../platform/http/route.js";
import { presentCveDetail, presentCveList } from "./cves.presenter.js";
import { CveDetailOut, CveListOut, CveListQuery, CveParams } from "./cves.schemas.js";
import type { CvesService } from "./cves.service.js";

/** GET /api/v1/cves and GET /api/v1/cves/{cve_id}: reads, no scope needed. */
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
        const { cve, affected } = await service.get(params.cve_id);
        return presentCveDetail(cve, affected);
      },
    }),
  ];
}

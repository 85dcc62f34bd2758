import { z } from "zod";
import { route, type RouteDef } from "../../platform/http/route.js";
import { presentCveDetail, presentCveListItem } from "./cves.presenter.js";
import { CveDetailOut, CveListOut, CveListQuery } from "./cves.schemas.js";
import type { CvesService } from "./cves.service.js";

/** GET /api/v1/cves and GET /api/v1/cves/{cve_id}: reads, no scope needed. */
export function cvesRoutes(service: CvesService): RouteDef[] {
  return [
    route({
      operationId: "listCves",
      method: "GET", url: "/api/v1/cves", auth: "apiKey", tags: ["cves"],
      summary: "Search CVEs (merged from CVE List, NVD, EPSS, KEV, PoC, advisories)",
      query: CveListQuery,
      responses: { 200: CveListOut },
      handler: async ({ query }) => {
        const { rows, total } = await service.list(query);
        return { items: rows.map(presentCveListItem), total, page: query.page, page_size: query.page_size };
      },
    }),
    route({
      operationId: "getCve",
      method: "GET", url: "/api/v1/cves/:cve_id", auth: "apiKey", tags: ["cves"],
      summary: "One CVE with every merged field; an alias (GHSA-…) resolves to its CVE",
      params: z.object({ cve_id: z.string().min(1).max(100) }),
      responses: { 200: CveDetailOut },
      handler: async ({ params }) => {
        const { cve, affected } = await service.get(params.cve_id);
        return presentCveDetail(cve, affected);
      },
    }),
  ];
}

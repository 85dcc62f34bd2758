import { z } from "zod";
import { route, type RouteDef } from "../../platform/http/route.js";
import { presentPublicVuln } from "./vulnerabilities.presenter.js";
import { PublicVulnListOut, PublicVulnOut, VulnListQuery } from "./vulnerabilities.schemas.js";
import type { VulnerabilitiesService } from "./vulnerabilities.service.js";

/** GET /api/v1/vulnerabilities and GET /api/v1/vulnerabilities/{id}. */
export function vulnerabilitiesRoutes(service: VulnerabilitiesService): RouteDef[] {
  return [
    route({
      operationId: "listVulnerabilities",
      method: "GET", url: "/api/v1/vulnerabilities", auth: "both", tags: ["vulnerabilities"],
      summary: "Public advisories (GHSA, GO, PYSEC, RUSTSEC, CERT-FR), newest first",
      query: VulnListQuery,
      responses: { 200: PublicVulnListOut },
      handler: async ({ query }) => {
        const { rows, total } = await service.list(query);
        return { items: rows.map(presentPublicVuln), total, page: query.page, page_size: query.page_size };
      },
    }),
    route({
      operationId: "getVulnerability",
      method: "GET", url: "/api/v1/vulnerabilities/:id", auth: "both", tags: ["vulnerabilities"],
      summary: "One public advisory",
      params: z.object({ id: z.string().min(1).max(100) }),
      responses: { 200: PublicVulnOut },
      handler: async ({ params }) => presentPublicVuln(await service.get(params.id)),
    }),
  ];
}

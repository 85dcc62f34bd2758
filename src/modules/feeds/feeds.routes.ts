import type { FeedsService } from "../../feeds/feeds.service.js";
import { route, type RouteDef } from "../../platform/http/route.js";
import type { CsafService } from "../csaf/csaf.service.js";
import { presentFeedProvider } from "../csaf/csaf.presenter.js";
import { presentFeedSource } from "./feeds.presenter.js";
import { FeedStatusOut } from "./feeds.schemas.js";

/**
 * GET /api/v1/feeds: the sync state of every source (not an organization's data: any API key), and
 * the CSAF providers of the caller's organizations (`fournisseurs_csaf`, a field older clients ignore).
 */
export function feedsRoutes(service: FeedsService, csaf: CsafService): RouteDef[] {
  return [
    route({
      operationId: "listFeeds",
      method: "GET", url: "/api/v1/feeds", auth: "both", tags: ["feeds"],
      summary: "Each source's sync: addresses and checkpoints, last success, last error, lag behind the publisher, next run",
      description:
        "The sources Vigie keeps current from their publishers (docs/feeds.md). A source failing for more than a day is flagged stale; its error says why. " +
        "fournisseurs_csaf: the CSAF providers the caller's organizations follow, their state, newest document and what was refused and why (docs/csaf-providers.md).",
      responses: { 200: FeedStatusOut },
      handler: async ({ auth }) => {
        const orgIds = auth.kind === "apiKey" ? [auth.orgId] : [...auth.roles.keys()];
        const [status, snapshots, providers] = await Promise.all([service.status(), service.snapshots(), csaf.forFeeds(orgIds)]);
        return {
          sources: status.map((s) => presentFeedSource(s, snapshots.get(s.source))),
          sync_scheduled: service.syncScheduled,
          fournisseurs_csaf: providers.map((p) => presentFeedProvider(p.provider, p.refusals)),
        };
      },
    }),
  ];
}

import type { FeedsService } from "../../feeds/feeds.service.js";
import { route, type RouteDef } from "../../platform/http/route.js";
import { presentFeedSource } from "./feeds.presenter.js";
import { FeedStatusOut } from "./feeds.schemas.js";

/** GET /api/v1/feeds: the sync state of every source (not an organization's data: any API key). */
export function feedsRoutes(service: FeedsService): RouteDef[] {
  return [
    route({
      operationId: "listFeeds",
      method: "GET", url: "/api/v1/feeds", auth: "both", tags: ["feeds"],
      summary: "Each source's sync: addresses and checkpoints, last success, last error, lag behind the publisher, next run",
      description:
        "The sources Vigie keeps current from their publishers (docs/feeds.md). A source failing for more than a day is flagged stale; its error says why.",
      responses: { 200: FeedStatusOut },
      handler: async () => {
        const [status, snapshots] = await Promise.all([service.status(), service.snapshots()]);
        return { sources: status.map((s) => presentFeedSource(s, snapshots.get(s.source))), sync_scheduled: service.syncScheduled };
      },
    }),
  ];
}

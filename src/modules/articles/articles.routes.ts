import { route, type RouteDef } from "../../platform/http/route.js";
import { presentArticle } from "./articles.presenter.js";
import { ArticleListOut, ArticleListQuery } from "./articles.schemas.js";
import type { ArticlesService } from "./articles.service.js";

/** GET /api/v1/articles. */
export function articlesRoutes(service: ArticlesService): RouteDef[] {
  return [
    route({
      operationId: "listArticles",
      method: "GET", url: "/api/v1/articles", auth: "both", tags: ["articles"],
      summary: "Security news (RSS/Atom), newest first",
      query: ArticleListQuery,
      responses: { 200: ArticleListOut },
      handler: async ({ query }) => {
        const { rows, total } = await service.list(query);
        return { items: rows.map(presentArticle), total, page: query.page, page_size: query.page_size };
      },
    }),
  ];
}

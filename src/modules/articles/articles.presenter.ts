import type { ArticleRow } from "./articles.repository.js";
import type { ArticleOut } from "./articles.schemas.js";

export function presentArticle(a: ArticleRow): ArticleOut {
  return {
    id: a.id,
    title: a.title,
    description: a.description,
    published_at: a.publishedAt?.toISOString() ?? null,
    source: a.source,
    author: a.author,
    url: a.url,
    image_url: a.imageUrl,
  };
}

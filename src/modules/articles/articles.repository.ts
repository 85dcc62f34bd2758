import { and, desc, eq, sql, type SQL } from "drizzle-orm";
import type { Executor } from "../../platform/db/client.js";
import { likeContains } from "../../platform/db/sql.js";
import { articles } from "../../platform/db/schema/index.js";
import type { ArticleListQuery } from "./articles.schemas.js";

export type ArticleRow = typeof articles.$inferSelect;

/** SQL of security news articles. */
export const articlesRepository = {
  async list(ex: Executor, q: ArticleListQuery): Promise<{ rows: ArticleRow[]; total: number }> {
    const where: SQL[] = [];
    if (q.source) where.push(eq(articles.source, q.source));
    if (q.cve_id) where.push(sql`${articles.cveIds} @> array[${q.cve_id.toUpperCase()}]::text[]`);
    if (q.q) {
      const like = likeContains(q.q);
      where.push(sql`(${articles.title} ilike ${like} or ${articles.description} ilike ${like})`);
    }
    const cond = where.length ? and(...where) : undefined;
    const [rows, total] = await Promise.all([
      ex
        .select()
        .from(articles)
        .where(cond)
        .orderBy(sql`${articles.publishedAt} desc nulls last`, desc(articles.id))
        .limit(q.page_size)
        .offset((q.page - 1) * q.page_size),
      ex.$count(articles, cond),
    ]);
    return { rows, total };
  },
};

import type { Db } from "../../platform/db/client.js";
import { articlesRepository as repo } from "./articles.repository.js";
import type { ArticleListQuery } from "./articles.schemas.js";

/** Security news, newest first. */
export class ArticlesService {
  constructor(private readonly db: Db) {}

  list(q: ArticleListQuery) {
    return repo.list(this.db, q);
  }
}

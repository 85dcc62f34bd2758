import type { Db } from "../../platform/db/client.js";
import { articlesRepository as repo } from "./articles.repository.js";
import type { ArticleListQueryT } from "./articles.schemas.js";

/** Security news, newest first. */
export class ArticlesService {
  constructor(private readonly db: Db) {}

  list(q: ArticleListQueryT) {
    return repo.list(this.db, q);
  }
}

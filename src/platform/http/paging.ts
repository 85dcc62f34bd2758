import { z } from "zod";

/** Highest page number a list accepts: past it a 422 (`less_than_equal`), never an offset PostgreSQL cannot hold. */
export const MAX_PAGE = 100_000;

/** The paging query parameters of every list: `page` 1 to 100000, `page_size` 1 to 100 (default 20). */
export const PAGING = {
  page: z.int().min(1).max(MAX_PAGE).default(1),
  page_size: z.int().min(1).max(100).default(20),
};

/** A page of items: `{items, total, page, page_size}`, named `id` in OpenAPI. */
export function pageOf<T extends z.ZodType>(item: T, id: string) {
  return z.object({ items: z.array(item), total: z.int(), page: z.int(), page_size: z.int() }).meta({ id });
}

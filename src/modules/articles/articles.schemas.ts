import { z } from "zod";
import { pageOf, PAGING } from "../../platform/http/paging.js";

export const ArticleOut = z
  .object({
    id: z.uuid(),
    title: z.string(),
    description: z.string().nullable(),
    published_at: z.iso.datetime().nullable(),
    source: z.string().nullable(),
    author: z.string().nullable(),
    url: z.string(),
    image_url: z.string().nullable(),
  })
  .meta({ id: "ArticleOut" });

export const ArticleListOut = pageOf(ArticleOut, "ArticleListOut");

export const ArticleListQuery = z.object({
  q: z.string().min(1).max(200).optional().describe("Words of the title or description"),
  source: z.string().min(1).max(200).optional(),
  cve_id: z
    .string()
    .regex(/^CVE-\d{4}-\d{4,}$/i)
    .optional()
    .describe("Articles mentioning this CVE"),
  ...PAGING,
});

export type ArticleListQuery = z.output<typeof ArticleListQuery>;
export type ArticleOut = z.infer<typeof ArticleOut>;

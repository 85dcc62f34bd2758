import { z } from "zod";
import { EOL_NOTICE_KINDS, EOL_NOTICE_STAGES } from "../../platform/db/schema/eol.js";
import { pageOf, PAGING } from "../../platform/http/paging.js";
import { ProjectParams } from "../projects/projects.schemas.js";

/** Upstream's type: a date (YYYY-MM-DD), a boolean, or nothing. */
const DateOrBool = z.union([z.string(), z.boolean()]).nullable();
const DAYS = z.int().min(0).max(3650);

/** Default warning periods of a subscription (days before the date). */
export const EOL_DEFAULT_DAYS = { eol: 90, support: 30 } as const;

export const EolCycleOut = z
  .object({
    cycle: z.string(),
    release_date: z.string().nullable(),
    eol: DateOrBool.describe("End of life: its date, or true (reached, date unknown) / false (not planned)"),
    lts: DateOrBool.describe("Long-term support: true, or the date the cycle became LTS"),
    support: DateOrBool.describe("End of active support (upstream's support / eoas)"),
    latest: z.string().nullable(),
    link: z.string().nullable(),
    extended_support: DateOrBool.describe("End of extended support (upstream's extendedSupport / eoes)"),
    latest_release_date: z.string().nullable(),
  })
  .meta({ id: "EolCycleOut" });

export const EolProductOut = z
  .object({ id: z.string(), name: z.string(), description: z.string().nullable(), category: z.string().nullable() })
  .meta({ id: "EolProductOut" });

export const EolProductDetailOut = EolProductOut.extend({
  identifiers: z.array(z.record(z.string(), z.string())).describe("Upstream's identifiers: {purl}, {cpe} or {repology}"),
  cycles: z.array(EolCycleOut).describe("Every cycle, newest first: by release date (latest first, none last), then by cycle version"),
}).meta({ id: "EolProductDetailOut" });

export const EolProductListOut = pageOf(EolProductOut, "EolProductListOut");

export const EolProductListQuery = z.object({
  q: z.string().min(1).max(200).optional().describe("Part of the product's id or name (case-insensitive)"),
  category: z.string().min(1).max(100).optional().describe("Exact category (os, lang, framework, server-app, db…)"),
  ...PAGING,
});

export const EolProductParams = z.object({ product_id: z.string().min(1).max(200) });

export const EolSubIn = z
  .object({
    product_id: z.string().min(1).max(200).describe("An endoflife.date product id (GET /api/v1/eol/products)"),
    cycle: z.string().min(1).max(100).nullable().default(null).describe("One of the product's cycles; null: every cycle"),
    notify_before_eol_days: DAYS.nullable()
      .default(EOL_DEFAULT_DAYS.eol)
      .describe("eol.approaching this many days before the end of life (default 90; null: no warning, only eol.reached)"),
    notify_before_support_days: DAYS.nullable()
      .default(EOL_DEFAULT_DAYS.support)
      .describe("eol.approaching this many days before the end of active support (default 30; null: no warning)"),
  })
  .meta({ id: "EolSubIn" });

export const EolSubOut = z
  .object({
    id: z.uuid(),
    product_id: z.string(),
    cycle: z.string().nullable(),
    notify_before_eol_days: z.int().nullable(),
    notify_before_support_days: z.int().nullable(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "EolSubOut" });

export const EolFromStackOut = z
  .object({
    created: z.array(EolSubOut).describe("Subscriptions this call created (default warning periods)"),
    existing: z.array(EolSubOut).describe("The project's subscriptions to those cycles that were already there"),
  })
  .meta({ id: "EolFromStackOut" });

export const EolSubParams = ProjectParams.extend({ subscription_id: z.uuid() });

export const EolNoticeOut = z
  .object({
    id: z.int(),
    subscription_id: z.uuid(),
    product_id: z.string(),
    cycle: z.string(),
    kind: z.enum(EOL_NOTICE_KINDS).describe("eol: end of life; support: end of active support"),
    stage: z
      .enum(EOL_NOTICE_STAGES)
      .describe("approaching: within the warning period (eol.approaching); reached: the date has come (eol.reached)"),
    due_on: z.iso.date(),
    days_left: z.int().describe("Days from the notice's Paris day to due_on (0 or less once reached)"),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "EolNoticeOut" });

export const EolNoticeListOut = pageOf(EolNoticeOut, "EolNoticeListOut");
export const EolNoticeListQuery = z.object({ ...PAGING });

/** What a stack item's view says of the endoflife.date cycle its CPE or purl and version fall in. */
export const StackItemEol = z
  .object({
    product_id: z.string(),
    product_name: z.string(),
    cycle: z.string(),
    release_date: z.string().nullable(),
    eol: DateOrBool,
    lts: DateOrBool,
    support: DateOrBool,
    extended_support: DateOrBool,
    latest: z.string().nullable(),
    link: z.string().nullable(),
  })
  .meta({ id: "StackItemEolOut" });

export const EolPastDueItem = z
  .object({
    product_id: z.string(),
    product_name: z.string(),
    cycle: z.string(),
    eol: z.iso.date().nullable().describe("The end-of-life day; null when endoflife.date says the cycle is over without a date"),
    link: z.string().nullable(),
    subscribed: z.boolean().describe("A subscription of the project names this cycle"),
    stack_items: z.int().describe("The project's stack items running this cycle (CPE, purl or vendor:product with a version)"),
  })
  .meta({ id: "EolPastDueItemOut" });

export const EolPastDueOut = z
  .object({
    today: z.iso.date().describe("The Paris calendar day the end of life was compared with"),
    items: z.array(EolPastDueItem).describe("Cycles whose end of life has come, the oldest end first (undated ones first)"),
  })
  .meta({ id: "EolPastDueOut" });

export type EolPastDueItem = z.output<typeof EolPastDueItem>;
export type EolProductListQuery = z.output<typeof EolProductListQuery>;
export type EolSubIn = z.output<typeof EolSubIn>;
export type EolSubOut = z.output<typeof EolSubOut>;
export type EolCycleOut = z.output<typeof EolCycleOut>;
export type StackItemEol = z.output<typeof StackItemEol>;
export type EolNoticeListQuery = z.output<typeof EolNoticeListQuery>;

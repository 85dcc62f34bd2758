import { z } from "zod";
import { STACK_ITEM_TYPES } from "../../platform/db/schema/alerting.js";
import { ProjectParams } from "../projects/projects.schemas.js";
import { TagBrief } from "../tags/tags.schemas.js";

export const MIN_SEVERITIES = ["critical", "high", "medium", "low"] as const;

const ITEM_TYPE = z.enum(STACK_ITEM_TYPES).describe(
  "cpe (CPE 2.3, version * or concrete), product (vendor:product[@version]), vendor, purl (pkg:type/name@version), keyword (words of the description), cve (a CVE id or alias)",
);
const MIN_SEVERITY = z.enum(MIN_SEVERITIES).nullable().describe("Only CVEs of this severity or above alert (an unscored CVE alerts once scored)");

export const StackItem = z.object({
  id: z.uuid(),
  item_type: z.string(),
  value: z.string(),
  min_severity: z.string().nullable().optional(),
  tags: z.array(TagBrief).default([]),
  created_at: z.iso.datetime(),
}).meta({ id: "StackItemOut" });

export const Stack = z.object({
  id: z.uuid(),
  name: z.string(),
  project_id: z.uuid().nullable(),
  items: z.array(StackItem),
}).meta({ id: "StackOut" });

export const StackItemIn = z.object({
  item_type: ITEM_TYPE,
  value: z.string().min(1).max(500),
  min_severity: MIN_SEVERITY.optional(),
  tag_ids: z.array(z.uuid()).max(50).default([]),
}).meta({ id: "StackItemIn" });

export const StackItemUpdateIn = z.object({
  item_type: ITEM_TYPE.optional(),
  value: z.string().min(1).max(500).optional(),
  min_severity: MIN_SEVERITY.optional(),
  tag_ids: z.array(z.uuid()).max(50).optional(),
}).meta({ id: "StackItemUpdateIn" });

export const StackIn = z.object({
  name: z.string().trim().min(1).max(100),
  items: z.array(StackItemIn).max(1000).default([]),
}).meta({ id: "StackIn" });

export const StackUpdateIn = z.object({ name: z.string().trim().min(1).max(100) }).meta({ id: "StackUpdateIn" });

const RAISED = z.int().describe("Alerts raised on the stored CVEs by what was added (see the project's alert_backfill setting)");
/** A stack or an item just created, with the alerts it raised. */
export const StackCreated = Stack.extend({ alertes_creees: RAISED }).meta({ id: "StackCreatedOut" });
export const StackItemCreated = StackItem.extend({ alertes_creees: RAISED }).meta({ id: "StackItemCreatedOut" });

export const StackParams = ProjectParams.extend({ stack_id: z.uuid() });
export const StackItemParams = StackParams.extend({ item_id: z.uuid() });

export type StackItemInT = z.output<typeof StackItemIn>;
export type StackItemUpdateInT = z.output<typeof StackItemUpdateIn>;
export type StackInT = z.output<typeof StackIn>;

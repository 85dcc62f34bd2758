import { z } from "zod";
import { ProjectParams } from "../projects/projects.schemas.js";

export const TagBrief = z.object({ id: z.uuid(), name: z.string(), color: z.string() }).meta({ id: "TagBrief" });

const COLOR = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/)
  .describe("#rrggbb");

export const TagIn = z
  .object({
    name: z.string().trim().min(1).max(50),
    color: COLOR.default("#6b7280"),
  })
  .meta({ id: "TagIn" });

export const TagUpdateIn = z
  .object({
    name: z.string().trim().min(1).max(50).optional(),
    color: COLOR.optional(),
  })
  .meta({ id: "TagUpdateIn" });

/** Attach a tag (to an alert or a stack item). */
export const TagRefIn = z.object({ tag_id: z.uuid() }).meta({ id: "TagRefIn" });

export const TagParams = ProjectParams.extend({ tag_id: z.uuid() });

export type TagBrief = z.infer<typeof TagBrief>;
export type TagIn = z.output<typeof TagIn>;
export type TagUpdateIn = z.output<typeof TagUpdateIn>;

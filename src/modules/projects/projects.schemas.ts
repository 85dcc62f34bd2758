import { z } from "zod";

export const ProjectItem = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    org_id: z.uuid().nullable(),
    is_default: z.boolean(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "ProjectItem" });

export const ProjectIn = z
  .object({
    name: z.string().describe("1 to 200 characters once trimmed, unique in the organization"),
    description: z.string().max(2000).nullable().optional(),
  })
  .meta({ id: "ProjectIn" });

export const ProjectParams = z.object({ org_id: z.uuid(), project_id: z.uuid() });

export type ProjectItem = z.infer<typeof ProjectItem>;

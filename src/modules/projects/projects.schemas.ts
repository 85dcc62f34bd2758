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

export const ProjectParams = z.object({ org_id: z.uuid(), project_id: z.uuid() });

export type ProjectItem = z.infer<typeof ProjectItem>;

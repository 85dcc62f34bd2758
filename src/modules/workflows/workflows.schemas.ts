import { z } from "zod";
import { Graph, ShortAction, ShortTrigger } from "../../engine/graph.js";

export const WorkflowItem = z
  .object({
    id: z.uuid(),
    name: z.string(),
    is_enabled: z.boolean(),
    is_default: z.boolean(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "WorkflowItem" });

export const Workflow = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    is_enabled: z.boolean(),
    is_default: z.boolean(),
    family: z.string(),
    version: z.int().min(1),
    graph: Graph,
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "Workflow" });

const Name = z.string().min(1).max(100);
const Description = z.string().max(2000).nullish();
const Forms = {
  graph: Graph.nullish().describe("Graph form; exclusive with trigger/actions/create_case"),
  trigger: ShortTrigger.nullish().describe("Short form: the trigger and its conditions"),
  actions: z.array(ShortAction).max(50).nullish().describe("Short form: actions run in order"),
  create_case: z.boolean().default(true).describe("Short form: open a case first (default true)"),
};

export const WorkflowEcritureIn = z
  .object({
    name: Name,
    description: Description,
    family: z.string().min(1).max(50).nullish().describe('Defaults to "alerting"'),
    ...Forms,
  })
  .meta({ id: "WorkflowEcritureIn" });

export const WorkflowMiseAJourIn = z
  .object({
    name: Name.optional(),
    description: Description,
    family: z.string().min(1).max(50).nullish(),
    // A PostgreSQL integer: past it a 422, not an out-of-range error from the database (a 500).
    version: z.int().min(1).max(2147483647).describe("The version read; a stale one gets 409 version_perimee"),
    ...Forms,
    create_case: z.boolean().optional(),
  })
  .meta({ id: "WorkflowMiseAJourIn" });

export const WorkflowActivationIn = z.object({ enabled: z.boolean() }).meta({ id: "WorkflowActivationIn" });

export const WorkflowParams = z.object({ org_id: z.uuid(), project_id: z.uuid(), workflow_id: z.uuid() });
export const IdempotencyHeaders = z.object({ "idempotency-key": z.string().min(1).max(255) });

// Naming rule, everywhere: a schema and its type share one name. The type is what validation
// returns — z.output, which z.infer is — so defaults and transforms are applied in it; nothing
// here types the raw input (z.input).
export type Workflow = z.infer<typeof Workflow>;
export type WorkflowItem = z.infer<typeof WorkflowItem>;
export type WorkflowEcritureIn = z.output<typeof WorkflowEcritureIn>;
export type WorkflowMiseAJourIn = z.output<typeof WorkflowMiseAJourIn>;

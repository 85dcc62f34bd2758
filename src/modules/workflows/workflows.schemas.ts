import { z } from "zod";
import { Graph, ShortAction, ShortTrigger } from "../../engine/graph.js";
import { RUN_STATUSES } from "../../platform/db/schema/index.js";

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

export const Run = z
  .object({
    id: z.uuid(),
    workflow_id: z.uuid(),
    trigger_event: z.string(),
    cve_id: z.string().nullable(),
    status: z.enum(RUN_STATUSES),
    started_at: z.iso.datetime(),
    finished_at: z.iso.datetime().nullable(),
  })
  .meta({ id: "WorkflowRun" });

export const DryRunIn = z
  .object({
    // Read as the service reads it: trimmed, any case (cve-2024-3400 is CVE-2024-3400).
    cve_id: z
      .string()
      .max(64)
      .regex(/^\s*[Cc][Vv][Ee]-\d{4}-\d{4,}\s*$/)
      .describe("CVE id, e.g. CVE-2024-3400 (case and surrounding spaces ignored)"),
  })
  .meta({ id: "WorkflowDryRunIn" });

export const DryRunOut = Run.extend({
  cve_connue: z.boolean().describe("false when Vigie holds no data for this CVE: fields were evaluated as empty"),
  avertissement: z.string().nullable(),
  noeuds: z.array(
    z.object({
      id: z.string(),
      type: z.enum(["trigger", "condition", "action"]),
      resultat: z.enum(["declenche", "non_declenche", "vrai", "faux", "serait_executee", "non_atteint"]),
      detail: z.string(),
      regles: z
        .array(
          z.object({
            field: z.string(),
            op: z.string(),
            value: z.unknown().optional(),
            valeur_observee: z.unknown(),
            resultat: z.boolean(),
          }),
        )
        .optional(),
      action: z.string().optional(),
      params: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
}).meta({ id: "WorkflowDryRunOut" });

// MCP placeholder (get_run) until the engine's run detail is merged: take the engine branch's version.
export const RunDetail = Run.extend({
  report: z.unknown().nullable().describe("What each node did (or would have done, for a dry run)"),
}).meta({ id: "WorkflowRunDetail" });
export type RunDetail = z.infer<typeof RunDetail>;

export const WorkflowParams = z.object({ org_id: z.uuid(), project_id: z.uuid(), workflow_id: z.uuid() });
export const RunsQuery = z.object({ limit: z.int().min(1).max(200).default(50) });
export const IdempotencyHeaders = z.object({ "idempotency-key": z.string().min(1).max(255) });

// Naming rule, everywhere: a schema and its type share one name. The type is what validation
// returns — z.output, which z.infer is — so defaults and transforms are applied in it; nothing
// here types the raw input (z.input).
export type Workflow = z.infer<typeof Workflow>;
export type WorkflowItem = z.infer<typeof WorkflowItem>;
export type Run = z.infer<typeof Run>;
export type WorkflowEcritureIn = z.output<typeof WorkflowEcritureIn>;
export type WorkflowMiseAJourIn = z.output<typeof WorkflowMiseAJourIn>;

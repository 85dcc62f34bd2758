import { z } from "zod";
import { RUN_STATUSES } from "../../platform/db/schema/index.js";

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
      resume: z
        .object({ every: z.enum(["hourly", "daily", "weekly"]), prochain_envoi: z.iso.datetime() })
        .optional()
        .describe(
          "A notify action whose delivery is a digest: the event would join its next digest, sent at prochain_envoi (GET …/digest-preview shows it)",
        ),
    }),
  ),
}).meta({ id: "WorkflowDryRunOut" });

export const RunsQuery = z.object({ limit: z.int().min(1).max(200).default(50) });

export const WorkflowRunStep = z
  .object({
    node: z.string().describe("The graph node"),
    type: z.enum(["trigger", "condition", "action"]),
    action: z.string().nullable().describe("The action of an action node"),
    outcome: z
      .enum(["declenche", "non_declenche", "vrai", "faux", "succes", "echec", "non_atteint"])
      .describe("What the node did: trigger fired or not, condition true or false, action done or failed, node not reached"),
    detail: z.string(),
    started_at: z.iso.datetime(),
    duration_ms: z.int().min(0),
    error: z.string().nullable(),
    sent: z.record(z.string(), z.unknown()).nullable().describe("What the action sent, secrets masked"),
    attempt: z.int().min(1).describe("The attempt of the run that recorded the step (a run resumed after its lease expired has several)"),
  })
  .meta({ id: "WorkflowRunStep" });

export const WorkflowRunDetailOut = Run.extend({
  event_id: z.int().nullable().describe("The outbox event that caused the run; null for a dry run"),
  attempts: z.int().min(0).describe("How many times a worker took the run"),
  erreur: z.string().nullable().describe("Why the engine failed or throttled the run; null otherwise"),
  steps: z.array(WorkflowRunStep).describe("One per node, in graph order; empty while nothing ran, for a throttled run and for a dry run"),
}).meta({ id: "WorkflowRunDetailOut" });

export const RunParams = z.object({ org_id: z.uuid(), project_id: z.uuid(), workflow_id: z.uuid(), run_id: z.uuid() });

export type Run = z.infer<typeof Run>;
export type WorkflowRunStep = z.infer<typeof WorkflowRunStep>;
export type WorkflowRunDetailOut = z.infer<typeof WorkflowRunDetailOut>;

export const NotificationSettingsOut = z
  .object({
    language: z.enum(["fr", "en"]).describe("The language of the project's notifications (e-mail, webhook message, Slack, Teams)"),
  })
  .meta({ id: "NotificationSettingsOut" });

export const NotificationSettingsIn = z
  .object({ language: z.enum(["fr", "en"]).optional().describe("fr (default) or en") })
  .meta({ id: "NotificationSettingsIn" });

export type NotificationSettingsOut = z.infer<typeof NotificationSettingsOut>;
export type NotificationSettingsIn = z.output<typeof NotificationSettingsIn>;

import type { components } from "../../api/schema";
import { FIELDS, type FieldType, OPERATORS_BY_TYPE, SEVERITIES } from "../../../../src/engine/fields.js";

// The fields, their types, the operators per type and the severity scale are the engine's own
// (src/engine/fields.ts, free of dependencies); the rest is checked against the generated types.
export { FIELDS, type FieldType, OPERATORS_BY_TYPE, SEVERITIES };

// The workflow vocabulary as the OpenAPI document states it (src/engine/vocabulary.ts on the
// server). Each list is checked against the generated types: a word added on the server and not
// here, or removed there and kept here, fails `tsc` (see `exhaustive`).

type S = components["schemas"];
export type ApiGraph = S["WorkflowGraph"];
export type ApiNode = ApiGraph["nodes"][number];
export type TriggerNode = S["WorkflowTriggerNode"];
export type ConditionNode = S["WorkflowConditionNode"];
export type ActionNode = S["WorkflowActionNode"];
export type ApiEdge = S["WorkflowEdge"];
export type EventName = TriggerNode["event"];
export type ActionName = ActionNode["action"];
export type FieldName = S["WorkflowRule"]["field"];
export type Operator = S["WorkflowRule"]["op"];
export type Rule = S["WorkflowRule"];

/** A list holding every member of the union U, and nothing else (checked by tsc). */
function exhaustive<U extends string>() {
  return <const L extends readonly U[]>(list: L & ([U] extends [L[number]] ? unknown : { missing: Exclude<U, L[number]> })) => list;
}

export const EVENTS = exhaustive<EventName>()([
  "cve.new_match",
  "cve.updated",
  "cve.kev_added",
  "cve.poc_published",
  "cve.epss_spike",
  "cve.severity_raised",
  "eol.approaching",
  "eol.reached",
  "url.cert_expiring",
  "url.down",
  "url.recovered",
  "case.exception_expired",
  "case.exception_expiring",
]);

export const ACTIONS = exhaustive<ActionName>()([
  "create_case",
  "add_tag",
  "set_alert_read",
  "generate_report",
  "notify_webhook",
  "notify_email",
  "notify_slack",
  "notify_teams",
]);

/** Which field namespaces an event provides (src/events/catalog.ts). */
export function namespacesOf(event: EventName): string[] {
  const family = event.split(".")[0]!;
  if (family === "cve") return ["cve", "alert", "project"];
  if (family === "case") return ["cve", "case", "project"];
  return [family, "project"];
}

export const REPORT_TYPES = ["rapport_projet", "conformite_kev", "exceptions", "inventaire"] as const;

/** How a parameter is edited. A `secret` is answered masked ("••••1234") and replaced, never shown. */
export type ParamKind =
  | { kind: "text" | "url" | "longtext" }
  | { kind: "secret" }
  | { kind: "number"; min: number; max: number; step?: number }
  | { kind: "boolean" }
  | { kind: "select"; options: readonly string[] }
  | { kind: "list" };
export type ParamSpec = ParamKind & { name: string; required?: boolean };

export const ACTION_PARAMS: Record<ActionName, ParamSpec[]> = {
  create_case: [
    { name: "severity", kind: "select", options: SEVERITIES },
    { name: "notes", kind: "longtext" },
  ],
  add_tag: [{ name: "tag", kind: "text", required: true }],
  set_alert_read: [{ name: "is_read", kind: "boolean" }],
  generate_report: [
    { name: "report_type", kind: "select", options: REPORT_TYPES },
    { name: "language", kind: "select", options: ["fr", "en"] },
    { name: "days", kind: "number", min: 1, max: 366 },
  ],
  notify_webhook: [
    { name: "url", kind: "url", required: true },
    { name: "secret", kind: "secret" },
  ],
  notify_email: [
    { name: "to", kind: "list", required: true },
    { name: "subject", kind: "text" },
  ],
  notify_slack: [{ name: "webhook_url", kind: "secret", required: true }],
  notify_teams: [{ name: "webhook_url", kind: "secret", required: true }],
};

export const TRIGGER_PARAMS: Partial<Record<EventName, ParamSpec[]>> = {
  "cve.epss_spike": [{ name: "min_delta", kind: "number", min: 0.01, max: 1, step: 0.01 }],
  "eol.approaching": [{ name: "days_before", kind: "number", min: 1, max: 365 }],
  "url.cert_expiring": [{ name: "days_before", kind: "number", min: 1, max: 365 }],
};

/** The masked form the server answers for a secret (src/engine/secret-params.ts). */
export const MASK = "••••";
export const isMasked = (v: unknown): v is string => typeof v === "string" && v.startsWith(MASK);

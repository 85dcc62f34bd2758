/**
 * The workflow vocabulary: trigger events, the fields conditions can test (with their type and
 * the events that provide them), the operators, and the actions. The graph validator and the
 * evaluator both read from here, so a word exists in one place only.
 */
import { EVENT_CATALOG, EVENT_NAMES, type EventName, type PayloadFactField } from "../events/catalog.js";

/** Trigger events: the catalog's (src/events/catalog.ts), where each has its payload schema and facts. */
export const EVENTS = EVENT_NAMES;
export type { EventName };

/** Severity scale, lowest first (ordered comparisons use this order). */
export const SEVERITIES = ["unknown", "none", "low", "medium", "high", "critical"] as const;

export type FieldType = "string" | "number" | "boolean" | "string[]" | "severity";

/** Fields a condition may test, by namespace; a namespace is available to some events only. */
export const FIELDS = {
  "cve.id": "string",
  "cve.severity": "severity",
  "cve.cvss_score": "number",
  "cve.epss_score": "number",
  "cve.epss_percentile": "number",
  "cve.is_kev": "boolean",
  "cve.has_poc": "boolean",
  "cve.poc_count": "number",
  "cve.vendor": "string",
  "cve.product": "string",
  "cve.description": "string",
  "cve.cwe_ids": "string[]",
  "cve.maturite_exploit": "string",
  "cve.contournement_disponible": "boolean",
  "cve.age_days": "number",
  "alert.palier": "string",
  "alert.tags": "string[]",
  "eol.product": "string",
  "eol.cycle": "string",
  "eol.days_left": "number",
  "url.url": "string",
  "url.cert_issuer": "string",
  "url.days_left": "number",
  "url.label": "string",
  "url.status": "string",
  "url.http_status": "number",
  "url.consecutive_failures": "number",
  "case.status": "string",
  "case.severity": "severity",
  "project.name": "string",
} as const satisfies Record<string, FieldType>;
export type FieldName = keyof typeof FIELDS;
export const FIELD_NAMES = Object.keys(FIELDS) as [FieldName, ...FieldName[]];

/** Which field namespaces each event provides (the catalog's `namespaces`). */
export const EVENT_NAMESPACES = Object.fromEntries(EVENT_NAMES.map((e) => [e, EVENT_CATALOG[e].namespaces])) as Record<
  EventName,
  readonly string[]
>;

// Every fact an event reads from its payload is a field conditions know (a compile-time check).
const payloadFactsAreFields: [Exclude<PayloadFactField, FieldName>] extends [never] ? true : never = true;
void payloadFactsAreFields;

export const OPERATORS = [
  "eq",
  "ne",
  "gt",
  "gte",
  "lt",
  "lte",
  "in",
  "not_in",
  "contains",
  "not_contains",
  "starts_with",
  "ends_with",
  "matches",
  "exists",
  "not_exists",
] as const;
export type Operator = (typeof OPERATORS)[number];

/** Operators allowed on each field type. */
export const OPERATORS_BY_TYPE: Record<FieldType, readonly Operator[]> = {
  number: ["eq", "ne", "gt", "gte", "lt", "lte", "in", "not_in", "exists", "not_exists"],
  severity: ["eq", "ne", "gt", "gte", "lt", "lte", "in", "not_in", "exists", "not_exists"],
  string: ["eq", "ne", "in", "not_in", "contains", "not_contains", "starts_with", "ends_with", "matches", "exists", "not_exists"],
  boolean: ["eq", "ne", "exists", "not_exists"],
  "string[]": ["contains", "not_contains", "exists", "not_exists"],
};

export const ACTIONS = [
  "create_case",
  "add_tag",
  "set_alert_read",
  "generate_report",
  "notify_webhook",
  "notify_email",
  "notify_slack",
  "notify_teams",
] as const;
export type ActionName = (typeof ACTIONS)[number];

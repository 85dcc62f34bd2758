/**
 * The workflow vocabulary: trigger events, the fields conditions can test (with their type and
 * the events that provide them), the operators, and the actions. The graph validator and the
 * evaluator both read from here, so a word exists in one place only.
 */

export const EVENTS = [
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
] as const;
export type EventName = (typeof EVENTS)[number];

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

const CVE_EVENT_NAMESPACES = ["cve", "alert", "project"];
/** Which field namespaces each event provides. */
export const EVENT_NAMESPACES: Record<EventName, readonly string[]> = {
  "cve.new_match": CVE_EVENT_NAMESPACES,
  "cve.updated": CVE_EVENT_NAMESPACES,
  "cve.kev_added": CVE_EVENT_NAMESPACES,
  "cve.poc_published": CVE_EVENT_NAMESPACES,
  "cve.epss_spike": CVE_EVENT_NAMESPACES,
  "cve.severity_raised": CVE_EVENT_NAMESPACES,
  "eol.approaching": ["eol", "project"],
  "eol.reached": ["eol", "project"],
  "url.cert_expiring": ["url", "project"],
  "url.down": ["url", "project"],
  "url.recovered": ["url", "project"],
  "case.exception_expired": ["case", "cve", "project"],
  "case.exception_expiring": ["case", "cve", "project"],
};

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

/**
 * The words of workflow conditions that depend on nothing: the severity scale, the fields with their
 * types, the operators and which apply to each type. The engine reads them through vocabulary.ts;
 * the web application's workflow editor imports this file itself (it must not pull the event
 * catalog's schemas into the browser).
 */

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
  "alert.rule": "string",
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

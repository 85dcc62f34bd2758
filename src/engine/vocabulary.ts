/**
 * The workflow vocabulary: trigger events, the fields conditions can test (with their type and
 * the events that provide them), the operators, and the actions. The graph validator and the
 * evaluator both read from here, so a word exists in one place only.
 */
import { EVENT_CATALOG, EVENT_NAMES, type EventName, type PayloadFactField } from "../events/catalog.js";
import type { FieldName } from "./fields.js";

// The fields, their types and the operators live in fields.ts (no dependency: the web application's
// workflow editor imports them too); re-exported here, the engine's one vocabulary.
export * from "./fields.js";

/** Trigger events: the catalog's (src/events/catalog.ts), where each has its payload schema and facts. */
export const EVENTS = EVENT_NAMES;
export type { EventName };

/** Which field namespaces each event provides (the catalog's `namespaces`). */
export const EVENT_NAMESPACES = Object.fromEntries(EVENT_NAMES.map((e) => [e, EVENT_CATALOG[e].namespaces])) as Record<
  EventName,
  readonly string[]
>;

// Every fact an event reads from its payload is a field conditions know (a compile-time check).
const payloadFactsAreFields: [Exclude<PayloadFactField, FieldName>] extends [never] ? true : never = true;
void payloadFactsAreFields;

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

import { z } from "zod";
import { REPORT_TYPES } from "../platform/db/schema/reports.js";
import { Delivery } from "./notify/schedule.js";
import { validate, valueError, type Loc, type PydanticError } from "../platform/pydantic/validate.js";
import {
  ACTIONS,
  EVENTS,
  EVENT_NAMESPACES,
  FIELDS,
  FIELD_NAMES,
  OPERATORS,
  OPERATORS_BY_TYPE,
  SEVERITIES,
  type ActionName,
  type EventName,
  type FieldName,
  type Operator,
} from "./vocabulary.js";

// ---------------------------------------------------------------------------------------------
// Schemas (published in OpenAPI): the graph form and the short form of a workflow.
// ---------------------------------------------------------------------------------------------

const NodeId = z.string().min(1).max(64);
const SECRET_PARAMS_DOC =
  "The action's parameters. Secrets (notify_webhook.secret, notify_slack.webhook_url, notify_teams.webhook_url) are stored " +
  'encrypted and answered masked: "••••" and their last 4 characters ("••••" alone under 12 characters). ' +
  "Sending a masked value back keeps the stored secret.";
const Params = z.record(z.string(), z.unknown());

export const Rule = z
  .object({
    field: z.enum(FIELD_NAMES),
    op: z.enum(OPERATORS),
    value: z.unknown().optional(),
  })
  .meta({ id: "WorkflowRule" });

export const TriggerNode = z
  .object({
    id: NodeId,
    type: z.literal("trigger"),
    event: z.enum(EVENTS),
    params: Params.nullish(),
  })
  .meta({ id: "WorkflowTriggerNode" });

export const ConditionNode = z
  .object({
    id: NodeId,
    type: z.literal("condition"),
    match: z.enum(["all", "any"]).default("all"),
    rules: z.array(Rule).min(1).max(50),
  })
  .meta({ id: "WorkflowConditionNode" });

export const ActionNode = z
  .object({
    id: NodeId,
    type: z.literal("action"),
    action: z.enum(ACTIONS),
    params: Params.nullish().describe(SECRET_PARAMS_DOC),
    on_error: z.enum(["continue", "stop"]).default("continue"),
  })
  .meta({ id: "WorkflowActionNode" });

export const GraphNode = z.discriminatedUnion("type", [TriggerNode, ConditionNode, ActionNode]);

export const Edge = z
  .object({
    from: NodeId,
    to: NodeId,
    when: z.enum(["true", "false"]).nullish().describe('Only on edges leaving a condition node; default "true"'),
  })
  .meta({ id: "WorkflowEdge" });

export const Graph = z
  .object({
    nodes: z.array(GraphNode).min(1).max(100),
    edges: z.array(Edge).max(500).default([]),
  })
  .meta({ id: "WorkflowGraph" });

export const ShortTrigger = z
  .object({
    event: z.enum(EVENTS),
    params: Params.nullish(),
    match: z.enum(["all", "any"]).default("all"),
    conditions: z.array(Rule).max(50).nullish(),
  })
  .meta({ id: "WorkflowShortTrigger" });

export const ShortAction = z
  .object({
    type: z.enum(ACTIONS),
    params: Params.nullish().describe(SECRET_PARAMS_DOC),
    on_error: z.enum(["continue", "stop"]).default("continue"),
  })
  .meta({ id: "WorkflowShortAction" });

export type Graph = z.output<typeof Graph>;
export type Rule = z.output<typeof Rule>;
export type ShortTrigger = z.output<typeof ShortTrigger>;
export type ShortAction = z.output<typeof ShortAction>;

/** The stored form: params always an object, `when` only where it means something. */
export interface StoredGraph {
  nodes: (
    | { id: string; type: "trigger"; event: EventName; params: Record<string, unknown> }
    | { id: string; type: "condition"; match: "all" | "any"; rules: { field: FieldName; op: Operator; value?: unknown }[] }
    | { id: string; type: "action"; action: ActionName; params: Record<string, unknown>; on_error: "continue" | "stop" }
  )[];
  edges: { from: string; to: string; when?: "true" | "false" }[];
}

// ---------------------------------------------------------------------------------------------
// Parameters of triggers and actions, validated like the rest of the body.
// ---------------------------------------------------------------------------------------------

/**
 * The triggers that fire only when the event's `days_left` is at most their `days_before` (the
 * evaluator filters at run time), and its default.
 */
export const DAYS_BEFORE_DEFAULTS: Partial<Record<EventName, number>> = { "eol.approaching": 30, "url.cert_expiring": 14 };

const DaysBefore = (d: number) => z.object({ days_before: z.int().min(1).max(365).default(d) });
/** The parameters a trigger event takes (docs/workflows.md's event list is generated from them). */
export const TRIGGER_PARAMS: Partial<Record<EventName, z.ZodObject>> = {
  // At least the rise the EPSS import writes an event for (EPSS_SPIKE_FLOOR, src/matching/matcher.ts).
  "cve.epss_spike": z.object({ min_delta: z.number().min(0.01).max(1).default(0.1) }),
  "eol.approaching": DaysBefore(DAYS_BEFORE_DEFAULTS["eol.approaching"]!),
  "url.cert_expiring": DaysBefore(DAYS_BEFORE_DEFAULTS["url.cert_expiring"]!),
};

/**
 * The parameters of each action (docs/workflows.md's action list is generated from them). A notify
 * action's optional `delivery` (issue 37) sends at once (absent, or mode "immediate") or gathers
 * its events into a digest (docs/digests.md).
 */
export const ACTION_PARAMS: Record<ActionName, z.ZodObject> = {
  create_case: z.object({ severity: z.enum(SEVERITIES).optional(), notes: z.string().max(2000).optional() }),
  add_tag: z.object({ tag: z.string().min(1).max(50) }),
  set_alert_read: z.object({ is_read: z.boolean().default(true) }),
  generate_report: z.object({
    report_type: z.enum(REPORT_TYPES).default("rapport_projet"),
    language: z.enum(["fr", "en"]).default("fr"),
    days: z.int().min(1).max(366).default(30),
  }),
  notify_webhook: z.object({
    url: z.string().min(1).max(2000),
    secret: z.string().min(1).max(200).optional(),
    delivery: Delivery.optional(),
  }),
  notify_email: z.object({
    to: z.array(z.string().min(3).max(254)).min(1).max(20),
    subject: z.string().max(200).optional(),
    delivery: Delivery.optional(),
  }),
  notify_slack: z.object({ webhook_url: z.string().min(1).max(2000), delivery: Delivery.optional() }),
  notify_teams: z.object({ webhook_url: z.string().min(1).max(2000), delivery: Delivery.optional() }),
};

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function checkUrl(url: string, loc: Loc, errors: PydanticError[], httpsOnly: boolean) {
  let ok = false;
  try {
    const u = new URL(url);
    ok = httpsOnly ? u.protocol === "https:" : u.protocol === "https:" || u.protocol === "http:";
  } catch {
    ok = false;
  }
  if (!ok) errors.push(valueError(loc, httpsOnly ? "une URL https:// est attendue" : "une URL http:// ou https:// est attendue", url));
}

function checkParams(
  schema: z.ZodObject | undefined,
  params: Record<string, unknown> | null | undefined,
  loc: Loc,
  errors: PydanticError[],
) {
  if (!schema) return params ?? {};
  return (validate(schema, params ?? {}, loc, errors) as Record<string, unknown> | undefined) ?? {};
}

function checkActionParams(action: ActionName, params: Record<string, unknown> | null | undefined, loc: Loc, errors: PydanticError[]) {
  const before = errors.length;
  const out = checkParams(ACTION_PARAMS[action], params, loc, errors);
  if (errors.length > before) return out;
  if (action === "notify_webhook") checkUrl(out.url as string, [...loc, "url"], errors, false);
  if (action === "notify_slack" || action === "notify_teams") checkUrl(out.webhook_url as string, [...loc, "webhook_url"], errors, true);
  if (action === "notify_email") {
    (out.to as string[]).forEach((to, i) => {
      if (!EMAIL.test(to)) errors.push(valueError([...loc, "to", i], "adresse e-mail invalide", to));
    });
  }
  return out;
}

/** Checks that a rule fits its event, its field's type and its operator. */
function checkRule(rule: Rule, event: EventName | null, loc: Loc, errors: PydanticError[]) {
  const type = FIELDS[rule.field];
  const namespace = rule.field.split(".")[0]!;
  if (event && !EVENT_NAMESPACES[event].includes(namespace)) {
    errors.push(valueError([...loc, "field"], `le champ ${rule.field} n'est pas fourni par l'événement ${event}`, rule.field));
    return;
  }
  if (!OPERATORS_BY_TYPE[type].includes(rule.op)) {
    errors.push(
      valueError(
        [...loc, "op"],
        `l'opérateur ${rule.op} ne s'applique pas au champ ${rule.field} (${type}) ; opérateurs permis : ${OPERATORS_BY_TYPE[type].join(", ")}`,
        rule.op,
      ),
    );
    return;
  }
  const vloc = [...loc, "value"];
  const v = rule.value;
  const scalarOk = (x: unknown): boolean => {
    if (type === "number") return typeof x === "number" && Number.isFinite(x);
    if (type === "boolean") return typeof x === "boolean";
    if (type === "severity") return typeof x === "string" && (SEVERITIES as readonly string[]).includes(x);
    return typeof x === "string";
  };
  const expected =
    type === "severity"
      ? `une sévérité (${SEVERITIES.join(", ")})`
      : type === "number"
        ? "un nombre"
        : type === "boolean"
          ? "un booléen"
          : "une chaîne";
  switch (rule.op) {
    case "exists":
    case "not_exists":
      if (v !== undefined && v !== null) errors.push(valueError(vloc, `l'opérateur ${rule.op} ne prend pas de valeur`, v));
      return;
    case "in":
    case "not_in":
      if (!Array.isArray(v) || v.length === 0 || v.length > 100 || !v.every(scalarOk)) {
        errors.push(valueError(vloc, `une liste non vide (100 au plus) dont chaque élément est ${expected} est attendue`, v));
      }
      return;
    case "contains":
    case "not_contains":
    case "starts_with":
    case "ends_with":
      if (typeof v !== "string" || v.length === 0 || v.length > 500)
        errors.push(valueError(vloc, "une chaîne non vide (500 caractères au plus) est attendue", v));
      return;
    case "matches":
      if (typeof v !== "string" || v.length === 0 || v.length > 200) {
        errors.push(valueError(vloc, "une expression régulière (200 caractères au plus) est attendue", v));
        return;
      }
      try {
        new RegExp(v, "i");
      } catch (err) {
        errors.push(valueError(vloc, `expression régulière invalide : ${(err as Error).message}`, v));
      }
      return;
    default:
      if (!scalarOk(v)) errors.push(valueError(vloc, `${expected} est attendu(e) pour ${rule.field}`, v));
  }
}

function stripNullish<T extends { value?: unknown }>(rule: T): T {
  return rule.value === undefined ? (({ value: _v, ...rest }) => rest as T)(rule) : rule;
}

/**
 * Checks a graph beyond its shape: one trigger without incoming edge, unique ids, edges between
 * existing nodes, no cycle, every node reachable from the trigger, at least one action, rules
 * that fit the event and field types, valid parameters. Errors point at the failing location.
 */
export function checkGraph(graph: Graph, loc: Loc, errors: PydanticError[]): StoredGraph {
  const nodes = graph.nodes;
  const index = new Map<string, number>();
  nodes.forEach((n, i) => {
    if (index.has(n.id)) errors.push(valueError([...loc, "nodes", i, n.type, "id"], `identifiant de nœud en double : ${n.id}`, n.id));
    else index.set(n.id, i);
  });
  const triggers = nodes.map((n, i) => [n, i] as const).filter(([n]) => n.type === "trigger");
  if (triggers.length === 0)
    errors.push(valueError([...loc, "nodes"], "le graphe doit contenir exactement un nœud trigger (aucun trouvé)", graph.nodes));
  triggers
    .slice(1)
    .forEach(([n, i]) => errors.push(valueError([...loc, "nodes", i], "le graphe doit contenir exactement un nœud trigger", n)));
  if (!nodes.some((n) => n.type === "action"))
    errors.push(valueError([...loc, "nodes"], "le graphe doit contenir au moins un nœud action", graph.nodes));
  const trigger = triggers[0]?.[0];
  const event = trigger?.type === "trigger" ? trigger.event : null;

  const seen = new Set<string>();
  const adjacency = new Map<string, { to: string; edge: number }[]>();
  graph.edges.forEach((e, i) => {
    const eloc = [...loc, "edges", i];
    let ok = true;
    if (!index.has(e.from)) {
      errors.push(valueError([...eloc, "from"], `nœud inconnu : ${e.from}`, e.from));
      ok = false;
    }
    if (!index.has(e.to)) {
      errors.push(valueError([...eloc, "to"], `nœud inconnu : ${e.to}`, e.to));
      ok = false;
    }
    if (!ok) return;
    const source = nodes[index.get(e.from)!]!;
    if (nodes[index.get(e.to)!]!.type === "trigger")
      errors.push(valueError([...eloc, "to"], "le nœud trigger ne peut pas avoir d'arête entrante", e.to));
    if (e.when != null && source.type !== "condition")
      errors.push(valueError([...eloc, "when"], "« when » n'est permis que sur une arête issue d'un nœud condition", e.when));
    const key = `${e.from}\u0000${e.to}\u0000${e.when ?? "true"}`;
    if (seen.has(key)) errors.push(valueError(eloc, "arête en double", e));
    seen.add(key);
    adjacency.set(e.from, [...(adjacency.get(e.from) ?? []), { to: e.to, edge: i }]);
  });

  // Cycle detection (iterative DFS, colours: 1 = on the stack, 2 = done).
  const colour = new Map<string, number>();
  for (const start of index.keys()) {
    if (colour.get(start)) continue;
    const stack: { id: string; next: number }[] = [{ id: start, next: 0 }];
    colour.set(start, 1);
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      const out = adjacency.get(top.id) ?? [];
      if (top.next >= out.length) {
        colour.set(top.id, 2);
        stack.pop();
        continue;
      }
      const { to, edge } = out[top.next++]!;
      const c = colour.get(to);
      if (c === 1)
        errors.push(
          valueError([...loc, "edges", edge], `cette arête forme un cycle (${graph.edges[edge]!.from} → ${to})`, graph.edges[edge]),
        );
      else if (!c) {
        colour.set(to, 1);
        stack.push({ id: to, next: 0 });
      }
    }
  }
  if (trigger) {
    const reached = new Set([trigger.id]);
    const queue = [trigger.id];
    while (queue.length)
      for (const { to } of adjacency.get(queue.shift()!) ?? [])
        if (!reached.has(to)) {
          reached.add(to);
          queue.push(to);
        }
    nodes.forEach((n, i) => {
      if (!reached.has(n.id) && index.get(n.id) === i)
        errors.push(valueError([...loc, "nodes", i], `nœud non relié au déclencheur : ${n.id}`, n));
    });
  }

  const stored: StoredGraph = { nodes: [], edges: [] };
  nodes.forEach((n, i) => {
    // Inside a node, locations carry the node type as Pydantic does for a tagged union member.
    const nloc = [...loc, "nodes", i, n.type];
    if (n.type === "trigger") {
      stored.nodes.push({
        id: n.id,
        type: "trigger",
        event: n.event,
        params: checkParams(TRIGGER_PARAMS[n.event], n.params, [...nloc, "params"], errors),
      });
    } else if (n.type === "condition") {
      n.rules.forEach((r, j) => checkRule(r, event, [...nloc, "rules", j], errors));
      stored.nodes.push({ id: n.id, type: "condition", match: n.match, rules: n.rules.map(stripNullish) });
    } else {
      stored.nodes.push({
        id: n.id,
        type: "action",
        action: n.action,
        params: checkActionParams(n.action, n.params, [...nloc, "params"], errors),
        on_error: n.on_error,
      });
    }
  });
  stored.edges = graph.edges.map((e) => {
    const from = nodes[index.get(e.from) ?? -1];
    return from?.type === "condition" ? { from: e.from, to: e.to, when: e.when ?? "true" } : { from: e.from, to: e.to };
  });
  return stored;
}

/**
 * The graph equivalent to the short form: trigger → [condition] → actions in order,
 * with create_case first when asked for and not already listed.
 */
export function shortFormToGraph(
  trigger: ShortTrigger,
  actions: ShortAction[],
  createCase: boolean,
  loc: Loc,
  errors: PydanticError[],
): StoredGraph {
  const event = trigger.event;
  const conditions = trigger.conditions ?? [];
  conditions.forEach((r, j) => checkRule(r, event, [...loc, "trigger", "conditions", j], errors));
  const triggerParams = checkParams(TRIGGER_PARAMS[event], trigger.params, [...loc, "trigger", "params"], errors);
  const steps = actions.map((a, i) => ({
    action: a.type,
    params: checkActionParams(a.type, a.params, [...loc, "actions", i, "params"], errors),
    on_error: a.on_error,
  }));
  if (createCase && !steps.some((s) => s.action === "create_case"))
    steps.unshift({ action: "create_case", params: {}, on_error: "continue" });
  if (steps.length === 0) errors.push(valueError([...loc, "actions"], "au moins une action est requise (ou create_case: true)", actions));

  const graph: StoredGraph = { nodes: [{ id: "trigger", type: "trigger", event, params: triggerParams }], edges: [] };
  let previous = "trigger";
  if (conditions.length) {
    graph.nodes.push({ id: "condition", type: "condition", match: trigger.match, rules: conditions.map(stripNullish) });
    graph.edges.push({ from: "trigger", to: "condition" });
    previous = "condition";
  }
  steps.forEach((s, i) => {
    const id = `action-${i + 1}`;
    graph.nodes.push({ id, type: "action", action: s.action, params: s.params, on_error: s.on_error });
    graph.edges.push(previous === "condition" ? { from: previous, to: id, when: "true" } : { from: previous, to: id });
    previous = id;
  });
  return graph;
}

/**
 * The default workflow of every new project: a new match opens a case when it is verified (a
 * source's versions hold the item's, or the item names no version) and of tier P1 or P2 — exploited
 * or likely to be, or critical. The rest waits in the inbox, to be triaged there (`c` opens its
 * case): a first stack would otherwise open a case per alert, the "non vérifiable" ones included
 * (25 cases for the README's stack on the bundled snapshot, 6 of them « non vérifiable »; now 8), and
 * a case would mean nothing.
 */
export function defaultGraph(): StoredGraph {
  return {
    nodes: [
      { id: "trigger", type: "trigger", event: "cve.new_match", params: {} },
      {
        id: "condition",
        type: "condition",
        match: "all",
        rules: [
          { field: "alert.palier", op: "in", value: ["P1", "P2"] },
          { field: "alert.rule", op: "ne", value: "unversioned" },
        ],
      },
      { id: "action-1", type: "action", action: "create_case", params: {}, on_error: "continue" },
    ],
    edges: [
      { from: "trigger", to: "condition" },
      { from: "condition", to: "action-1", when: "true" },
    ],
  };
}

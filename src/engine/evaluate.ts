import { DAYS_BEFORE_DEFAULTS, type StoredGraph } from "./graph.js";
import { digestDelivery, nextSlot } from "./notify/schedule.js";
import { FIELDS, SEVERITIES, type EventName, type FieldName } from "./vocabulary.js";

/** Values of the fields a condition may test; a field absent from the map is unknown. */
export type Facts = Partial<Record<FieldName, unknown>>;

export type NodeOutcome =
  | "declenche" // trigger fired
  | "non_declenche" // trigger did not fire (another event)
  | "vrai" // condition true
  | "faux" // condition false
  | "serait_executee" // action that would run
  | "non_atteint"; // node not reached

export interface NodeReport {
  id: string;
  type: "trigger" | "condition" | "action";
  resultat: NodeOutcome;
  detail: string;
  /** For conditions: each rule with the value it saw. */
  regles?: { field: string; op: string; value?: unknown; valeur_observee: unknown; resultat: boolean }[];
  /** For actions: what would have been done. */
  action?: string;
  params?: Record<string, unknown>;
  /** For a notify action whose delivery is a digest: which digest the event would join, and when it goes. */
  resume?: { every: "hourly" | "daily" | "weekly"; prochain_envoi: string };
}

const severityRank = (s: unknown) => (typeof s === "string" ? (SEVERITIES as readonly string[]).indexOf(s) : -1);

/** Evaluates one rule; an unknown value satisfies only "not_exists". */
export function evaluateRule(rule: { field: FieldName; op: string; value?: unknown }, facts: Facts): boolean {
  const actual = facts[rule.field];
  const known = actual !== undefined && actual !== null;
  if (rule.op === "exists") return known;
  if (rule.op === "not_exists") return !known;
  if (!known) return false;
  const isSeverity = FIELDS[rule.field] === "severity";
  const cmp = (a: unknown, b: unknown) => (isSeverity ? severityRank(a) - severityRank(b) : (a as number) - (b as number));
  const text = (x: unknown) => String(x).toLowerCase();
  const v = rule.value;
  switch (rule.op) {
    case "eq":
      return typeof actual === "string" && typeof v === "string" ? text(actual) === text(v) : actual === v;
    case "ne":
      return typeof actual === "string" && typeof v === "string" ? text(actual) !== text(v) : actual !== v;
    case "gt":
      return cmp(actual, v) > 0;
    case "gte":
      return cmp(actual, v) >= 0;
    case "lt":
      return cmp(actual, v) < 0;
    case "lte":
      return cmp(actual, v) <= 0;
    case "in":
      return (v as unknown[]).some((x) => (typeof x === "string" ? text(x) === text(actual) : x === actual));
    case "not_in":
      return !(v as unknown[]).some((x) => (typeof x === "string" ? text(x) === text(actual) : x === actual));
    case "contains":
      return Array.isArray(actual) ? actual.some((x) => text(x) === text(v)) : text(actual).includes(text(v));
    case "not_contains":
      return Array.isArray(actual) ? !actual.some((x) => text(x) === text(v)) : !text(actual).includes(text(v));
    case "starts_with":
      return text(actual).startsWith(text(v));
    case "ends_with":
      return text(actual).endsWith(text(v));
    case "matches":
      return new RegExp(v as string, "i").test(String(actual));
    default:
      return false;
  }
}

const DIGEST_EVERY = { hourly: "horaire", daily: "quotidien", weekly: "hebdomadaire" } as const;

const ACTION_LABELS: Record<string, string> = {
  create_case: "ouvrirait un dossier pour la CVE",
  add_tag: "ajouterait une étiquette à l'alerte",
  set_alert_read: "marquerait l'alerte",
  generate_report: "générerait un rapport de preuve",
  notify_webhook: "enverrait un webhook",
  notify_email: "enverrait un e-mail",
  notify_slack: "posterait un message Slack",
  notify_teams: "posterait un message Teams",
};

type GraphNode = StoredGraph["nodes"][number];

/** Which outgoing edges a visited node activates: its `true` edges, its `false` edges, or none. */
export type Pass = "true" | "false" | null;

/**
 * The one traversal of a workflow graph, shared by the dry run (simulate) and the run executor
 * (execute.ts): yields every node in topological order with whether it was reached (the trigger
 * always is; another node when any incoming edge is active); the consumer answers with the edges
 * it activates (`next(pass)`). A generator, so a consumer may await between nodes.
 */
export function* walk(graph: StoredGraph): Generator<{ node: GraphNode; reached: boolean }, void, Pass | undefined> {
  const incoming = new Map<string, number>();
  for (const n of graph.nodes) incoming.set(n.id, 0);
  for (const e of graph.edges) incoming.set(e.to, (incoming.get(e.to) ?? 0) + 1);
  const queue = graph.nodes.filter((n) => incoming.get(n.id) === 0).map((n) => n.id);
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const active = new Set<string>(); // nodes reached
  while (queue.length) {
    const id = queue.shift()!;
    const node = byId.get(id)!;
    const pass = (yield { node, reached: node.type === "trigger" || active.has(id) }) ?? null;
    for (const e of graph.edges) {
      if (e.from !== id) continue;
      if (pass !== null && (e.when ?? "true") === pass) active.add(e.to);
      incoming.set(e.to, incoming.get(e.to)! - 1);
      if (incoming.get(e.to) === 0) queue.push(e.to);
    }
  }
}

/** Whether a trigger fires for this event (and its payload, when the trigger has a threshold), and why. */
export function triggerFires(
  node: Extract<GraphNode, { type: "trigger" }>,
  event: EventName,
  payload?: Record<string, unknown>,
): { fired: boolean; detail: string } {
  if (node.event !== event) return { fired: false, detail: `ce workflow attend ${node.event}, pas ${event}` };
  if (event === "cve.epss_spike" && payload && typeof payload.delta === "number") {
    const min = typeof node.params.min_delta === "number" ? node.params.min_delta : 0.1;
    if (payload.delta < min) return { fired: false, detail: `hausse EPSS de ${payload.delta.toFixed(4)}, sous le seuil min_delta ${min}` };
    return { fired: true, detail: `événement ${event} (hausse EPSS de ${payload.delta.toFixed(4)}, seuil ${min})` };
  }
  // The notice is written from the project's (or URL's) own warning days; a trigger may ask for fewer.
  const before = DAYS_BEFORE_DEFAULTS[event];
  if (before !== undefined && payload && typeof payload.days_left === "number") {
    const max = typeof node.params.days_before === "number" ? node.params.days_before : before;
    const left = payload.days_left;
    if (left > max) return { fired: false, detail: `échéance dans ${left} jour(s), au-delà du seuil days_before ${max}` };
    return { fired: true, detail: `événement ${event} (échéance dans ${left} jour(s), seuil days_before ${max})` };
  }
  return { fired: true, detail: `événement ${event}` };
}

/** A condition node's rules with the values they saw, and whether the node holds. */
export function evaluateCondition(node: Extract<GraphNode, { type: "condition" }>, facts: Facts) {
  const regles = node.rules.map((r) => ({ ...r, valeur_observee: facts[r.field] ?? null, resultat: evaluateRule(r, facts) }));
  const ok = node.match === "all" ? regles.every((r) => r.resultat) : regles.some((r) => r.resultat);
  const detail = `${regles.filter((r) => r.resultat).length}/${regles.length} règle(s) vérifiée(s) (${node.match})`;
  return { ok, regles, detail };
}

/**
 * Walks the graph for one event without performing anything: which nodes fire, which conditions
 * hold with these facts, which actions would run. Nodes are visited in topological order; a node
 * is reached when any incoming edge is active.
 */
export function simulate(graph: StoredGraph, event: EventName, facts: Facts, now: Date = new Date()): NodeReport[] {
  const reports = new Map<string, NodeReport>();
  const it = walk(graph);
  let pass: Pass = null;
  for (let step = it.next(); !step.done; step = it.next(pass)) {
    const { node, reached } = step.value;
    const id = node.id;
    pass = null;
    if (node.type === "trigger") {
      const { fired, detail } = triggerFires(node, event);
      reports.set(id, { id, type: "trigger", resultat: fired ? "declenche" : "non_declenche", detail });
      if (fired) pass = "true";
    } else if (!reached) {
      reports.set(id, { id, type: node.type, resultat: "non_atteint", detail: "non atteint" });
    } else if (node.type === "condition") {
      const { ok, regles, detail } = evaluateCondition(node, facts);
      reports.set(id, { id, type: "condition", resultat: ok ? "vrai" : "faux", detail, regles });
      pass = ok ? "true" : "false";
    } else {
      const digest = node.action.startsWith("notify_") ? digestDelivery(node.params) : null;
      const next = digest && nextSlot(digest, now);
      reports.set(id, {
        id,
        type: "action",
        resultat: "serait_executee",
        detail: digest
          ? `mettrait l'événement dans le prochain résumé ${DIGEST_EVERY[digest.every]} (envoi prévu à ${next!.toISOString()}) au lieu d'envoyer tout de suite`
          : (ACTION_LABELS[node.action] ?? node.action),
        action: node.action,
        params: node.params,
        ...(digest && { resume: { every: digest.every, prochain_envoi: next!.toISOString() } }),
      });
      pass = "true";
    }
  }
  return graph.nodes.map((n) => reports.get(n.id)!);
}

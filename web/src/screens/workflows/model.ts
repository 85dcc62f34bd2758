import type { ActionName, ApiEdge, ApiGraph, ApiNode } from "./catalog";

/** A position on the canvas (not stored by the server: laid out from the graph on each load). */
export interface XY {
  x: number;
  y: number;
}

/** One error of a 422 (FastAPI/Pydantic v2 shape). */
export interface Issue {
  loc: (string | number)[];
  msg: string;
  type?: string;
}

/** Where an issue points: a node (by id, and the parameter path inside it), an edge, the form, or the graph as a whole. */
export type Target =
  | { kind: "node"; nodeId: string; field: string | null }
  | { kind: "edge"; index: number }
  | { kind: "form"; field: string }
  | { kind: "graph" };

const NODE_TYPES = new Set(["trigger", "condition", "action"]);

/**
 * What a 422 location points at in the graph that was sent. Inside a node the server puts the node's
 * type after its index, as Pydantic does for a tagged union (["body","graph","nodes",3,"action","params","url"]);
 * both forms are read. The index is the one of the body sent: `sent` maps it to the node's id.
 */
export function targetOf(loc: Issue["loc"], sent: ApiGraph | null): Target {
  const [where, first, second, index, ...rest] = loc;
  if (where !== "body") return { kind: "graph" };
  if (first === "graph" && second === "nodes" && typeof index === "number" && sent?.nodes[index]) {
    const path = typeof rest[0] === "string" && NODE_TYPES.has(rest[0]) ? rest.slice(1) : rest;
    return { kind: "node", nodeId: sent.nodes[index].id, field: path.length ? path.join(".") : null };
  }
  if (first === "graph" && second === "edges" && typeof index === "number") return { kind: "edge", index };
  if (first === "graph") return { kind: "graph" };
  if (typeof first === "string") return { kind: "form", field: first };
  return { kind: "graph" };
}

/** The issues of a 422 by node id (with their parameter path), plus the others. */
export function issuesByNode(issues: Issue[], sent: ApiGraph | null) {
  const nodes = new Map<string, { field: string | null; msg: string }[]>();
  const others: { target: Target; msg: string }[] = [];
  for (const issue of issues) {
    const target = targetOf(issue.loc, sent);
    if (target.kind === "node") nodes.set(target.nodeId, [...(nodes.get(target.nodeId) ?? []), { field: target.field, msg: issue.msg }]);
    else others.push({ target, msg: issue.msg });
  }
  return { nodes, others };
}

/**
 * Positions for a graph: columns by depth from the trigger (longest path), rows in graph order.
 * Nodes the trigger does not reach go in a last column.
 */
export function layout(graph: ApiGraph): Record<string, XY> {
  const depth = new Map<string, number>();
  const trigger = graph.nodes.find((n) => n.type === "trigger");
  if (trigger) depth.set(trigger.id, 0);
  // Longest path in a DAG by relaxation; bounded by the node count (a cycle stops there).
  for (let round = 0; round < graph.nodes.length; round++) {
    let changed = false;
    for (const e of graph.edges) {
      const d = depth.get(e.from);
      if (d !== undefined && (depth.get(e.to) ?? -1) < d + 1) {
        depth.set(e.to, d + 1);
        changed = true;
      }
    }
    if (!changed) break;
  }
  const last = Math.max(0, ...depth.values()) + 1;
  const rows = new Map<number, number>();
  const out: Record<string, XY> = {};
  for (const n of graph.nodes) {
    const col = depth.get(n.id) ?? last;
    const row = rows.get(col) ?? 0;
    rows.set(col, row + 1);
    out[n.id] = { x: 40 + col * 260, y: 40 + row * 130 };
  }
  return out;
}

/** An id not used yet in the graph: `<base>-<n>`. */
export function freshId(nodes: ApiNode[], base: string): string {
  const used = new Set(nodes.map((n) => n.id));
  let i = 1;
  while (used.has(`${base}-${i}`)) i++;
  return `${base}-${i}`;
}

/** A new node of the palette. */
export function newNode(nodes: ApiNode[], kind: "trigger" | "condition" | ActionName): ApiNode {
  if (kind === "trigger") return { id: freshId(nodes, "trigger"), type: "trigger", event: "cve.new_match", params: {} };
  if (kind === "condition")
    return { id: freshId(nodes, "condition"), type: "condition", match: "all", rules: [{ field: "cve.is_kev", op: "eq", value: true }] };
  return { id: freshId(nodes, kind), type: "action", action: kind, params: {}, on_error: "continue" };
}

/** The graph with an edge added (`when` only from a condition); unchanged if that edge exists. */
export function connect(graph: ApiGraph, from: string, to: string, when: "true" | "false" = "true"): ApiGraph {
  const source = graph.nodes.find((n) => n.id === from);
  if (!source || from === to) return graph;
  const edge: ApiEdge = source.type === "condition" ? { from, to, when } : { from, to };
  if (graph.edges.some((e) => e.from === from && e.to === to && (e.when ?? "true") === (edge.when ?? "true"))) return graph;
  return { ...graph, edges: [...graph.edges, edge] };
}

/** The graph without a node and its edges. */
export function removeNode(graph: ApiGraph, id: string): ApiGraph {
  return { nodes: graph.nodes.filter((n) => n.id !== id), edges: graph.edges.filter((e) => e.from !== id && e.to !== id) };
}

export function edgeKey(e: ApiEdge): string {
  return `${e.from}->${e.to}:${e.when ?? ""}`;
}

/** The graph without the edge of that key. */
export function removeEdge(graph: ApiGraph, key: string): ApiGraph {
  return { ...graph, edges: graph.edges.filter((e) => edgeKey(e) !== key) };
}

/** The graph with one node replaced (same id) or renamed (edges follow). */
export function replaceNode(graph: ApiGraph, id: string, node: ApiNode): ApiGraph {
  const nodes = graph.nodes.map((n) => (n.id === id ? node : n));
  if (node.id === id) return { ...graph, nodes };
  const rename = (x: string) => (x === id ? node.id : x);
  return { nodes, edges: graph.edges.map((e) => ({ ...e, from: rename(e.from), to: rename(e.to) })) };
}

/** A new workflow's graph: a new match opens nothing yet; the user adds the actions. */
export function emptyGraph(): ApiGraph {
  return { nodes: [{ id: "trigger", type: "trigger", event: "cve.new_match", params: {} }], edges: [] };
}

import type { StoredGraph } from "../../engine/graph.js";
import type { WorkflowListRow, WorkflowRow } from "./workflows.repository.js";
import type { WorkflowItem, Workflow } from "./workflows.schemas.js";

/**
 * The graph with its keys in reading order (jsonb stores object keys sorted by length, which
 * would print edges as {"to", "from"}).
 */
export function presentGraph(g: StoredGraph): StoredGraph {
  return {
    nodes: g.nodes.map((n) =>
      n.type === "trigger"
        ? { id: n.id, type: n.type, event: n.event, params: n.params }
        : n.type === "condition"
          ? {
              id: n.id,
              type: n.type,
              match: n.match,
              rules: n.rules.map((r) => ("value" in r ? { field: r.field, op: r.op, value: r.value } : { field: r.field, op: r.op })),
            }
          : { id: n.id, type: n.type, action: n.action, params: n.params, on_error: n.on_error },
    ),
    edges: g.edges.map((e) => (e.when ? { from: e.from, to: e.to, when: e.when } : { from: e.from, to: e.to })),
  };
}

export function presentWorkflow(w: WorkflowRow): Workflow {
  return {
    id: w.id,
    name: w.name,
    description: w.description,
    is_enabled: w.isEnabled,
    is_default: w.isDefault,
    family: w.family,
    version: w.version,
    graph: presentGraph(w.graph as StoredGraph) as Workflow["graph"],
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
  };
}

export function presentWorkflowItem(w: WorkflowListRow): WorkflowItem {
  return {
    id: w.id!,
    name: w.name,
    is_enabled: w.is_enabled,
    is_default: w.is_default,
    created_at: w.created_at.toISOString(),
    updated_at: w.updated_at.toISOString(),
  };
}

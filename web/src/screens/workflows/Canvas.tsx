import "@xyflow/react/dist/style.css";
import {
  Background,
  type Connection,
  Controls,
  type Edge,
  Handle,
  MarkerType,
  type Node,
  type NodeChange,
  type NodeProps,
  Position,
  ReactFlow,
} from "@xyflow/react";
import { useMemo } from "react";
import { useWords } from "../../i18n/i18n";
import type { ApiGraph, ApiNode } from "./catalog";
import { edgeKey, type XY } from "./model";
import { type WorkflowWords, words } from "./words";

export interface NodeIssue {
  field: string | null;
  msg: string;
}

type VigieNodeData = { node: ApiNode; issues: NodeIssue[]; w: WorkflowWords };
type VigieFlowNode = Node<VigieNodeData, "vigie">;

/** What a node says on the canvas and in the list: its kind and its main setting. */
export function nodeSummary(node: ApiNode, w: WorkflowWords): { kind: string; text: string } {
  if (node.type === "trigger") return { kind: w.trigger, text: node.event };
  if (node.type === "condition")
    return { kind: w.condition, text: `${node.rules.length} × ${node.match === "any" ? w.matchAny : w.matchAll}` };
  return { kind: w.action, text: `${w.actions[node.action]} (${node.action})` };
}

function VigieNode({ data, selected }: NodeProps<VigieFlowNode>) {
  const { node, issues, w } = data;
  const { kind, text } = nodeSummary(node, w);
  return (
    <div className={`wf-node wf-node-${node.type}${issues.length ? " wf-node-invalid" : ""}${selected ? " wf-node-selected" : ""}`}>
      {node.type !== "trigger" && <Handle type="target" position={Position.Left} />}
      <div className="wf-node-kind">{kind}</div>
      <div className="wf-node-text">{text}</div>
      <div className="wf-node-id">{node.id}</div>
      {issues.map((i) => (
        <div key={`${i.field}:${i.msg}`} className="wf-node-error">
          {i.field ? `${i.field} : ` : ""}
          {i.msg}
        </div>
      ))}
      {node.type === "condition" ? (
        <>
          <Handle type="source" id="true" position={Position.Right} style={{ top: "35%" }} className="wf-handle-true" />
          <Handle type="source" id="false" position={Position.Right} style={{ top: "75%" }} className="wf-handle-false" />
        </>
      ) : (
        <Handle type="source" position={Position.Right} />
      )}
    </div>
  );
}

const nodeTypes = { vigie: VigieNode };

export interface CanvasProps {
  graph: ApiGraph;
  positions: Record<string, XY>;
  selected: string | null;
  nodeIssues: Map<string, NodeIssue[]>;
  edgeIssues: Set<number>;
  readOnly: boolean;
  onMove(id: string, xy: XY): void;
  onSelect(id: string | null): void;
  onConnect(from: string, to: string, when: "true" | "false"): void;
  onRemoveNode(id: string): void;
  onRemoveEdge(key: string): void;
}

/** The graph drawn with React Flow; the state is the editor's (the Vigie graph), React Flow only draws it. */
export function Canvas(props: CanvasProps) {
  const w = useWords(words);
  const { graph, positions, selected, nodeIssues, edgeIssues, readOnly } = props;
  const nodes = useMemo<VigieFlowNode[]>(
    () =>
      graph.nodes.map((n) => ({
        id: n.id,
        type: "vigie",
        position: positions[n.id] ?? { x: 0, y: 0 },
        selected: n.id === selected,
        deletable: !readOnly,
        ariaLabel: `${nodeSummary(n, w).kind} ${n.id}`,
        data: { node: n, issues: nodeIssues.get(n.id) ?? [], w },
      })),
    [graph.nodes, positions, selected, nodeIssues, readOnly, w],
  );
  const edges = useMemo<Edge[]>(
    () =>
      graph.edges.map((e, i) => {
        const bad = edgeIssues.has(i);
        return {
          id: edgeKey(e),
          source: e.from,
          target: e.to,
          sourceHandle: e.when ?? null,
          deletable: !readOnly,
          label: e.when ? (e.when === "true" ? w.whenTrue : w.whenFalse) : undefined,
          markerEnd: { type: MarkerType.ArrowClosed },
          className: bad ? "wf-edge-invalid" : undefined,
          style: bad ? { stroke: "#b91c1c", strokeWidth: 3 } : undefined,
        };
      }),
    [graph.edges, edgeIssues, readOnly, w],
  );
  const onNodesChange = (changes: NodeChange<VigieFlowNode>[]) => {
    for (const c of changes) {
      if (c.type === "position" && c.position) props.onMove(c.id, c.position);
      else if (c.type === "select") {
        if (c.selected) props.onSelect(c.id);
        else if (c.id === selected) props.onSelect(null);
      } else if (c.type === "remove") props.onRemoveNode(c.id);
    }
  };
  return (
    <div className="wf-canvas">
      <ReactFlow<VigieFlowNode, Edge>
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodesChange={onNodesChange}
        onEdgesChange={(changes) => {
          for (const c of changes) if (c.type === "remove") props.onRemoveEdge(c.id);
        }}
        onConnect={(c: Connection) => props.onConnect(c.source, c.target, c.sourceHandle === "false" ? "false" : "true")}
        nodesDraggable={!readOnly}
        nodesConnectable={!readOnly}
        elementsSelectable
        deleteKeyCode={readOnly ? null : ["Delete", "Backspace"]}
        fitView
        fitViewOptions={{ maxZoom: 1 }}
        minZoom={0.3}
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}

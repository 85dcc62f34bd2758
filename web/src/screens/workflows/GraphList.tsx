import { useId, useState } from "react";
import { useWords } from "../../i18n/i18n";
import type { ApiGraph } from "./catalog";
import { nodeSummary } from "./Canvas";
import { edgeKey } from "./model";
import { words } from "./words";

export interface GraphListProps {
  graph: ApiGraph;
  readOnly: boolean;
  invalidNodes: Set<string>;
  onEdit(id: string): void;
  onRemoveNode(id: string): void;
  onRemoveEdge(key: string): void;
  onConnect(from: string, to: string, when: "true" | "false"): void;
}

/** The canvas without a mouse: the nodes and edges as tables with buttons, and a form to connect two nodes. */
export function GraphList({ graph, readOnly, invalidNodes, onEdit, onRemoveNode, onRemoveEdge, onConnect }: GraphListProps) {
  const w = useWords(words);
  const id = useId();
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [when, setWhen] = useState<"true" | "false">("true");
  const source = graph.nodes.find((n) => n.id === from);
  return (
    <details className="wf-card wf-list">
      <summary>{w.listTitle}</summary>
      <div className="table-wrap">
        <table>
          <caption>{w.nodesCaption}</caption>
          <thead>
            <tr>
              <th scope="col">{w.colNode}</th>
              <th scope="col">{w.colType}</th>
              <th scope="col">{w.colActions}</th>
            </tr>
          </thead>
          <tbody>
            {graph.nodes.map((n) => {
              const { kind, text } = nodeSummary(n, w);
              return (
                <tr key={n.id} className={invalidNodes.has(n.id) ? "wf-row-invalid" : undefined}>
                  <th scope="row">{n.id}</th>
                  <td>
                    {kind} · {text}
                  </td>
                  <td className="wf-row-actions">
                    <button type="button" className="button-secondary" onClick={() => onEdit(n.id)}>
                      {w.edit(n.id)}
                    </button>
                    {!readOnly && (
                      <button type="button" className="button-secondary" onClick={() => onRemoveNode(n.id)}>
                        {w.deleteNode(n.id)}
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <div className="table-wrap">
        <table>
          <caption>{w.edgesCaption}</caption>
          <thead>
            <tr>
              <th scope="col">{w.colFrom}</th>
              <th scope="col">{w.colTo}</th>
              <th scope="col">{w.colWhen}</th>
              <th scope="col">{w.colActions}</th>
            </tr>
          </thead>
          <tbody>
            {graph.edges.length === 0 && (
              <tr>
                <td colSpan={4}>{w.noEdges}</td>
              </tr>
            )}
            {graph.edges.map((e) => (
              <tr key={edgeKey(e)}>
                <td>{e.from}</td>
                <td>{e.to}</td>
                <td>{e.when ? (e.when === "true" ? w.whenTrue : w.whenFalse) : "—"}</td>
                <td>
                  {!readOnly && (
                    <button type="button" className="button-secondary" onClick={() => onRemoveEdge(edgeKey(e))}>
                      {w.deleteEdge(e.from, e.to)}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {!readOnly && (
        <form
          className="wf-inline-form"
          onSubmit={(ev) => {
            ev.preventDefault();
            if (from && to) onConnect(from, to, when);
          }}
        >
          <div className="field">
            <label htmlFor={`${id}-from`}>{w.from}</label>
            <select id={`${id}-from`} value={from} onChange={(e) => setFrom(e.target.value)}>
              <option value="">—</option>
              {graph.nodes.map((n) => (
                <option key={n.id} value={n.id}>
                  {n.id}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={`${id}-to`}>{w.to}</label>
            <select id={`${id}-to`} value={to} onChange={(e) => setTo(e.target.value)}>
              <option value="">—</option>
              {graph.nodes
                .filter((n) => n.type !== "trigger" && n.id !== from)
                .map((n) => (
                  <option key={n.id} value={n.id}>
                    {n.id}
                  </option>
                ))}
            </select>
          </div>
          {source?.type === "condition" && (
            <div className="field">
              <label htmlFor={`${id}-when`}>{w.when}</label>
              <select id={`${id}-when`} value={when} onChange={(e) => setWhen(e.target.value as "true" | "false")}>
                <option value="true">{w.whenTrue}</option>
                <option value="false">{w.whenFalse}</option>
              </select>
            </div>
          )}
          <button type="submit" className="button-secondary" disabled={!from || !to}>
            {w.addEdge}
          </button>
        </form>
      )}
    </details>
  );
}

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useParams } from "@tanstack/react-router";
import { useMemo, useRef, useState } from "react";
import { useI18n, useWords } from "../../i18n/i18n";
import { workflowName } from "../../i18n/server-words";
import { projectRoute } from "../../routes";
import { calls, canWrite, keys, type Scope, type Workflow, WorkflowApiError } from "./api";
import { Canvas, type NodeIssue } from "./Canvas";
import { ACTIONS, type ActionName, type ApiGraph, type ApiNode } from "./catalog";
import { GraphList } from "./GraphList";
import { connect, emptyGraph, type Issue, issuesByNode, layout, newNode, removeEdge, removeNode, replaceNode, type XY } from "./model";
import { NodePanel } from "./NodePanel";
import { DigestPanel } from "./Digests";
import { DryRunPanel, RunsPanel } from "./Runs";
import { words } from "./words";

/** `/p/$projectId/workflows/$workflowId` (`new`: a new workflow): the graph, its nodes' parameters, dry run and runs. */
export function WorkflowEditor() {
  const w = useWords(words);
  const { workflowId } = useParams({ from: "/app/p/$projectId/workflows/$workflowId" });
  const { org, project } = projectRoute.useRouteContext();
  const scope = { orgId: org!.id, projectId: project!.id };
  const isNew = workflowId === "new";
  const one = useQuery({ queryKey: keys.one(scope.projectId, workflowId), queryFn: () => calls.get(scope, workflowId), enabled: !isNew });
  if (isNew) return <Editor key="new" scope={scope} workflow={null} readOnly={!canWrite(org?.role)} reload={() => {}} />;
  if (one.isPending)
    return (
      <p role="status" className="screen">
        {w.loading}
      </p>
    );
  if (one.isError)
    return (
      <section className="screen" aria-labelledby="wf-error-title">
        <h1 id="wf-error-title">{w.title}</h1>
        <p role="alert" className="error">
          {one.error.message}
        </p>
        <Link to="/p/$projectId/workflows" params={{ projectId: scope.projectId }}>
          {w.back}
        </Link>
      </section>
    );
  // A new version read (after a save, or a reload after a 409) starts the editor afresh.
  return (
    <Editor
      key={`${one.data.id}:${one.data.version}`}
      scope={scope}
      workflow={one.data}
      readOnly={!canWrite(org?.role)}
      reload={() => void one.refetch()}
      justSaved={lastSaved?.id === one.data.id && lastSaved.version === one.data.version}
    />
  );
}

interface EditorProps {
  scope: Scope;
  workflow: Workflow | null;
  readOnly: boolean;
  reload(): void;
  justSaved?: boolean;
}

/**
 * The workflow version this page saved last: the editor starts afresh on it (a new key; after a
 * creation, a new route match) and says it was saved. Set before the query data that re-renders.
 */
let lastSaved: { id: string; version: number } | null = null;

function Editor({ scope, workflow, readOnly, reload, justSaved = false }: EditorProps) {
  const w = useWords(words);
  const { lang } = useI18n();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [name, setName] = useState(workflow?.name ?? "");
  const [description, setDescription] = useState(workflow?.description ?? "");
  const [graph, setGraph] = useState<ApiGraph>(() => workflow?.graph ?? emptyGraph());
  const [positions, setPositions] = useState<Record<string, XY>>(() => layout(workflow?.graph ?? emptyGraph()));
  const [selected, setSelected] = useState<string | null>(null);
  // The last 422 and the graph it answered (its node indexes are that graph's).
  const [invalid, setInvalid] = useState<{ issues: Issue[]; sent: ApiGraph } | null>(null);
  const [stale, setStale] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const idempotency = useRef<{ body: string; key: string } | null>(null);

  const mapped = useMemo(() => issuesByNode(invalid?.issues ?? [], invalid?.sent ?? null), [invalid]);
  const edgeIssues = useMemo(() => {
    const out = new Set<number>();
    for (const o of mapped.others) if (o.target.kind === "edge") out.add(o.target.index);
    return out;
  }, [mapped]);
  const nameErrors = mapped.others.filter((o) => o.target.kind === "form" && o.target.field === "name").map((o) => o.msg);
  const trigger = graph.nodes.find((n) => n.type === "trigger");
  const selectedNode = graph.nodes.find((n) => n.id === selected) ?? null;

  const save = useMutation({
    mutationFn: async (sent: ApiGraph) => {
      const body = { name, description: description || null, graph: sent };
      if (!workflow) {
        // One key per body: a retry of the same body is the same creation (200), another body a new one.
        const text = JSON.stringify(body);
        if (idempotency.current?.body !== text) idempotency.current = { body: text, key: crypto.randomUUID() };
        return calls.create(scope, body, idempotency.current.key);
      }
      return calls.update(scope, workflow.id, { ...body, version: workflow.version });
    },
    onMutate: () => {
      setError(null);
      setStale(null);
    },
    onSuccess: async (saved) => {
      setInvalid(null);
      lastSaved = { id: saved.id, version: saved.version };
      queryClient.setQueryData(keys.one(scope.projectId, saved.id), saved);
      await queryClient.invalidateQueries({ queryKey: keys.list(scope.projectId) });
      if (!workflow)
        await navigate({
          to: "/p/$projectId/workflows/$workflowId",
          params: { projectId: scope.projectId, workflowId: saved.id },
          replace: true,
        });
    },
    onError: (err, sent) => {
      if (err instanceof WorkflowApiError && err.status === 422) {
        setInvalid({ issues: err.issues, sent });
        return;
      }
      if (err instanceof WorkflowApiError && err.code === "version_perimee") {
        const current = (err.body as { detail: { current_version?: number } }).detail.current_version;
        setStale(current ?? 0);
        return;
      }
      setError(err.message);
    },
  });

  const place = (): XY => {
    const at = selected ? positions[selected] : undefined;
    const xs = Object.values(positions);
    if (at) return { x: at.x + 260, y: at.y + 20 * xs.filter((p) => p.x === at.x + 260).length };
    return { x: 40 + 260 * Math.max(0, ...xs.map((p) => Math.round((p.x - 40) / 260) + 1)), y: 40 };
  };
  const add = (kind: "trigger" | "condition" | ActionName) => {
    const node = newNode(graph.nodes, kind);
    setPositions({ ...positions, [node.id]: place() });
    setGraph({ ...graph, nodes: [...graph.nodes, node] });
    setSelected(node.id);
  };
  const onRemoveNode = (id: string) => {
    setGraph((g) => removeNode(g, id));
    setSelected((s) => (s === id ? null : s));
  };
  const onConnect = (from: string, to: string, when: "true" | "false") => setGraph((g) => connect(g, from, to, when));
  const onRemoveEdge = (key: string) => setGraph((g) => removeEdge(g, key));
  const onChangeNode = (id: string, node: ApiNode) => setGraph((g) => replaceNode(g, id, node));

  // Edited since read: the dry run evaluates the saved version, not what the canvas shows.
  const dirty = workflow !== null && JSON.stringify(graph) !== JSON.stringify(workflow.graph);
  const allIssues = invalid?.issues.length ?? 0;
  const describe = (o: (typeof mapped.others)[number]) =>
    o.target.kind === "edge" ? w.edgeLabel(o.target.index) : o.target.kind === "form" ? o.target.field : w.graphLevel;

  return (
    <section aria-labelledby="wf-title" className="screen wf-editor">
      <p>
        <Link to="/p/$projectId/workflows" params={{ projectId: scope.projectId }}>
          ← {w.back}
        </Link>
      </p>
      <div className="wf-head">
        <h1 id="wf-title">{workflow ? workflowName(workflow, lang) : w.newTitle}</h1>
        {workflow && <span className="muted">{w.version(workflow.version)}</span>}
      </div>
      {readOnly && <p className="notice">{w.readOnly}</p>}
      <form
        className="wf-meta"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate(graph);
        }}
      >
        <fieldset disabled={readOnly} className="wf-plain wf-meta-fields">
          <div className="field">
            <label htmlFor="wf-name">{w.name}</label>
            <input
              id="wf-name"
              value={name}
              required
              maxLength={100}
              onChange={(e) => setName(e.target.value)}
              {...(nameErrors.length ? { "aria-invalid": true, "aria-describedby": "wf-name-err" } : {})}
            />
            {nameErrors.length > 0 && (
              <span id="wf-name-err" className="wf-field-error">
                {nameErrors.join(" ; ")}
              </span>
            )}
          </div>
          <div className="field wf-grow">
            <label htmlFor="wf-description">{w.description}</label>
            <input id="wf-description" value={description} maxLength={2000} onChange={(e) => setDescription(e.target.value)} />
          </div>
          {!readOnly && (
            <button type="submit" className="button-primary" disabled={save.isPending}>
              {save.isPending ? w.saving : w.save}
            </button>
          )}
        </fieldset>
      </form>
      {(justSaved || save.isSuccess) && !invalid && !save.isPending && (
        <p role="status" className="wf-ok">
          {w.saved}
        </p>
      )}
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {stale !== null && (
        <div role="alert" className="error">
          {w.stale(stale)}{" "}
          <button type="button" className="button-secondary" onClick={reload}>
            {w.reload}
          </button>
        </div>
      )}
      {invalid && allIssues > 0 && (
        <div role="alert" className="error wf-issues">
          <p>{w.invalid(allIssues)}</p>
          <ul>
            {[...mapped.nodes].flatMap(([nodeId, list]) =>
              list.map((i: NodeIssue) => (
                <li key={`${nodeId}:${i.field}:${i.msg}`}>
                  <button type="button" className="wf-link" onClick={() => setSelected(nodeId)}>
                    {w.showNode(nodeId)}
                  </button>{" "}
                  {i.field ? `${i.field} : ` : ""}
                  {i.msg}
                </li>
              )),
            )}
            {mapped.others.map((o) => (
              <li key={`${describe(o)}:${o.msg}`}>
                {describe(o)} : {o.msg}
              </li>
            ))}
          </ul>
        </div>
      )}
      {!readOnly && (
        <fieldset className="wf-palette">
          <legend className="wf-palette-title">{w.palette}</legend>
          {!trigger && (
            <button type="button" className="button-secondary" onClick={() => add("trigger")}>
              + {w.addTrigger}
            </button>
          )}
          <button type="button" className="button-secondary" onClick={() => add("condition")}>
            + {w.addCondition}
          </button>
          {ACTIONS.map((a) => (
            <button key={a} type="button" className="button-secondary" onClick={() => add(a)}>
              + {w.actions[a]} <code className="wf-code">{a}</code>
            </button>
          ))}
        </fieldset>
      )}
      <div className="wf-work">
        <div className="wf-canvas-wrap">
          <p id="wf-canvas-help" className="muted">
            {w.canvasHelp}
          </p>
          <section aria-label={w.canvas} aria-describedby="wf-canvas-help">
            <Canvas
              graph={graph}
              positions={positions}
              selected={selected}
              nodeIssues={mapped.nodes}
              edgeIssues={edgeIssues}
              readOnly={readOnly}
              onMove={(id, xy) => setPositions((p) => ({ ...p, [id]: xy }))}
              onSelect={setSelected}
              onConnect={onConnect}
              onRemoveNode={onRemoveNode}
              onRemoveEdge={onRemoveEdge}
            />
          </section>
        </div>
        {selectedNode ? (
          <NodePanel
            key={selectedNode.id}
            node={selectedNode}
            event={trigger?.type === "trigger" ? trigger.event : null}
            issues={mapped.nodes.get(selectedNode.id) ?? []}
            readOnly={readOnly}
            onChange={(n) => onChangeNode(selectedNode.id, n)}
            onClose={() => setSelected(null)}
          />
        ) : (
          <aside className="wf-panel">
            <p className="muted">{w.panelNone}</p>
          </aside>
        )}
      </div>
      <GraphList
        graph={graph}
        readOnly={readOnly}
        invalidNodes={new Set(mapped.nodes.keys())}
        onEdit={setSelected}
        onRemoveNode={onRemoveNode}
        onRemoveEdge={onRemoveEdge}
        onConnect={onConnect}
      />
      {workflow ? (
        <div className="wf-bottom">
          {dirty && <p className="notice">{w.dryDirty}</p>}
          <DryRunPanel scope={scope} workflowId={workflow.id} readOnly={readOnly} />
          <DigestPanel scope={scope} workflowId={workflow.id} />
          <RunsPanel scope={scope} workflowId={workflow.id} />
        </div>
      ) : (
        <p className="muted">{w.dryNeedsSave}</p>
      )}
    </section>
  );
}

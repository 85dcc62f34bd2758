import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { formatDate } from "../../format";
import { useI18n, useWords } from "../../i18n/i18n";
import { workflowName } from "../../i18n/server-words";
import { projectRoute } from "../../routes";
import { calls, canWrite, keys, WorkflowApiError, type WorkflowItem } from "./api";
import { words } from "./words";

/** `/p/$projectId/workflows`: the project's workflows; enable, disable, delete, create (admin). */
export function WorkflowsList() {
  const w = useWords(words);
  const { lang } = useI18n();
  const { org, project } = projectRoute.useRouteContext();
  const scope = { orgId: org!.id, projectId: project!.id };
  const writer = canWrite(org?.role);
  const queryClient = useQueryClient();
  const [message, setMessage] = useState<{ tone: "ok" | "bad"; text: string } | null>(null);
  const list = useQuery({ queryKey: keys.list(scope.projectId), queryFn: () => calls.list(scope) });

  const toggle = useMutation({
    mutationFn: (wf: WorkflowItem) => calls.setEnabled(scope, wf.id, !wf.is_enabled),
    onSuccess: (wf) => {
      setMessage(null);
      queryClient.setQueryData(keys.one(scope.projectId, wf.id), wf);
      return queryClient.invalidateQueries({ queryKey: keys.list(scope.projectId) });
    },
    onError: (err) => setMessage({ tone: "bad", text: err.message }),
  });
  const remove = useMutation({
    mutationFn: (wf: WorkflowItem) => calls.remove(scope, wf.id),
    onSuccess: (_d, wf) => {
      setMessage({ tone: "ok", text: w.removed(wf.name) });
      queryClient.removeQueries({ queryKey: keys.one(scope.projectId, wf.id) });
      return queryClient.invalidateQueries({ queryKey: keys.list(scope.projectId) });
    },
    onError: (err) => {
      const code = err instanceof WorkflowApiError ? err.code : undefined;
      setMessage({
        tone: "bad",
        text: code === "workflow_par_defaut" ? w.errDefault : code === "dernier_workflow" ? w.errLast : err.message,
      });
    },
  });

  return (
    <section aria-labelledby="workflows-title" className="screen">
      <div className="wf-head">
        <h1 id="workflows-title">{w.title}</h1>
        {writer && (
          <Link
            to="/p/$projectId/workflows/$workflowId"
            params={{ projectId: scope.projectId, workflowId: "new" }}
            className="button-primary wf-link-button"
          >
            {w.create}
          </Link>
        )}
      </div>
      <p className="muted">{w.intro}</p>
      {!writer && <p className="notice">{w.readOnly}</p>}
      {message && (
        <p role={message.tone === "bad" ? "alert" : "status"} className={message.tone === "bad" ? "error" : "wf-ok"}>
          {message.text}
        </p>
      )}
      {list.isPending && <p role="status">{w.loading}</p>}
      {list.isError && (
        <div role="alert" className="error">
          {w.loadError}{" "}
          <button type="button" className="button-secondary" onClick={() => void list.refetch()}>
            {w.retry}
          </button>
        </div>
      )}
      {list.data && list.data.length === 0 && <p>{w.empty}</p>}
      {list.data && list.data.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption>{w.caption}</caption>
            <thead>
              <tr>
                <th scope="col">{w.colName}</th>
                <th scope="col">{w.colState}</th>
                <th scope="col">{w.colUpdated}</th>
                <th scope="col">{w.colActions}</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((wf) => (
                <tr key={wf.id}>
                  <th scope="row">
                    <Link to="/p/$projectId/workflows/$workflowId" params={{ projectId: scope.projectId, workflowId: wf.id }}>
                      {workflowName(wf, lang)}
                    </Link>
                    {wf.is_default && <span className="sub">{w.isDefault}</span>}
                  </th>
                  <td>
                    <span className={`badge badge-${wf.is_enabled ? "ok" : "idle"}`}>{wf.is_enabled ? w.enabled : w.disabled}</span>
                  </td>
                  <td>{formatDate(wf.updated_at, lang)}</td>
                  <td className="wf-row-actions">
                    {writer && (
                      <>
                        <button
                          type="button"
                          className="button-secondary"
                          aria-label={wf.is_enabled ? w.disable(wf.name) : w.enable(wf.name)}
                          disabled={toggle.isPending}
                          onClick={() => toggle.mutate(wf)}
                        >
                          {wf.is_enabled ? w.disable("").trim() : w.enable("").trim()}
                        </button>
                        <button
                          type="button"
                          className="button-secondary"
                          aria-label={w.remove(wf.name)}
                          disabled={remove.isPending}
                          onClick={() => {
                            if (window.confirm(w.confirmRemove(wf.name))) remove.mutate(wf);
                          }}
                        >
                          {w.remove("").trim()}
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

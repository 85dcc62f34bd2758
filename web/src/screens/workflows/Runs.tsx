import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { formatDate } from "../../format";
import { useI18n, useWords } from "../../i18n/i18n";
import { calls, type DryRun, keys, type Scope } from "./api";
import { words } from "./words";

/** POST …/dry-run: what each node would do for a CVE (the saved workflow; nothing executed). */
export function DryRunPanel({ scope, workflowId, readOnly }: { scope: Scope; workflowId: string; readOnly: boolean }) {
  const w = useWords(words);
  const id = useId();
  const queryClient = useQueryClient();
  const [cve, setCve] = useState("");
  const run = useMutation({
    mutationFn: (cveId: string) => calls.dryRun(scope, workflowId, cveId),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.runs(scope.projectId, workflowId) }),
  });
  return (
    <section aria-labelledby={`${id}-title`} className="wf-card">
      <h2 id={`${id}-title`}>{w.dryTitle}</h2>
      <p className="muted">{w.dryIntro}</p>
      <form
        className="wf-inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (cve.trim()) run.mutate(cve.trim());
        }}
      >
        <div className="field">
          <label htmlFor={id}>{w.dryCve}</label>
          <input id={id} value={cve} placeholder="CVE-2024-3400" onChange={(e) => setCve(e.target.value)} disabled={readOnly} />
        </div>
        <button type="submit" className="button-primary" disabled={readOnly || run.isPending || !cve.trim()}>
          {w.dryRun}
        </button>
      </form>
      {run.isError && (
        <p role="alert" className="error">
          {run.error.message}
        </p>
      )}
      {run.data && <DryRunResult result={run.data} />}
    </section>
  );
}

function DryRunResult({ result }: { result: DryRun }) {
  const w = useWords(words);
  return (
    <div role="status" aria-live="polite">
      {!result.cve_connue && <p className="notice">{w.dryUnknown}</p>}
      {result.avertissement && <p className="notice">{result.avertissement}</p>}
      <div className="table-wrap">
        <table>
          <caption>{w.dryCaption(result.cve_id ?? "")}</caption>
          <thead>
            <tr>
              <th scope="col">{w.colNode}</th>
              <th scope="col">{w.colType}</th>
              <th scope="col">{w.colResult}</th>
              <th scope="col">{w.colDetail}</th>
            </tr>
          </thead>
          <tbody>
            {result.noeuds.map((n) => (
              <tr key={n.id}>
                <th scope="row">{n.id}</th>
                <td>{n.action ?? n.type}</td>
                <td>
                  <span className={`badge badge-${tone(n.resultat)}`}>{w.results[n.resultat] ?? n.resultat}</span>
                </td>
                <td className="error-cell">{n.detail}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function tone(result: string): "ok" | "warn" | "bad" | "idle" {
  if (result === "declenche" || result === "vrai" || result === "serait_executee" || result === "succes" || result === "success")
    return "ok";
  if (result === "echec" || result === "failed") return "bad";
  if (result === "partial" || result === "throttled") return "warn";
  return "idle";
}

/** GET …/runs (newest first) and, for the one chosen, GET …/runs/{run_id} with its steps. */
export function RunsPanel({ scope, workflowId }: { scope: Scope; workflowId: string }) {
  const w = useWords(words);
  const { lang } = useI18n();
  const [open, setOpen] = useState<string | null>(null);
  const runs = useQuery({ queryKey: keys.runs(scope.projectId, workflowId), queryFn: () => calls.runs(scope, workflowId) });
  return (
    <section aria-labelledby="wf-runs-title" className="wf-card">
      <h2 id="wf-runs-title">{w.runsTitle}</h2>
      {runs.isPending && <p role="status">{w.loading}</p>}
      {runs.isError && (
        <p role="alert" className="error">
          {w.loadError}
        </p>
      )}
      {runs.data && runs.data.length === 0 && <p>{w.noRuns}</p>}
      {runs.data && runs.data.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption>{w.runsCaption}</caption>
            <thead>
              <tr>
                <th scope="col">{w.colStarted}</th>
                <th scope="col">{w.colEvent}</th>
                <th scope="col">{w.colCve}</th>
                <th scope="col">{w.colStatus}</th>
              </tr>
            </thead>
            <tbody>
              {runs.data.map((r) => {
                const at = formatDate(r.started_at, lang);
                return (
                  <tr key={r.id}>
                    <th scope="row">
                      <button
                        type="button"
                        className="wf-link"
                        aria-expanded={open === r.id}
                        aria-label={w.showSteps(at)}
                        onClick={() => setOpen(open === r.id ? null : r.id)}
                      >
                        {at}
                      </button>
                    </th>
                    <td>{r.trigger_event}</td>
                    <td>{r.cve_id ?? "—"}</td>
                    <td>
                      <span className={`badge badge-${tone(r.status)}`}>
                        {r.finished_at ? (w.statuses[r.status] ?? r.status) : w.running}
                      </span>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {open && <RunSteps scope={scope} workflowId={workflowId} runId={open} />}
    </section>
  );
}

function RunSteps({ scope, workflowId, runId }: { scope: Scope; workflowId: string; runId: string }) {
  const w = useWords(words);
  const { lang } = useI18n();
  const run = useQuery({ queryKey: keys.run(scope.projectId, workflowId, runId), queryFn: () => calls.run(scope, workflowId, runId) });
  if (run.isPending) return <p role="status">{w.loading}</p>;
  if (run.isError)
    return (
      <p role="alert" className="error">
        {run.error.message}
      </p>
    );
  const r = run.data;
  return (
    <div className="wf-steps">
      <h3>{w.steps(formatDate(r.started_at, lang))}</h3>
      {r.erreur && <p className="error">{r.erreur}</p>}
      {r.steps.length === 0 ? (
        <p>{w.noSteps}</p>
      ) : (
        <div className="table-wrap">
          <table>
            <caption>{w.stepsCaption}</caption>
            <thead>
              <tr>
                <th scope="col">{w.colNode}</th>
                <th scope="col">{w.colOutcome}</th>
                <th scope="col">{w.colDetail}</th>
                <th scope="col" className="num">
                  {w.colDuration}
                </th>
                <th scope="col">{w.colError}</th>
              </tr>
            </thead>
            <tbody>
              {r.steps.map((s) => (
                <tr key={`${s.node}:${s.attempt}`}>
                  <th scope="row">
                    {s.node}
                    <span className="sub">{s.action ?? s.type}</span>
                  </th>
                  <td>
                    <span className={`badge badge-${tone(s.outcome)}`}>{w.results[s.outcome] ?? s.outcome}</span>
                  </td>
                  <td className="error-cell">{s.detail}</td>
                  <td className="num">{s.duration_ms} ms</td>
                  <td className="error-cell">{s.error ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

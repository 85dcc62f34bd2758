import type { Step } from "../../engine/execute.js";
import type { RunDetailRow, RunRow } from "./runs.repository.js";
import type { Run, WorkflowRunDetailOut, WorkflowRunStep } from "./runs.schemas.js";

function presentStep(s: Step): WorkflowRunStep {
  return {
    node: s.node,
    type: s.type,
    action: s.action ?? null,
    outcome: s.outcome,
    detail: s.detail,
    started_at: s.started_at,
    duration_ms: s.duration_ms,
    error: s.error ?? null,
    sent: s.sent ?? null,
    attempt: s.attempt ?? 1,
  };
}

/** A run with its steps. A dry run's report (its `noeuds`) is not steps: it shows none. */
export function presentRunDetail(r: RunDetailRow): WorkflowRunDetailOut {
  const report = (r.report ?? {}) as { steps?: Step[]; erreur?: string; raison?: string };
  return {
    id: r.id,
    workflow_id: r.workflow_id,
    trigger_event: r.trigger_event,
    cve_id: r.cve_id,
    status: r.status,
    started_at: r.started_at.toISOString(),
    finished_at: r.finished_at?.toISOString() ?? null,
    event_id: r.event_id,
    attempts: r.attempts,
    erreur: report.erreur ?? report.raison ?? null,
    steps: (report.steps ?? []).map(presentStep),
  };
}

/** A run as the run list shows it. */
export function presentRun(r: RunRow): Run {
  return {
    id: r.id,
    workflow_id: r.workflowId,
    trigger_event: r.triggerEvent,
    cve_id: r.cveId,
    status: r.status,
    started_at: r.startedAt.toISOString(),
    finished_at: r.finishedAt?.toISOString() ?? null,
  };
}

import type { ActionContext, ActionHandlers } from "./actions.js";
import { evaluateCondition, triggerFires, walk, type Facts, type Pass } from "./evaluate.js";
import type { StoredGraph } from "./graph.js";
import type { ActionName, EventName } from "./vocabulary.js";

export type StepOutcome =
  | "declenche" // trigger fired
  | "non_declenche" // trigger did not fire (another event, or under its threshold)
  | "vrai" // condition true
  | "faux" // condition false
  | "succes" // action done
  | "echec" // action failed
  | "non_atteint"; // node not reached (a branch not taken, or the run stopped before it)

/** What one node did in a run: stored in the run's report, shown by GET …/runs/{run_id}. */
export interface Step {
  node: string;
  type: "trigger" | "condition" | "action";
  outcome: StepOutcome;
  detail: string;
  action?: ActionName;
  started_at: string;
  duration_ms: number;
  error?: string | null;
  /** What the action sent (secrets masked by its handler). */
  sent?: Record<string, unknown> | null;
  regles?: { field: string; op: string; value?: unknown; valeur_observee: unknown; resultat: boolean }[];
  /** The attempt of the run that recorded this step (1 unless a lease expired and the run was resumed). */
  attempt?: number;
}

export type ExecutedStatus = "success" | "partial" | "failed";

export interface ExecuteInput {
  graph: StoredGraph;
  event: EventName;
  facts: Facts;
  handlers: ActionHandlers;
  /** The context every action receives; nodeId and deliveryId are set per node. */
  context: Omit<ActionContext, "nodeId" | "deliveryId" | "facts">;
  /**
   * Steps recorded by earlier attempts of this run, by node: they are kept as they are and never
   * done again (an action recorded is never executed twice; a condition keeps the branch it chose).
   */
  done?: ReadonlyMap<string, Step>;
  /** Called with each new step as soon as it is known (the run's store keeps it for its next write). */
  record?: (step: Step) => Promise<void>;
  /**
   * Called before each action is performed: the run's store writes the steps kept so far if an
   * action finished since its last write, so that a resumed run never performs a recorded action
   * again. Steps of triggers and conditions cost no write of their own (they are written with the
   * next action's, or with the run's end).
   */
  checkpoint?: () => Promise<void>;
  /** An action's error that is no outcome of the step (the store's connection lost): rethrown, the step not recorded. */
  abandons?: (err: unknown) => boolean;
  attempt?: number;
  /** Milliseconds clock, for durations (tests may pin it). */
  clock?: () => number;
}

/**
 * The run's status from its steps: `success` when no attempted action failed (including when the
 * conditions led to no action), `partial` when some succeeded and some failed, `failed` when every
 * attempted action failed.
 */
export function statusOf(steps: readonly Step[]): ExecutedStatus {
  const ok = steps.filter((s) => s.outcome === "succes").length;
  const ko = steps.filter((s) => s.outcome === "echec").length;
  if (ko === 0) return "success";
  return ok > 0 ? "partial" : "failed";
}

/** The edges a recorded step activates, and whether it stops the run. */
function passOf(step: Step, onError: "continue" | "stop" | undefined): { pass: Pass; stop: boolean } {
  switch (step.outcome) {
    case "declenche":
    case "vrai":
    case "succes":
      return { pass: "true", stop: false };
    case "faux":
      return { pass: "false", stop: false };
    case "echec":
      return onError === "stop" ? { pass: null, stop: true } : { pass: "true", stop: false };
    default:
      return { pass: null, stop: false };
  }
}

/**
 * Runs a workflow for one event: the same walk as the dry run (evaluate.ts `walk`), but actions
 * are performed through `handlers`, in graph order, one at a time, honouring `on_error`: after a
 * failed `stop` action no further node runs (they are recorded not reached, with the reason). A
 * step already in `done` is kept and not performed again, so a resumed run continues where its
 * previous attempt stopped. Never throws for an action's failure: it becomes an `echec` step.
 */
export async function execute(input: ExecuteInput): Promise<{ steps: Step[]; status: ExecutedStatus }> {
  const clock = input.clock ?? Date.now;
  const attempt = input.attempt ?? 1;
  const steps = new Map<string, Step>();
  let stoppedBy: string | null = null;
  const it = walk(input.graph);
  let pass: Pass = null;
  for (let next = it.next(); !next.done; next = it.next(pass)) {
    const { node, reached } = next.value;
    pass = null;
    const previous = input.done?.get(node.id);
    if (previous) {
      steps.set(node.id, previous);
      const r = passOf(previous, node.type === "action" ? node.on_error : undefined);
      pass = r.pass;
      if (r.stop) stoppedBy = node.id;
      continue;
    }
    let startedMs = clock();
    const base = { node: node.id, type: node.type, started_at: new Date().toISOString(), attempt } as const;
    let step: Step;
    if (node.type === "trigger") {
      const { fired, detail } = triggerFires(node, input.event, input.context.event.payload);
      step = { ...base, outcome: fired ? "declenche" : "non_declenche", detail, duration_ms: 0 };
    } else if (stoppedBy !== null) {
      step = {
        ...base,
        outcome: "non_atteint",
        detail: `non exécuté : le run s'est arrêté après l'échec de ${stoppedBy} (on_error: stop)`,
        duration_ms: 0,
      };
      if (node.type === "action") step.action = node.action;
    } else if (!reached) {
      step = { ...base, outcome: "non_atteint", detail: "non atteint", duration_ms: 0 };
      if (node.type === "action") step.action = node.action;
    } else if (node.type === "condition") {
      const { ok, regles, detail } = evaluateCondition(node, input.facts);
      step = { ...base, outcome: ok ? "vrai" : "faux", detail, regles, duration_ms: 0 };
    } else {
      const handler = input.handlers[node.action];
      const ctx: ActionContext = {
        ...input.context,
        facts: input.facts,
        nodeId: node.id,
        deliveryId: `${input.context.event.id}:${input.context.workflow.id}:${node.id}`,
      };
      await input.checkpoint?.();
      startedMs = clock();
      try {
        const result = await handler(ctx, node.params);
        step = {
          ...base,
          action: node.action,
          outcome: "succes",
          detail: result.detail,
          sent: result.sent ?? null,
          error: null,
          duration_ms: 0,
        };
      } catch (err) {
        if (input.abandons?.(err)) throw err;
        const sent = (err as { sent?: Record<string, unknown> }).sent ?? null;
        const message = err instanceof Error ? err.message : String(err);
        step = { ...base, action: node.action, outcome: "echec", detail: `échec : ${message}`, sent, error: message, duration_ms: 0 };
      }
      step.duration_ms = Math.max(0, Math.round(clock() - startedMs));
    }
    steps.set(node.id, step);
    await input.record?.(step);
    const r = passOf(step, node.type === "action" ? node.on_error : undefined);
    pass = r.pass;
    if (r.stop) stoppedBy = node.id;
  }
  const ordered = input.graph.nodes.map((n) => steps.get(n.id)!);
  return { steps: ordered, status: statusOf(ordered) };
}

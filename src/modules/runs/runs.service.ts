import type { ActionHandlers, NotificationMessage } from "../../engine/actions.js";
import type { StoredGraph } from "../../engine/graph.js";
import type { Facts } from "../../engine/evaluate.js";
import { simulate } from "../../engine/evaluate.js";
import { execute, statusOf, type Step } from "../../engine/execute.js";
import { EVENTS, type EventName } from "../../engine/vocabulary.js";
import { payloadFacts } from "../../events/catalog.js";
import type { ProjectScope } from "../../platform/auth/context.js";
import type { Db, Executor } from "../../platform/db/client.js";
import type { RunStatus } from "../../platform/db/schema/index.js";
import { isConnectionLoss } from "../../platform/db/errors.js";
import { GroupCommit } from "../../platform/group-commit.js";
import { purgeInBatches } from "../../platform/db/sql.js";
import { NotFound } from "../../platform/errors.js";
import { NOT_FOUND } from "../../platform/messages.js";
import { alertsRead, type AlertFacts } from "../alerts/alerts.read.js";
import { casesRead, type CaseFacts } from "../cases/cases.read.js";
import { projectsRead } from "../projects/projects.read.js";
import type { WorkflowsService } from "../workflows/workflows.service.js";
import { buildMessage } from "./runs.message.js";
import {
  runsRepository as repo,
  type ClaimedRun,
  type RunContextRow,
  type RunDetailRow,
  type RunReport,
  type RunRow,
} from "./runs.repository.js";
import type { NotificationSettingsIn, NotificationSettingsOut } from "./runs.schemas.js";

/** Where runs read what Vigie knows of CVEs, by id (one query for a batch); a CVE it knows nothing of is absent. */
export type CveFactsLoader = (ex: Executor, cveIds: string[]) => Promise<Map<string, Facts>>;

export interface RunsOptions {
  /** How long a worker holds a run without news (each step recorded extends it). */
  leaseSeconds: number;
  /** A run taken this many times without finishing is finished `failed`. */
  maxAttempts: number;
  /** Events claimed per dispatch transaction. */
  batch: number;
  /** Runs a worker claims at once (one statement), then executes together. */
  claim: number;
  /** Absolute links in notifications (VIGIE_PUBLIC_URL), else links are paths. */
  publicUrl: string | null;
  /** Finished runs older than this many days are purged (VIGIE_RUNS_RETENTION_DAYS). */
  retentionDays: number;
  /** Processed events older than this many days are purged, but for those a kept run refers to (VIGIE_EVENTS_RETENTION_DAYS). */
  eventsRetentionDays: number;
}

export const RUN_DEFAULTS: RunsOptions = {
  leaseSeconds: 120,
  maxAttempts: 3,
  batch: 200,
  claim: 32,
  publicUrl: null,
  retentionDays: 90,
  eventsRetentionDays: 30,
};

/** A run's rank from its event's tier: 1 for P1 … 4 for P4; 3 for an event about no alert (an EOL notice, a URL scan, a case). */
export function priorityOf(palier: string | undefined): number {
  const m = palier ? /^P([1-4])$/.exec(palier) : null;
  return m ? Number(m[1]) : 3;
}

/** Rows deleted per purge statement: each is a short transaction, so the purge never holds many locks long. */
const PURGE_BATCH = 5000;
const DAY_MS = 86_400_000;

/**
 * Wakes the workers (pg-boss, `runs-execute` jobs that drain the runs nobody took yet, by batches):
 * `runs` were just created. Absent, runs execute in the caller's process.
 */
export type RunQueue = { wake(runs: number): Promise<void> };

/**
 * Takes the runs a dispatch throttled (inside its transaction) and puts their events where they
 * will be sent later; answers the reason each run records, with the runs it applies to.
 */
export type ThrottleOverflow = (
  tx: Executor,
  runs: { id: string; workflow_id: string; event_id: number; project_id: string; alert_id: string | null }[],
) => Promise<Map<string, string[]>>;

class LeaseLost extends Error {}

/** A throttled run whose workflow would have notified nothing for its event (its conditions did not hold). */
const THROTTLED_SILENT =
  "limite horaire de runs du workflow atteinte : rien n'a été exécuté ; ses conditions n'auraient rien notifié pour cet événement";

/** What the runs of one claimed batch read before executing: contexts and facts, one query each. */
interface BatchFacts {
  contexts: Map<string, RunContextRow>;
  alerts: Map<string, AlertFacts>;
  cases: Map<string, CaseFacts>;
  cves: Map<string, Facts>;
}

/** Run reports written per statement at most. */
const WRITE_BATCH = 500;

/**
 * The workflow engine's service: outbox events become runs (dispatch), runs execute their
 * workflow's graph through the action handlers (execute), runs whose worker died are resumed or
 * finished (recover). Every step is recorded as it happens, so a run taken over by another worker
 * skips what was done.
 */
export class RunsService {
  private queue: RunQueue | null = null;
  private overflow: ThrottleOverflow | null = null;
  private readonly opts: RunsOptions;
  /** Lease tokens of the runs this process is executing (released at shutdown: releaseHeld). */
  private readonly held = new Set<string>();
  /**
   * Group commit of run reports: the writes asked while one statement is in flight go together in
   * the next (`writeReports`), so runs executing at once in this process cost one statement between
   * them instead of one each. Each caller learns whether its run was still its own; a failed
   * statement fails every write of it (no item is at fault: each is a lease-checked update).
   */
  private readonly writer: GroupCommit<RunReport, boolean>;

  constructor(
    private readonly db: Db,
    private readonly handlers: ActionHandlers,
    private readonly cveFacts: CveFactsLoader,
    private readonly workflows: Pick<WorkflowsService, "get" | "reach">,
    opts: Partial<RunsOptions> = {},
  ) {
    this.opts = { ...RUN_DEFAULTS, ...opts };
    this.writer = new GroupCommit(
      async (reports: RunReport[]) => {
        const written = await repo.writeReports(db, reports, this.opts.leaseSeconds);
        return reports.map((r) => written.has(r.id));
      },
      null,
      WRITE_BATCH,
    );
  }

  /** Where throttled runs' events go (the digests module); absent, they are only recorded `throttled`. */
  useOverflow(overflow: ThrottleOverflow | null): void {
    this.overflow = overflow;
  }

  /** Attaches the job queue (the server, after its jobs start), or detaches it (null). */
  useQueue(queue: RunQueue | null): void {
    this.queue = queue;
  }

  /**
   * One dispatch transaction: claims up to `batch` pending events (SKIP LOCKED: other workers take
   * others), creates one run per (event, enabled workflow whose trigger is the event) — the
   * project's workflows, then its organization's — and marks the events processed, all or nothing.
   * A workflow past its hourly limit gets a `throttled` run, finished at once. Returns the runs to
   * execute.
   */
  async dispatch(): Promise<{ events: number; runs: string[]; throttled: number }> {
    return this.db.transaction(async (tx) => {
      const events = await repo.claimEvents(tx, this.opts.batch);
      if (!events.length) return { events: 0, runs: [], throttled: 0 };
      const candidates = await repo.candidates(
        tx,
        [...new Set(events.map((e) => e.project_id))],
        [...new Set(events.map((e) => e.org_id))],
      );
      const counts = new Map(candidates.map((w) => [w.id, w.recent_runs]));
      // The event's tier ranks its runs (P1 first): the payload's (cve.new_match), else its alert's.
      const unranked = events.filter((e) => e.alert_id && typeof e.payload.palier !== "string").map((e) => e.alert_id!);
      const paliers = await alertsRead.paliers(tx, [...new Set(unranked)]);
      const runs = [];
      for (const e of events) {
        const priority = priorityOf(
          typeof e.payload.palier === "string" ? e.payload.palier : e.alert_id ? paliers.get(e.alert_id) : undefined,
        );
        const matching = candidates.filter(
          (w) => w.trigger_event === e.event && (w.project_id === e.project_id || (w.project_id === null && w.org_id === e.org_id)),
        );
        for (const w of matching) {
          const n = counts.get(w.id)!;
          // A P1 event's run is never throttled (it counts): a burst must not delay it.
          const throttled = n >= w.max_runs_per_hour && priority > 1;
          if (!throttled) counts.set(w.id, n + 1);
          runs.push({
            workflow_id: w.id,
            event_id: e.id,
            project_id: e.project_id,
            trigger_event: e.event,
            cve_id: e.cve_id,
            throttled,
            priority,
          });
        }
      }
      const created = await repo.insertRuns(tx, runs);
      // Throttled runs send nothing now: their events go into the workflow's next digest (issue 37), and the run says so.
      const throttledRuns = created.filter((r) => r.throttled);
      if (throttledRuns.length && this.overflow) {
        const alertOf = new Map(events.map((e) => [e.id, e.alert_id]));
        // Only the events its conditions would have taken to a notification: a P1-only workflow's digest holds P1s.
        const loaded = await this.load(throttledRuns, tx);
        const notifying = throttledRuns.filter((r) => this.wouldNotify(r.id, loaded));
        const reasons = await this.overflow(
          tx,
          notifying.map((r) => ({ ...r, event_id: Number(r.event_id), alert_id: alertOf.get(Number(r.event_id)) ?? null })),
        );
        const silent = throttledRuns.filter((r) => !notifying.includes(r)).map((r) => r.id);
        if (silent.length) reasons.set(THROTTLED_SILENT, silent);
        for (const [raison, ids] of reasons) await repo.annotateThrottled(tx, ids, raison);
      }
      await repo.markProcessed(
        tx,
        events.map((e) => e.id),
      );
      return {
        events: events.length,
        runs: created.filter((r) => !r.throttled).map((r) => r.id),
        throttled: created.filter((r) => r.throttled).length,
      };
    });
  }

  /**
   * Dispatches every pending event, batch after batch; the workers are woken for the runs created,
   * or (no queue: the CLI, tests) the runs execute here once every event is dispatched (`drain`).
   */
  async dispatchAll(): Promise<{ events: number; runs: number; throttled: number }> {
    const total = { events: 0, runs: 0, throttled: 0 };
    for (;;) {
      const r = await this.dispatch();
      total.events += r.events;
      total.runs += r.runs.length;
      total.throttled += r.throttled;
      if (r.runs.length && this.queue) await this.queue.wake(r.runs.length);
      if (r.events < this.opts.batch) break;
    }
    if (total.runs && !this.queue) await this.drain();
    return total;
  }

  /**
   * The engine's loop (a `runs-execute` job without a run id): claims the runs nobody took yet by
   * batches of `claim` — P1 first, then the oldest; SKIP LOCKED, so other workers take other
   * batches — and executes each batch together, until none is left or `limit` runs were taken.
   * Pipelined: the next batch is claimed as soon as fewer than `claim` runs are in flight, so a batch
   * never waits for the slowest run of the one before (at most 2 × `claim` runs in hand). Returns
   * how many were taken.
   */
  async drain(limit = Number.POSITIVE_INFINITY): Promise<number> {
    let n = 0;
    let inFlight = 0;
    let freed: (() => void) | null = null;
    let failure: { err: unknown } | null = null;
    const batches = new Set<Promise<unknown>>();
    const runDone = () => {
      inFlight--;
      freed?.();
    };
    while (n < limit && !failure) {
      while (inFlight >= this.opts.claim && !failure) await new Promise<void>((r) => (freed = r));
      if (failure) break;
      const claimed = await repo.claimBatch(this.db, Math.min(this.opts.claim, limit - n), this.opts.leaseSeconds);
      if (!claimed.length) break;
      n += claimed.length;
      inFlight += claimed.length;
      const batch: Promise<unknown> = this.executeBatch(claimed, runDone)
        .catch((err: unknown) => {
          failure ??= { err };
          freed?.();
        })
        .finally(() => batches.delete(batch));
      batches.add(batch);
    }
    await Promise.all([...batches]);
    if (failure) throw (failure as { err: unknown }).err;
    return n;
  }

  /**
   * Executes one run if nobody holds it: takes its lease, rebuilds its facts, walks its graph
   * (steps recorded by an earlier attempt are kept, not redone), records its steps and finishes
   * it. A run taken more than `maxAttempts` times is finished `failed` with the reason. Returns the
   * final status, or null when the run was not ours to execute.
   */
  async execute(runId: string): Promise<string | null> {
    const run = await repo.claimRun(this.db, runId, this.opts.leaseSeconds);
    if (!run) return null;
    const [status] = await this.executeBatch([run]);
    return status ?? null;
  }

  /**
   * Runs this worker holds, executed together: their contexts and facts read in one query each,
   * their graphs walked at once (actions wait on the network), their steps and ends written by
   * group commit (`writer`). Statuses in the order of `runs` (null: not ours any more).
   */
  private async executeBatch(runs: ClaimedRun[], runDone: () => void = () => undefined): Promise<(string | null)[]> {
    for (const r of runs) this.held.add(r.lease_token);
    // Each run is let go once: when it ends, or when the batch ends without it (its facts could not be read).
    const settle = (r: ClaimedRun) => {
      if (this.held.delete(r.lease_token)) runDone();
    };
    try {
      let facts: BatchFacts;
      try {
        facts = await this.load(runs.filter((r) => r.attempts <= this.opts.maxAttempts));
      } catch (err) {
        if (!isConnectionLoss(err)) throw err;
        // The database is gone: the leases end now if it answers again, else when they run out.
        await repo
          .expireLeases(
            this.db,
            runs.map((r) => r.lease_token),
          )
          .catch(() => 0);
        return runs.map(() => null);
      }
      return await Promise.all(runs.map((r) => this.executeClaimed(r, facts).finally(() => settle(r))));
    } finally {
      for (const r of runs) settle(r);
    }
  }

  /** The contexts of these runs and the facts of their events' alerts, cases and CVEs: four queries for the batch, the last three at once. */
  private async load(runs: { id: string }[], ex: Executor = this.db): Promise<BatchFacts> {
    const contexts = await repo.contexts(
      ex,
      runs.map((r) => r.id),
    );
    const events = [...contexts.values()].map((c) => ({ projectId: c.project_id, e: c.event }));
    const withAlert = events.filter((x) => x.e.alert_id).map((x) => ({ projectId: x.projectId, alertId: x.e.alert_id! }));
    const withCve = events.filter((x) => x.e.cve_id).map((x) => ({ projectId: x.projectId, cveId: x.e.cve_id! }));
    const cveIds = [...new Set(withCve.map((x) => x.cveId))];
    // Three queries at once (three connections of the pool on PostgreSQL): one round trip's wait, not
    // three. In a transaction (a dispatch's throttled runs), one after the other on its connection.
    const [alerts, cases, cves] =
      ex === this.db
        ? await Promise.all([alertsRead.factsMany(ex, withAlert), casesRead.factsMany(ex, withCve), this.cveFacts(ex, cveIds)])
        : [await alertsRead.factsMany(ex, withAlert), await casesRead.factsMany(ex, withCve), await this.cveFacts(ex, cveIds)];
    return { contexts, alerts, cases, cves };
  }

  private async executeClaimed(run: ClaimedRun, facts: BatchFacts): Promise<string | null> {
    const done = new Map((run.report?.steps ?? []).map((s) => [s.node, s]));
    const end = async (status: RunStatus, report: Record<string, unknown>) =>
      (await this.writer.run({ id: run.id, token: run.lease_token, status, report, final: true })) ? status : null;
    if (run.attempts > this.opts.maxAttempts) {
      const steps = [...done.values()];
      const reason = `abandonné après ${this.opts.maxAttempts} tentatives interrompues (bail expiré à chaque fois)`;
      await end("failed", { steps, erreur: reason });
      return "failed";
    }
    try {
      return await this.run(run, done, facts, end);
    } catch (err) {
      if (err instanceof LeaseLost) return null;
      // The database connection was lost (a restart, a failover, pg_terminate_backend): no fault of
      // the run. Its lease ends now if the database answers again, else when it runs out; either
      // way runs-recover resumes it, recorded steps skipped.
      if (isConnectionLoss(err)) {
        await repo.expireLeases(this.db, [run.lease_token]).catch(() => 0);
        return null;
      }
      // The engine failed (not an action): the run is failed with the reason; if even that cannot
      // be written, the lease expires and runs-recover takes the run again.
      const steps = (await repo.steps(this.db, run.id)) ?? [...done.values()];
      await repo.finish(this.db, run.id, run.lease_token, "failed", { steps, erreur: `erreur du moteur : ${(err as Error).message}` });
      return "failed";
    }
  }

  private async run(
    run: ClaimedRun,
    done: Map<string, Step>,
    loaded: BatchFacts,
    end: (status: RunStatus, report: Record<string, unknown>) => Promise<string | null>,
  ): Promise<string | null> {
    const ctx = loaded.contexts.get(run.id);
    if (!ctx) return end("failed", { steps: [...done.values()], erreur: "workflow, projet ou événement disparu" });
    const e = ctx.event;
    // An event the engine does not know fails before any fact is read.
    const event = EVENTS.includes(e.event as EventName) ? (e.event as EventName) : null;
    if (!event) return end("failed", { steps: [], erreur: `événement inconnu du moteur : ${e.event}` });
    const { facts, alert } = this.factsOf(ctx, event, loaded);
    const project = { id: ctx.project_id, orgId: ctx.org_id, name: ctx.project_name };
    const controller = new AbortController();
    const recorded: Step[] = [...done.values()];
    // An action finished and not written yet: written before the next action is performed (checkpoint) or with the run's end.
    let unwritten = false;
    const result = await execute({
      graph: ctx.graph,
      event,
      facts,
      handlers: this.handlers,
      done,
      abandons: isConnectionLoss,
      attempt: run.attempts,
      context: {
        event: { id: e.id, name: event, cveId: e.cve_id, alertId: e.alert_id, payload: e.payload },
        project,
        workflow: { id: run.workflow_id, name: ctx.workflow_name },
        runId: run.id,
        message: buildMessage(e, facts, project, alert, this.opts.publicUrl, ctx.lang),
        signal: controller.signal,
      },
      record: async (step) => {
        recorded.push(step);
        if (step.type === "action" && (step.outcome === "succes" || step.outcome === "echec")) unwritten = true;
      },
      checkpoint: async () => {
        if (!unwritten) return;
        unwritten = false;
        const report = { id: run.id, token: run.lease_token, status: statusOf(recorded), report: { steps: recorded }, final: false };
        if (!(await this.writer.run(report))) {
          controller.abort();
          throw new LeaseLost();
        }
      },
    });
    return end(result.status, { steps: result.steps });
  }

  /** What a run reads of its event: the CVE's, alert's, case's (from its batch's facts) and payload's facts. */
  /** Whether this run's workflow, walked with its event's facts, reaches a notification (simulate: nothing performed). */
  private wouldNotify(runId: string, loaded: BatchFacts): boolean {
    const ctx = loaded.contexts.get(runId);
    if (!ctx || !EVENTS.includes(ctx.event.event as EventName)) return false;
    const event = ctx.event.event as EventName;
    const { facts } = this.factsOf(ctx, event, loaded);
    return simulate(ctx.graph, event, facts).some((n) => n.resultat === "serait_executee" && n.action?.startsWith("notify_"));
  }

  private factsOf(ctx: RunContextRow, event: EventName, loaded: BatchFacts) {
    const e = ctx.event;
    const alert = e.alert_id ? (loaded.alerts.get(e.alert_id) ?? null) : null;
    const kase = e.cve_id ? (loaded.cases.get(`${ctx.project_id}:${e.cve_id.toUpperCase()}`) ?? null) : null;
    const known = e.cve_id ? (loaded.cves.get(e.cve_id) ?? null) : null;
    const facts: Facts = {
      ...(e.cve_id && { "cve.id": e.cve_id }),
      ...(known ?? {}),
      // url.*, eol.* facts are read from the payload, as the catalog says (CVE and case facts from the database).
      ...(payloadFacts(event, e.payload) as Facts),
      "project.name": ctx.project_name,
      ...(alert && {
        "alert.palier": alert.palier,
        "alert.tags": alert.tags,
        // The rule that raised it (src/matching/decide.ts): "unversioned" when no source gave versions to check.
        "alert.rule": typeof alert.match?.rule === "string" ? alert.match.rule : null,
      }),
      ...(kase && { "case.status": kase.status, "case.severity": kase.severity }),
    };
    return { facts, alert };
  }

  /**
   * The notification a run's event makes, built as its execution would (a digest's throttled items:
   * their runs executed nothing). Null when the run, its event or its workflow is gone.
   */
  async messageFor(runId: string): Promise<NotificationMessage | null> {
    const loaded = await this.load([{ id: runId } as ClaimedRun]);
    const ctx = loaded.contexts.get(runId);
    if (!ctx || !EVENTS.includes(ctx.event.event as EventName)) return null;
    const { facts, alert } = this.factsOf(ctx, ctx.event.event as EventName, loaded);
    const project = { id: ctx.project_id, orgId: ctx.org_id, name: ctx.project_name };
    return buildMessage(ctx.event, facts, project, alert, this.opts.publicUrl, ctx.lang);
  }

  /**
   * runs-recover: unfinished runs nobody holds — their worker died (lease expired), or their
   * execute job never ran — are executed again here (resumed: recorded steps are skipped), or
   * finished `failed` past `maxAttempts`.
   */
  async recover(limit = 100): Promise<{ resumed: number }> {
    const ids = await repo.abandoned(this.db, this.opts.leaseSeconds, limit);
    let resumed = 0;
    for (const id of ids) if ((await this.execute(id)) !== null) resumed++;
    return { resumed };
  }

  /**
   * At the start of the only process of an embedded database: the runs left unfinished by the
   * previous one (killed) are nobody's, so runs-recover may resume them at once rather than when
   * their lease would have ended. Not for PostgreSQL, where other workers may hold them.
   */
  async releaseLeases(): Promise<number> {
    return repo.expireLeases(this.db);
  }

  /**
   * A worker stopping (SIGTERM) with runs still in hand past its grace time: their leases end now, so
   * runs-recover on another worker resumes them at once (recorded steps skipped) rather than when the
   * leases would have run out. A step this process records later is refused (the lease is no longer its).
   */
  async releaseHeld(): Promise<number> {
    if (!this.held.size) return 0;
    return repo.expireLeases(this.db, [...this.held]);
  }

  /** The engine's figures for /metrics (outbox, unfinished runs, runs finished in the last hour). */
  gauges() {
    return repo.gauges(this.db);
  }

  /** Executes unfinished runs nobody took yet (the CLI's `jobs run runs-execute`): `drain`. */
  async executePending(limit = 1000): Promise<number> {
    return this.drain(limit);
  }

  /**
   * maintenance-purge: finished runs past VIGIE_RUNS_RETENTION_DAYS, then processed events past
   * VIGIE_EVENTS_RETENTION_DAYS that no kept run refers to, batch after batch. Unfinished runs and
   * unprocessed events are never touched. `now`: the job's instant (`jobs run --now`).
   */
  async purge(now: Date): Promise<{ runs: number; events: number }> {
    const runsBefore = new Date(now.getTime() - this.opts.retentionDays * DAY_MS);
    const eventsBefore = new Date(now.getTime() - this.opts.eventsRetentionDays * DAY_MS);
    const runs = await purgeInBatches(() => repo.purgeFinished(this.db, runsBefore, PURGE_BATCH), PURGE_BATCH);
    const events = await purgeInBatches(() => repo.purgeProcessedEvents(this.db, eventsBefore, PURGE_BATCH), PURGE_BATCH);
    return { runs, events };
  }

  /** The project's notification settings. */
  async notificationSettings(project: ProjectScope): Promise<NotificationSettingsOut> {
    return { language: await repo.notificationLang(this.db, project.id) };
  }

  /** Changes the language of the project's notifications (the runs that start afterwards speak it). */
  async updateNotificationSettings(project: ProjectScope, body: NotificationSettingsIn): Promise<NotificationSettingsOut> {
    if (body.language !== undefined) await repo.setNotificationLang(this.db, project.id, body.language);
    return this.notificationSettings(project);
  }

  /** A workflow's runs, newest first; for an organization workflow (it runs for every project), those it made for this project. */
  async list(project: ProjectScope, workflowId: string, limit: number): Promise<RunRow[]> {
    const owner = await this.workflows.reach(project, workflowId);
    return repo.list(this.db, workflowId, limit, owner === "organization" ? project.id : undefined);
  }

  /**
   * Evaluates a project workflow against a CVE as if it had just matched (cve.new_match), performing
   * no action, and records the run with status dry_run. An unknown CVE is evaluated with empty
   * fields. `cveIdInput` passed the request's pattern (a CVE id, any case, spaces around).
   */
  async dryRun(project: ProjectScope, workflowId: string, cveIdInput: string) {
    const cveId = cveIdInput.trim().toUpperCase();
    // Its secrets masked: the simulation shows the parameters as every answer does.
    const workflow = await this.workflows.get(project, workflowId);
    const known = (await this.cveFacts(this.db, [cveId])).get(cveId) ?? null;
    const facts: Facts = { "cve.id": cveId, "project.name": await projectsRead.name(this.db, project.id), ...(known ?? {}) };
    const noeuds = simulate(workflow.graph as StoredGraph, "cve.new_match", facts);
    const avertissement = known ? null : `Vigie ne détient aucune donnée sur ${cveId} : les champs de la CVE ont été évalués comme vides.`;
    const run = await repo.insertDryRun(this.db, {
      workflowId: workflow.id,
      projectId: project.id,
      cveId,
      at: new Date(),
      report: { cve_connue: known !== null, avertissement, noeuds },
    });
    return { run, cve_connue: known !== null, avertissement, noeuds };
  }

  /** One run of a workflow with its steps; 404 for a run, or workflow, this project cannot see. */
  async get(project: ProjectScope, workflowId: string, runId: string): Promise<RunDetailRow> {
    const row = await repo.detail(this.db, project, workflowId, runId);
    if (!row) throw new NotFound(NOT_FOUND.run);
    return row;
  }
}

import { and, eq, sql } from "drizzle-orm";
import type { StoredGraph } from "../../engine/graph.js";
import type { Executor } from "../../platform/db/client.js";
import { workflowRuns, type RunStatus } from "../../platform/db/schema/index.js";
import { pgArray, rowsOf } from "../../platform/db/sql.js";
import type { Step } from "../../engine/execute.js";

export interface EventRow {
  id: number;
  org_id: string;
  project_id: string;
  event: string;
  cve_id: string | null;
  alert_id: string | null;
  payload: Record<string, unknown>;
}

/** An enabled workflow a dispatch may run, with its trigger's event. */
export interface CandidateWorkflow {
  id: string;
  org_id: string;
  project_id: string | null;
  trigger_event: string | null;
  max_runs_per_hour: number;
  recent_runs: number;
}

export interface ClaimedRun {
  id: string;
  workflow_id: string;
  event_id: number;
  project_id: string;
  attempts: number;
  lease_token: string;
  report: { steps?: Step[] } | null;
  /** The event's tier (1 for P1 … 4 for P4, 3 without an alert). */
  priority: number;
}

export interface RunContextRow {
  workflow_name: string;
  graph: StoredGraph;
  org_id: string;
  project_id: string;
  project_name: string;
  /** The project's notification language. */
  lang: "fr" | "en";
  event: EventRow;
}

/** What a run's holder writes: its steps so far (`final`: the run is finished with this status and report). */
export interface RunReport {
  id: string;
  token: string;
  status: RunStatus;
  report: Record<string, unknown>;
  final: boolean;
}

export interface RunDetailRow {
  id: string;
  workflow_id: string;
  trigger_event: string;
  cve_id: string | null;
  status: RunStatus;
  started_at: Date;
  finished_at: Date | null;
  report: Record<string, unknown> | null;
  event_id: number | null;
  attempts: number;
}

/** A run as stored. */
export type RunRow = typeof workflowRuns.$inferSelect;

const date = (v: unknown) => (v instanceof Date ? v : new Date(v as string));

/** SQL of workflow runs, the only writer of workflow_runs: outbox events to runs, leases, steps, dry runs, lists. */
export const runsRepository = {
  /**
   * Claims up to `limit` pending events, oldest first; rows locked by another dispatcher are
   * skipped (FOR UPDATE SKIP LOCKED), so several workers take disjoint batches. Inside the
   * transaction that creates their runs and marks them processed.
   */
  async claimEvents(ex: Executor, limit: number): Promise<EventRow[]> {
    const rows = await rowsOf<EventRow & { id: string | number }>(
      ex,
      sql`select id, org_id, project_id, event, cve_id, alert_id, payload from outbox_events
        where processed_at is null order by id limit ${limit} for update skip locked`,
    );
    return rows.map((r) => ({ ...r, id: Number(r.id) }));
  },

  /**
   * The enabled workflows of these projects and of their organizations, with their trigger's event
   * and the runs each executed in the last hour (the throttle's count, off the run list's index).
   * Project workflows first, then organization ones, each by creation.
   */
  async candidates(ex: Executor, projectIds: string[], orgIds: string[]): Promise<CandidateWorkflow[]> {
    return rowsOf<CandidateWorkflow>(
      ex,
      sql`select w.id, w.org_id, w.project_id, w.max_runs_per_hour,
          (select n->>'event' from jsonb_array_elements(w.graph->'nodes') n where n->>'type' = 'trigger' limit 1) as trigger_event,
          (select count(*)::int from workflow_runs r where r.workflow_id = w.id and r.started_at > now() - interval '1 hour'
             and r.status not in ('throttled', 'dry_run')) as recent_runs
        from workflows w
        where w.is_enabled and (w.project_id = any(${pgArray(projectIds)}::uuid[])
          or (w.project_id is null and w.org_id = any(${pgArray(orgIds)}::uuid[])))
        order by (w.project_id is null), w.created_at, w.id`,
    );
  },

  /**
   * Inserts runs; a (event, workflow) that already has one is left alone (the unique index), so a
   * replayed dispatch creates nothing. Returns the runs created and still to execute.
   */
  async insertRuns(
    ex: Executor,
    runs: {
      workflow_id: string;
      event_id: number;
      project_id: string;
      trigger_event: string;
      cve_id: string | null;
      throttled: boolean;
      priority: number;
    }[],
  ): Promise<{ id: string; throttled: boolean; workflow_id: string; event_id: number; project_id: string }[]> {
    if (!runs.length) return [];
    const throttled = { steps: [], raison: "limite horaire de runs du workflow atteinte : rien n'a été exécuté" };
    return rowsOf(
      ex,
      sql`insert into workflow_runs (workflow_id, event_id, project_id, trigger_event, cve_id, status, finished_at, report, priority)
        select r.workflow_id, r.event_id, r.project_id, r.trigger_event, r.cve_id,
          case when r.throttled then 'throttled' else 'success' end,
          case when r.throttled then now() end,
          case when r.throttled then ${JSON.stringify(throttled)}::jsonb else '{"steps": []}'::jsonb end,
          r.priority
        from json_to_recordset(${JSON.stringify(runs)}::json)
          as r(workflow_id uuid, event_id bigint, project_id uuid, trigger_event text, cve_id text, throttled boolean, priority smallint)
        on conflict (event_id, workflow_id) where event_id is not null do nothing
        returning id, status = 'throttled' as throttled, workflow_id, event_id, project_id`,
    );
  },

  /** The reason throttled runs record (their events went into a digest instead: issue 37). */
  async annotateThrottled(ex: Executor, runIds: string[], raison: string): Promise<void> {
    if (!runIds.length) return;
    await ex.execute(
      sql`update workflow_runs set report = jsonb_set(coalesce(report, '{}'::jsonb), '{raison}', ${JSON.stringify(raison)}::jsonb)
        where id = any(${pgArray(runIds)}::uuid[]) and status = 'throttled'`,
    );
  },

  async markProcessed(ex: Executor, eventIds: number[]): Promise<void> {
    if (!eventIds.length) return;
    await ex.execute(sql`update outbox_events set processed_at = now() where id = any(${`{${eventIds.join(",")}}`}::bigint[])`);
  },

  /**
   * Takes up to `limit` runs no worker took yet, for `leaseSeconds`, in one statement: those of P1
   * events first, then the oldest (workflow_runs_queue_idx); rows another worker is taking are
   * skipped (FOR UPDATE SKIP LOCKED), so workers take disjoint batches. Each take counts an attempt.
   * Runs whose lease expired are runs-recover's (claimRun), not this claim's.
   */
  async claimBatch(ex: Executor, limit: number, leaseSeconds: number): Promise<ClaimedRun[]> {
    const rows = await rowsOf<ClaimedRun & { event_id: string | number; started_at: unknown }>(
      ex,
      sql`update workflow_runs r set lease_until = now() + make_interval(secs => ${leaseSeconds}), lease_token = gen_random_uuid(),
          attempts = r.attempts + 1
        from (select id from workflow_runs where finished_at is null and lease_until is null and event_id is not null
          order by priority, started_at limit ${limit} for update skip locked) c
        where r.id = c.id
        returning r.id, r.workflow_id, r.event_id, r.project_id, r.attempts, r.lease_token, r.report, r.priority, r.started_at`,
    );
    return rows
      .map(({ started_at, ...r }) => ({ run: { ...r, event_id: Number(r.event_id) }, at: date(started_at).getTime() }))
      .sort((a, b) => a.run.priority - b.run.priority || a.at - b.at)
      .map((r) => r.run);
  },

  /**
   * Takes a run for `leaseSeconds`: a run nobody holds (never started, or its holder's lease
   * expired). Undefined when it is finished or held. Each take counts an attempt.
   */
  async claimRun(ex: Executor, runId: string, leaseSeconds: number): Promise<ClaimedRun | undefined> {
    const [row] = await rowsOf<ClaimedRun & { event_id: string | number }>(
      ex,
      sql`update workflow_runs set lease_until = now() + make_interval(secs => ${leaseSeconds}), lease_token = gen_random_uuid(),
          attempts = attempts + 1
        where id = ${runId} and finished_at is null and event_id is not null and (lease_until is null or lease_until < now())
        returning id, workflow_id, event_id, project_id, attempts, lease_token, report, priority`,
    );
    return row && { ...row, event_id: Number(row.event_id) };
  },

  /** The project's notification language. */
  async notificationLang(ex: Executor, projectId: string): Promise<"fr" | "en"> {
    const [row] = await rowsOf<{ lang: "fr" | "en" }>(ex, sql`select notification_lang as lang from projects where id = ${projectId}`);
    return row!.lang;
  },

  async setNotificationLang(ex: Executor, projectId: string, lang: "fr" | "en"): Promise<void> {
    await ex.execute(sql`update projects set notification_lang = ${lang} where id = ${projectId}`);
  },

  /** What runs need to execute, by run id: their workflow, project and event, in one query. */
  async contexts(ex: Executor, runIds: string[]): Promise<Map<string, RunContextRow>> {
    if (!runIds.length) return new Map();
    const rows = await rowsOf<Omit<RunContextRow, "event"> & { id: string; event: EventRow }>(
      ex,
      sql`select r.id, w.name as workflow_name, w.graph, p.org_id, p.id as project_id, p.name as project_name, p.notification_lang as lang,
          json_build_object('id', e.id, 'org_id', e.org_id, 'project_id', e.project_id, 'event', e.event, 'cve_id', e.cve_id,
            'alert_id', e.alert_id, 'payload', e.payload) as event
        from workflow_runs r
        join workflows w on w.id = r.workflow_id
        join projects p on p.id = r.project_id
        join outbox_events e on e.id = r.event_id
        where r.id = any(${pgArray(runIds)}::uuid[])`,
    );
    return new Map(rows.map(({ id, ...row }) => [id, { ...row, event: { ...row.event, id: Number(row.event.id) } }]));
  },

  /**
   * Writes what the holders of these runs recorded, in one statement: each run's steps so far (its
   * lease extended) or, `final`, its end (status, report, lease released). A run whose lease is no
   * longer the holder's (another worker took it over) or that is finished is left alone. Returns
   * the ids written.
   */
  async writeReports(ex: Executor, reports: RunReport[], leaseSeconds: number): Promise<Set<string>> {
    if (!reports.length) return new Set();
    const rows = await rowsOf<{ id: string }>(
      ex,
      sql`update workflow_runs r set status = x.status, report = x.report,
          finished_at = case when x.final then now() end,
          lease_until = case when x.final then null else now() + make_interval(secs => ${leaseSeconds}) end
        from json_to_recordset(${JSON.stringify(reports)}::json) as x(id uuid, token uuid, status text, report jsonb, final boolean)
        where r.id = x.id and r.lease_token = x.token and r.finished_at is null
        returning r.id`,
    );
    return new Set(rows.map((r) => r.id));
  },

  /** Finishes a run (its status, steps, reason) if this holder still has it; false otherwise. */
  async finish(ex: Executor, runId: string, token: string | null, status: RunStatus, report: Record<string, unknown>): Promise<boolean> {
    const holder = token === null ? sql`true` : sql`lease_token = ${token}`;
    const rows = await rowsOf(
      ex,
      sql`update workflow_runs set status = ${status}, finished_at = now(), lease_until = null, report = ${JSON.stringify(report)}::jsonb
        where id = ${runId} and finished_at is null and ${holder} returning 1`,
    );
    return rows.length > 0;
  },

  /** The steps a run recorded so far. */
  async steps(ex: Executor, runId: string): Promise<Step[] | undefined> {
    const [row] = await rowsOf<{ steps: Step[] | null }>(ex, sql`select report->'steps' as steps from workflow_runs where id = ${runId}`);
    return row?.steps ?? undefined;
  },

  /**
   * The leases end now: every unfinished run's (no token list: the embedded database at start-up, no
   * other process can hold one), or those of the given tokens (a worker stopping with runs in hand).
   */
  async expireLeases(ex: Executor, tokens?: string[]): Promise<number> {
    const held = tokens ? sql`and lease_token = any(${pgArray(tokens)}::uuid[])` : sql``;
    const rows = await rowsOf(
      ex,
      sql`update workflow_runs set lease_until = now() - interval '1 second'
        where finished_at is null and event_id is not null ${held} returning 1`,
    );
    return rows.length;
  },

  /**
   * What /metrics shows of the engine: pending outbox events and the age of the oldest, unfinished
   * runs (and those whose lease ran out), runs finished in the last hour by status. Each count reads
   * a partial index (pending events, unfinished runs, finished_at).
   */
  async gauges(
    ex: Executor,
  ): Promise<{ pending: number; lagSeconds: number; unfinished: number; expired: number; finished: Record<string, number> }> {
    const [outbox] = await rowsOf<{ pending: number; lag: number | null }>(
      ex,
      sql`select count(*)::int as pending, extract(epoch from now() - min(created_at))::float8 as lag
        from outbox_events where processed_at is null`,
    );
    const [runs] = await rowsOf<{ unfinished: number; expired: number }>(
      ex,
      sql`select count(*)::int as unfinished, (count(*) filter (where lease_until < now()))::int as expired
        from workflow_runs where finished_at is null`,
    );
    const finished = await rowsOf<{ status: string; n: number }>(
      ex,
      sql`select status, count(*)::int as n from workflow_runs
        where finished_at is not null and finished_at > now() - interval '1 hour' group by status`,
    );
    return {
      pending: outbox?.pending ?? 0,
      lagSeconds: outbox?.lag ?? 0,
      unfinished: runs?.unfinished ?? 0,
      expired: runs?.expired ?? 0,
      finished: Object.fromEntries(finished.map((r) => [r.status, r.n])),
    };
  },

  /** Unfinished runs nobody holds: lease expired, or never taken `graceSeconds` after creation. */
  async abandoned(ex: Executor, graceSeconds: number, limit: number): Promise<string[]> {
    const rows = await rowsOf<{ id: string }>(
      ex,
      sql`select id from workflow_runs where finished_at is null and event_id is not null
          and coalesce(lease_until, started_at + make_interval(secs => ${graceSeconds})) < now()
        order by started_at limit ${limit}`,
    );
    return rows.map((r) => r.id);
  },

  /**
   * One run of a workflow as the project sees it: a run of the project's workflow, or of its
   * organization's workflow for this project. Undefined otherwise (another tenant's: 404).
   */
  async detail(ex: Executor, project: { id: string; orgId: string }, workflowId: string, runId: string): Promise<RunDetailRow | undefined> {
    const [row] = await rowsOf<RunDetailRow>(
      ex,
      sql`select r.id, r.workflow_id, r.trigger_event, r.cve_id, r.status, r.started_at, r.finished_at, r.report, r.event_id, r.attempts
        from workflow_runs r join workflows w on w.id = r.workflow_id
        where r.id = ${runId} and r.workflow_id = ${workflowId}
          and ((w.project_id = ${project.id}) or (w.project_id is null and w.org_id = ${project.orgId} and r.project_id = ${project.id}))`,
    );
    return (
      row && {
        ...row,
        started_at: date(row.started_at),
        finished_at: row.finished_at === null ? null : date(row.finished_at),
        event_id: row.event_id === null ? null : Number(row.event_id),
      }
    );
  },

  /** A workflow's runs, newest first (those made for one project when `projectId` is given). */
  async list(ex: Executor, workflowId: string, limit: number, projectId?: string): Promise<RunRow[]> {
    return (
      ex
        .select()
        .from(workflowRuns)
        .where(and(eq(workflowRuns.workflowId, workflowId), projectId ? eq(workflowRuns.projectId, projectId) : undefined))
        // The index's own order (DESC NULLS LAST): a plain DESC (NULLS FIRST) would sort every run of the workflow.
        .orderBy(sql`${workflowRuns.startedAt} desc nulls last`, sql`${workflowRuns.id} desc nulls last`)
        .limit(limit)
    );
  },

  /** Records a dry run (finished as it starts; no event). */
  async insertDryRun(
    ex: Executor,
    r: { workflowId: string; projectId: string; cveId: string; at: Date; report: Record<string, unknown> },
  ): Promise<RunRow> {
    const [row] = await ex
      .insert(workflowRuns)
      .values({
        workflowId: r.workflowId,
        triggerEvent: "cve.new_match",
        cveId: r.cveId,
        projectId: r.projectId,
        status: "dry_run",
        startedAt: r.at,
        finishedAt: r.at,
        report: r.report,
      })
      .returning();
    return row!;
  },

  /**
   * Deletes up to `batch` finished runs (dry runs included) that finished before `before`; an
   * unfinished run is never deleted. Returns how many (fewer than `batch`: nothing left to purge).
   * Off workflow_runs_finished_idx.
   */
  async purgeFinished(ex: Executor, before: Date, batch: number): Promise<number> {
    const rows = await rowsOf(
      ex,
      sql`delete from workflow_runs where id in (
          select id from workflow_runs where finished_at < ${before.toISOString()}::timestamptz limit ${batch})
        returning 1`,
    );
    return rows.length;
  },

  /**
   * Deletes up to `batch` events processed before `before` that no kept run refers to (a run keeps
   * its event: its detail names it, and an unfinished one reads it to execute); an unprocessed
   * event is never deleted. Off outbox_events_processed_idx and the runs' (event_id, workflow_id) index.
   */
  async purgeProcessedEvents(ex: Executor, before: Date, batch: number): Promise<number> {
    const rows = await rowsOf(
      ex,
      sql`delete from outbox_events where id in (
          select e.id from outbox_events e
          where e.processed_at < ${before.toISOString()}::timestamptz
            and not exists (select 1 from workflow_runs r where r.event_id = e.id)
          limit ${batch})
        returning 1`,
    );
    return rows.length;
  },
};

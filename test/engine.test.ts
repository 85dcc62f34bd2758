import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { ActionError, type ActionContext, type ActionHandler } from "../src/engine/actions.js";
import { importFeed } from "../src/feeds/import.js";
import { startJobs } from "../src/jobs.js";
import { executeCommand } from "../src/main.js";
import { OUTBOX_TOPIC } from "../src/platform/db/cache-feed.js";
import { createLogger } from "../src/platform/log.js";
import { createServices } from "../src/app.js";
import { bearer, createTestApp, createWorkflow, tenantWithScopes } from "./helpers.js";
import { eventually, secondConnection } from "./two-processes.js";

/**
 * The workflow engine end to end on real records: CVE 5 records of PAN-OS imported, stacks that
 * match them, the outbox events the matcher writes, dispatched into runs that execute their
 * graphs. Notifications are a fake handler (the notify module has its own tests) that records each
 * call, fails when its URL or address says "fail", and can hold a call until released.
 */
const calls: { action: string; node: string; delivery: string; run: string; project: string }[] = [];
let gate: { entered: () => void; release: Promise<void> } | null = null;
/** The next calls of an action whose target says "drop" fail as PostgreSQL's pg_terminate_backend does. */
let connectionLosses = 0;
const fake =
  (action: string): ActionHandler =>
  async (ctx: ActionContext, params) => {
    calls.push({ action, node: ctx.nodeId, delivery: ctx.deliveryId, run: ctx.runId, project: ctx.project.id });
    const target = JSON.stringify(params);
    if (target.includes("hang") && gate) {
      const g = gate;
      gate = null;
      g.entered();
      await g.release;
    }
    if (target.includes("drop") && connectionLosses > 0) {
      connectionLosses--;
      throw Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" });
    }
    if (target.includes("fail")) throw new ActionError("HTTP 500 (simulé)", { url: "https://example.test/***" });
    return { detail: `${action} envoyé`, sent: { title: ctx.message.title, link: ctx.message.link } };
  };

const t = await createTestApp(
  {},
  {
    notify: {
      notify_webhook: fake("notify_webhook"),
      notify_email: fake("notify_email"),
      notify_slack: fake("notify_slack"),
      notify_teams: fake("notify_teams"),
    },
  },
);
const db = t.database.db;
const sqlRows = async <T>(text: string, params: unknown[] = []) => ((await t.database.executeSql(text, params)) as { rows: T[] }).rows;

// CVE-2024-3400 (KEV: P1) and CVE-2024-9468 (high, not KEV: P3) affect PAN-OS 10.2.5; CVE-2022-0028 does not.
// The default workflow runs on both new matches and opens a case for the verified P1/P2 one only.
for (const file of ["test/fixtures/import/cve5-sample.jsonl", "test/fixtures/matching/cve5-panos.jsonl"])
  expect((await importFeed(db, "cve5", [file])).errors).toEqual([]);
const PANOS = { item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" };

async function tenant(name: string) {
  const x = await tenantWithScopes(t, name, ["stacks-write", "workflows-write", "alerts-write"]);
  const workflow = async (body: Record<string, unknown>) => {
    const res = await createWorkflow(t, x, body);
    expect(res.statusCode).toBe(201);
    return res.json().id as string;
  };
  return { ...x, workflow };
}

const graph = (nodes: unknown[], edges: unknown[]) => ({ graph: { nodes, edges } });
const trigger = (event = "cve.new_match", params = {}) => ({ id: "t", type: "trigger", event, params });
const action = (id: string, name: string, params: Record<string, unknown> = {}, on_error = "continue") => ({
  id,
  type: "action",
  action: name,
  params,
  on_error,
});

async function watch(x: { call: (m: "POST", p: string, b: unknown) => Promise<{ json: () => { alertes_creees: number } }> }) {
  expect((await x.call("POST", "/stacks", { name: "Edge", items: [PANOS] })).json().alertes_creees).toBe(2);
}

interface RunRow {
  id: string;
  workflow_id: string;
  event_id: number;
  cve_id: string;
  status: string;
  finished_at: Date | null;
  attempts: number;
}
const runsOf = (projectId: string) =>
  sqlRows<RunRow>(
    "select id, workflow_id, event_id, cve_id, status, finished_at, attempts from workflow_runs where project_id = $1 order by cve_id, workflow_id",
    [projectId],
  );
const casesOf = (projectId: string) =>
  sqlRows<{ cve_id: string; severity: string; notes: string | null }>(
    "select cve_id, severity, notes from cases where project_id = $1 order by cve_id",
    [projectId],
  );
const callsFor = (projectId: string) => calls.filter((c) => c.project === projectId);

/**
 * A tenant whose one workflow opens a case, calls the webhook `hook` (the fake's keywords: hang,
 * drop), then e-mails; its stack watches one CVE: one event, dispatched into one run.
 */
async function oneRunThroughWebhook(name: string, hook: string) {
  const x = await tenant(name);
  await x.call("PATCH", `/workflows/${x.defaultWorkflowId}/enabled`, { enabled: false });
  const wf = await x.workflow({
    name,
    ...graph(
      [
        trigger(),
        action("case", "create_case"),
        action("w", "notify_webhook", { url: `https://example.test/${hook}` }),
        action("m", "notify_email", { to: ["ops@example.test"] }),
      ],
      [
        { from: "t", to: "case" },
        { from: "case", to: "w" },
        { from: "w", to: "m" },
      ],
    ),
  });
  expect(
    (await x.call("POST", "/stacks", { name: "One", items: [{ item_type: "cve", value: "CVE-2024-3400" }] })).json().alertes_creees,
  ).toBe(1);
  const { runs: created } = await t.services.runs.dispatch();
  const [runId] = (await runsOf(x.projectId)).map((r) => r.id);
  expect(created).toContain(runId);
  /** The run finished at its second attempt, the first's trigger and case kept, the webhook and e-mail done again. */
  const resumedFromTheWebhook = async () => {
    const after = (await x.call("GET", `/workflows/${wf}/runs/${runId}`)).json();
    expect(after).toMatchObject({ status: "success", attempts: 2 });
    expect(after.steps.map((s: { node: string; attempt: number }) => [s.node, s.attempt])).toEqual([
      ["t", 1],
      ["case", 1],
      ["w", 2],
      ["m", 2],
    ]);
  };
  return { x, wf, runId: runId!, resumedFromTheWebhook };
}

describe("the workflow engine: outbox events to runs", () => {
  it("an import makes exactly one run per enabled matching workflow and one case per CVE; re-dispatch and retry double nothing", async () => {
    const a = await tenant("Engine A");
    const hook = await a.workflow({
      name: "Webhook",
      ...graph([trigger(), action("a1", "notify_webhook", { url: "https://example.test/hook" })], [{ from: "t", to: "a1" }]),
    });
    const disabled = await a.workflow({
      name: "Disabled",
      ...graph([trigger(), action("a1", "notify_email", { to: ["off@example.test"] })], [{ from: "t", to: "a1" }]),
    });
    expect((await a.call("PATCH", `/workflows/${disabled}/enabled`, { enabled: false })).statusCode).toBe(200);
    const kev = await a.workflow({
      name: "KEV only",
      ...graph([trigger("cve.kev_added"), action("a1", "add_tag", { tag: "kev" })], [{ from: "t", to: "a1" }]),
    });
    await watch(a);

    expect((await runsOf(a.projectId)).length).toBe(0); // nothing runs before the dispatch
    await t.services.runs.dispatchAll();
    const runs = await runsOf(a.projectId);
    // Two new matches × (the default workflow + Webhook): not the disabled one, not the kev_added one.
    expect(
      runs.map((r) => [r.cve_id, r.workflow_id === a.defaultWorkflowId ? "default" : r.workflow_id === hook ? "hook" : r.workflow_id]),
    ).toEqual(
      expect.arrayContaining([
        ["CVE-2024-3400", "default"],
        ["CVE-2024-3400", "hook"],
        ["CVE-2024-9468", "default"],
        ["CVE-2024-9468", "hook"],
      ]),
    );
    expect(runs).toHaveLength(4);
    expect(runs.every((r) => r.status === "success" && r.finished_at !== null)).toBe(true);
    expect(runs.some((r) => r.workflow_id === kev || r.workflow_id === disabled)).toBe(false);
    // The default workflow (a verified P1/P2 new match → create_case) opened the case of the P1, as
    // the workflow; CVE-2024-9468 (P3) waits in the inbox, its run ended at the condition.
    expect((await casesOf(a.projectId)).map((c) => c.cve_id)).toEqual(["CVE-2024-3400"]);
    const history = await sqlRows<{ actor_type: string; actor_id: string; event: string }>(
      "select h.actor_type, h.actor_id, h.event from case_history h join cases c on c.id = h.case_id where c.project_id = $1",
      [a.projectId],
    );
    expect(history).toEqual([{ actor_type: "workflow", actor_id: a.defaultWorkflowId, event: "created" }]);
    // What the notification said, as its step records it (the fake sends the message's title and link).
    const hookRun = runs.find((r) => r.workflow_id === hook && r.cve_id === "CVE-2024-3400")!;
    const step = (await a.call("GET", `/workflows/${hook}/runs/${hookRun.id}`)).json().steps[1];
    expect(step).toMatchObject({
      node: "a1",
      action: "notify_webhook",
      outcome: "succes",
      sent: { title: "CVE-2024-3400 (critical, KEV) touche Production", link: expect.stringContaining(`/projects/${a.projectId}/alerts/`) },
    });
    const hooks = callsFor(a.projectId);
    expect(hooks.map((c) => c.action)).toEqual(["notify_webhook", "notify_webhook"]);
    expect(new Set(hooks.map((c) => c.delivery)).size).toBe(2);
    const events = await sqlRows<{ processed: boolean }>(
      "select processed_at is not null as processed from outbox_events where project_id = $1",
      [a.projectId],
    );
    expect(events).toEqual([{ processed: true }, { processed: true }]);

    // A replayed dispatch (the events marked pending again) and replayed executions create and send nothing.
    await t.database.executeSql("update outbox_events set processed_at = null where project_id = $1", [a.projectId]);
    await t.services.runs.dispatchAll();
    for (const run of runs) expect(await t.services.runs.execute(run.id)).toBeNull();
    expect(await runsOf(a.projectId)).toHaveLength(4);
    expect(await casesOf(a.projectId)).toHaveLength(1);
    expect(callsFor(a.projectId)).toHaveLength(2);
  });

  it("the project's notification language: fr by default, en when set (notification-settings), and the runs speak it", async () => {
    const a = await tenant("Engine Lang");
    expect((await a.call("GET", "/notification-settings")).json()).toEqual({ language: "fr" });
    const bad = await a.call("PATCH", "/notification-settings", { language: "de" });
    expect(bad.statusCode).toBe(422);
    expect((bad.json() as { detail: { type: string; loc: string[] }[] }).detail[0]).toMatchObject({
      type: "literal_error",
      loc: ["body", "language"],
    });
    expect((await a.call("PATCH", "/notification-settings", { language: "en" }, a.readKey)).statusCode).toBe(403);
    const other = await tenant("Engine Lang other");
    const foreign = await t.app.inject({ method: "GET", url: `${a.base}/notification-settings`, headers: bearer(other.key) });
    expect(foreign.statusCode).toBe(404);
    expect((await a.call("PATCH", "/notification-settings", { language: "en" })).json()).toEqual({ language: "en" });
    const hook = await a.workflow({
      name: "Webhook",
      ...graph([trigger(), action("a1", "notify_webhook", { url: "https://example.test/hook" })], [{ from: "t", to: "a1" }]),
    });
    await watch(a);
    await t.services.runs.dispatchAll();
    const run = (await runsOf(a.projectId)).find((r) => r.workflow_id === hook && r.cve_id === "CVE-2024-3400")!;
    const step = (await a.call("GET", `/workflows/${hook}/runs/${run.id}`)).json().steps[1];
    expect(step.sent.title).toBe("CVE-2024-3400 (critical, KEV) affects Production");
  });

  it("conditions choose the edges; data actions tag and mark the alert; the run detail shows the steps; another tenant gets 404", async () => {
    const b = await tenant("Engine B");
    const wf = await b.workflow({
      name: "Triage",
      ...graph(
        [
          trigger(),
          { id: "c", type: "condition", match: "all", rules: [{ field: "cve.is_kev", op: "eq", value: true }] },
          action("kev", "add_tag", { tag: "KEV" }),
          action("read", "set_alert_read", { is_read: true }),
          action("case", "create_case", { severity: "low", notes: "ouvert par Triage" }),
        ],
        [
          { from: "t", to: "c" },
          { from: "c", to: "kev", when: "true" },
          { from: "c", to: "read", when: "false" },
          { from: "kev", to: "case" },
        ],
      ),
    });
    // The default workflow off: Triage alone opens the case, with its severity and notes.
    await b.call("PATCH", `/workflows/${b.defaultWorkflowId}/enabled`, { enabled: false });
    await watch(b);
    await t.services.runs.dispatchAll();
    const alerts = (await b.call("GET", "/alerts?page_size=10")).json().items as {
      cve_id: string;
      is_read: boolean;
      tags: { name: string }[];
    }[];
    const byCve = Object.fromEntries(alerts.map((x) => [x.cve_id, x]));
    expect(byCve["CVE-2024-3400"]).toMatchObject({ is_read: false, tags: [{ name: "KEV" }] });
    expect(byCve["CVE-2024-9468"]).toMatchObject({ is_read: true, tags: [] });
    expect(await casesOf(b.projectId)).toEqual([{ cve_id: "CVE-2024-3400", severity: "low", notes: "ouvert par Triage" }]);

    const runs = await runsOf(b.projectId);
    const kevRun = runs.find((r) => r.cve_id === "CVE-2024-3400")!;
    const res = await b.call("GET", `/workflows/${wf}/runs/${kevRun.id}`);
    expect(res.statusCode).toBe(200);
    const detail = res.json();
    expect(detail).toMatchObject({
      id: kevRun.id,
      workflow_id: wf,
      trigger_event: "cve.new_match",
      cve_id: "CVE-2024-3400",
      status: "success",
      attempts: 1,
      erreur: null,
    });
    expect(detail.finished_at).toEqual(expect.any(String));
    expect(detail.steps.map((s: { node: string; outcome: string }) => [s.node, s.outcome])).toEqual([
      ["t", "declenche"],
      ["c", "vrai"],
      ["kev", "succes"],
      ["read", "non_atteint"],
      ["case", "succes"],
    ]);
    expect(detail.steps[2]).toMatchObject({ action: "add_tag", sent: { tag: "KEV", tag_created: true }, error: null, attempt: 1 });
    expect(detail.steps[1].duration_ms).toBeGreaterThanOrEqual(0);
    // The spec's run list is unchanged.
    const list = (await b.call("GET", `/workflows/${wf}/runs`)).json();
    expect(Object.keys(list[0]).sort()).toEqual(["cve_id", "finished_at", "id", "started_at", "status", "trigger_event", "workflow_id"]);

    // Another tenant: its own path with this run id, or this path with its key: 404.
    const other = await tenant("Engine B other");
    const mine = await other.call("GET", `/workflows/${other.defaultWorkflowId}/runs/${kevRun.id}`);
    expect(mine.statusCode).toBe(404);
    expect(mine.json()).toEqual({ detail: "Run introuvable" });
    const theirs = await t.app.inject({ method: "GET", url: `${b.base}/workflows/${wf}/runs/${kevRun.id}`, headers: bearer(other.key) });
    expect(theirs.statusCode).toBe(404);
    // A run id that does not exist, and a run of this project under another of its workflows: 404 too.
    expect((await b.call("GET", `/workflows/${wf}/runs/${randomUUID()}`)).statusCode).toBe(404);
    expect((await b.call("GET", `/workflows/${b.defaultWorkflowId}/runs/${kevRun.id}`)).statusCode).toBe(404);
  });

  it("on_error stop and continue, and the statuses success, partial, failed, throttled", async () => {
    const c = await tenant("Engine C");
    await c.call("PATCH", `/workflows/${c.defaultWorkflowId}/enabled`, { enabled: false });
    const stop = await c.workflow({
      name: "Stop",
      ...graph(
        [
          trigger(),
          action("w", "notify_webhook", { url: "https://example.test/fail" }, "stop"),
          action("m", "notify_email", { to: ["ops@example.test"] }),
        ],
        [
          { from: "t", to: "w" },
          { from: "w", to: "m" },
        ],
      ),
    });
    const cont = await c.workflow({
      name: "Continue",
      ...graph(
        [
          trigger(),
          action("w", "notify_webhook", { url: "https://example.test/fail" }),
          action("m", "notify_email", { to: ["ops@example.test"] }),
        ],
        [
          { from: "t", to: "w" },
          { from: "w", to: "m" },
        ],
      ),
    });
    const limited = await c.workflow({
      name: "Limited",
      ...graph([trigger(), action("s", "notify_slack", { webhook_url: "https://hooks.example.test/x" })], [{ from: "t", to: "s" }]),
    });
    // max_runs_per_hour is a setting of the CLI (default 500), not of the spec's workflow record.
    const limit = (org: string) =>
      executeCommand(t.services, t.database, ["workflow", "limit", "--org", org, "--workflow", limited, "--max-runs-per-hour", "1"]);
    expect(await limit(c.orgId)).toEqual({ ok: true, result: { id: limited, name: "Limited", max_runs_per_hour: 1 } });
    expect(await limit((await tenant("Engine C other")).orgId)).toMatchObject({ ok: false, message: "Workflow introuvable" });
    await watch(c);
    await t.services.runs.dispatchAll();
    const runs = await runsOf(c.projectId);
    const statuses = (id: string) =>
      runs
        .filter((r) => r.workflow_id === id)
        .map((r) => r.status)
        .sort();
    expect(statuses(stop)).toEqual(["failed", "failed"]);
    expect(statuses(cont)).toEqual(["partial", "partial"]);
    expect(statuses(limited)).toEqual(["success", "throttled"]);
    expect(runs.every((r) => r.finished_at !== null)).toBe(true);
    // The default workflow only opens cases: its limit is far above the 500 of the workflows users write.
    const limits = await sqlRows<{ is_default: boolean; max_runs_per_hour: number }>(
      "select is_default, max_runs_per_hour from workflows where project_id = $1 and (is_default or id = $2) order by is_default",
      [c.projectId, stop],
    );
    expect(limits).toEqual([
      { is_default: false, max_runs_per_hour: 500 },
      { is_default: true, max_runs_per_hour: 100_000 },
    ]);
    const mine = callsFor(c.projectId);
    // Stop: the e-mail never went; Continue: it did, after the failed webhook; Limited: one Slack message, the other run throttled.
    expect(mine.filter((x) => x.action === "notify_email")).toHaveLength(2);
    expect(mine.filter((x) => x.action === "notify_webhook")).toHaveLength(4);
    expect(mine.filter((x) => x.action === "notify_slack")).toHaveLength(1);
    const stopped = runs.find((r) => r.workflow_id === stop)!;
    const detail = (await c.call("GET", `/workflows/${stop}/runs/${stopped.id}`)).json();
    expect(detail.steps.map((s: { outcome: string }) => s.outcome)).toEqual(["declenche", "echec", "non_atteint"]);
    expect(detail.steps[1]).toMatchObject({ error: "HTTP 500 (simulé)", sent: { url: "https://example.test/***" } });
    expect(detail.steps[2].detail).toContain("on_error: stop");
    const throttled = runs.find((r) => r.status === "throttled")!;
    const t2 = (await c.call("GET", `/workflows/${limited}/runs/${throttled.id}`)).json();
    expect(t2).toMatchObject({ status: "throttled", steps: [], erreur: expect.stringContaining("limite horaire") });
  });

  it("a burst does not delay a P1: runs are claimed P1 first, then oldest, by batches", async () => {
    const p = await tenant("Engine Priority");
    await p.call("PATCH", `/workflows/${p.defaultWorkflowId}/enabled`, { enabled: false });
    const hook = await p.workflow({
      name: "Hook",
      ...graph([trigger(), action("w", "notify_webhook", { url: "https://example.test/priority" })], [{ from: "t", to: "w" }]),
    });
    await t.database.executeSql("update workflows set max_runs_per_hour = 100000 where id = $1", [hook]);
    const burst = (n: number, palier: string) =>
      t.database.executeSql(
        `insert into outbox_events (org_id, project_id, event, cve_id, payload)
          select $1, $2, 'cve.new_match', 'CVE-2024-' || (100000 + g), jsonb_build_object('palier', $3::text) from generate_series(1, ${n}) g`,
        [p.orgId, p.projectId, palier],
      );
    // 2,000 P4 events become runs; a P1 event arrives after them.
    await burst(2000, "P4");
    while ((await t.services.runs.dispatch()).events > 0);
    await burst(1, "P1");
    while ((await t.services.runs.dispatch()).events > 0);
    const ranks = await sqlRows<{ priority: number; n: number }>(
      "select priority, count(*)::int as n from workflow_runs where project_id = $1 and finished_at is null group by 1 order by 1",
      [p.projectId],
    );
    expect(ranks).toEqual([
      { priority: 1, n: 1 },
      { priority: 4, n: 2000 },
    ]);
    // The first batch a worker claims holds the P1, though it is the newest run.
    expect(await t.services.runs.drain(32)).toBe(32);
    const done = await sqlRows<{ priority: number; status: string }>(
      "select priority, status from workflow_runs where project_id = $1 and finished_at is not null",
      [p.projectId],
    );
    expect(done).toHaveLength(32);
    expect(done.filter((r) => r.priority === 1)).toEqual([{ priority: 1, status: "success" }]);
    expect(calls.filter((c) => c.project === p.projectId)).toHaveLength(32);
    // The rest are the oldest P4 (not these tests' business to execute all 2,000: finished here).
    await t.database.executeSql("update workflow_runs set finished_at = now() where project_id = $1 and finished_at is null", [
      p.projectId,
    ]);
  });

  it("create_case is group-committed: a batch's cases open in one transaction; a case that cannot open fails its run alone, the others once", async () => {
    const p = await tenant("Engine Batch Cases");
    await p.call("PATCH", `/workflows/${p.defaultWorkflowId}/enabled`, { enabled: false });
    const wf = await p.workflow({
      name: "Case then hook",
      ...graph(
        [trigger(), action("case", "create_case"), action("w", "notify_webhook", { url: "https://example.test/batch" })],
        [
          { from: "t", to: "case" },
          { from: "case", to: "w" },
        ],
      ),
    });
    // 40 events (more than one claim of 32: two batches, the second claimed while the first runs).
    await t.database.executeSql(
      `insert into outbox_events (org_id, project_id, event, cve_id, payload)
        select $1, $2, 'cve.new_match', 'CVE-2024-' || (200000 + g), jsonb_build_object('palier', 'P3') from generate_series(1, 40) g`,
      [p.orgId, p.projectId],
    );
    // One case cannot be opened (the database refuses it): the batch holding it fails as a whole.
    const bad = "CVE-2024-200007";
    await t.database.executeSql(
      `create function engine_batch_refuse() returns trigger language plpgsql as $$
        begin raise exception 'refused by the test'; end $$`,
    );
    await t.database.executeSql(
      `create trigger engine_batch_refuse before insert on cases for each row
        when (new.cve_id = '${bad}' and new.project_id = '${p.projectId}') execute function engine_batch_refuse()`,
    );
    const many = vi.spyOn(t.services.cases, "openManyForWorkflow");
    let sizes: number[] = [];
    try {
      while ((await t.services.runs.dispatch()).events > 0);
      expect(await t.services.runs.drain()).toBe(40);
      sizes = many.mock.calls.map(([items]) => items.length);
    } finally {
      await t.database.executeSql("drop trigger engine_batch_refuse on cases; drop function engine_batch_refuse()");
      many.mockRestore();
    }
    // Batches, not one transaction per case: 40 cases in far fewer calls.
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(40);
    expect(Math.max(...sizes)).toBeGreaterThan(1);
    expect(sizes.length).toBeLessThan(40);

    const runs = await sqlRows<{ cve_id: string; status: string; steps: { node: string; outcome: string; error?: string }[] }>(
      "select cve_id, status, report->'steps' as steps from workflow_runs where workflow_id = $1 order by cve_id",
      [wf],
    );
    expect(runs).toHaveLength(40);
    // The refused case: its create_case failed (on_error continue: the webhook still went), its run partial.
    const refused = runs.find((r) => r.cve_id === bad)!;
    expect(refused.status).toBe("partial");
    expect(refused.steps.map((s) => [s.node, s.outcome])).toEqual([
      ["t", "declenche"],
      ["case", "echec"],
      ["w", "succes"],
    ]);
    // The database error, as any failed action records it.
    expect(refused.steps[1]!.error).toContain("insert into cases");
    // Every other run opened its case once, recorded once, and called the webhook once.
    const others = runs.filter((r) => r.cve_id !== bad);
    expect(others.every((r) => r.status === "success" && r.steps.map((s) => s.outcome).join() === "declenche,succes,succes")).toBe(true);
    const cases = await casesOf(p.projectId);
    expect(cases.map((c) => c.cve_id)).toEqual(others.map((r) => r.cve_id));
    const history = await sqlRows<{ n: number; actors: string[] }>(
      `select count(*)::int as n, array_agg(distinct h.actor_id) as actors from case_history h join cases c on c.id = h.case_id
        where c.project_id = $1 and h.event = 'created'`,
      [p.projectId],
    );
    expect(history).toEqual([{ n: 39, actors: [wf] }]);
    const hooks = callsFor(p.projectId);
    expect(hooks).toHaveLength(40);
    expect(new Set(hooks.map((c) => c.delivery)).size).toBe(40);
    // Run again: every run is finished, nothing is claimed, nothing opened or sent twice.
    expect(await t.services.runs.drain()).toBe(0);
    expect(await casesOf(p.projectId)).toHaveLength(39);
    expect(callsFor(p.projectId)).toHaveLength(40);
  });

  it("the worker claims its next batch while a run of the previous one is still waiting: a slow webhook holds its own run only", async () => {
    const p = await tenant("Engine Pipeline");
    await p.call("PATCH", `/workflows/${p.defaultWorkflowId}/enabled`, { enabled: false });
    const wf = await p.workflow({
      name: "Slow hook",
      ...graph([trigger(), action("w", "notify_webhook", { url: "https://example.test/hang" })], [{ from: "t", to: "w" }]),
    });
    await t.database.executeSql(
      `insert into outbox_events (org_id, project_id, event, cve_id, payload)
        select $1, $2, 'cve.new_match', 'CVE-2024-' || (300000 + g), jsonb_build_object('palier', 'P3') from generate_series(1, 40) g`,
      [p.orgId, p.projectId],
    );
    while ((await t.services.runs.dispatch()).events > 0);
    // The first webhook called waits until released; the 39 others answer at once.
    let entered!: () => void;
    const inHook = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release!: () => void;
    gate = { entered, release: new Promise<void>((resolve) => (release = resolve)) };
    const finished = async () =>
      (
        await sqlRows<{ n: number }>("select count(*)::int as n from workflow_runs where workflow_id = $1 and finished_at is not null", [
          wf,
        ])
      )[0]!.n;
    const drained = t.services.runs.drain();
    try {
      await inHook;
      // 40 runs: a first batch of 32 (the slow one in it), then 8. The 8 are claimed and finished while the slow one waits.
      await eventually(async () => (await finished()) === 39, 20_000);
      expect(await finished()).toBe(39);
    } finally {
      release();
    }
    expect(await drained).toBe(40);
    expect(await finished()).toBe(40);
    expect(callsFor(p.projectId)).toHaveLength(40);
  });

  it("organization workflows run for every project of the organization, after the project's own", async () => {
    const d = await tenant("Engine D");
    const second = await t.services.projects.create({ orgId: d.orgId, name: "Staging" });
    const org = await t.services.workflows.createAsOperator({
      orgId: d.orgId,
      projectId: null,
      name: "Org webhook",
      graph: {
        nodes: [trigger(), action("w", "notify_teams", { webhook_url: "https://teams.example.test/x" })],
        edges: [{ from: "t", to: "w" }],
      } as never,
    });
    await watch(d);
    const res = await t.app.inject({
      method: "POST",
      url: `/api/v1/organizations/${d.orgId}/projects/${second.id}/stacks`,
      headers: bearer(d.key),
      payload: { name: "Edge", items: [PANOS] },
    });
    expect(res.json().alertes_creees).toBe(2);
    await t.services.runs.dispatchAll();
    for (const projectId of [d.projectId, second.id]) {
      const runs = await runsOf(projectId);
      expect(runs.filter((r) => r.workflow_id === org.id).map((r) => r.status)).toEqual(["success", "success"]);
      expect((await casesOf(projectId)).length).toBe(1); // each project's default workflow, for its P1
      expect(callsFor(projectId).filter((x) => x.action === "notify_teams")).toHaveLength(2);
    }
    // The organization workflow's run reads through the project it ran for, not through another.
    const run = (await runsOf(second.id)).find((r) => r.workflow_id === org.id)!;
    const other = `/api/v1/organizations/${d.orgId}/projects/${second.id}/workflows/${org.id}/runs/${run.id}`;
    expect((await t.app.inject({ method: "GET", url: other, headers: bearer(d.key) })).statusCode).toBe(200);
    expect((await d.call("GET", `/workflows/${org.id}/runs/${run.id}`)).statusCode).toBe(404);
  });

  it("a worker killed mid-run: its lease expires and runs-recover resumes the run, completed steps skipped; past its attempts it is failed", async () => {
    const { x: e, wf, runId, resumedFromTheWebhook } = await oneRunThroughWebhook("Engine E", "hang");

    // Worker 1 takes the run and hangs in the webhook (as a killed process would: no more news).
    let entered!: () => void;
    const inHook = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release!: () => void;
    gate = {
      entered,
      release: new Promise<void>((resolve) => {
        release = resolve;
      }),
    };
    const first = t.services.runs.execute(runId);
    await inHook;
    const during = (await e.call("GET", `/workflows/${wf}/runs/${runId}`)).json();
    expect(during.finished_at).toBeNull();
    expect(during.steps.map((s: { node: string }) => s.node)).toEqual(["t", "case"]);
    // While the lease holds, recovery leaves the run alone.
    expect(await t.services.runs.execute(runId)).toBeNull();
    // Worker 1 stops past its grace time and ends the leases it holds (as at SIGTERM): recovery
    // resumes the run — the case is not opened again, the webhook is sent again (same delivery id).
    expect(await t.services.runs.releaseHeld()).toBe(1);
    expect(await t.services.runs.recover()).toEqual({ resumed: 1 });
    release();
    expect(await first).toBeNull(); // worker 1's late answer finds its lease lost and writes nothing
    await resumedFromTheWebhook();
    const mine = callsFor(e.projectId);
    expect(mine.map((x) => x.action)).toEqual(["notify_webhook", "notify_webhook", "notify_email"]);
    expect(new Set(mine.filter((x) => x.action === "notify_webhook").map((x) => x.delivery)).size).toBe(1);
    expect(
      await sqlRows("select 1 from case_history h join cases c on c.id = h.case_id where c.project_id = $1", [e.projectId]),
    ).toHaveLength(1);

    // A run whose lease expired after its last attempt is finished failed, with the reason.
    const [event] = await sqlRows<{ id: number }>("select id from outbox_events where project_id = $1", [e.projectId]);
    await t.database.executeSql(
      "insert into workflow_runs (workflow_id, event_id, project_id, trigger_event, cve_id, status, attempts, lease_until, report) values ($1, $2, $3, 'cve.new_match', 'CVE-2024-3400', 'success', 3, now() - interval '1 second', '{\"steps\": []}') ",
      [e.defaultWorkflowId, event!.id, e.projectId],
    );
    await t.services.runs.recover();
    const dead = (await runsOf(e.projectId)).find((r) => r.workflow_id === e.defaultWorkflowId)!;
    expect(dead).toMatchObject({ status: "failed", attempts: 4 });
    expect(dead.finished_at).not.toBeNull();
    const reason = (await e.call("GET", `/workflows/${e.defaultWorkflowId}/runs/${dead.id}`)).json();
    expect(reason.erreur).toContain("3 tentatives");
  });

  it("the database connection lost mid-run: the run is not failed, its lease ends at once and runs-recover resumes it", async () => {
    const { x: g, wf, runId, resumedFromTheWebhook } = await oneRunThroughWebhook("Engine G", "drop");
    connectionLosses = 1;
    expect(await t.services.runs.execute(runId)).toBeNull();
    const during = (await g.call("GET", `/workflows/${wf}/runs/${runId}`)).json();
    expect(during).toMatchObject({ finished_at: null, attempts: 1 });
    expect(during.erreur ?? null).toBeNull();
    expect(during.steps.map((s: { node: string }) => s.node)).toEqual(["t", "case"]);
    const [lease] = await sqlRows<{ over: boolean }>("select lease_until <= now() as over from workflow_runs where id = $1", [runId]);
    expect(lease!.over).toBe(true);
    expect(await t.services.runs.recover()).toEqual({ resumed: 1 });
    await resumedFromTheWebhook();
  });

  it("events written while no server ran are dispatched when the jobs start", async () => {
    const f = await tenant("Engine F");
    await watch(f); // as an import by the CLI would: events, no run
    expect(await runsOf(f.projectId)).toHaveLength(0);
    const jobs = await startJobs(t.database, t.services, createLogger("silent"), t.config);
    try {
      // The start-up dispatch and the runs-execute jobs run in this process's workers.
      for (let i = 0; i < 600; i++) {
        const runs = await runsOf(f.projectId);
        if (runs.length === 2 && runs.every((r) => r.finished_at !== null)) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await jobs.stop();
    }
    const runs = await runsOf(f.projectId);
    expect(runs.map((r) => r.status)).toEqual(["success", "success"]);
    expect((await casesOf(f.projectId)).map((c) => c.cve_id)).toEqual(["CVE-2024-3400"]);
  });

  it("a commit that writes events notifies the dispatchers (the minute's cron is the floor); one that writes none does not", async () => {
    const k = await tenant("Engine K");
    let notified = 0;
    const unsubscribe = t.services.cacheFeed.on(OUTBOX_TOPIC, () => notified++);
    const quiet = () => new Promise((r) => setTimeout(r, 300));
    try {
      const stack = (await k.call("POST", "/stacks", { name: "Edge", items: [PANOS] })).json();
      expect(stack.alertes_creees).toBe(2);
      await eventually(() => notified === 1); // two events, one transaction: one notification
      const none = await k.call("POST", `/stacks/${stack.id}/items`, { item_type: "product", value: "example:nothing@1.0" });
      expect(none.json().alertes_creees).toBe(0);
      await quiet();
      expect(notified).toBe(1);
      const one = await k.call("POST", `/stacks/${stack.id}/items`, { item_type: "cve", value: "CVE-2022-0028" });
      expect(one.json().alertes_creees).toBe(1);
      await eventually(() => notified === 2);
      await quiet();
      expect(notified).toBe(2);
    } finally {
      unsubscribe();
    }
  });

  it("cve.epss_spike: an EPSS import that raises a score writes the event per alerted project; each trigger's min_delta decides", async () => {
    const g = await tenant("Engine G");
    await g.call("PATCH", `/workflows/${g.defaultWorkflowId}/enabled`, { enabled: false });
    const spike = await g.workflow({
      name: "Spike",
      ...graph([trigger("cve.epss_spike", { min_delta: 0.1 }), action("a", "add_tag", { tag: "epss" })], [{ from: "t", to: "a" }]),
    });
    const big = await g.workflow({
      name: "Big spike",
      ...graph([trigger("cve.epss_spike", { min_delta: 0.5 }), action("a", "add_tag", { tag: "epss-fort" })], [{ from: "t", to: "a" }]),
    });
    await watch(g);
    await t.services.runs.dispatchAll(); // the new matches: no workflow of this project runs on them
    const dir = mkdtempSync(join(tmpdir(), "vigie-epss-"));
    const day = (date: string, rows: string) => {
      const file = join(dir, `epss-${date}.csv`);
      writeFileSync(file, `#model_version:v2025.03.14,score_date:${date}T00:00:00+0000\ncve,epss,percentile\n${rows}`);
      return file;
    };
    // First scores: no earlier score to rise from. Then CVE-2024-3400 +0.44, CVE-2024-9468 +0.01, then nothing moves.
    for (const [date, rows] of [
      ["2026-09-01", "CVE-2024-3400,0.50000,0.97\nCVE-2024-9468,0.00410,0.34\n"],
      ["2026-09-02", "CVE-2024-3400,0.94000,0.99\nCVE-2024-9468,0.01410,0.50\n"],
      ["2026-09-03", "CVE-2024-3400,0.94000,0.99\nCVE-2024-9468,0.01410,0.50\n"],
    ] as const)
      expect((await importFeed(db, "epss", [day(date, rows)])).errors).toEqual([]);
    const events = await sqlRows<{ cve_id: string; payload: Record<string, unknown> }>(
      "select cve_id, payload from outbox_events where project_id = $1 and event = 'cve.epss_spike' order by cve_id",
      [g.projectId],
    );
    expect(events.map((e) => [e.cve_id, e.payload.from, e.payload.to, e.payload.delta, e.payload.score_date])).toEqual([
      ["CVE-2024-3400", 0.5, 0.94, 0.44, "2026-09-02"],
      ["CVE-2024-9468", 0.0041, 0.0141, 0.01, "2026-09-02"],
    ]);
    await t.services.runs.dispatchAll();
    const runs = await runsOf(g.projectId);
    const steps = async (workflowId: string, cve: string) => {
      const run = runs.find((r) => r.workflow_id === workflowId && r.cve_id === cve)!;
      return (await g.call("GET", `/workflows/${workflowId}/runs/${run.id}`)).json().steps as { outcome: string; detail: string }[];
    };
    expect((await steps(spike, "CVE-2024-3400")).map((s) => s.outcome)).toEqual(["declenche", "succes"]);
    const low = await steps(spike, "CVE-2024-9468");
    expect(low.map((s) => s.outcome)).toEqual(["non_declenche", "non_atteint"]);
    expect(low[0]!.detail).toContain("sous le seuil min_delta 0.1");
    expect((await steps(big, "CVE-2024-3400")).map((s) => s.outcome)).toEqual(["non_declenche", "non_atteint"]);
    const alerts = (await g.call("GET", "/alerts?page_size=10")).json().items as { cve_id: string; tags: { name: string }[] }[];
    expect(alerts.map((a) => [a.cve_id, a.tags.map((x) => x.name)]).sort()).toEqual([
      ["CVE-2024-3400", ["epss"]],
      ["CVE-2024-9468", []],
    ]);
  });

  it.runIf(t.database.driver === "pglite")(
    "embedded database: runs a killed server left unfinished are resumed at the next start",
    async () => {
      const h = await tenant("Engine H");
      await watch(h);
      await t.services.runs.dispatch(); // runs created, then the server "dies" holding one of them
      const [held, never] = await runsOf(h.projectId);
      await t.database.executeSql("update workflow_runs set lease_until = now() + interval '1 hour', attempts = 1 where id = $1", [
        held!.id,
      ]);
      const jobs = await startJobs(t.database, t.services, createLogger("silent"), t.config);
      try {
        for (let i = 0; i < 600; i++) {
          if ((await runsOf(h.projectId)).every((r) => r.finished_at !== null)) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      } finally {
        await jobs.stop();
      }
      const runs = await runsOf(h.projectId);
      expect(runs.map((r) => [r.id, r.status])).toEqual([
        [held!.id, "success"],
        [never!.id, "success"],
      ]);
      expect(runs.find((r) => r.id === held!.id)!.attempts).toBe(2);
      expect(await casesOf(h.projectId)).toHaveLength(1);
    },
  );

  it("two workers on one database dispatch and execute concurrently: every run once, every action once", async () => {
    const other = createServices(await secondConnection(t.database), t.config, {
      notify: {
        notify_webhook: fake("notify_webhook"),
        notify_email: fake("notify_email"),
        notify_slack: fake("notify_slack"),
        notify_teams: fake("notify_teams"),
      },
    });
    const tenants = [];
    for (const name of ["Engine W1", "Engine W2", "Engine W3"]) {
      const w = await tenant(name);
      await w.workflow({
        name: "Hook",
        ...graph([trigger(), action("w", "notify_webhook", { url: "https://example.test/hook" })], [{ from: "t", to: "w" }]),
      });
      await watch(w);
      tenants.push(w);
    }
    await Promise.all([t.services.runs.dispatchAll(), other.runs.dispatchAll(), t.services.runs.dispatchAll(), other.runs.dispatchAll()]);
    for (const w of tenants) {
      const runs = await runsOf(w.projectId);
      expect(runs).toHaveLength(4); // 2 events × (default + Hook)
      expect(runs.every((r) => r.status === "success" && r.attempts === 1)).toBe(true);
      expect(await casesOf(w.projectId)).toHaveLength(1);
      const hooks = callsFor(w.projectId);
      expect(hooks).toHaveLength(2);
      expect(new Set(hooks.map((c) => c.delivery)).size).toBe(2);
    }
    // The same run asked of both workers at once: one executes it, the other finds it taken or finished.
    const x = await tenant("Engine W4");
    await watch(x);
    const { runs } = await t.services.runs.dispatch();
    const mine = (await runsOf(x.projectId)).map((r) => r.id);
    expect(runs).toEqual(expect.arrayContaining(mine));
    for (const id of mine) {
      const results = await Promise.all([t.services.runs.execute(id), other.runs.execute(id)]);
      expect(results.filter((r) => r !== null)).toEqual(["success"]);
    }
    expect(await casesOf(x.projectId)).toHaveLength(1);
  });
});

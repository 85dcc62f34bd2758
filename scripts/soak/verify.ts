import type pg from "pg";
import { type Attempt, type Check, classify, duplicates, type Receipt, spread, type Window } from "./checks.js";
import type { Client } from "./client.js";
import type { Cluster } from "./cluster.js";
import type { ImportRun } from "./feeds.js";
import type { Tenant } from "./setup.js";
import type { Journal } from "./traffic.js";

/** Everything the end checks read besides the database. */
export interface Facts {
  sql: pg.Client;
  client: Client;
  cluster: Cluster;
  tenant: Tenant;
  journal: Journal;
  imports: ImportRun[];
  /** CVE ids the mirror published. */
  published: string[];
  receipts: Receipt[];
  windows: Window[];
}

const n = (x: number) => x.toLocaleString("en-US");

async function rows<T>(sql: pg.Client, text: string, values: unknown[] = []): Promise<T[]> {
  return (await sql.query(text, values)).rows as T[];
}

/** The processes: none died unprompted; each restart's time to ready. */
export function processCheck(cluster: Cluster): Check {
  const kills = cluster.restarts.filter((r) => r.kind === "kill");
  const byRole = (role: string) => kills.filter((k) => k.name.startsWith(role)).length;
  return {
    name: "processes: killed and back, none died unprompted",
    pass: cluster.unexpectedExits.length === 0,
    figures:
      `${kills.length} kills (${byRole("api")} api, ${byRole("worker")} worker); kill → /readyz 200 ${spread(kills.map((k) => k.killToReady))}` +
      `, spawn → ready ${spread(kills.map((k) => k.spawnToReady))}`,
    details: cluster.unexpectedExits.map((e) => `${e.name} exited on its own at ${new Date(e.at).toISOString()} (${e.code ?? e.signal})`),
  };
}

/** Every answer of the traffic: no 5xx but the drop's 503s, no request unanswered but those cut by a kill. */
export function httpCheck(attempts: Attempt[], windows: Window[]): Check {
  const byStatus = new Map<string, number>();
  const verdicts = new Map<string, number>();
  const failures = new Map<string, number>();
  const firstAt = new Map<string, number>();
  for (const a of attempts) {
    const status = a.status === null ? "no answer" : String(a.status);
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    const v = classify(a, windows);
    verdicts.set(v, (verdicts.get(v) ?? 0) + 1);
    if (v === "failure") {
      const what = `${a.op}: ${a.status ?? a.error} on ${a.api}`;
      failures.set(what, (failures.get(what) ?? 0) + 1);
      if (!firstAt.has(what)) firstAt.set(what, a.start);
    }
  }
  const statuses = [...byStatus].sort(([a], [b]) => a.localeCompare(b)).map(([s, c]) => `${s} ${n(c)}`);
  return {
    name: "HTTP: no 5xx but in the drop, nothing lost but on a kill",
    pass: !failures.size,
    figures:
      `${n(attempts.length)} requests: ${statuses.join(" · ")}; allowed: 503 during the drop ${verdicts.get("503 during the drop") ?? 0}, ` +
      `cut by a kill ${verdicts.get("cut by a kill") ?? 0}; failures ${verdicts.get("failure") ?? 0}`,
    details: [...failures].sort((a, b) => b[1] - a[1]).map(([w, c]) => `${c} × ${w} (first at ${new Date(firstAt.get(w)!).toISOString()})`),
  };
}

/** Every write the API acknowledged is in the database (read by SQL) and read back through the API. */
export async function writesCheck(f: Facts): Promise<Check> {
  const { sql, tenant: t, journal: j } = f;
  const details: string[] = [];
  // Workflows: one per Idempotency-Key, with the last acknowledged change; the API lists each as the database has it.
  const wf = await rows<{
    id: string;
    name: string;
    version: number;
    description: string | null;
    updated_at: Date;
    keys: number;
    same: number;
  }>(
    sql,
    `select w.id, w.name, w.version, w.description, w.updated_at,
            (select count(*)::int from workflows x where x.project_id = w.project_id and x.name = w.name) as same,
            (select count(*)::int from idempotency_keys k where k.resource_id = w.id) as keys
       from workflows w where w.project_id = $1`,
    [t.writes.id],
  );
  const byId = new Map(wf.map((w) => [w.id, w]));
  const listed = await f.client.untilAnswered({ op: "check: workflows", method: "GET", path: `${t.writes.base}/workflows`, key: t.key });
  const api = new Map(((listed.answer?.body ?? []) as { id: string; updated_at: string }[]).map((w) => [w.id, w]));
  for (const w of j.workflows) {
    const row = byId.get(w.id);
    if (!row) {
      details.push(`workflow ${w.name} (${w.key}) acknowledged, not in the database`);
      continue;
    }
    if (row.same !== 1 || row.keys !== 1) details.push(`workflow ${w.name}: ${row.same} rows of that name, ${row.keys} keys naming it`);
    if (row.version !== w.version || row.description !== w.description)
      details.push(`workflow ${w.name}: database v${row.version} « ${row.description} », acknowledged v${w.version} « ${w.description} »`);
    const seen = api.get(w.id);
    if (!seen || new Date(seen.updated_at).getTime() !== row.updated_at.getTime())
      details.push(
        `workflow ${w.name}: the API lists ${seen ? `updated_at ${seen.updated_at}` : "nothing"}, the database ${row.updated_at.toISOString()}`,
      );
  }
  // Stack items, each with the alert it raised; those whose answer was lost are found or not, never twice.
  const items = await rows<{ value: string; n: number; alerted: boolean }>(
    sql,
    `select i.value, count(*)::int as n, bool_or(exists (select 1 from alerts a where a.project_id = i.project_id and a.cve_id = i.value)) as alerted
       from stack_items i where i.stack_id = $1 group by i.value`,
    [t.traffic.stackId],
  );
  const itemRows = new Map(items.map((i) => [i.value, i]));
  for (const i of j.items) {
    const row = itemRows.get(i.cve);
    if (!row) details.push(`stack item ${i.cve} acknowledged, not in the database`);
    else if (!row.alerted || i.raised !== 1)
      details.push(`stack item ${i.cve}: answer said ${i.raised} alert(s), alert in the database: ${row.alerted}`);
  }
  for (const i of items) if (i.n > 1) details.push(`stack item ${i.value} stored ${i.n} times`);
  const unknownCommitted = j.itemsUnknown.filter((c) => itemRows.has(c)).length;
  const tags = await rows<{ name: string; n: number }>(
    sql,
    "select lower(name) as name, count(*)::int as n from tags where project_id = $1 group by 1",
    [t.traffic.id],
  );
  const tagRows = new Map(tags.map((r) => [r.name, r.n]));
  for (const tag of j.tags)
    if (tagRows.get(tag.name.toLowerCase()) !== 1) details.push(`tag ${tag.name}: ${tagRows.get(tag.name) ?? 0} rows`);
  const read = await rows<{ id: string }>(sql, "select id from alerts where id = any($1::uuid[]) and is_read", [j.alertsRead]);
  const readSet = new Set(read.map((r) => r.id));
  for (const id of j.alertsRead) if (!readSet.has(id)) details.push(`alert ${id} acknowledged read, unread in the database`);
  const resent = j.workflows.filter((w) => w.tries > 1).length;
  return {
    name: "writes: every acknowledged write committed, each once",
    pass: details.length === 0 && listed.answer?.status === 200,
    figures:
      `workflows ${j.workflows.length} (${resent} sent again with the same Idempotency-Key, each made one), ` +
      `changes ${j.patches.acknowledged} (+${j.patches.provenByConflict} proven by 409), stack items ${j.items.length} ` +
      `(each raised its alert; ${j.itemsUnknown.length} unanswered, ${unknownCommitted} of them committed), tags ${j.tags.length} ` +
      `(${j.tags.filter((x) => x.tries > 1).length} sent again), alerts read ${j.alertsRead.length}`,
    details,
  };
}

/** Events, runs and webhooks, once the workers have drained: nothing pending, nothing stuck, each delivery once. */
export async function engineChecks(f: Facts): Promise<Check[]> {
  const { sql, tenant: t } = f;
  const projects = [t.traffic.id, t.feeds.id];
  const [pending] = await rows<{ n: number }>(sql, "select count(*)::int as n from outbox_events where processed_at is null");
  const [unfinished] = await rows<{ n: number }>(sql, "select count(*)::int as n from workflow_runs where finished_at is null");
  const perProject = await rows<{ project: string; events: number; alerts: number; runs: number; workflows: number }>(
    sql,
    `select p.id as project,
            (select count(*)::int from outbox_events e where e.project_id = p.id and e.event = 'cve.new_match') as events,
            (select count(*)::int from alerts a where a.project_id = p.id) as alerts,
            (select count(*)::int from workflow_runs r where r.project_id = p.id and r.trigger_event = 'cve.new_match') as runs,
            (select count(*)::int from workflows w where w.project_id = p.id and w.is_enabled
               and w.graph @> '{"nodes": [{"type": "trigger", "event": "cve.new_match"}]}') as workflows
       from projects p where p.id = any($1::uuid[])`,
    [projects],
  );
  const statuses = await rows<{ status: string; n: number; resumed: number; most: number }>(
    sql,
    `select status, count(*)::int as n, count(*) filter (where attempts > 1)::int as resumed, max(attempts)::int as most
       from workflow_runs where project_id = any($1::uuid[]) group by status order by status`,
    [projects],
  );
  const notSuccess = await rows<{ id: string; status: string; report: unknown }>(
    sql,
    "select id, status, report from workflow_runs where project_id = any($1::uuid[]) and status <> 'success' limit 5",
    [projects],
  );
  const dispatch: string[] = [];
  for (const p of perProject) {
    if (p.events !== p.alerts) dispatch.push(`project ${p.project}: ${p.alerts} alerts, ${p.events} cve.new_match events`);
    if (p.runs !== p.events * p.workflows)
      dispatch.push(`project ${p.project}: ${p.runs} runs for ${p.events} events × ${p.workflows} workflows`);
  }
  const checks: Check[] = [
    {
      name: "events: each alert's event dispatched once per workflow",
      pass: pending!.n === 0 && dispatch.length === 0,
      figures: `${perProject.reduce((s, p) => s + p.events, 0)} cve.new_match events, ${pending!.n} pending; runs = events × workflows per project`,
      details: dispatch,
    },
    {
      name: "runs: none stuck, every one a success",
      pass: unfinished!.n === 0 && notSuccess.length === 0,
      figures:
        `${statuses.reduce((s, r) => s + r.n, 0)} runs: ${statuses.map((r) => `${r.status} ${r.n}`).join(" · ")}; unfinished ${unfinished!.n}; ` +
        `resumed after a kill (attempts > 1) ${statuses.reduce((s, r) => s + r.resumed, 0)}, most attempts ${Math.max(0, ...statuses.map((r) => r.most))}`,
      details: notSuccess.map((r) => `run ${r.id} ${r.status}: ${JSON.stringify(r.report).slice(0, 200)}`),
    },
  ];

  // Webhooks: one per run of the webhook workflows, received at least once; twice only when a kill explains it.
  const runs = await rows<{ id: string; attempts: number; delivered: boolean }>(
    sql,
    "select id, attempts, status = 'success' as delivered from workflow_runs where workflow_id = any($1::uuid[])",
    [[t.traffic.webhookId, t.feeds.webhookId]],
  );
  const attempts = new Map(runs.map((r) => [r.id, r.attempts]));
  const received = new Set(f.receipts.map((r) => r.runId));
  const missing = runs.filter((r) => !received.has(r.id));
  const strangers = f.receipts.filter((r) => !attempts.has(r.runId));
  const unsigned = f.receipts.filter((r) => !r.signed);
  const dups = duplicates(f.receipts, (id) => attempts.get(id) ?? 0, f.windows);
  const unexplained = dups.filter((d) => !d.cause);
  const distinct = new Set(f.receipts.map((r) => r.delivery)).size;
  checks.push({
    name: "webhooks: every delivery received, none twice unexplained",
    pass: missing.length === 0 && strangers.length === 0 && unsigned.length === 0 && unexplained.length === 0,
    figures:
      `${runs.length} webhook runs, ${f.receipts.length} requests received for ${distinct} delivery ids; missing ${missing.length}; ` +
      `received twice ${dups.length} (${dups.length - unexplained.length} resent after a worker's end or the drop, ${unexplained.length} unexplained); ` +
      `bad signature ${unsigned.length}`,
    details: [
      ...missing.slice(0, 3).map((r) => `run ${r.id} (attempts ${r.attempts}): no delivery received`),
      ...strangers.slice(0, 3).map((r) => `delivery ${r.delivery} names run ${r.runId}, unknown`),
      ...dups.map(
        (d) =>
          `delivery ${d.delivery} received ${d.count}× (${((d.last - d.first) / 1000).toFixed(1)} s apart, run attempts ${d.attempts})` +
          (d.cause
            ? `: ${d.cause.kind === "drop" ? "the connection drop" : `${d.cause.process} killed`} in between`
            : ": no kill in between"),
      ),
    ],
  });
  return checks;
}

/** The imports by the CLI and the mirror's deltas: every CVE stored, alerted on the watching project. */
export async function feedsCheck(f: Facts): Promise<Check> {
  const imported = [...new Set(f.imports.filter((r) => r.ok).flatMap((r) => r.ids))];
  const failedOutsideDrop = f.imports.filter(
    (r) => !r.ok && !f.windows.some((w) => w.kind === "drop" && r.start <= w.end && r.end >= w.start),
  );
  const ids = [...imported, ...f.published];
  const found = await rows<{ cve_id: string; alerted: boolean }>(
    f.sql,
    `select c.cve_id, exists (select 1 from alerts a where a.project_id = $2 and a.cve_id = c.cve_id) as alerted
       from cves c where c.cve_id = any($1::text[])`,
    [ids, f.tenant.feeds.id],
  );
  const byId = new Map(found.map((r) => [r.cve_id, r.alerted]));
  const lost = ids.filter((id) => byId.get(id) !== true);
  const fromMirror = f.published.filter((id) => byId.has(id)).length;
  return {
    name: "feeds: every CVE imported or published stored and alerted",
    pass: lost.length === 0 && failedOutsideDrop.length === 0,
    figures:
      `CLI imports ${f.imports.filter((r) => r.ok).length} (${imported.length} CVEs; ${f.imports.filter((r) => !r.ok).length} failed attempts, ` +
      `${failedOutsideDrop.length} outside the drop); mirror deltas: ${f.published.length} CVEs published, ${fromMirror} synced`,
    details: [
      ...lost.slice(0, 5).map((id) => `${id}: ${byId.has(id) ? "stored, no alert" : "not stored"}`),
      ...failedOutsideDrop.slice(0, 3).map((r) => `import at ${new Date(r.start).toISOString()} failed: ${r.error}`),
    ],
  };
}

/** The fields of the workflow list, as the API answers them and as the database holds them, in id order. */
const listed = (ws: { id: string; name: string; is_enabled: boolean; updated_at: string | Date }[]) =>
  JSON.stringify(
    ws
      .map((w) => [w.id, w.name, w.is_enabled, new Date(w.updated_at).getTime()])
      .sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0)),
  );

/** Each API's workflow list of each project equals what the database holds (after every change and the drop). */
export async function listsCheck(f: Facts): Promise<Check> {
  const details: string[] = [];
  let compared = 0;
  for (const p of [f.tenant.traffic, f.tenant.feeds, f.tenant.writes]) {
    const want = listed(await rows(f.sql, "select id, name, is_enabled, updated_at from workflows where project_id = $1", [p.id]));
    for (const api of f.cluster.names("api")) {
      const a = await f.client.on(api, { op: "check: workflows", method: "GET", path: `${p.base}/workflows`, key: f.tenant.key });
      compared++;
      if (a?.status !== 200 || listed(a.body) !== want) details.push(`${api}, project ${p.id}: the list differs from the database`);
    }
  }
  return {
    name: "caches: workflow lists equal the database",
    pass: !details.length,
    figures: `${compared} lists compared (3 projects × each API)`,
    details,
  };
}

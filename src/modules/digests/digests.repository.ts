import { sql } from "drizzle-orm";
import type { NotificationMessage } from "../../engine/actions.js";
import type { StoredGraph } from "../../engine/graph.js";
import type { Executor } from "../../platform/db/client.js";
import { pgArray, rowsOf } from "../../platform/db/sql.js";

/** A notify node of an enabled workflow that gathers digests, or that has items waiting (throttled runs). */
export interface DigestNodeRow {
  workflow_id: string;
  workflow_name: string;
  project_id: string | null;
  updated_at: Date | string;
  node_id: string;
  /** The node's action and params; null when the node is no longer in the graph. */
  action: string | null;
  params: Record<string, unknown> | null;
}

export interface PendingDigestRow {
  id: string;
  workflow_id: string;
  node_id: string;
  project_id: string | null;
  slot: Date | string;
  period_start: Date | string | null;
  closed_at: Date | string;
  attempts: number;
}

export interface ItemRow {
  id: number;
  event_id: number;
  run_id: string | null;
  alert_id: string | null;
  project_id: string;
  message: NotificationMessage | null;
  throttled: boolean;
  added_at: Date | string;
}

const NIL = "00000000-0000-0000-0000-000000000000";
const iso = (v: Date | string | null) => (v === null ? null : (v instanceof Date ? v : new Date(v)).toISOString());

/** SQL of digests and their items (the only writer of `digests` and `digest_items`). */
export const digestsRepository = {
  /** One event's item for a digest node; a replayed run adds nothing (one item per workflow, node and event). */
  async addItem(
    ex: Executor,
    i: {
      workflow_id: string;
      node_id: string;
      project_id: string;
      event_id: number;
      run_id: string;
      alert_id: string | null;
      message: NotificationMessage;
    },
  ): Promise<boolean> {
    const rows = await rowsOf(
      ex,
      sql`insert into digest_items (workflow_id, node_id, project_id, event_id, run_id, alert_id, message)
        values (${i.workflow_id}, ${i.node_id}, ${i.project_id}, ${i.event_id}, ${i.run_id}, ${i.alert_id}, ${JSON.stringify(i.message)}::jsonb)
        on conflict (workflow_id, node_id, event_id) do nothing returning 1`,
    );
    return rows.length > 0;
  },

  /** Items of throttled runs (their message is built when the digest is sent). */
  async addThrottled(
    ex: Executor,
    items: { workflow_id: string; node_id: string; project_id: string; event_id: number; run_id: string; alert_id: string | null }[],
  ): Promise<void> {
    if (!items.length) return;
    await ex.execute(
      sql`insert into digest_items (workflow_id, node_id, project_id, event_id, run_id, alert_id, throttled)
        select r.workflow_id, r.node_id, r.project_id, r.event_id, r.run_id, r.alert_id, true
        from json_to_recordset(${JSON.stringify(items)}::json)
          as r(workflow_id uuid, node_id text, project_id uuid, event_id bigint, run_id uuid, alert_id uuid)
        on conflict (workflow_id, node_id, event_id) do nothing`,
    );
  },

  /** The graphs (and names) of some workflows. */
  async graphs(ex: Executor, workflowIds: string[]): Promise<Map<string, { name: string; graph: StoredGraph }>> {
    if (!workflowIds.length) return new Map();
    const rows = await rowsOf<{ id: string; name: string; graph: StoredGraph }>(
      ex,
      sql`select id, name, graph from workflows where id = any(${pgArray(workflowIds)}::uuid[])`,
    );
    return new Map(rows.map((r) => [r.id, { name: r.name, graph: r.graph }]));
  },

  /**
   * The digest nodes of enabled workflows (one of `workflowId` when given), and every node with items
   * waiting — a throttled run's event sent to a node that sends at once, a node switched back to
   * immediate, a disabled workflow — with its action and params as the graph has them now.
   */
  async digestNodes(ex: Executor, workflowId?: string): Promise<DigestNodeRow[]> {
    const one = workflowId ? sql`and w.id = ${workflowId}` : sql``;
    return rowsOf<DigestNodeRow>(
      ex,
      sql`with nodes as (
          select w.id as workflow_id, n->>'id' as node_id
          from workflows w, jsonb_array_elements(w.graph->'nodes') n
          where w.is_enabled and n->>'type' = 'action' and n->'params'->'delivery'->>'mode' = 'digest' ${one}
          union
          select distinct i.workflow_id, i.node_id from digest_items i join workflows w on w.id = i.workflow_id
          where i.digest_id is null ${one}
        )
        select w.id as workflow_id, w.name as workflow_name, w.project_id, w.updated_at, x.node_id,
          (select n->>'action' from jsonb_array_elements(w.graph->'nodes') n where n->>'id' = x.node_id and n->>'type' = 'action' limit 1) as action,
          (select n->'params' from jsonb_array_elements(w.graph->'nodes') n where n->>'id' = x.node_id and n->>'type' = 'action' limit 1) as params
        from nodes x join workflows w on w.id = x.workflow_id
        order by w.id, x.node_id`,
    );
  },

  /** The projects with items waiting at a node. */
  async pendingProjects(ex: Executor, workflowId: string, nodeId: string, slot: Date): Promise<string[]> {
    const rows = await rowsOf<{ project_id: string }>(
      ex,
      sql`select distinct project_id from digest_items where workflow_id = ${workflowId} and node_id = ${nodeId} and digest_id is null
        and added_at <= ${slot.toISOString()}::timestamptz`,
    );
    return rows.map((r) => r.project_id);
  },

  /** Whether a node ever closed a digest. */
  async hasDigest(ex: Executor, workflowId: string, nodeId: string): Promise<boolean> {
    const rows = await rowsOf(ex, sql`select 1 from digests where workflow_id = ${workflowId} and node_id = ${nodeId} limit 1`);
    return rows.length > 0;
  },

  /**
   * Closes the digest of (node, project) for `slot`, in the caller's transaction: creates its row —
   * none when one already closed this slot (another worker, or an earlier run of the job) — and
   * claims every item waiting, so an item belongs to one digest only (`digest_id is null` is checked
   * again under the row lock). `sendEmpty`: an empty digest is still sent (« rien à signaler »).
   * Returns the digest and its item count, or null when the slot was already closed.
   */
  async close(
    ex: Executor,
    workflowId: string,
    nodeId: string,
    projectId: string | null,
    slot: Date,
    sendEmpty: boolean,
  ): Promise<{ id: string; items: number; status: string } | null> {
    const project = projectId ?? NIL;
    const [row] = await rowsOf<{ id: string }>(
      ex,
      sql`insert into digests (workflow_id, node_id, project_id, slot, period_start)
        select ${workflowId}, ${nodeId}, ${projectId}, ${slot.toISOString()}::timestamptz,
          (select max(closed_at) from digests where workflow_id = ${workflowId} and node_id = ${nodeId}
             and coalesce(project_id, ${NIL}::uuid) = ${project}::uuid)
        where not exists (select 1 from digests where workflow_id = ${workflowId} and node_id = ${nodeId}
             and coalesce(project_id, ${NIL}::uuid) = ${project}::uuid and slot >= ${slot.toISOString()}::timestamptz)
        on conflict do nothing returning id`,
    );
    if (!row) return null;
    const claimed = projectId
      ? await rowsOf(
          ex,
          sql`update digest_items set digest_id = ${row.id}
            where workflow_id = ${workflowId} and node_id = ${nodeId} and project_id = ${projectId} and digest_id is null returning 1`,
        )
      : [];
    const status = claimed.length || sendEmpty ? "pending" : "empty";
    await ex.execute(sql`update digests set item_count = ${claimed.length}, status = ${status} where id = ${row.id}`);
    return { id: row.id, items: claimed.length, status };
  },

  /**
   * Takes up to `limit` digests waiting to be sent (closed and never sent, or whose sender died:
   * lease expired) for `leaseSeconds`; SKIP LOCKED, so two workers never take the same one.
   */
  async claimToSend(ex: Executor, leaseSeconds: number, limit: number): Promise<PendingDigestRow[]> {
    return rowsOf<PendingDigestRow>(
      ex,
      sql`update digests set lease_until = now() + make_interval(secs => ${leaseSeconds}), attempts = attempts + 1
        where id in (select id from digests where status = 'pending' and (lease_until is null or lease_until < now())
          order by closed_at limit ${limit} for update skip locked)
        returning id, workflow_id, node_id, project_id, slot, period_start, closed_at, attempts`,
    );
  },

  /** Every digest lease ends now (the embedded database at start-up: no other process can hold one). */
  async expireLeases(ex: Executor): Promise<number> {
    const rows = await rowsOf(
      ex,
      sql`update digests set lease_until = now() - interval '1 second' where status = 'pending' and lease_until > now() returning 1`,
    );
    return rows.length;
  },

  async items(ex: Executor, digestId: string): Promise<ItemRow[]> {
    const rows = await rowsOf<ItemRow & { event_id: string | number; id: string | number }>(
      ex,
      sql`select id, event_id, run_id, alert_id, project_id, message, throttled, added_at from digest_items
        where digest_id = ${digestId} order by id`,
    );
    return rows.map((r) => ({ ...r, id: Number(r.id), event_id: Number(r.event_id) }));
  },

  async markSent(ex: Executor, id: string, sent: Record<string, unknown>): Promise<void> {
    await ex.execute(
      sql`update digests set status = 'sent', sent_at = now(), lease_until = null, last_error = null, sent = ${JSON.stringify(sent)}::jsonb
        where id = ${id}`,
    );
  },

  /** A failed send: retried after `retryInSeconds` (the lease), or failed for good when `final`. */
  async markFailed(ex: Executor, id: string, error: string, final: boolean, retryInSeconds: number): Promise<void> {
    await ex.execute(
      sql`update digests set last_error = ${error},
          status = case when ${final} then 'failed' else status end,
          lease_until = case when ${final} then null else now() + make_interval(secs => ${retryInSeconds}) end
        where id = ${id}`,
    );
  },

  /** The items waiting at a workflow's nodes (one project's when the workflow is an organization's), oldest first. */
  async waiting(ex: Executor, workflowId: string, projectId: string | null, limit: number): Promise<(ItemRow & { node_id: string })[]> {
    const project = projectId ? sql`and project_id = ${projectId}` : sql``;
    const rows = await rowsOf<ItemRow & { node_id: string; event_id: string | number; id: string | number }>(
      ex,
      sql`select id, node_id, event_id, run_id, alert_id, project_id, message, throttled, added_at from digest_items
        where workflow_id = ${workflowId} and digest_id is null ${project} order by id limit ${limit}`,
    );
    return rows.map((r) => ({ ...r, id: Number(r.id), event_id: Number(r.event_id) }));
  },

  /** The last digest a node closed for a project (or any project), for a preview's period. */
  async lastClosed(ex: Executor, workflowId: string, nodeId: string, projectId: string | null): Promise<string | null> {
    const project = projectId ? sql`and project_id = ${projectId}` : sql``;
    const [row] = await rowsOf<{ at: Date | string | null }>(
      ex,
      sql`select max(closed_at) as at from digests where workflow_id = ${workflowId} and node_id = ${nodeId} ${project}`,
    );
    return iso(row?.at ?? null);
  },

  /** A workflow's last digests (status, counts), newest first. */
  async recent(ex: Executor, workflowId: string, projectId: string | null, limit: number) {
    const project = projectId ? sql`and (project_id = ${projectId} or project_id is null)` : sql``;
    return rowsOf<{
      id: string;
      node_id: string;
      slot: Date | string;
      closed_at: Date | string;
      status: string;
      item_count: number;
      attempts: number;
      sent_at: Date | string | null;
      last_error: string | null;
    }>(
      ex,
      sql`select id, node_id, slot, closed_at, status, item_count, attempts, sent_at, last_error from digests
        where workflow_id = ${workflowId} ${project} order by closed_at desc, id limit ${limit}`,
    );
  },

  /** Digests closed before `before` (sent, empty or failed: never a pending one), with their items. */
  async purge(ex: Executor, before: Date, batch: number): Promise<number> {
    const rows = await rowsOf(
      ex,
      sql`delete from digests where id in (select id from digests where status <> 'pending' and closed_at < ${before.toISOString()}::timestamptz limit ${batch})
        returning 1`,
    );
    return rows.length;
  },
};

export { iso };

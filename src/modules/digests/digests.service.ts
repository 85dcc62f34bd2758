import { ActionError, type ActionHandler, type NotificationMessage } from "../../engine/actions.js";
import type { StoredGraph } from "../../engine/graph.js";
import type { DigestSender } from "../../engine/notify/digest-send.js";
import { type DigestInput, type DigestItem, digestText, renderDigest } from "../../engine/notify/digest.js";
import type { NotifyActionName } from "../../engine/notify/index.js";
import { type Delivery, digestDelivery, lastSlot, nextSlot, OVERFLOW_DELIVERY } from "../../engine/notify/schedule.js";
import type { ActionName } from "../../engine/vocabulary.js";
import type { ProjectScope } from "../../platform/auth/context.js";
import type { Db, Executor } from "../../platform/db/client.js";
import { purgeInBatches } from "../../platform/db/sql.js";
import type { ThrottleOverflow } from "../runs/runs.service.js";
import type { WorkflowsService } from "../workflows/workflows.service.js";
import { digestsRepository as repo, type ItemRow, iso } from "./digests.repository.js";
import type { DigestPreviewOut } from "./digests.schemas.js";

const NOTIFY = ["notify_webhook", "notify_email", "notify_slack", "notify_teams"] as const;
const isNotify = (a: unknown): a is NotifyActionName => (NOTIFY as readonly unknown[]).includes(a);

export interface DigestsOptions {
  /** How long a sender holds a digest it is sending (a dead sender's digest is sent again after it). */
  leaseSeconds: number;
  /** Sends of one digest before it is recorded `failed`. */
  maxAttempts: number;
  /** Absolute inbox links (VIGIE_PUBLIC_URL), else paths. */
  publicUrl: string | null;
  /** Digests kept this many days after they closed (then purged with their items). */
  retentionDays: number;
}

export const DIGEST_DEFAULTS: DigestsOptions = { leaseSeconds: 300, maxAttempts: 5, publicUrl: null, retentionDays: 90 };

export interface DigestsDeps {
  send: DigestSender;
  /** A node's params with its secrets in clear (GraphSecrets.decryptParams). */
  decrypt: (action: ActionName, params: Record<string, unknown>) => Record<string, unknown>;
  /** The message of a throttled run's event (RunsService.messageFor). */
  messageFor: (runId: string) => Promise<NotificationMessage | null>;
  /** A project's notification language. */
  lang: (projectId: string) => Promise<"fr" | "en">;
}

const WORDS_EVERY = { hourly: "horaire", daily: "quotidien", weekly: "hebdomadaire" } as const;
const THROTTLED = "limite horaire de runs du workflow atteinte : rien n'a été exécuté";

/**
 * Digests (issue 37): a notify node whose `delivery.mode` is "digest" records its events instead of
 * sending them (`deferring`); the digests-send job closes each digest when its schedule comes
 * (`closeDue`: the digest row and the claim of its items in one transaction) and sends it
 * (`sendPending`), the digest's id as the receiver's idempotency key. Runs throttled past a
 * workflow's hourly limit put their events into its next digest (`overflow`).
 */
export class DigestsService {
  private readonly opts: DigestsOptions;

  constructor(
    private readonly db: Db,
    private readonly deps: DigestsDeps,
    private readonly workflows: Pick<WorkflowsService, "reach">,
    opts: Partial<DigestsOptions> = {},
  ) {
    this.opts = { ...DIGEST_DEFAULTS, ...opts };
  }

  /**
   * The notify handlers, each recording the event for its node's next digest instead of sending
   * when the node's delivery is a digest (one item per workflow, node and event: a resumed run adds
   * nothing). Immediate nodes call the handler as before.
   */
  deferring<H extends Partial<Record<ActionName, ActionHandler>>>(handlers: H): H {
    return Object.fromEntries(
      Object.entries(handlers).map(([action, handler]) => [
        action,
        isNotify(action)
          ? async (ctx: Parameters<ActionHandler>[0], params: Record<string, unknown>) => {
              const d = digestDelivery(params);
              if (!d) return handler!(ctx, params);
              const added = await repo.addItem(this.db, {
                workflow_id: ctx.workflow.id,
                node_id: ctx.nodeId,
                project_id: ctx.project.id,
                event_id: ctx.event.id,
                run_id: ctx.runId,
                alert_id: ctx.event.alertId,
                message: ctx.message,
              });
              const next = nextSlot(d, new Date());
              return {
                detail: `mis en attente dans le prochain résumé ${WORDS_EVERY[d.every]} (envoi prévu à ${next.toISOString()})`,
                sent: { resume: d.every, prochain_envoi: next.toISOString(), deja_en_attente: !added },
              };
            }
          : handler,
      ]),
    ) as H;
  }

  /**
   * Where a dispatch's throttled runs go: each workflow's first notify node that sends digests, else
   * its first notify node (then an hourly digest is made for the purpose); a workflow without any
   * notify node has nothing to carry over. Returns each reason with the runs it applies to.
   */
  overflow: ThrottleOverflow = async (tx, runs) => {
    const graphs = await repo.graphs(tx, [...new Set(runs.map((r) => r.workflow_id))]);
    const items = [];
    const reasons = new Map<string, string[]>();
    for (const r of runs) {
      const target = overflowTarget(graphs.get(r.workflow_id)?.graph);
      if (!target) continue;
      items.push({
        workflow_id: r.workflow_id,
        node_id: target.node,
        project_id: r.project_id,
        event_id: r.event_id,
        run_id: r.id,
        alert_id: r.alert_id,
      });
      const raison = target.delivery
        ? `${THROTTLED} ; l'événement est reporté dans le prochain résumé ${WORDS_EVERY[target.delivery.every]} du nœud ${target.node}`
        : `${THROTTLED} ; l'événement est reporté dans un résumé horaire fait pour l'occasion (nœud ${target.node})`;
      reasons.set(raison, [...(reasons.get(raison) ?? []), r.id]);
    }
    await repo.addThrottled(tx, items);
    return reasons;
  };

  /** The digests-send job: closes the digests due at `now`, then sends every digest waiting. */
  async run(now: Date = new Date()): Promise<{ closed: number; sent: number; failed: number; retrying: number }> {
    const closed = await this.closeDue(now);
    return { closed, ...(await this.sendPending()) };
  }

  /**
   * Closes every digest whose schedule instant has come (the latest one at or before `now`, and
   * after the node's previous digest): per node and project, one transaction creates the digest and
   * claims the items waiting. An empty period closes nothing, unless the node asks for « rien à
   * signaler » (then for its workflow's project, or once for an organization workflow).
   */
  async closeDue(now: Date): Promise<number> {
    let closed = 0;
    for (const n of await repo.digestNodes(this.db)) {
      const delivery = digestDelivery(n.params) ?? OVERFLOW_DELIVERY;
      const slot = lastSlot(delivery, now);
      // A period closes at its slot with the events that waited for it: those that came after the
      // slot (a node's first events, after the day's hour) wait for the next one.
      const projects = await repo.pendingProjects(this.db, n.workflow_id, n.node_id, slot);
      for (const p of projects) {
        if (await this.db.transaction((tx) => repo.close(tx, n.workflow_id, n.node_id, p, slot, false))) closed++;
      }
      if (projects.length || delivery.empty !== "rien_a_signaler") continue;
      // Nothing happened: « rien à signaler », for a period that began before the slot (not a workflow set up since).
      const since = new Date(n.updated_at);
      if (since > slot && !(await repo.hasDigest(this.db, n.workflow_id, n.node_id))) continue;
      const d = await this.db.transaction((tx) => repo.close(tx, n.workflow_id, n.node_id, n.project_id, slot, true));
      if (d) closed++;
    }
    return closed;
  }

  /**
   * Sends the digests waiting (closed and not sent, or whose sender died mid-send): each is taken
   * under a lease, sent through its node's action with the digest's id as idempotency key, and
   * recorded `sent`. A failed send is tried again at the next runs until `maxAttempts`, then
   * recorded `failed` with the reason. An error that is no send's outcome (the process stopping,
   * the database lost) leaves the lease to expire: the digest is sent again, with the same id.
   */
  async sendPending(limit = 100): Promise<{ sent: number; failed: number; retrying: number }> {
    const out = { sent: 0, failed: 0, retrying: 0 };
    const claimed = await repo.claimToSend(this.db, this.opts.leaseSeconds, limit);
    if (!claimed.length) return out;
    const graphs = await repo.graphs(this.db, [...new Set(claimed.map((d) => d.workflow_id))]);
    for (const d of claimed) {
      const wf = graphs.get(d.workflow_id);
      const node = wf?.graph.nodes.find((n) => n.id === d.node_id && n.type === "action");
      const final = d.attempts >= this.opts.maxAttempts;
      if (!wf || !node || node.type !== "action" || !isNotify(node.action)) {
        await repo.markFailed(this.db, d.id, `le nœud ${d.node_id} n'est plus une notification du workflow : résumé non envoyé`, true, 0);
        out.failed++;
        continue;
      }
      try {
        const params = this.deps.decrypt(node.action, node.params);
        const input = await this.input(d.id, wf.name, d.workflow_id, d.project_id, digestDelivery(node.params) ?? OVERFLOW_DELIVERY, {
          from: iso(d.period_start),
          to: iso(d.closed_at)!,
          items: await this.itemsOf(await repo.items(this.db, d.id)),
        });
        const who = { runId: d.id, nodeId: d.node_id, workflow: { id: d.workflow_id }, event: null };
        const r = await this.deps.send(node.action, params, input, who, new AbortController().signal);
        await repo.markSent(this.db, d.id, { ...(r.sent ?? {}), detail: r.detail });
        out.sent++;
      } catch (err) {
        if (!(err instanceof ActionError)) throw err;
        await repo.markFailed(this.db, d.id, err.message, final, Math.min(3600, 60 * 2 ** d.attempts));
        if (final) out.failed++;
        else out.retrying++;
      }
    }
    return out;
  }

  /**
   * At the start of the only process of an embedded database: the digests its killed predecessor was
   * sending are nobody's, so the job sends them again now (same id) rather than when their lease ends.
   */
  async releaseLeases(): Promise<number> {
    return repo.expireLeases(this.db);
  }

  private async itemsOf(rows: ItemRow[]): Promise<DigestItem[]> {
    const out: DigestItem[] = [];
    for (const r of rows)
      out.push({
        event_id: r.event_id,
        added_at: iso(r.added_at)!,
        throttled: r.throttled,
        message: r.message ?? (r.run_id ? await this.deps.messageFor(r.run_id) : null),
      });
    return out;
  }

  private async input(
    id: string,
    workflowName: string,
    workflowId: string,
    projectId: string | null,
    delivery: Delivery,
    p: { from: string | null; to: string; items: DigestItem[] },
  ): Promise<DigestInput> {
    const lang = projectId ? await this.deps.lang(projectId) : (p.items.find((i) => i.message)?.message?.lang ?? "fr");
    const base = (this.opts.publicUrl ?? "").replace(/\/$/, "");
    const link = projectId && p.items.some((i) => i.message?.alert_id) ? `${base}/p/${projectId}/alerts?resume=${id}` : null;
    return { id, lang, workflow: { id: workflowId, name: workflowName }, every: delivery.every, ...p, link };
  }

  /**
   * The next digest of each of a workflow's digest nodes, from the events waiting now (for this
   * project when the workflow is the organization's): when it goes, how many events, the groups,
   * and its text as the e-mail's text part would read. Nothing is sent or claimed.
   */
  async preview(project: ProjectScope, workflowId: string, now: Date = new Date()): Promise<DigestPreviewOut> {
    const owner = await this.workflows.reach(project, workflowId);
    const scope = owner === "organization" ? project.id : null;
    const graphs = await repo.graphs(this.db, [workflowId]);
    const wf = graphs.get(workflowId)!;
    const waiting = await repo.waiting(this.db, workflowId, scope, 2000);
    const nodes = await repo.digestNodes(this.db, workflowId);
    const resumes = [];
    for (const n of nodes) {
      if (!isNotify(n.action)) continue;
      const delivery = digestDelivery(n.params) ?? OVERFLOW_DELIVERY;
      const items = await this.itemsOf(waiting.filter((i) => i.node_id === n.node_id));
      const input = await this.input("apercu", wf.name, workflowId, project.id, delivery, {
        from: await repo.lastClosed(this.db, workflowId, n.node_id, scope ?? project.id),
        to: nextSlot(delivery, now).toISOString(),
        items,
      });
      const d = renderDigest(input);
      resumes.push({
        node_id: n.node_id,
        action: n.action,
        every: delivery.every,
        fait_pour_la_limite: digestDelivery(n.params) === null,
        prochain_envoi: nextSlot(delivery, now).toISOString(),
        depuis: input.from,
        total: items.length,
        reportes_par_limite: d.throttled,
        envoye_si_vide: delivery.empty === "rien_a_signaler",
        groupes: d.groups.map((g) => ({
          palier: g.palier,
          libelle: g.label,
          total: g.count,
          produits: g.products.map((p) => ({ nom: p.name, total: p.count })),
        })),
        titre: d.title,
        texte: digestText(d),
      });
    }
    return {
      workflow_id: workflowId,
      resumes,
      derniers: (await repo.recent(this.db, workflowId, scope, 10)).map((r) => ({
        id: r.id,
        node_id: r.node_id,
        statut: r.status as "pending" | "sent" | "failed" | "empty",
        ferme_a: iso(r.closed_at)!,
        envoye_a: iso(r.sent_at),
        total: r.item_count,
        tentatives: r.attempts,
        erreur: r.last_error,
      })),
    };
  }

  /** maintenance-purge: digests closed more than `retentionDays` ago (never one still waiting), with their items. */
  async purge(now: Date): Promise<number> {
    const before = new Date(now.getTime() - this.opts.retentionDays * 86_400_000);
    return purgeInBatches(() => repo.purge(this.db, before, 5000), 5000);
  }
}

/** The node a throttled run's event goes to: the first notify node sending digests, else the first notify node. */
function overflowTarget(graph: StoredGraph | undefined): { node: string; delivery: Delivery | null } | null {
  const notify = (graph?.nodes ?? []).filter((n) => n.type === "action" && isNotify(n.action));
  const digest = notify.find((n) => n.type === "action" && digestDelivery(n.params));
  if (digest && digest.type === "action") return { node: digest.id, delivery: digestDelivery(digest.params) };
  const first = notify[0];
  return first ? { node: first.id, delivery: null } : null;
}

export type { Executor };

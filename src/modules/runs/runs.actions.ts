import { ActionError, type ActionContext, type ActionHandlers } from "../../engine/actions.js";
import type { Actor } from "../../platform/auth/context.js";
import { isConnectionLoss } from "../../platform/db/errors.js";
import { GroupCommit } from "../../platform/group-commit.js";
import type { AlertsService } from "../alerts/alerts.service.js";
import type { CasesService } from "../cases/cases.service.js";
import type { ReportsService } from "../reports/reports.service.js";
import type { TagsService } from "../tags/tags.service.js";

export type DataActionName = "create_case" | "add_tag" | "set_alert_read" | "generate_report";

/** The actor of a workflow's changes (case history). */
export function workflowActor(ctx: ActionContext): Actor {
  return { type: "workflow", id: ctx.workflow.id, label: ctx.workflow.name };
}

/**
 * The actions that change Vigie's data, over the services (wired in the composition root). Each is
 * idempotent by construction, so a retried run changes nothing twice: one case per project and
 * CVE (severity and notes applied only by the call that opened it, in its transaction), a tag
 * link is a set member, a read state is a value. `create_case` is group-committed: the cases the
 * runs of this process open while one transaction is in flight are opened together in the next
 * (one transaction for a batch instead of one per run); a batch that fails is redone case by case,
 * so one bad case fails only its own run.
 */
export function dataActions(deps: {
  cases: Pick<CasesService, "openForWorkflow" | "openManyForWorkflow">;
  tags: Pick<TagsService, "ensureOnAlert">;
  alerts: Pick<AlertsService, "setRead">;
  reports: Pick<ReportsService, "generateForWorkflow">;
}): Pick<ActionHandlers, DataActionName> {
  const project = (ctx: ActionContext) => ({ id: ctx.project.id, orgId: ctx.project.orgId });
  const alertOf = (ctx: ActionContext) => {
    if (!ctx.event.alertId) throw new ActionError(`l'événement ${ctx.event.name} ne concerne aucune alerte`);
    return ctx.event.alertId;
  };
  type Open = Parameters<CasesService["openForWorkflow"]>;
  const opener = new GroupCommit<{ project: Open[0]; cveId: string; actor: Actor; set: Open[3] }, boolean>(
    (items) => deps.cases.openManyForWorkflow(items),
    (i) => deps.cases.openForWorkflow(i.project, i.cveId, i.actor, i.set),
    500,
    // The connection lost: each case alone would fail the same way (the runs are resumed later).
    isConnectionLoss,
  );
  return {
    create_case: async (ctx, params) => {
      const cveId = ctx.event.cveId;
      if (!cveId) throw new ActionError(`l'événement ${ctx.event.name} ne nomme aucune CVE`);
      const set = {
        ...(typeof params.severity === "string" && { severity: params.severity as never }),
        ...(typeof params.notes === "string" && { notes: params.notes }),
      };
      const created = await opener.run({ project: project(ctx), cveId, actor: workflowActor(ctx), set });
      return {
        detail: created ? `dossier ouvert pour ${cveId}` : `le projet a déjà un dossier pour ${cveId} : rien à faire`,
        sent: { cve_id: cveId, created, ...set },
      };
    },
    add_tag: async (ctx, params) => {
      const alertId = alertOf(ctx);
      const name = String(params.tag);
      const r = await deps.tags.ensureOnAlert(project(ctx), alertId, name);
      if (!r) throw new ActionError("l'alerte de l'événement n'existe plus");
      return {
        detail: `étiquette « ${r.tag.name} » posée sur l'alerte${r.created ? " (étiquette créée)" : ""}`,
        sent: { alert_id: alertId, tag: r.tag.name, tag_id: r.tag.id, tag_created: r.created },
      };
    },
    set_alert_read: async (ctx, params) => {
      const alertId = alertOf(ctx);
      const isRead = params.is_read !== false;
      try {
        await deps.alerts.setRead(project(ctx), alertId, isRead);
      } catch {
        throw new ActionError("l'alerte de l'événement n'existe plus");
      }
      return { detail: isRead ? "alerte marquée lue" : "alerte marquée non lue", sent: { alert_id: alertId, is_read: isRead } };
    },
    // One report per delivery id: a retried run finds the report it already generated.
    generate_report: async (ctx, params) => {
      const p = {
        report_type: (params.report_type ?? "rapport_projet") as never,
        language: (params.language ?? "fr") as "fr" | "en",
        days: typeof params.days === "number" ? params.days : 30,
      };
      const r = await deps.reports.generateForWorkflow(project(ctx), p, workflowActor(ctx), ctx.deliveryId);
      return {
        detail: `rapport ${p.report_type} généré (version ${r.row.current_version}, empreinte ${r.row.empreinte.slice(0, 12)}…)`,
        sent: { report_id: r.row.id, report_type: p.report_type, empreinte: r.row.empreinte, version: r.row.current_version },
      };
    },
  };
}

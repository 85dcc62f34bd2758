import type { Facts } from "./evaluate.js";
import type { ActionName, EventName } from "./vocabulary.js";

/**
 * The contract between the run executor and the actions (issue 15). The executor (modules layer:
 * it needs the services) walks a workflow's graph for one outbox event and calls one handler per
 * action node reached; handlers for notifications live in src/engine/notify/ and know nothing of
 * the modules; handlers that change data (create_case, add_tag, set_alert_read) are wired in the
 * composition root over the services.
 */

/** What a notification says, in the project's language: built once per run from the event's facts. */
export interface NotificationMessage {
  event: EventName;
  /** One line: "CVE-2024-3400 (critical, KEV) touche Production". */
  title: string;
  lang: "fr" | "en";
  cve: {
    id: string | null;
    severity: string | null;
    cvss_score: number | null;
    epss_score: number | null;
    is_kev: boolean | null;
    has_poc: boolean | null;
    vendor: string | null;
    product: string | null;
    description: string | null;
  };
  /** The stack item's version the alert matched, when it named one. */
  version: string | null;
  palier: string | null;
  project: { id: string; name: string; org_id: string };
  alert_id: string | null;
  /** Where a person reads more: the alert (or case) in Vigie, absolute when VIGIE_PUBLIC_URL is set. */
  link: string;
  /** The event's own payload (e.g. the expired exception), as the outbox holds it. */
  payload: Record<string, unknown>;
}

/** What one action node receives. */
export interface ActionContext {
  event: { id: number; name: EventName; cveId: string | null; alertId: string | null; payload: Record<string, unknown> };
  project: { id: string; orgId: string; name: string };
  workflow: { id: string; name: string };
  runId: string;
  nodeId: string;
  facts: Facts;
  message: NotificationMessage;
  /**
   * `${eventId}:${workflowId}:${nodeId}`: the same for every retry of this action for this event.
   * Data actions are idempotent on it by construction; notifications send it as `X-Vigie-Delivery`
   * (webhooks) or `Message-ID` (e-mail) so a receiver can drop a replayed delivery.
   */
  deliveryId: string;
  /** Aborted when the run's lease is lost or the process stops. */
  signal: AbortSignal;
}

/** What an action did, for the run's steps (secrets already masked). */
export interface ActionResult {
  detail: string;
  sent?: Record<string, unknown>;
}

/** A failed action: `retryable` failures (5xx, network) were already retried by the handler as its policy says. */
export class ActionError extends Error {
  constructor(
    message: string,
    readonly sent?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** One action: throws ActionError (or any error) when it fails. `params` are the node's, secrets decrypted. */
export type ActionHandler = (ctx: ActionContext, params: Record<string, unknown>) => Promise<ActionResult>;

export type ActionHandlers = Record<ActionName, ActionHandler>;

import { createHmac } from "node:crypto";
import type { HttpClient } from "../../platform/net/http-client.js";
import { ActionError, type ActionContext, type ActionHandler } from "../actions.js";
import { attemptLogger, maskUrl, type NotifyLog, type RetryPolicy, sendWithRetry } from "./deliver.js";

/** What the HTTP notifications need: the guarded client, the retry policy, a clock (ms), where failed attempts are logged. */
export interface HttpNotifyDeps {
  client: HttpClient;
  policy: RetryPolicy;
  now: () => number;
  log: NotifyLog;
}

/** The JSON body of a webhook delivery (documented in docs/workflows.md; receivers rely on it). */
export function webhookPayload(ctx: ActionContext): Record<string, unknown> {
  const { event: _event, ...message } = ctx.message;
  return {
    delivery_id: ctx.deliveryId,
    event: ctx.event.name,
    event_id: ctx.event.id,
    run_id: ctx.runId,
    workflow: { id: ctx.workflow.id, name: ctx.workflow.name },
    message,
  };
}

/**
 * `sha256=<hex>`: HMAC-SHA256, keyed with the webhook's secret, of `<timestamp>.<body>` where
 * timestamp is the X-Vigie-Timestamp value (unix seconds) and body the raw request body bytes.
 */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

/** notify_webhook: a JSON POST of the event, signed when the node has a secret. */
export function notifyWebhook(deps: HttpNotifyDeps): ActionHandler {
  return async (ctx, params) => {
    const url = params.url;
    if (typeof url !== "string") throw new ActionError("paramètre url manquant");
    const secret = typeof params.secret === "string" && params.secret !== "" ? params.secret : null;
    const body = JSON.stringify(webhookPayload(ctx));
    const { response, attempts, sent } = await sendWithRetry(
      deps.client,
      () => {
        const timestamp = String(Math.floor(deps.now() / 1000));
        const headers: Record<string, string> = {
          "content-type": "application/json; charset=utf-8",
          "x-vigie-event": ctx.event.name,
          "x-vigie-delivery": ctx.deliveryId,
          "x-vigie-timestamp": timestamp,
        };
        if (secret) headers["x-vigie-signature"] = webhookSignature(secret, timestamp, body);
        return { method: "POST", url, headers, body };
      },
      deps.policy,
      ctx.signal,
      ({ status, attempts }) => ({ url: maskUrl(url), status, attempts, delivery_id: ctx.deliveryId, signed: secret !== null }),
      attemptLogger(deps.log, ctx, "notify_webhook", {
        url,
        secrets: [url, secret ?? undefined],
        attempts: deps.policy.delaysMs.length + 1,
      }),
    );
    return { detail: `webhook livré (HTTP ${response.status}, ${attempts} tentative${attempts > 1 ? "s" : ""})`, sent };
  };
}

import { ActionError, type ActionContext, type ActionHandler } from "../actions.js";
import { maskSecret } from "../secret-params.js";
import { attemptLogger, sendWithRetry } from "./deliver.js";
import { render, type Rendered } from "./render.js";
import type { HttpNotifyDeps } from "./webhook.js";

/**
 * A handler posting a chat message (Slack blocks, a Teams card) to an incoming-webhook URL
 * (`webhook_url`, a secret: masked in what the step records and logs). `done` words the step's detail.
 */
export function incomingWebhook(
  action: "notify_slack" | "notify_teams",
  deps: HttpNotifyDeps,
  payload: (r: Rendered) => Record<string, unknown>,
  done: (status: number, attempts: string) => string,
): ActionHandler {
  return async (ctx: ActionContext, params) => {
    const url = params.webhook_url;
    if (typeof url !== "string") throw new ActionError("paramètre webhook_url manquant");
    const body = JSON.stringify(payload(render(ctx.message, ctx.workflow.name)));
    const { response, attempts, sent } = await sendWithRetry(
      deps.client,
      () => ({ method: "POST", url, headers: { "content-type": "application/json; charset=utf-8" }, body }),
      deps.policy,
      ctx.signal,
      ({ status, attempts }) => ({ webhook_url: maskSecret(url), status, attempts }),
      attemptLogger(deps.log, ctx, action, { url, secrets: [url], attempts: deps.policy.delaysMs.length + 1 }),
    );
    return { detail: done(response.status, `${attempts} tentative${attempts > 1 ? "s" : ""}`), sent };
  };
}

import type { NotifySettings } from "../../config.js";
import { createHttpClient } from "../../platform/net/http-client.js";
import { ActionError, type ActionResult } from "../actions.js";
import { maskSecret } from "../secret-params.js";
import {
  abortableSleep,
  type AttemptSubject,
  attemptLogger,
  DEFAULT_DELAYS_MS,
  maskUrl,
  type RetryPolicy,
  sendWithRetry,
} from "./deliver.js";
import { type DigestInput, digestHtml, digestSlack, digestTeams, digestText, digestWebhookPayload, renderDigest } from "./digest.js";
import { emailDeps, messageIdFor, smtpMailer } from "./email.js";
import type { NotifyActionName, NotifyDeps } from "./index.js";
import { webhookSignature } from "./webhook.js";

/** Sends one digest through the node's action with its (decrypted) params; throws ActionError when it fails. */
export type DigestSender = (
  action: NotifyActionName,
  params: Record<string, unknown>,
  digest: DigestInput,
  who: AttemptSubject,
  signal: AbortSignal,
) => Promise<ActionResult>;

/**
 * The digest's carriers, with the same retry policy, guarded HTTP client and SMTP settings as the
 * immediate notifications. The receiver's idempotency key is the digest's id: `X-Vigie-Delivery`
 * (webhook, e-mail) and the e-mail's Message-ID derive from it, so a digest re-sent after a crash
 * between its send and its record carries the same key.
 */
export function digestSender(settings: NotifySettings, deps: NotifyDeps = {}): DigestSender {
  const policy: RetryPolicy = { delaysMs: deps.delaysMs ?? DEFAULT_DELAYS_MS, sleep: deps.sleep ?? abortableSleep };
  const client = deps.client ?? createHttpClient({ allowPrivate: settings.allowPrivateTargets, timeoutMs: settings.timeoutMs });
  const log = deps.log ?? { warn: () => {} };
  const now = deps.now ?? Date.now;
  const mail = smtpMailer(emailDeps(settings, policy, log));
  const attempts = policy.delaysMs.length + 1;
  const tries = (n: number) => `${n} tentative${n > 1 ? "s" : ""}`;

  return async (action, params, digest, who, signal) => {
    const d = renderDigest(digest);
    if (action === "notify_email") {
      const to = params.to;
      if (!Array.isArray(to) || to.length === 0 || !to.every((x) => typeof x === "string"))
        throw new ActionError("paramètre to manquant (une liste d'adresses)");
      const subject =
        typeof params.subject === "string" && params.subject.trim() !== ""
          ? `${params.subject} — ${d.title}`
          : `${d.title} · ${digest.workflow.name}`;
      return mail(
        {
          to: to as string[],
          subject,
          text: digestText(d),
          html: digestHtml(d),
          messageId: messageIdFor(`digest:${digest.id}`, settings.smtpFrom ?? ""),
          headers: { "X-Vigie-Delivery": digest.id, "X-Vigie-Digest": digest.id, "X-Vigie-Event": "digest", "Content-Language": d.lang },
        },
        who,
        signal,
      );
    }
    if (action === "notify_webhook") {
      const url = params.url;
      if (typeof url !== "string") throw new ActionError("paramètre url manquant");
      const secret = typeof params.secret === "string" && params.secret !== "" ? params.secret : null;
      const body = JSON.stringify(digestWebhookPayload(digest, d));
      const r = await sendWithRetry(
        client,
        () => {
          const timestamp = String(Math.floor(now() / 1000));
          const headers: Record<string, string> = {
            "content-type": "application/json; charset=utf-8",
            "x-vigie-event": "digest",
            "x-vigie-delivery": digest.id,
            "x-vigie-timestamp": timestamp,
          };
          if (secret) headers["x-vigie-signature"] = webhookSignature(secret, timestamp, body);
          return { method: "POST", url, headers, body };
        },
        policy,
        signal,
        ({ status, attempts }) => ({ url: maskUrl(url), status, attempts, delivery_id: digest.id, signed: secret !== null }),
        attemptLogger(log, who, action, { url, secrets: [url, secret ?? undefined], attempts }),
      );
      return { detail: `résumé livré au webhook (HTTP ${r.response.status}, ${tries(r.attempts)})`, sent: r.sent };
    }
    const url = params.webhook_url;
    if (typeof url !== "string") throw new ActionError("paramètre webhook_url manquant");
    const body = JSON.stringify(action === "notify_slack" ? digestSlack(d) : digestTeams(d));
    const r = await sendWithRetry(
      client,
      () => ({ method: "POST", url, headers: { "content-type": "application/json; charset=utf-8" }, body }),
      policy,
      signal,
      ({ status, attempts }) => ({ webhook_url: maskSecret(url), status, attempts }),
      attemptLogger(log, who, action, { url, secrets: [url], attempts }),
    );
    const what = action === "notify_slack" ? "résumé Slack envoyé" : "résumé Teams envoyé";
    return { detail: `${what} (HTTP ${r.response.status}, ${tries(r.attempts)})`, sent: r.sent };
  };
}

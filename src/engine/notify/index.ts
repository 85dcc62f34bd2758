import type { NotifySettings } from "../../config.js";
import { createHttpClient, type HttpClient } from "../../platform/net/http-client.js";
import type { ActionHandler } from "../actions.js";
import { abortableSleep, DEFAULT_DELAYS_MS, type NotifyLog, type RetryPolicy } from "./deliver.js";
import { emailDeps, notifyEmail } from "./email.js";
import { notifySlack } from "./slack.js";
import { notifyTeams } from "./teams.js";
import { notifyWebhook } from "./webhook.js";

export { webhookPayload, webhookSignature } from "./webhook.js";
export { render, renderHtml, renderText } from "./render.js";

export type NotifyActionName = "notify_webhook" | "notify_email" | "notify_slack" | "notify_teams";

/** What tests (and a benchmark) may replace. */
export interface NotifyDeps {
  /** The HTTP client; by default the guarded one built from the settings. */
  client?: HttpClient;
  /** Waits between attempts (default 1 s, 4 s). */
  delaysMs?: readonly number[];
  sleep?: RetryPolicy["sleep"];
  /** Clock for X-Vigie-Timestamp, in ms (default Date.now). */
  now?: () => number;
  /** Where each failed attempt is logged at warn (the process's logger); none: not logged. */
  log?: NotifyLog;
}

const NO_LOG: NotifyLog = { warn: () => {} };

/**
 * The four notification handlers, for the engine's handler map. Each receives the node's params
 * with secrets already decrypted (GraphSecrets.decryptParams) and returns what it sent, masked.
 */
export function notifyHandlers(settings: NotifySettings, deps: NotifyDeps = {}): Record<NotifyActionName, ActionHandler> {
  const policy: RetryPolicy = { delaysMs: deps.delaysMs ?? DEFAULT_DELAYS_MS, sleep: deps.sleep ?? abortableSleep };
  const client = deps.client ?? createHttpClient({ allowPrivate: settings.allowPrivateTargets, timeoutMs: settings.timeoutMs });
  const log = deps.log ?? NO_LOG;
  const http = { client, policy, now: deps.now ?? Date.now, log };
  if (settings.smtpUrl && settings.smtpTlsInsecure)
    log.warn(
      { setting: "VIGIE_SMTP_TLS_INSECURE" },
      "notify_email : certificat du serveur SMTP non vérifié (chiffré, mais sans garantie de l'identité du serveur)",
    );
  return {
    notify_webhook: notifyWebhook(http),
    notify_email: notifyEmail(emailDeps(settings, policy, log)),
    notify_slack: notifySlack(http),
    notify_teams: notifyTeams(http),
  };
}

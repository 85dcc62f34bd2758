import { createHash } from "node:crypto";
import { createTransport, type Transporter } from "nodemailer";
import { ActionError, type ActionContext, type ActionHandler } from "../actions.js";
import type { RetryPolicy } from "./deliver.js";
import { render, renderHtml, renderText } from "./render.js";

export interface EmailDeps {
  /** VIGIE_SMTP_URL; undefined: notify_email fails, saying SMTP is not configured. */
  smtpUrl: string | undefined;
  /** VIGIE_SMTP_FROM. */
  from: string | undefined;
  timeoutMs: number;
  policy: RetryPolicy;
}

/** SMTP failures worth another attempt: the connection, and 4xx (temporary) replies. */
function retryable(err: { code?: string; responseCode?: number }): boolean {
  if (typeof err.responseCode === "number") return err.responseCode >= 400 && err.responseCode < 500;
  return ["ECONNECTION", "ETIMEDOUT", "ESOCKET", "EDNS", "ECONNRESET", "ECONNREFUSED"].includes(err.code ?? "");
}

/** The domain of the From address, for Message-ID. */
function domainOf(from: string): string {
  return /@([^\s<>@]+?)>?\s*$/.exec(from)?.[1] ?? "vigie.invalid";
}

/**
 * `<vigie.<first 32 hex of sha256(deliveryId)>@<From's domain>>`: the same for every retry of
 * one action for one event, so a mail client or a receiving filter can drop a replayed copy.
 */
export function messageIdFor(deliveryId: string, from: string): string {
  return `<vigie.${createHash("sha256").update(deliveryId).digest("hex").slice(0, 32)}@${domainOf(from)}>`;
}

/** notify_email: a plain-text and an HTML body through the configured SMTP server. */
export function notifyEmail(deps: EmailDeps): ActionHandler {
  let transport: Transporter | null = null;
  return async (ctx: ActionContext, params) => {
    if (!deps.smtpUrl || !deps.from) throw new ActionError("SMTP non configuré : définissez VIGIE_SMTP_URL et VIGIE_SMTP_FROM");
    const to = params.to;
    if (!Array.isArray(to) || to.length === 0 || !to.every((x) => typeof x === "string"))
      throw new ActionError("paramètre to manquant (une liste d'adresses)");
    transport ??= createTransport({
      url: deps.smtpUrl,
      connectionTimeout: deps.timeoutMs,
      greetingTimeout: deps.timeoutMs,
      socketTimeout: deps.timeoutMs,
    });
    const r = render(ctx.message, ctx.workflow.name);
    const subject = typeof params.subject === "string" && params.subject.trim() !== "" ? params.subject : ctx.message.title;
    const messageId = messageIdFor(ctx.deliveryId, deps.from);
    const mail = {
      from: deps.from,
      to: to as string[],
      subject,
      text: renderText(r),
      html: renderHtml(r),
      messageId,
      headers: { "X-Vigie-Delivery": ctx.deliveryId, "X-Vigie-Event": ctx.event.name, "Content-Language": r.lang },
      signal: ctx.signal,
    };
    const attempts = deps.policy.delaysMs.length + 1;
    for (let attempt = 1; ; attempt++) {
      const sent = (extra: Record<string, unknown> = {}) => ({ to, subject, message_id: messageId, attempts: attempt, ...extra });
      try {
        const info = (await transport.sendMail(mail)) as { accepted?: unknown[]; rejected?: unknown[]; response?: string };
        const rejected = (info.rejected ?? []).map(String);
        return {
          detail: `e-mail envoyé à ${to.length} destinataire${to.length > 1 ? "s" : ""}${rejected.length ? ` (${rejected.length} refusé(s))` : ""}`,
          sent: sent({ accepted: (info.accepted ?? []).map(String), rejected }),
        };
      } catch (err) {
        const e = err as { code?: string; responseCode?: number; response?: string; message: string };
        const why = `envoi SMTP impossible : ${e.response ?? e.message}`;
        if (!retryable(e) || attempt >= attempts || ctx.signal.aborted)
          throw new ActionError(attempt > 1 ? `${why} (après ${attempt} tentatives)` : why, sent());
        try {
          await deps.policy.sleep(deps.policy.delaysMs[attempt - 1]!, ctx.signal);
        } catch {
          throw new ActionError(`${why} ; nouvelle tentative annulée`, sent());
        }
      }
    }
  };
}

import type { NotifySettings } from "../../config.js";
import { createHash } from "node:crypto";
import type { Transporter } from "nodemailer";
import { ActionError, type ActionContext, type ActionHandler, type ActionResult } from "../actions.js";
import { type AttemptSubject, attemptLogger, type NotifyLog, type RetryPolicy } from "./deliver.js";
import { render, renderHtml, renderText } from "./render.js";

export interface EmailDeps {
  /** VIGIE_SMTP_URL; undefined: notify_email fails, saying SMTP is not configured. */
  smtpUrl: string | undefined;
  /** VIGIE_SMTP_FROM. */
  from: string | undefined;
  timeoutMs: number;
  policy: RetryPolicy;
  /** VIGIE_SMTP_STARTTLS: on smtp://, STARTTLS required, used when offered, or never. */
  startTls: "required" | "opportunistic" | "off";
  /** VIGIE_SMTP_CA_FILE's PEM: the authorities the server's certificate is checked against instead of the system's. */
  ca: string | null;
  /** VIGIE_SMTP_TLS_INSECURE: any certificate accepted. */
  tlsInsecure: boolean;
  log: NotifyLog;
}

/** Node's codes for a server certificate that does not verify: retrying will not change it. */
const CERT_REFUSED =
  /^(?:CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(?:GET_ISSUER_CERT|VERIFY_LEAF_SIGNATURE)|ERR_TLS_CERT_ALTNAME_INVALID|HOSTNAME_MISMATCH)/;

type SmtpError = { code?: string; originalCode?: string; responseCode?: number; response?: string; message: string };

/** Nodemailer keeps the TLS error's own code as originalCode when it sets its own (ESOCKET). */
function certificateRefused(err: SmtpError): boolean {
  return CERT_REFUSED.test(err.originalCode ?? "") || CERT_REFUSED.test(err.code ?? "");
}

/** SMTP failures worth another attempt: the connection (not a refused certificate), and 4xx (temporary) replies. */
function retryable(err: SmtpError): boolean {
  if (typeof err.responseCode === "number") return err.responseCode >= 400 && err.responseCode < 500;
  if (certificateRefused(err)) return false;
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

/** One e-mail as the mailer sends it. */
export interface Mail {
  to: string[];
  subject: string;
  text: string;
  html: string;
  messageId: string;
  headers: Record<string, string>;
}

/**
 * Sends e-mails through the configured SMTP server (one transport, made at the first send) with
 * the retry policy: what notify_email and the digests share. `who` names the run (or digest) in the
 * log lines of failed attempts.
 */
export function smtpMailer(deps: EmailDeps): (mail: Mail, who: AttemptSubject, signal: AbortSignal) => Promise<ActionResult> {
  let transport: Transporter | null = null;
  return async (m, who, signal) => {
    if (!deps.smtpUrl || !deps.from) throw new ActionError("SMTP non configuré : définissez VIGIE_SMTP_URL et VIGIE_SMTP_FROM");
    // nodemailer (650 KB) is loaded at the first send, not at every process start.
    transport ??= (await import("nodemailer")).createTransport({
      url: deps.smtpUrl,
      connectionTimeout: deps.timeoutMs,
      greetingTimeout: deps.timeoutMs,
      socketTimeout: deps.timeoutMs,
      // smtps:// is TLS from the first byte (the URL sets secure); these apply to smtp://.
      requireTLS: deps.startTls === "required",
      ignoreTLS: deps.startTls === "off",
      tls: { ...(deps.ca !== null && { ca: deps.ca }), ...(deps.tlsInsecure && { rejectUnauthorized: false }) },
    });
    const { to, subject, messageId } = m;
    const mail = { from: deps.from, ...m, signal };
    const attempts = deps.policy.delaysMs.length + 1;
    const url = new URL(deps.smtpUrl);
    const failed = attemptLogger(deps.log, who, "notify_email", {
      url: deps.smtpUrl,
      secrets: [url.username, url.password],
      attempts,
    });
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
        const e = err as SmtpError;
        const hint = certificateRefused(e)
          ? " (certificat du serveur refusé : VIGIE_SMTP_CA_FILE pour une autorité interne ou un certificat auto-signé)"
          : e.code === "ETLS" && deps.startTls === "required"
            ? " (STARTTLS refusé par le serveur, exigé par VIGIE_SMTP_STARTTLS=required)"
            : "";
        const why = `envoi SMTP impossible : ${e.response ?? e.message}${hint}`;
        const last = !retryable(e) || attempt >= attempts || signal.aborted;
        failed(attempt, why, !last);
        if (last) throw new ActionError(attempt > 1 ? `${why} (après ${attempt} tentatives)` : why, sent());
        try {
          await deps.policy.sleep(deps.policy.delaysMs[attempt - 1]!, signal);
        } catch {
          throw new ActionError(`${why} ; nouvelle tentative annulée`, sent());
        }
      }
    }
  };
}

/** notify_email: a plain-text and an HTML body through the configured SMTP server. */
/** The SMTP side of the notify settings (VIGIE_SMTP_*): what notify_email and the digests send with. */
export function emailDeps(settings: NotifySettings, policy: RetryPolicy, log: EmailDeps["log"]): EmailDeps {
  return {
    smtpUrl: settings.smtpUrl,
    from: settings.smtpFrom,
    timeoutMs: settings.timeoutMs,
    policy,
    startTls: settings.smtpStartTls,
    ca: settings.smtpCa,
    tlsInsecure: settings.smtpTlsInsecure,
    log,
  };
}

export function notifyEmail(deps: EmailDeps): ActionHandler {
  const send = smtpMailer(deps);
  return async (ctx: ActionContext, params) => {
    if (!deps.smtpUrl || !deps.from) throw new ActionError("SMTP non configuré : définissez VIGIE_SMTP_URL et VIGIE_SMTP_FROM");
    const to = params.to;
    if (!Array.isArray(to) || to.length === 0 || !to.every((x) => typeof x === "string"))
      throw new ActionError("paramètre to manquant (une liste d'adresses)");
    const r = render(ctx.message, ctx.workflow.name);
    const subject = typeof params.subject === "string" && params.subject.trim() !== "" ? params.subject : ctx.message.title;
    return send(
      {
        to: to as string[],
        subject,
        text: renderText(r),
        html: renderHtml(r),
        messageId: messageIdFor(ctx.deliveryId, deps.from),
        headers: { "X-Vigie-Delivery": ctx.deliveryId, "X-Vigie-Event": ctx.event.name, "Content-Language": r.lang },
      },
      ctx,
      ctx.signal,
    );
  };
}

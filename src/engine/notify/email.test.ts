import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ParsedMail, simpleParser } from "mailparser";
import { generate } from "selfsigned";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { actionContext, capturedLogger, panosMessage } from "../../../test/notify-fixtures.js";
import { ConfigError, loadConfig } from "../../config.js";
import { ActionError } from "../actions.js";
import { messageIdFor } from "./email.js";
import { notifyHandlers } from "./index.js";

type Arrived = { from: string; to: string[]; mail: ParsedMail; secure: boolean; user: string | null };
let smtp: SMTPServer;
let smtpUrl: string;
let arrived: Arrived[] = [];
let refuseNext: { code: number; message: string }[] = [];

/** A real SMTP server on 127.0.0.1: what it receives is parsed as a mail client would. */
async function listen(options: SMTPServerOptions): Promise<{ server: SMTPServer; port: number }> {
  const server = new SMTPServer({
    logger: false,
    ...options,
    onData(stream, session, callback) {
      const refusal = refuseNext.shift();
      simpleParser(stream).then(
        (mail) => {
          if (refusal) return callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
          arrived.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            to: session.envelope.rcptTo.map((r) => r.address),
            mail,
            secure: session.secure,
            user: (session.user as string | undefined) ?? null,
          });
          callback();
        },
        (err) => callback(err),
      );
    },
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { server, port: (server.server.address() as AddressInfo).port };
}

// A relay as found on a local or internal network: STARTTLS offered with a self-signed certificate
// (for localhost and 127.0.0.1, generated here), credentials accepted once encrypted (smtp-server
// refuses AUTH in clear), optional.
const certDir = mkdtempSync(join(tmpdir(), "vigie-smtp-"));
let tlsSmtp: SMTPServer;
let tlsPort: number;
let caFile: string;
const USER = "vigie-relay";
const PASSWORD = "Pa55-w0rd-du-relais";

beforeAll(async () => {
  const plain = await listen({ authOptional: true, disabledCommands: ["STARTTLS", "AUTH"] });
  smtp = plain.server;
  smtpUrl = `smtp://127.0.0.1:${plain.port}`;
  const pems = await generate([{ name: "commonName", value: "localhost" }], {
    keyType: "ec",
    algorithm: "sha256",
    notAfterDate: new Date(Date.now() + 86_400_000),
  });
  caFile = join(certDir, "relay-ca.pem");
  writeFileSync(caFile, pems.cert);
  ({ server: tlsSmtp, port: tlsPort } = await listen({
    key: pems.private,
    cert: pems.cert,
    authMethods: ["PLAIN", "LOGIN"],
    authOptional: true,
    onAuth: (auth, _session, callback) =>
      auth.username === USER && auth.password === PASSWORD
        ? callback(null, { user: USER })
        : callback(Object.assign(new Error("identifiants refusés"), { responseCode: 535 })),
  }));
});
afterAll(async () => {
  rmSync(certDir, { recursive: true, force: true });
  await new Promise<void>((r) => tlsSmtp.close(() => r()));
});
afterAll(() => new Promise<void>((r) => smtp.close(() => r())));
beforeEach(() => {
  arrived = [];
  refuseNext = [];
});

const slept: number[] = [];
function handlers(
  env: Record<string, string> = { VIGIE_SMTP_URL: smtpUrl, VIGIE_SMTP_FROM: "Vigie <alertes@vigie.example.org>" },
  log?: ReturnType<typeof capturedLogger>["logger"],
) {
  return notifyHandlers(loadConfig(env).notify, {
    sleep: async (ms) => {
      slept.push(ms);
    },
    log,
  });
}

describe("notify_email", () => {
  it("delivers a French plain-text and HTML mail to every recipient, its Message-ID derived from the delivery", async () => {
    const ctx = actionContext();
    const result = await handlers().notify_email(ctx, { to: ["rssi@example.org", "astreinte@example.org"] });
    expect(arrived).toHaveLength(1);
    const { from, to, mail } = arrived[0]!;
    expect(from).toBe("alertes@vigie.example.org");
    expect(to).toEqual(["rssi@example.org", "astreinte@example.org"]);
    expect(mail.subject).toBe("CVE-2024-3400 (critique, KEV) touche Production");
    expect(mail.from?.value[0]).toEqual({ address: "alertes@vigie.example.org", name: "Vigie" });
    expect((Array.isArray(mail.to) ? mail.to : [mail.to!]).flatMap((a) => a.value.map((v) => v.address))).toEqual([
      "rssi@example.org",
      "astreinte@example.org",
    ]);
    expect(mail.messageId).toBe(messageIdFor(ctx.deliveryId, "alertes@vigie.example.org"));
    expect(mail.messageId).toMatch(/^<vigie\.[0-9a-f]{32}@vigie\.example\.org>$/);
    expect(mail.headers.get("x-vigie-delivery")).toBe(ctx.deliveryId);
    expect(mail.headers.get("content-language")).toBe("fr");

    expect(mail.text).toContain("Nouvelle vulnérabilité touchant le projet");
    expect(mail.text).toContain("CVE : CVE-2024-3400");
    expect(mail.text).toContain("Sévérité : critique");
    expect(mail.text).toContain("Score CVSS : 10,0");
    expect(mail.text).toContain("Catalogue KEV (exploitée) : oui");
    expect(mail.text).toContain("Produit concerné : Palo Alto Networks PAN-OS");
    expect(mail.text).toContain("Palier : P1");
    expect(mail.text).toContain(`Voir dans Vigie : ${ctx.message.link}`);
    expect(mail.html).toContain('<html lang="fr">');
    expect(mail.html).toContain("<strong>critique</strong>");
    expect(mail.html).toContain(`<a href="${ctx.message.link}">Voir dans Vigie</a>`);

    expect(result.sent).toEqual({
      to: ["rssi@example.org", "astreinte@example.org"],
      subject: "CVE-2024-3400 (critique, KEV) touche Production",
      message_id: mail.messageId,
      attempts: 1,
      accepted: ["rssi@example.org", "astreinte@example.org"],
      rejected: [],
    });
  });

  it("writes in English when the message's language is en, with the subject of the params, HTML escaped", async () => {
    const msg = panosMessage({
      lang: "en",
      title: "CVE-2024-3400 (critical, KEV) affects Production",
      project: { id: "p", name: "R&D <lab>", org_id: "o" },
    });
    await handlers().notify_email(actionContext(msg), { to: ["soc@example.org"], subject: "[Vigie] PAN-OS" });
    const { mail } = arrived[0]!;
    expect(mail.subject).toBe("[Vigie] PAN-OS");
    expect(mail.text).toContain("Severity: critical");
    expect(mail.text).toContain("EPSS (exploitation probability, 30 days): 99.99%");
    expect(mail.text).toContain("Project: R&D <lab>");
    expect(mail.html).toContain("R&amp;D &lt;lab&gt;");
    expect(mail.html).not.toContain("<lab>");
    expect(mail.headers.get("content-language")).toBe("en");
  });

  it("the same delivery retried carries the same Message-ID", async () => {
    const ctx = actionContext();
    await handlers().notify_email(ctx, { to: ["a@example.org"] });
    await handlers().notify_email(ctx, { to: ["a@example.org"] });
    expect(arrived[0]!.mail.messageId).toBe(arrived[1]!.mail.messageId);
    const other = actionContext();
    other.deliveryId = "43:w:notify";
    await handlers().notify_email(other, { to: ["a@example.org"] });
    expect(arrived[2]!.mail.messageId).not.toBe(arrived[0]!.mail.messageId);
  });

  it("retries a temporary SMTP refusal (4xx) and not a permanent one (5xx)", async () => {
    refuseNext = [{ code: 451, message: "try again later" }];
    slept.length = 0;
    const result = await handlers().notify_email(actionContext(), { to: ["a@example.org"] });
    expect(result.sent).toMatchObject({ attempts: 2 });
    expect(slept).toEqual([1000]);
    expect(arrived).toHaveLength(1);

    refuseNext = [{ code: 554, message: "rejected as spam" }];
    const err = await handlers()
      .notify_email(actionContext(), { to: ["a@example.org"] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ActionError);
    expect((err as ActionError).message).toMatch(/^envoi SMTP impossible : 554 rejected as spam$/);
    expect((err as ActionError).sent).toMatchObject({ attempts: 1 });
  });

  it("fails clearly when SMTP is not configured", async () => {
    const err = await handlers({})
      .notify_email(actionContext(), { to: ["a@example.org"] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ActionError);
    expect((err as ActionError).message).toBe("SMTP non configuré : définissez VIGIE_SMTP_URL et VIGIE_SMTP_FROM");
  });
});

describe("notify_email over TLS (a relay with a self-signed certificate)", () => {
  const FROM = "Vigie <alertes@vigie.example.org>";
  const relay = () => `smtp://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${tlsPort}`;
  const send = (env: Record<string, string>, log?: ReturnType<typeof capturedLogger>["logger"]) =>
    handlers({ VIGIE_SMTP_FROM: FROM, ...env }, log)
      .notify_email(actionContext(), { to: ["rssi@example.org"] })
      .then(
        (r) => r,
        (e: unknown) => e,
      );

  it("by default refuses the certificate at once (no retry), says which setting helps, and logs the attempt at warn without the credentials", async () => {
    const { logger, lines, raw } = capturedLogger();
    slept.length = 0;
    const err = await send({ VIGIE_SMTP_URL: relay() }, logger);
    expect(err).toBeInstanceOf(ActionError);
    expect((err as ActionError).message).toBe(
      "envoi SMTP impossible : self-signed certificate (certificat du serveur refusé : VIGIE_SMTP_CA_FILE pour une autorité interne ou un certificat auto-signé)",
    );
    expect((err as ActionError).sent).toMatchObject({ attempts: 1 });
    expect(slept).toEqual([]);
    expect(arrived).toEqual([]);
    const ctx = actionContext();
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        msg: "notification : tentative échouée",
        run_id: ctx.runId,
        node_id: ctx.nodeId,
        workflow_id: ctx.workflow.id,
        event_id: ctx.event.id,
        action: "notify_email",
        attempt: 1,
        attempts: 3,
        retrying: false,
        target: `smtp://127.0.0.1:${tlsPort}`,
        reason: (err as ActionError).message,
      }),
    ]);
    const written = raw.join("");
    expect(written).not.toContain(PASSWORD);
    expect(written).not.toContain(encodeURIComponent(PASSWORD));
    expect(written).not.toContain(USER);
  });

  it("with VIGIE_SMTP_CA_FILE trusts that certificate: the mail arrives encrypted, after authentication", async () => {
    const { logger, lines } = capturedLogger();
    const result = await send({ VIGIE_SMTP_URL: relay(), VIGIE_SMTP_CA_FILE: caFile }, logger);
    expect(result).toMatchObject({ sent: { attempts: 1, accepted: ["rssi@example.org"] } });
    expect(arrived).toHaveLength(1);
    expect(arrived[0]).toMatchObject({ secure: true, user: USER, to: ["rssi@example.org"] });
    expect(arrived[0]!.mail.subject).toBe("CVE-2024-3400 (critique, KEV) touche Production");
    expect(lines).toEqual([]);
  });

  it("with VIGIE_SMTP_TLS_INSECURE=true accepts any certificate, encrypted still, and warns once when the handlers are built", async () => {
    const { logger, lines } = capturedLogger();
    const h = handlers({ VIGIE_SMTP_FROM: FROM, VIGIE_SMTP_URL: relay(), VIGIE_SMTP_TLS_INSECURE: "true" }, logger);
    await h.notify_email(actionContext(), { to: ["a@example.org"] });
    await h.notify_email(actionContext(), { to: ["b@example.org"] });
    expect(arrived.map((a) => [a.secure, a.to])).toEqual([
      [true, ["a@example.org"]],
      [true, ["b@example.org"]],
    ]);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        setting: "VIGIE_SMTP_TLS_INSECURE",
        msg: "notify_email : certificat du serveur SMTP non vérifié (chiffré, mais sans garantie de l'identité du serveur)",
      }),
    ]);
  });

  it("with VIGIE_SMTP_STARTTLS=off stays in clear even when STARTTLS is offered", async () => {
    const result = await send({ VIGIE_SMTP_URL: `smtp://127.0.0.1:${tlsPort}`, VIGIE_SMTP_STARTTLS: "off" });
    expect(result).toMatchObject({ sent: { attempts: 1, accepted: ["rssi@example.org"] } });
    expect(arrived).toHaveLength(1);
    expect(arrived[0]).toMatchObject({ secure: false, user: null });
  });

  it("with VIGIE_SMTP_STARTTLS=required refuses a server that does not offer it, sending nothing", async () => {
    const { logger, lines } = capturedLogger();
    const err = await send({ VIGIE_SMTP_URL: smtpUrl, VIGIE_SMTP_STARTTLS: "required" }, logger);
    expect(err).toBeInstanceOf(ActionError);
    expect((err as ActionError).message).toBe(
      "envoi SMTP impossible : 500 Error: command not recognized (STARTTLS refusé par le serveur, exigé par VIGIE_SMTP_STARTTLS=required)",
    );
    expect((err as ActionError).sent).toMatchObject({ attempts: 1 });
    expect(arrived).toEqual([]);
    expect(lines).toEqual([expect.objectContaining({ action: "notify_email", attempt: 1, reason: (err as ActionError).message })]);
    // The same server by default: STARTTLS is not offered, the mail goes in clear (opportunistic).
    expect(await send({ VIGIE_SMTP_URL: smtpUrl })).toMatchObject({ sent: { attempts: 1, accepted: ["rssi@example.org"] } });
    expect(arrived[0]).toMatchObject({ secure: false });
  });

  it("logs each failed attempt of a retried temporary refusal, with its number", async () => {
    const { logger, lines } = capturedLogger();
    refuseNext = [
      { code: 451, message: "try again later" },
      { code: 451, message: "try again later" },
      { code: 451, message: "try again later" },
    ];
    const err = await send({ VIGIE_SMTP_URL: smtpUrl }, logger);
    expect((err as ActionError).message).toBe("envoi SMTP impossible : 451 try again later (après 3 tentatives)");
    expect(lines.map((l) => [l.attempt, l.retrying, l.reason])).toEqual([
      [1, true, "envoi SMTP impossible : 451 try again later"],
      [2, true, "envoi SMTP impossible : 451 try again later"],
      [3, false, "envoi SMTP impossible : 451 try again later"],
    ]);
  });
});

describe("SMTP settings", () => {
  const base = { VIGIE_SMTP_URL: "smtp://relais.interne:25", VIGIE_SMTP_FROM: "alertes@vigie.example.org" };
  const refusal = (env: Record<string, string>) => {
    try {
      loadConfig({ ...base, ...env });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error("configuration accepted");
  };

  it("default to opportunistic STARTTLS, the system's authorities, certificates checked", () => {
    expect(loadConfig(base).notify).toMatchObject({ smtpStartTls: "opportunistic", smtpCa: null, smtpTlsInsecure: false });
  });

  it("read the CA file at start, and refuse an unreadable one or one without a certificate", () => {
    expect(loadConfig({ ...base, VIGIE_SMTP_CA_FILE: caFile }).notify.smtpCa).toContain("-----BEGIN CERTIFICATE-----");
    expect(refusal({ VIGIE_SMTP_CA_FILE: join(certDir, "absent.pem") })).toBe(
      `Configuration invalide :\n  VIGIE_SMTP_CA_FILE : lecture de ${join(certDir, "absent.pem")} impossible (ENOENT)`,
    );
    const notPem = join(certDir, "not.pem");
    writeFileSync(notPem, "hello");
    expect(refusal({ VIGIE_SMTP_CA_FILE: notPem })).toBe(
      `Configuration invalide :\n  VIGIE_SMTP_CA_FILE : ${notPem} ne contient aucun certificat PEM (-----BEGIN CERTIFICATE-----)`,
    );
  });

  it("refuse contradictory or unknown values with a clear message", () => {
    expect(refusal({ VIGIE_SMTP_URL: "smtps://relais.interne:465", VIGIE_SMTP_STARTTLS: "off" })).toBe(
      "Configuration invalide :\n  VIGIE_SMTP_STARTTLS: off contredit smtps:// (TLS dès la connexion) : utilisez smtp:// pour une connexion en clair",
    );
    expect(refusal({ VIGIE_SMTP_STARTTLS: "off", VIGIE_SMTP_TLS_INSECURE: "true" })).toContain(
      "VIGIE_SMTP_STARTTLS: off : aucune connexion TLS, VIGIE_SMTP_CA_FILE et VIGIE_SMTP_TLS_INSECURE seraient sans effet",
    );
    expect(refusal({ VIGIE_SMTP_CA_FILE: caFile, VIGIE_SMTP_TLS_INSECURE: "true" })).toContain(
      "VIGIE_SMTP_TLS_INSECURE: contredit VIGIE_SMTP_CA_FILE",
    );
    expect(refusal({ VIGIE_SMTP_STARTTLS: "always" })).toContain("VIGIE_SMTP_STARTTLS: required, opportunistic ou off attendu");
    expect(refusal({ VIGIE_SMTP_TLS_INSECURE: "yes" })).toContain("VIGIE_SMTP_TLS_INSECURE: true ou false attendu");
    // smtps:// (implicit TLS) with required is consistent: the whole session is encrypted.
    expect(loadConfig({ ...base, VIGIE_SMTP_URL: "smtps://relais.interne:465", VIGIE_SMTP_STARTTLS: "required" }).notify.smtpStartTls).toBe(
      "required",
    );
  });
});

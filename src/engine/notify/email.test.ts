import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { actionContext, panosMessage } from "../../../test/notify-fixtures.js";
import { loadConfig } from "../../config.js";
import { ActionError } from "../actions.js";
import { messageIdFor } from "./email.js";
import { notifyHandlers } from "./index.js";

type Arrived = { from: string; to: string[]; mail: ParsedMail };
let smtp: SMTPServer;
let smtpUrl: string;
let arrived: Arrived[] = [];
let refuseNext: { code: number; message: string }[] = [];

beforeAll(async () => {
  // A real SMTP server on 127.0.0.1: what it receives is parsed as a mail client would.
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const refusal = refuseNext.shift();
      simpleParser(stream).then(
        (mail) => {
          if (refusal) return callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
          arrived.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            to: session.envelope.rcptTo.map((r) => r.address),
            mail,
          });
          callback();
        },
        (err) => callback(err),
      );
    },
  });
  await new Promise<void>((r) => smtp.listen(0, "127.0.0.1", () => r()));
  smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => smtp.close(() => r())));
beforeEach(() => {
  arrived = [];
  refuseNext = [];
});

const slept: number[] = [];
function handlers(env: Record<string, string> = { VIGIE_SMTP_URL: smtpUrl, VIGIE_SMTP_FROM: "Vigie <alertes@vigie.example.org>" }) {
  return notifyHandlers(loadConfig(env).notify, {
    sleep: async (ms) => {
      slept.push(ms);
    },
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

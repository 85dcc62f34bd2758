import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { actionContext, capturedLogger, panosMessage } from "../../../test/notify-fixtures.js";
import { loadConfig } from "../../config.js";
import { ActionError } from "../actions.js";
import { notifyHandlers } from "./index.js";

type Received = { method: string; url: string; headers: IncomingHttpHeaders; body: string };
let server: Server;
let base: string;
let received: Received[] = [];
let answers: number[] = []; // statuses to answer in turn; 200 once empty

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const status = answers.shift() ?? 200;
      // A receiver that echoes the request's path and query in its error (some do), tokens included.
      const echo = req.url!.includes("/echo") ? ` pour POST ${req.url}` : "";
      res.writeHead(status, { "content-type": "text/plain" }).end(status === 200 ? "ok" : `erreur ${status}${echo}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  received = [];
  answers = [];
});

const NOW = Date.UTC(2026, 10, 24, 9, 30, 0);
const slept: number[] = [];
/** Handlers as the engine gets them, private targets allowed explicitly (the receiver is on 127.0.0.1), no real waiting. */
function handlers(
  env: Record<string, string> = { VIGIE_ALLOW_PRIVATE_TARGETS: "true" },
  log?: ReturnType<typeof capturedLogger>["logger"],
) {
  const settings = loadConfig(env).notify;
  return notifyHandlers(settings, {
    now: () => NOW,
    sleep: async (ms) => {
      slept.push(ms);
    },
    log,
  });
}

async function failure(p: Promise<unknown>): Promise<ActionError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ActionError);
  return err as ActionError;
}

/** The receiver's side of the README recipe: recompute, compare in constant time, refuse stale timestamps. */
function verify(secret: string, headers: IncomingHttpHeaders, rawBody: string, nowSeconds: number): boolean {
  const timestamp = String(headers["x-vigie-timestamp"]);
  const signature = String(headers["x-vigie-signature"]);
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > 300) return false;
  const expected = `sha256=${createHmac("sha256", secret).update(`${timestamp}.${rawBody}`).digest("hex")}`;
  return signature.length === expected.length && timingSafeEqual(Buffer.from(signature), Buffer.from(expected));
}

describe("notify_webhook", () => {
  it("POSTs the event as JSON with its headers and a signature the receiver can verify", async () => {
    const ctx = actionContext();
    const result = await handlers().notify_webhook(ctx, { url: `${base}/hook?token=abc123`, secret: "whsec_test_0123456789" });
    expect(received).toHaveLength(1);
    const [req] = received;
    expect(req!.method).toBe("POST");
    expect(req!.headers).toMatchObject({
      "content-type": "application/json; charset=utf-8",
      "x-vigie-event": "cve.new_match",
      "x-vigie-delivery": ctx.deliveryId,
      "x-vigie-timestamp": String(NOW / 1000),
    });
    expect(req!.headers["x-vigie-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verify("whsec_test_0123456789", req!.headers, req!.body, NOW / 1000)).toBe(true);
    expect(verify("whsec_test_0123456789", req!.headers, req!.body.replace("Production", "Prod"), NOW / 1000)).toBe(false);
    expect(verify("another-secret", req!.headers, req!.body, NOW / 1000)).toBe(false);
    expect(verify("whsec_test_0123456789", req!.headers, req!.body, NOW / 1000 + 301)).toBe(false); // a replay, 5 min later

    const body = JSON.parse(req!.body);
    expect(Object.keys(body)).toEqual(["delivery_id", "event", "event_id", "run_id", "workflow", "message"]);
    expect(body).toMatchObject({
      delivery_id: ctx.deliveryId,
      event: "cve.new_match",
      event_id: 42,
      workflow: { id: ctx.workflow.id, name: "Critiques → astreinte" },
      message: {
        title: "CVE-2024-3400 (critique, KEV) touche Production",
        lang: "fr",
        cve: {
          id: "CVE-2024-3400",
          severity: "critical",
          cvss_score: 10,
          epss_score: 0.99999,
          is_kev: true,
          has_poc: true,
          product: "PAN-OS",
        },
        version: "10.2.0",
        palier: "P1",
        project: { name: "Production" },
        alert_id: ctx.message.alert_id,
        link: ctx.message.link,
        payload: { cve_id: "CVE-2024-3400" },
      },
    });
    expect(result.sent).toEqual({
      url: `${base}/hook?token=••••`,
      status: 200,
      attempts: 1,
      delivery_id: ctx.deliveryId,
      signed: true,
    });
    expect(JSON.stringify(result)).not.toContain("whsec_test");
    expect(JSON.stringify(result)).not.toContain("abc123");
  });

  it("sends no signature header without a secret, and masks credentials in the URL it reports", async () => {
    const result = await handlers().notify_webhook(actionContext(), { url: `${base.replace("http://", "http://user:pw@")}/plain` });
    expect(received[0]!.headers["x-vigie-signature"]).toBeUndefined();
    expect(received[0]!.headers.authorization).toBe(`Basic ${Buffer.from("user:pw").toString("base64")}`);
    expect(result.sent).toMatchObject({ url: `http://••••@${base.slice(7)}/plain`, signed: false });
  });

  it("retries a 5xx with backoff (1 s, then 4 s) and succeeds on the third attempt", async () => {
    answers = [503, 502];
    slept.length = 0;
    const result = await handlers().notify_webhook(actionContext(), { url: `${base}/flaky`, secret: "s" });
    expect(received).toHaveLength(3);
    expect(slept).toEqual([1000, 4000]);
    expect(result.sent).toMatchObject({ status: 200, attempts: 3 });
    // Every attempt is the same delivery, signed again.
    expect(new Set(received.map((r) => r.headers["x-vigie-delivery"])).size).toBe(1);
  });

  it("gives up after 3 attempts on a persistent 5xx", async () => {
    answers = [500, 500, 500];
    const err = await failure(handlers().notify_webhook(actionContext(), { url: `${base}/down` }));
    expect(err.message).toBe("le destinataire a répondu HTTP 500 : erreur 500 (après 3 tentatives)");
    expect(err.sent).toMatchObject({ status: 500, attempts: 3 });
    expect(received).toHaveLength(3);
  });

  it("does not retry a 4xx", async () => {
    answers = [400];
    const err = await failure(handlers().notify_webhook(actionContext(), { url: `${base}/bad` }));
    expect(err.message).toBe("le destinataire a répondu HTTP 400 : erreur 400");
    expect(err.sent).toMatchObject({ status: 400, attempts: 1 });
    expect(received).toHaveLength(1);
  });

  it("retries a network error, then fails with it", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const err = await failure(handlers().notify_webhook(actionContext(), { url: `http://127.0.0.1:${port}/` }));
    expect(err.message).toMatch(/^erreur réseau \(ECONNREFUSED\) \(après 3 tentatives\)$/);
    expect(err.sent).toMatchObject({ status: null, attempts: 3 });
  });

  it("refuses a private receiver without VIGIE_ALLOW_PRIVATE_TARGETS, and does not retry the refusal", async () => {
    const err = await failure(handlers({}).notify_webhook(actionContext(), { url: `${base}/hook`, secret: "s" }));
    expect(err.message).toContain("mène à une adresse de bouclage (127.0.0.1) : refusé");
    expect(err.sent).toMatchObject({ attempts: 1 });
    expect(received).toHaveLength(0);
  });
});

describe("notify_slack", () => {
  it("posts a Block Kit message: header, fields, description, button, context; the URL masked in what it reports", async () => {
    const url = `${base}/services/T000/B000/abcdefghijklmnopSLCK`;
    const result = await handlers().notify_slack(actionContext(), { webhook_url: url });
    const payload = JSON.parse(received[0]!.body);
    expect(payload.text).toBe("CVE-2024-3400 (critique, KEV) touche Production — Nouvelle vulnérabilité touchant le projet");
    expect(payload.blocks.map((b: { type: string }) => b.type)).toEqual(["header", "section", "section", "actions", "context"]);
    expect(payload.blocks[0]).toEqual({
      type: "header",
      text: { type: "plain_text", text: "CVE-2024-3400 (critique, KEV) touche Production", emoji: false },
    });
    expect(payload.blocks[1].fields).toHaveLength(10);
    expect(payload.blocks[1].fields[1]).toEqual({ type: "mrkdwn", text: "*Sévérité*\ncritique" });
    expect(payload.blocks[3].elements[0]).toMatchObject({
      type: "button",
      text: { type: "plain_text", text: "Voir dans Vigie" },
      url: panosMessage().link,
    });
    expect(payload.blocks[4].elements[0].text).toBe("Vigie · workflow « Critiques → astreinte »");
    expect(result.sent).toEqual({ webhook_url: "••••SLCK", status: 200, attempts: 1 });
  });

  it("escapes mrkdwn and, with a relative link, puts the link in the context instead of a button", async () => {
    await handlers().notify_slack(
      actionContext(panosMessage({ link: "/projects/p/alerts/a", project: { id: "p", name: "R&D <x>", org_id: "o" } })),
      {
        webhook_url: `${base}/s`,
      },
    );
    const payload = JSON.parse(received[0]!.body);
    expect(payload.blocks.some((b: { type: string }) => b.type === "actions")).toBe(false);
    expect(JSON.stringify(payload.blocks[1].fields)).toContain("R&amp;D &lt;x&gt;");
    expect(payload.blocks.at(-1).elements[0].text).toContain("/projects/p/alerts/a");
  });
});

describe("notify_teams", () => {
  it("posts an Adaptive Card 1.4 with a FactSet and an Action.OpenUrl, in English when asked", async () => {
    const url = `${base}/webhookb2/x/IncomingWebhook/y/zzzzTEAM`;
    const msg = panosMessage({ lang: "en", title: "CVE-2024-3400 (critical, KEV) affects Production" });
    const result = await handlers().notify_teams(actionContext(msg), { webhook_url: url });
    const payload = JSON.parse(received[0]!.body);
    expect(payload.type).toBe("message");
    expect(payload.attachments).toHaveLength(1);
    const { contentType, content } = payload.attachments[0];
    expect(contentType).toBe("application/vnd.microsoft.card.adaptive");
    expect(content).toMatchObject({ type: "AdaptiveCard", version: "1.4", $schema: "http://adaptivecards.io/schemas/adaptive-card.json" });
    expect(content.body[0]).toMatchObject({
      type: "TextBlock",
      text: "CVE-2024-3400 (critical, KEV) affects Production",
      weight: "Bolder",
    });
    const factSet = content.body.find((b: { type: string }) => b.type === "FactSet");
    expect(factSet.facts).toContainEqual({ title: "Severity", value: "critical" });
    expect(factSet.facts).toContainEqual({ title: "EPSS (exploitation probability, 30 days)", value: "99.99%" });
    expect(content.actions).toEqual([{ type: "Action.OpenUrl", title: "Open in Vigie", url: msg.link }]);
    expect(result.sent).toEqual({ webhook_url: "••••TEAM", status: 200, attempts: 1 });
  });

  it("refuses a private address without VIGIE_ALLOW_PRIVATE_TARGETS", async () => {
    const err = await failure(handlers({}).notify_teams(actionContext(), { webhook_url: `${base}/webhookb2/zzzzTEAM` }));
    expect(err.message).toContain("adresse de bouclage");
    expect(err.sent).toEqual({ webhook_url: "••••TEAM", status: null, attempts: 1 });
  });
});

describe("failed attempts in the log", () => {
  const ctx = actionContext();
  const who = { run_id: ctx.runId, node_id: ctx.nodeId, workflow_id: ctx.workflow.id, event_id: ctx.event.id };

  it("a webhook: one warn line per failed attempt, with run, node, action, attempt and reason; no token of the URL, no secret", async () => {
    const { logger, lines, raw } = capturedLogger();
    answers = [500, 500, 500];
    const url = `${base}/echo/tok3n-in-the-path?token=abc123query#frag`;
    await failure(handlers(undefined, logger).notify_webhook(ctx, { url, secret: "whsec_log_0123456789" }));
    const common = { level: 40, msg: "notification : tentative échouée", ...who, action: "notify_webhook", attempts: 3 };
    const target = `${base}/••••`;
    const reason = "le destinataire a répondu HTTP 500 : erreur 500 pour POST ••••";
    expect(lines).toEqual([
      expect.objectContaining({ ...common, attempt: 1, retrying: true, target, reason }),
      expect.objectContaining({ ...common, attempt: 2, retrying: true, target, reason }),
      expect.objectContaining({ ...common, attempt: 3, retrying: false, target, reason }),
    ]);
    for (const secret of ["tok3n-in-the-path", "abc123query", "frag", "whsec_log_0123456789"]) expect(raw.join("")).not.toContain(secret);
  });

  it("Slack and Teams: the webhook URL (a secret) never appears, even when the receiver's answer echoes it", async () => {
    const { logger, lines, raw } = capturedLogger();
    answers = [502];
    const slack = `${base}/echo/services/T000/B000/abcdefghijklmnopSLCK`;
    await handlers(undefined, logger).notify_slack(ctx, { webhook_url: slack });
    const teams = `${base}/webhookb2/x/IncomingWebhook/y/zzzzTEAM`;
    // Refused before any request: the reason names the address the URL leads to.
    await failure(handlers({}, logger).notify_teams(ctx, { webhook_url: teams }));
    expect(lines).toEqual([
      expect.objectContaining({ ...who, action: "notify_slack", attempt: 1, retrying: true, target: `${base}/••••` }),
      expect.objectContaining({ ...who, action: "notify_teams", attempt: 1, retrying: false, target: `${base}/••••` }),
    ]);
    expect(lines[0]!.reason).toBe("le destinataire a répondu HTTP 502 : erreur 502 pour POST ••••");
    expect(lines[1]!.reason).toContain("adresse de bouclage");
    for (const secret of ["abcdefghijklmnopSLCK", "services/T000", "zzzzTEAM", "IncomingWebhook"])
      expect(raw.join("")).not.toContain(secret);
  });
});

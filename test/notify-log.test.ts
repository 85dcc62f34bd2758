import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { generate } from "selfsigned";
import { SMTPServer } from "smtp-server";
import { afterAll, describe, expect, it } from "vitest";
import { importFeed } from "../src/feeds/import.js";
import { createTestApp, createWorkflow, tenantWithScopes } from "./helpers.js";
import { capturedLogger } from "./notify-fixtures.js";

/**
 * Issue 21's case end to end: a workflow run whose e-mail goes to a relay offering STARTTLS with a
 * self-signed certificate (and whose first webhook is refused) ends partial, and the
 * server log now says why, for each attempt, with the run and the node, and no credential.
 */
const PASSWORD = "relais-Pa55word";
const HOOK_TOKEN = "tokenInThePathOfTheHook";
const HOOK_SECRET = "whsec_0123456789abcdef";

const pems = await generate([{ name: "commonName", value: "localhost" }], { keyType: "ec", algorithm: "sha256" });
let mails = 0;
const relay = new SMTPServer({
  key: pems.private,
  cert: pems.cert,
  authOptional: true,
  logger: false,
  onData(stream, _session, done) {
    stream.resume();
    stream.on("end", () => {
      mails++;
      done();
    });
  },
});
await new Promise<void>((r) => relay.listen(0, "127.0.0.1", () => r()));
const relayPort = (relay.server.address() as AddressInfo).port;
// One receiver refuses the message (400: not retried); the other accepts it.
const receiver = createServer((req, res) => {
  req.resume();
  req.on("end", () => res.writeHead(req.url === "/ok" ? 204 : 400).end(req.url === "/ok" ? undefined : "invalid_payload"));
});
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
afterAll(async () => {
  await new Promise<void>((r) => relay.close(() => r()));
  await new Promise<void>((r) => receiver.close(() => r()));
});

const { logger, lines, raw } = capturedLogger();
const t = await createTestApp(
  {
    VIGIE_SMTP_URL: `smtp://vigie:${PASSWORD}@127.0.0.1:${relayPort}`,
    VIGIE_SMTP_FROM: "Vigie <alertes@vigie.example.org>",
    VIGIE_ALLOW_PRIVATE_TARGETS: "true",
  },
  { logger },
);
for (const file of ["test/fixtures/import/cve5-sample.jsonl", "test/fixtures/matching/cve5-panos.jsonl"])
  expect((await importFeed(t.database.db, "cve5", [file])).errors).toEqual([]);

describe("failed notification attempts in the server log", () => {
  it("a run whose e-mail meets a self-signed relay ends partial, and each failed attempt is a warn line with run, node and reason", async () => {
    const x = await tenantWithScopes(t, "Relais", ["stacks-write", "workflows-write"]);
    const action = (id: string, name: string, params: Record<string, unknown>) => ({
      id,
      type: "action",
      action: name,
      params,
      on_error: "continue",
    });
    const res = await createWorkflow(t, x, {
      name: "Astreinte",
      graph: {
        nodes: [
          { id: "t", type: "trigger", event: "cve.new_match", params: {} },
          action("mail", "notify_email", { to: ["astreinte@example.org"] }),
          action("refused", "notify_webhook", { url: `${base}/hooks/${HOOK_TOKEN}?key=${HOOK_TOKEN}`, secret: HOOK_SECRET }),
          action("hook", "notify_webhook", { url: `${base}/ok` }),
        ],
        edges: [
          { from: "t", to: "mail" },
          { from: "mail", to: "refused" },
          { from: "refused", to: "hook" },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const workflowId = res.json().id as string;
    const stack = await x.call("POST", "/stacks", {
      name: "Edge",
      items: [{ item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" }],
    });
    expect(stack.json().alertes_creees).toBe(2);
    await t.services.runs.dispatchAll();

    const runs = (
      (await t.database.executeSql("select id, status from workflow_runs where workflow_id = $1 order by id", [workflowId])) as {
        rows: { id: string; status: string }[];
      }
    ).rows;
    expect(runs.map((r) => r.status)).toEqual(["partial", "partial"]);
    expect(mails).toBe(0);
    const failed = lines.filter((l) => l.msg === "notification : tentative échouée");
    const seen = failed.map((l) => [l.run_id, l.node_id, l.action, l.attempt, l.retrying]).sort();
    const wanted = runs.flatMap((r) => [
      [r.id, "mail", "notify_email", 1, false],
      [r.id, "refused", "notify_webhook", 1, false],
    ]);
    expect(seen).toEqual(wanted.sort());
    for (const l of failed) {
      expect(l.level).toBe(40);
      expect(l.workflow_id).toBe(workflowId);
      if (l.action === "notify_email") {
        expect(l.target).toBe(`smtp://127.0.0.1:${relayPort}`);
        expect(l.reason).toMatch(/^envoi SMTP impossible : self-signed certificate \(certificat du serveur refusé : VIGIE_SMTP_CA_FILE/);
      } else {
        expect(l.target).toBe(`${base}/••••`);
        expect(l.reason).toBe("le destinataire a répondu HTTP 400 : invalid_payload");
      }
    }
    const written = raw.join("");
    expect(written).not.toContain(PASSWORD);
    expect(written).not.toContain(HOOK_TOKEN);
    expect(written).not.toContain(HOOK_SECRET);
  });
});

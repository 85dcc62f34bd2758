import { execFile, spawn } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import { afterAll, describe, expect, it } from "vitest";
import { cliSession, freshStore, startServer } from "./server-process.js";

/**
 * The issue's « kill -9 during a digest's send, restart: one digest received », black box, with the
 * built server and CLI on real records (the PAN-OS CVE 5 records): a project workflow gathers its
 * new matches into two hourly digests, a signed webhook (a local HTTP receiver) and an e-mail (a
 * local SMTP server); a worker process (`jobs run digests-send`) closes them and sends them; the
 * first receiver reached records the delivery and stalls its answer; the worker is killed with
 * SIGKILL mid-send; a new worker sends again once the dead one's lease ran out. The stalled receiver
 * got its digest twice (the kill came after it accepted, before Vigie's record: delivery is at least
 * once) with the same idempotency key (X-Vigie-Delivery, the digest's id; the mail's Message-ID)
 * and every event both times, so a receiver that drops a key it has seen accepts one; the other
 * receiver got its digest once.
 */
const run = promisify(execFile);
const store = await freshStore();
afterAll(() => store.remove());

const SECRET = "whsec-digest-kill-0123456789";

interface Delivery {
  key: string;
  event: string;
  digestId: string;
  cves: string[];
  count: number;
  valid: boolean;
}
/** Every delivery the receiver got, and the keys it accepted (a key seen before is dropped). */
const received: Delivery[] = [];
const accepted = new Map<string, Delivery>();
/** The first delivery to reach either receiver is stored and left unanswered (`stalled` lets it go). */
let stall = true;
let stalled: (() => void) | null = null;
const receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    const ts = String(req.headers["x-vigie-timestamp"]);
    const json = JSON.parse(body) as { event: string; digest_id: string; count: number; events: { message: { cve: { id: string } } }[] };
    const d: Delivery = {
      key: String(req.headers["x-vigie-delivery"]),
      event: json.event,
      digestId: json.digest_id,
      cves: json.events.map((e) => e.message.cve.id).sort(),
      count: json.count,
      valid: req.headers["x-vigie-signature"] === `sha256=${createHmac("sha256", SECRET).update(`${ts}.${body}`).digest("hex")}`,
    };
    received.push(d);
    // Accepted (stored) as soon as it arrives, as a receiver that queues its work does; the answer may come later.
    if (!accepted.has(d.key)) accepted.set(d.key, d);
    if (stall) {
      stall = false;
      stalled = () => res.destroy();
      return;
    }
    res.writeHead(204).end();
  });
});
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
afterAll(() => new Promise<void>((r) => receiver.close(() => r())));

// A real SMTP server: every mail it is given, parsed as a mail client would; it accepts a
// Message-ID once. The first mail, when it is the first delivery of all, is stored and left unanswered.
const mails: ParsedMail[] = [];
const acceptedMails = new Set<string>();
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS", "AUTH"],
  logger: false,
  onData(stream, _session, callback) {
    simpleParser(stream).then((m) => {
      mails.push(m);
      acceptedMails.add(m.messageId ?? "");
      if (stall) {
        stall = false;
        stalled = () => callback(new Error("the test's SMTP server stalled"));
        return;
      }
      callback();
    }, callback);
  },
});
await new Promise<void>((r) => smtp.listen(0, "127.0.0.1", () => r()));
afterAll(() => new Promise<void>((r) => smtp.close(() => r())));

const serverEnv = {
  ...store.env,
  VIGIE_SNAPSHOT: "off",
  VIGIE_SECRET_KEY: randomBytes(32).toString("base64"),
  VIGIE_ALLOW_PRIVATE_TARGETS: "true",
  VIGIE_DIGEST_LEASE_SECONDS: "5",
  VIGIE_SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
  VIGIE_SMTP_FROM: "Vigie <vigie@example.org>",
};
const env = { ...process.env, ...serverEnv };
// biome-ignore lint/suspicious/noExplicitAny: a command's JSON result, read field by field.
const cli = async (...args: string[]): Promise<any> =>
  JSON.parse((await run(process.execPath, ["dist/cli.js", ...args, "--json"], { env, timeout: 120_000 })).stdout);
/** What a `create` command answers, as far as this file reads it. */
type Made = { id: string };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("digests, black box", () => {
  it("kill -9 during a digest's send, a new worker: the digest is sent again with the same key, every event in it; one accepted", async () => {
    // The set-up's commands in one process (the CLI's own commands; cli.test.ts tests them one by one).
    const setup = cliSession(serverEnv);
    const org = await setup.run<Made>("org", "create", "--name", "Acme");
    const project = await setup.run<Made>("project", "create", "--org", org.id, "--name", "Production");
    const { key } = await setup.run<{ key: string }>("apikey", "create", "--org", org.id, "--scope", "stacks-write", "--name", "ci");
    const body = join(tmpdir(), `vigie-digest-${process.pid}.json`);
    const port = (receiver.address() as AddressInfo).port;
    writeFileSync(
      body,
      JSON.stringify({
        name: "Résumé horaire",
        trigger: { event: "cve.new_match" },
        actions: [
          {
            type: "notify_webhook",
            params: { url: `http://127.0.0.1:${port}/digest`, secret: SECRET, delivery: { mode: "digest", every: "hourly" } },
          },
          { type: "notify_email", params: { to: ["soc@example.org"], delivery: { mode: "digest", every: "hourly" } } },
        ],
        create_case: false,
      }),
    );
    const workflow = await setup.run<Made>("workflow", "create", "--org", org.id, "--project", project.id, "--file", body);
    const imported = await setup.run<{ errors: unknown[] }>(
      "feeds",
      "import",
      "--source",
      "cve5",
      "test/fixtures/import/cve5-sample.jsonl",
      "test/fixtures/matching/cve5-panos.jsonl",
    );
    expect(imported.errors).toEqual([]);
    await setup.close();

    // The server: a stack matching CVE-2024-3400 and CVE-2024-9468; each run puts its event in the digest.
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const server = startServer(serverEnv);
    try {
      const url = await server.ready(240_000);
      const api = `${url}/api/v1/organizations/${org.id}/projects/${project.id}`;
      const setting = await fetch(`${api}/alert-settings`, { method: "PATCH", headers, body: JSON.stringify({ alert_backfill: "all" }) });
      expect(setting.status).toBe(200);
      const res = await fetch(`${api}/stacks`, {
        method: "POST",
        headers,
        body: JSON.stringify({ name: "Edge", items: [{ item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" }] }),
      });
      expect(res.status).toBe(201);
      let runs: { status: string; finished_at: string | null; cve_id: string }[] = [];
      for (let i = 0; i < 1200; i++) {
        runs = (await (await fetch(`${api}/workflows/${workflow.id}/runs`, { headers })).json()) as typeof runs;
        if (runs.length === 2 && runs.every((r) => r.finished_at !== null)) break;
        await sleep(100);
      }
      expect(runs.map((r) => [r.cve_id, r.status]).sort()).toEqual([
        ["CVE-2024-3400", "success"],
        ["CVE-2024-9468", "success"],
      ]);
    } finally {
      await server.stop();
    }
    // Nothing was sent yet: the digests close on the hour.
    expect(received).toEqual([]);
    expect(mails).toEqual([]);

    // Worker 1 closes the digest (an instant two hours on) and sends it; killed while the receiver stalls its answer.
    const at = new Date(Date.now() + 2 * 3_600_000).toISOString();
    const worker = spawn(process.execPath, ["dist/cli.js", "jobs", "run", "digests-send", "--now", at, "--json"], {
      env,
      stdio: "ignore",
    });
    const exited = new Promise((r) => worker.once("exit", r));
    for (let i = 0; i < 1200 && !stalled; i++) await sleep(100);
    expect(stalled).not.toBeNull();
    worker.kill("SIGKILL");
    await exited;
    expect(worker.signalCode).toBe("SIGKILL");
    stalled!();
    // The worker sends one digest at a time: the stalled one reached its receiver, the other not yet.
    expect(received.length + mails.length).toBe(1);
    const webhookFirst = received.length === 1;

    // Worker 2, past the dead worker's lease (VIGIE_DIGEST_LEASE_SECONDS=5): both digests, the stalled one again.
    await sleep(6_000);
    const second = await cli("jobs", "run", "digests-send", "--now", at);
    expect(second).toMatchObject({ job: "digests-send", closed: 0, sent: 2, failed: 0 });
    // Worker 3: nothing left to send.
    expect(await cli("jobs", "run", "digests-send", "--now", at)).toMatchObject({ closed: 0, sent: 0 });

    // Vigie's record: two digests (one per node), each sent at its second attempt (the dead worker held both), each with both events.
    const db = await store.open();
    let digests: { id: string; node_id: string; status: string; attempts: number; n: number }[];
    try {
      digests = (
        await db.executeSql(
          `select d.id, d.node_id, d.status, d.attempts, (select count(*)::int from digest_items i where i.digest_id = d.id) as n
            from digests d where d.workflow_id = $1 and d.status <> 'empty' order by d.node_id`,
          [workflow.id],
        )
      ).rows as typeof digests;
    } finally {
      await db.close();
    }
    expect(digests.map((d) => [d.status, d.attempts, d.n])).toEqual([
      ["sent", 2, 2],
      ["sent", 2, 2],
    ]);
    const ids = digests.map((d) => d.id);

    // The webhook: one key every time, a digest's id; every event each time; accepted once.
    expect(received).toHaveLength(webhookFirst ? 2 : 1);
    const hookKey = received[0]!.key;
    expect(ids).toContain(hookKey);
    for (const d of received) {
      expect(d).toMatchObject({ key: hookKey, digestId: hookKey, event: "digest", count: 2, valid: true });
      expect(d.cves).toEqual(["CVE-2024-3400", "CVE-2024-9468"]);
    }
    expect([...accepted.keys()]).toEqual([hookKey]);
    // The e-mail: one Message-ID and X-Vigie-Delivery every time, the other digest's id; every event each time; accepted once.
    expect(mails).toHaveLength(webhookFirst ? 1 : 2);
    const mailKey = ids.find((id) => id !== hookKey)!;
    expect(new Set(mails.map((m) => m.messageId)).size).toBe(1);
    for (const m of mails) {
      expect(m.headers.get("x-vigie-delivery")).toBe(mailKey);
      expect(m.text).toContain("CVE-2024-3400");
      expect(m.text).toContain("CVE-2024-9468");
    }
    expect(acceptedMails.size).toBe(1);
  }, 600_000);
});

import { execFile } from "node:child_process";
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
 * The issue's acceptance, black box, with the built server and CLI: a stack item, an organization
 * workflow that signs a webhook and sends an e-mail, an import made by the CLI while the server is
 * stopped, then the server started — the case (default workflow), the webhook (received by a local
 * HTTP server, its signature checked) and the e-mail (received by a local SMTP server) arrive, each
 * exactly once. Then the server is killed while a webhook is in flight and started again: the run
 * resumes, and each delivery is still received once (a receiver drops a replayed X-Vigie-Delivery).
 */
const run = promisify(execFile);
const store = await freshStore();
afterAll(() => store.remove());

const SECRET = "whsec-acceptance-0123456789";

// A webhook receiver: every delivery it is sent, with its signature checked; `hold` keeps the next
// request unanswered (the server is killed meanwhile).
interface Delivery {
  id: string;
  event: string;
  cve: string;
  valid: boolean;
}
const received: Delivery[] = [];
let hold = false;
let held: (() => void) | null = null;
const receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    const ts = String(req.headers["x-vigie-timestamp"]);
    const expected = `sha256=${createHmac("sha256", SECRET).update(`${ts}.${body}`).digest("hex")}`;
    const json = JSON.parse(body) as { event: string; message: { cve: { id: string } } };
    received.push({
      id: String(req.headers["x-vigie-delivery"]),
      event: json.event,
      cve: json.message.cve.id,
      valid: req.headers["x-vigie-signature"] === expected,
    });
    if (hold) {
      hold = false;
      held = () => res.destroy();
      return;
    }
    res.writeHead(204).end();
  });
});
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
afterAll(() => new Promise<void>((r) => receiver.close(() => r())));

// A real SMTP server: what arrives is parsed as a mail client would.
const mails: ParsedMail[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS", "AUTH"],
  logger: false,
  onData(stream, _session, callback) {
    simpleParser(stream).then((m) => {
      mails.push(m);
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
  VIGIE_SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
  VIGIE_SMTP_FROM: "Vigie <vigie@example.org>",
  VIGIE_RUN_LEASE_SECONDS: "5",
};
const env = { ...process.env, ...serverEnv };
// biome-ignore lint/suspicious/noExplicitAny: a command's JSON result, read field by field.
const cli = async (...args: string[]): Promise<any> =>
  JSON.parse((await run(process.execPath, ["dist/cli.js", ...args, "--json"], { env, timeout: 120_000 })).stdout);

/** What a `create` command answers, as far as this file reads it. */
type Made = { id: string };
const distinct = (xs: string[]) => [...new Set(xs)];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("events to runs, black box", () => {
  it("an import by the CLI with the server stopped, then a kill mid-webhook: case, webhook and e-mail each arrive once", async () => {
    // The set-up's commands in one process (the CLI's own commands; cli.test.ts tests them one by one).
    const setup = cliSession(serverEnv);
    const org = await setup.run<Made>("org", "create", "--name", "Acme");
    const project = await setup.run<Made>("project", "create", "--org", org.id, "--name", "Production");
    const staging = await setup.run<Made>("project", "create", "--org", org.id, "--name", "Recette");
    const { key } = await setup.run<{ key: string }>("apikey", "create", "--org", org.id, "--scope", "stacks-write", "--name", "ci");
    const body = join(tmpdir(), `vigie-notifier-${process.pid}.json`);
    const port = (receiver.address() as AddressInfo).port;
    writeFileSync(
      body,
      JSON.stringify({
        name: "Notifier le SOC",
        trigger: { event: "cve.new_match" },
        actions: [
          { type: "notify_webhook", params: { url: `http://127.0.0.1:${port}/vigie`, secret: SECRET }, on_error: "continue" },
          { type: "notify_email", params: { to: ["soc@example.org"] } },
        ],
        create_case: false,
      }),
    );
    // An organization workflow: it runs for every project.
    const notifier = await setup.run<Made>("workflow", "create", "--org", org.id, "--file", body);
    await setup.close();
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const api = (url: string, p: { id: string }) => `${url}/api/v1/organizations/${org.id}/projects/${p.id}`;

    const first = startServer(serverEnv);
    try {
      const url = await first.ready(240_000);
      const res = await fetch(`${api(url, project)}/stacks`, {
        method: "POST",
        headers,
        body: JSON.stringify({ name: "Edge", items: [{ item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" }] }),
      });
      expect(res.status).toBe(201);
      expect(((await res.json()) as { alertes_creees: number }).alertes_creees).toBe(0); // no CVE known yet
    } finally {
      await first.stop();
    }

    const imported = await cli(
      "feeds",
      "import",
      "--source",
      "cve5",
      "test/fixtures/import/cve5-sample.jsonl",
      "test/fixtures/matching/cve5-panos.jsonl",
    );
    expect(imported.errors).toEqual([]);

    const second = startServer(serverEnv);
    // biome-ignore lint/suspicious/noExplicitAny: JSON answers, read field by field.
    const get = async (url: string, p: { id: string }, path: string): Promise<any> =>
      (await fetch(`${api(url, p)}${path}`, { headers })).json();
    const finished = async (url: string, p: { id: string }, workflowId: string, n: number) => {
      let runs: { id: string; status: string; finished_at: string | null; cve_id: string }[] = [];
      for (let i = 0; i < 1800; i++) {
        runs = await get(url, p, `/workflows/${workflowId}/runs`);
        if (runs.length >= n && runs.every((r) => r.finished_at !== null)) return runs;
        await sleep(100);
      }
      throw new Error(`runs not finished: ${JSON.stringify(runs)}`);
    };
    try {
      const url = await second.ready(240_000);
      const [defaultWf] = await get(url, project, "/workflows");
      const caseRuns = await finished(url, project, defaultWf.id, 2);
      // Organization workflow runs are listed under each project they ran for.
      const notifyRuns = await finished(url, project, notifier.id, 2);
      expect(caseRuns.map((r) => [r.cve_id, r.status]).sort()).toEqual([
        ["CVE-2024-3400", "success"],
        ["CVE-2024-9468", "success"],
      ]);
      expect(notifyRuns.map((r) => [r.cve_id, r.status]).sort()).toEqual([
        ["CVE-2024-3400", "success"],
        ["CVE-2024-9468", "success"],
      ]);
      // The default workflow ran on both, and opened the case of the verified P1 only (CVE-2024-9468 is P3).
      const cases = await get(url, project, "/cases");
      expect(cases.items.map((c: { cve_id: string }) => c.cve_id).sort()).toEqual(["CVE-2024-3400"]);
      // Each webhook once, signed; each e-mail once.
      expect(received.map((d) => [d.cve, d.event, d.valid]).sort()).toEqual([
        ["CVE-2024-3400", "cve.new_match", true],
        ["CVE-2024-9468", "cve.new_match", true],
      ]);
      expect(mails.map((m) => m.subject ?? "").sort()).toEqual([
        expect.stringContaining("CVE-2024-3400"),
        expect.stringContaining("CVE-2024-9468"),
      ]);
      expect(mails.every((m) => m.text?.includes("Production") && m.html && (m.to as { text: string }).text === "soc@example.org")).toBe(
        true,
      );
      // The run detail shows what was sent, the secret masked.
      const detail = await get(url, project, `/workflows/${notifier.id}/runs/${notifyRuns[0]!.id}`);
      expect(JSON.stringify(detail.steps)).not.toContain(SECRET);

      // Second part: the server is killed while a webhook is in flight. Recette alerts on every
      // stored CVE its items name (the CVE is not recent: the default backfill would skip it).
      const setting = await fetch(`${api(url, staging)}/alert-settings`, {
        method: "PATCH",
        headers,
        body: JSON.stringify({ alert_backfill: "all" }),
      });
      expect(setting.status).toBe(200);
      hold = true;
      const res = await fetch(`${api(url, staging)}/stacks`, {
        method: "POST",
        headers,
        body: JSON.stringify({ name: "Recette", items: [{ item_type: "cve", value: "CVE-2024-3400" }] }),
      });
      expect(res.status).toBe(201);
      for (let i = 0; i < 600 && !held; i++) await sleep(100);
      expect(held).not.toBeNull();
      second.proc.kill("SIGKILL");
      await new Promise((r) => second.proc.once("exit", r));
      held!();
    } finally {
      if (second.proc.exitCode === null && second.proc.signalCode === null) await second.stop();
    }

    await sleep(6_000); // past the killed worker's lease
    const third = startServer(serverEnv);
    try {
      const url = await third.ready(240_000);
      const runs = await finished(url, staging, notifier.id, 1);
      expect(runs.map((r) => [r.cve_id, r.status])).toEqual([["CVE-2024-3400", "success"]]);
      const detail = await get(url, staging, `/workflows/${notifier.id}/runs/${runs[0]!.id}`);
      expect(detail.attempts).toBeGreaterThanOrEqual(2);
      const staged = received.filter((d) => d.id.startsWith(`${detail.event_id}:`));
      // Sent again after the kill (the first answer never came), with the same delivery id: received once.
      expect(staged.length).toBeGreaterThanOrEqual(2);
      expect(distinct(staged.map((d) => d.id))).toHaveLength(1);
      expect(staged.every((d) => d.valid)).toBe(true);
      // The e-mail comes after the webhook in the graph: sent once, after the resume.
      const stagingMails = mails.filter((m) => m.text?.includes("Recette"));
      expect(stagingMails).toHaveLength(1);
      const stagingCases = await get(url, staging, "/cases");
      expect(stagingCases.items.map((c: { cve_id: string }) => c.cve_id)).toEqual(["CVE-2024-3400"]);
    } finally {
      await third.stop();
    }
  }, 900_000);
});

import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import type { NotificationMessage } from "../src/engine/actions.js";
import { digestSender } from "../src/engine/notify/digest-send.js";
import { type DigestInput, type DigestItem, renderDigest, TOP_ITEMS } from "../src/engine/notify/digest.js";
import { webhookSignature } from "../src/engine/notify/webhook.js";
import { lastSlot, nextSlot, parisHour, type Delivery } from "../src/engine/notify/schedule.js";
import { importFeed } from "../src/feeds/import.js";
import { executeCommand } from "../src/main.js";
import { DigestsService } from "../src/modules/digests/digests.service.js";
import { createTestApp, createWorkflow, tenantWithScopes } from "./helpers.js";
import { panosMessage } from "./notify-fixtures.js";

/**
 * Digests (issue 37) on real records: the PAN-OS CVE 5 records imported, a stack that matches two
 * of them (CVE-2024-3400 and CVE-2024-9468), workflows whose notify nodes gather digests. Receivers
 * are local: an HTTP server (webhook, Slack, Teams) and an SMTP server whose mails are parsed as a
 * mail client would.
 */
interface Received {
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}
let received: Received[] = [];
const http = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    received.push({ url: req.url!, headers: req.headers, body });
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
  });
});
await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
let mails: ParsedMail[] = [];
const smtp = new SMTPServer({
  logger: false,
  authOptional: true,
  disabledCommands: ["STARTTLS"],
  onData(stream, _session, callback) {
    simpleParser(stream).then(
      (m) => {
        mails.push(m);
        callback();
      },
      (err) => callback(err),
    );
  },
});
await new Promise<void>((r) => smtp.listen(0, "127.0.0.1", () => r()));
const smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
afterAll(async () => {
  await new Promise<void>((r) => http.close(() => r()));
  await new Promise<void>((r) => smtp.close(() => r()));
});

const ENV = {
  VIGIE_SMTP_URL: smtpUrl,
  VIGIE_SMTP_FROM: "Vigie <alertes@vigie.example.org>",
  VIGIE_SMTP_STARTTLS: "off",
  VIGIE_ALLOW_PRIVATE_TARGETS: "true",
  VIGIE_PUBLIC_URL: "https://vigie.example.org",
};
const t = await createTestApp(ENV);
const sqlRows = async <T>(text: string, params: unknown[] = []) => ((await t.database.executeSql(text, params)) as { rows: T[] }).rows;
for (const file of ["test/fixtures/import/cve5-sample.jsonl", "test/fixtures/matching/cve5-panos.jsonl"])
  expect((await importFeed(t.database.db, "cve5", [file])).errors).toEqual([]);
const PANOS = { item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" };
const SECRET = "s3cret-of-the-receiver";

async function tenant(name: string) {
  const x = await tenantWithScopes(t, name, ["stacks-write", "workflows-write", "alerts-write"]);
  await x.call("PATCH", `/workflows/${x.defaultWorkflowId}/enabled`, { enabled: false });
  /** A workflow whose nodes all hang off the trigger, unless `edges` says otherwise. */
  const workflow = async (nodes: unknown[], edges?: unknown[]) => {
    edges ??= nodes.slice(1).map((n) => ({ from: "t", to: (n as { id: string }).id }));
    const res = await createWorkflow(t, x, { name: `${name} ${Math.random()}`, graph: { nodes, edges } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };
  return { ...x, workflow };
}
const trigger = { id: "t", type: "trigger", event: "cve.new_match", params: {} };
const notify = (id: string, action: string, params: Record<string, unknown>) => ({
  id,
  type: "action",
  action,
  params,
  on_error: "continue",
});
const daily: Delivery = { mode: "digest", every: "daily", hour: 8, weekday: 1, empty: "skip" };
const hourly: Delivery = { ...daily, every: "hourly" };
const DAY = 86_400_000;
const HOUR = 3_600_000;
const digestsOf = (workflowId: string) =>
  sqlRows<{ id: string; status: string; item_count: number; attempts: number; node_id: string }>(
    "select id, status, item_count, attempts, node_id from digests where workflow_id = $1 order by closed_at, id",
    [workflowId],
  );
const itemsOf = (workflowId: string) =>
  sqlRows<{ event_id: string; digest_id: string | null; throttled: boolean; node_id: string }>(
    "select event_id, digest_id, throttled, node_id from digest_items where workflow_id = $1 order by id",
    [workflowId],
  );
const hooks = (path: string) => received.filter((r) => r.url === path);

describe("digest schedule (Europe/Paris)", () => {
  it("daily at a Paris hour follows the offset across both DST changes", () => {
    // 2026-03-29: CET → CEST. 08:00 Paris is 07:00 UTC the day before, 06:00 UTC the day after.
    expect(lastSlot(daily, new Date("2026-03-28T12:00:00Z")).toISOString()).toBe("2026-03-28T07:00:00.000Z");
    expect(lastSlot(daily, new Date("2026-03-30T12:00:00Z")).toISOString()).toBe("2026-03-30T06:00:00.000Z");
    // Before today's hour: yesterday's.
    expect(lastSlot(daily, new Date("2026-03-30T05:59:00Z")).toISOString()).toBe("2026-03-29T06:00:00.000Z");
    // 02:00 does not exist on 2026-03-29: the digest goes at 03:00 CEST (01:00 UTC), once.
    expect(new Date(parisHour("2026-03-29", 2)).toISOString()).toBe("2026-03-29T01:00:00.000Z");
    // 2026-10-25: CEST → CET; 02:00 happens twice, the first counts; 08:00 is 07:00 UTC.
    expect(new Date(parisHour("2026-10-25", 2)).toISOString()).toBe("2026-10-25T00:00:00.000Z");
    expect(nextSlot(daily, new Date("2026-10-24T12:00:00Z")).toISOString()).toBe("2026-10-25T07:00:00.000Z");
    expect(nextSlot(daily, new Date("2026-10-23T12:00:00Z")).toISOString()).toBe("2026-10-24T06:00:00.000Z");
  });

  it("weekly on a day, hourly on the hour", () => {
    const monday9: Delivery = { ...daily, every: "weekly", weekday: 1, hour: 9 };
    // Saturday 2026-11-28: the last Monday 09:00 CET is 2026-11-23 08:00 UTC, the next 2026-11-30.
    expect(lastSlot(monday9, new Date("2026-11-28T10:00:00Z")).toISOString()).toBe("2026-11-23T08:00:00.000Z");
    expect(nextSlot(monday9, new Date("2026-11-28T10:00:00Z")).toISOString()).toBe("2026-11-30T08:00:00.000Z");
    // Sunday (7) in summer: 09:00 CEST is 07:00 UTC.
    expect(lastSlot({ ...monday9, weekday: 7 }, new Date("2026-07-01T00:00:00Z")).toISOString()).toBe("2026-06-28T07:00:00.000Z");
    expect(lastSlot(hourly, new Date("2026-11-28T10:59:59Z")).toISOString()).toBe("2026-11-28T10:00:00.000Z");
    expect(nextSlot(hourly, new Date("2026-11-28T10:00:00Z")).toISOString()).toBe("2026-11-28T11:00:00.000Z");
  });
});

/** A digest of `n` events of CVE-2024-3400's facts, paliers and products varied. */
function sample(n: number, lang: "fr" | "en" = "fr"): DigestInput {
  const items: DigestItem[] = Array.from({ length: n }, (_, i) => {
    const base = panosMessage({ lang });
    const palier = ["P3", "P1", "P2", "P1"][i % 4]!;
    const message: NotificationMessage = {
      ...base,
      palier,
      title: `${base.title} #${i}`,
      cve: { ...base.cve, product: i % 2 ? "PAN-OS" : "GlobalProtect <gateway>", cvss_score: 10 - (i % 3) },
    };
    return { event_id: 100 + i, added_at: "2026-11-27T09:00:00Z", message, throttled: i >= n - 2 };
  });
  return {
    id: "3f0b8f5e-1c52-4b8a-9d55-0d1e0b6d6a01",
    lang,
    workflow: { id: "9d0e6f2a-1111-4a2b-8c3d-4e5f6a7b8c9d", name: "Résumé quotidien" },
    every: "daily",
    from: "2026-11-27T07:00:00Z",
    to: "2026-11-28T07:00:00Z",
    items,
    link: "https://vigie.example.org/p/6f1c1b5e-8a7d-4f7e-9a52-0d5a3f1f2a10/alerts?resume=3f0b8f5e-1c52-4b8a-9d55-0d1e0b6d6a01",
  };
}

describe("digest content and its four carriers", () => {
  it("groups by palier then product, counts, shows the top items in full, says what the throttle carried", () => {
    const d = renderDigest(sample(13));
    expect(d.title).toBe("Résumé Vigie : 13 événements");
    expect(d.summary).toBe("13 événements du 27/11/2026 08:00 au 28/11/2026 08:00 (heure de Paris)");
    expect(d.groups.map((g) => [g.label, g.count])).toEqual([
      ["P1", 6],
      ["P2", 3],
      ["P3", 4],
    ]);
    // P1 are the odd indexes 1, 3, 5…: products by count, then name.
    expect(d.groups[0]!.products).toEqual([{ name: "Palo Alto Networks PAN-OS", count: 6 }]);
    expect(d.groups[2]!.products).toEqual([{ name: "Palo Alto Networks GlobalProtect <gateway>", count: 4 }]);
    expect(d.top).toHaveLength(TOP_ITEMS);
    expect(d.more).toBe(3);
    expect(d.top[0]!.title).toMatch(/#\d+$/);
    expect(d.top.slice(0, 6).every((r) => r.facts.find((f) => f.key === "palier")?.value === "P1")).toBe(true);
    expect(d.throttled).toBe(2);
    expect(d.throttledNote).toContain("reportés dans ce résumé plutôt que perdus");
    const en = renderDigest(sample(1, "en"));
    expect(en.title).toBe("Vigie digest: 1 event");
    expect(en.linkLabel).toBe("Open these alerts in Vigie");
  });

  it("e-mail (HTML and text parts), webhook (one signed JSON document), Slack Block Kit and a Teams card reach local receivers", async () => {
    received = [];
    mails = [];
    const send = digestSender(loadConfig(ENV).notify, { now: () => Date.UTC(2026, 10, 28, 7, 0, 5), sleep: async () => {} });
    const input = sample(3);
    const who = { runId: input.id, nodeId: "n", workflow: { id: input.workflow.id }, event: null };
    const signal = new AbortController().signal;
    const mail = await send("notify_email", { to: ["rssi@example.org"] }, input, who, signal);
    expect(mail.detail).toBe("e-mail envoyé à 1 destinataire");
    const m = mails[0]!;
    expect(m.subject).toBe("Résumé Vigie : 3 événements · Résumé quotidien");
    expect(m.headers.get("x-vigie-delivery")).toBe(input.id);
    expect(m.messageId).toMatch(/^<vigie\.[0-9a-f]{32}@vigie\.example\.org>$/);
    expect(m.text).toContain("P1 : 1 — Palo Alto Networks PAN-OS (1)");
    expect(m.text).toContain(`Voir ces alertes dans Vigie : ${input.link}`);
    expect(m.html).toContain("GlobalProtect &lt;gateway&gt;");
    expect(m.html).toContain(`<a href="${input.link!.replace(/&/g, "&amp;")}">Voir ces alertes dans Vigie</a>`);

    await send("notify_webhook", { url: `${base}/hook`, secret: SECRET }, input, who, signal);
    const hook = hooks("/hook")[0]!;
    expect(hook.headers["x-vigie-delivery"]).toBe(input.id);
    expect(hook.headers["x-vigie-event"]).toBe("digest");
    expect(hook.headers["x-vigie-signature"]).toBe(webhookSignature(SECRET, String(hook.headers["x-vigie-timestamp"]), hook.body));
    const doc = JSON.parse(hook.body);
    expect(doc).toMatchObject({ digest_id: input.id, count: 3, throttled: 2, every: "daily", link: input.link });
    expect(doc.events.map((e: { event_id: number }) => e.event_id)).toEqual([101, 102, 100]);
    expect(doc.events[0].message).toMatchObject({ palier: "P1", cve: { id: "CVE-2024-3400" } });

    await send("notify_slack", { webhook_url: `${base}/slack` }, input, who, signal);
    const slack = JSON.parse(hooks("/slack")[0]!.body);
    expect(slack.blocks[0]).toEqual({ type: "header", text: { type: "plain_text", text: "Résumé Vigie : 3 événements", emoji: false } });
    expect(slack.blocks.find((b: { type: string }) => b.type === "actions").elements[0].url).toBe(input.link);
    expect(JSON.stringify(slack)).toContain("GlobalProtect &lt;gateway&gt;");

    await send("notify_teams", { webhook_url: `${base}/teams` }, input, who, signal);
    const card = JSON.parse(hooks("/teams")[0]!.body).attachments[0].content;
    expect(card).toMatchObject({ type: "AdaptiveCard", version: "1.4", lang: "fr" });
    expect(card.body.find((b: { type: string }) => b.type === "FactSet").facts[0]).toEqual({
      title: "P1 (1)",
      value: "Palo Alto Networks PAN-OS (1)",
    });
    expect(card.actions).toEqual([{ type: "Action.OpenUrl", title: "Voir ces alertes dans Vigie", url: input.link }]);
  });
});

describe("digests end to end", () => {
  it("a P1 goes at once while every alert waits for the daily digest; the digest goes once, with a link to exactly its alerts", async () => {
    received = [];
    mails = [];
    const x = await tenant("Digest A");
    await x.workflow(
      [
        trigger,
        { id: "c", type: "condition", match: "all", rules: [{ field: "alert.palier", op: "in", value: ["P1"] }] },
        notify("now", "notify_webhook", { url: `${base}/p1` }),
      ],
      [
        { from: "t", to: "c" },
        { from: "c", to: "now", when: "true" },
      ],
    );
    const wf = await x.workflow([
      trigger,
      notify("mail", "notify_email", { to: ["equipe@example.org"], delivery: { mode: "digest", every: "daily", hour: 8 } }),
      notify("hook", "notify_webhook", { url: `${base}/digest`, secret: SECRET, delivery: { mode: "digest", every: "daily", hour: 8 } }),
    ]);
    // Stored with its defaults.
    const [stored] = await sqlRows<{ graph: { nodes: { params: Record<string, unknown> }[] } }>(
      "select graph from workflows where id = $1",
      [wf],
    );
    expect(stored!.graph.nodes[1]!.params.delivery).toEqual({ mode: "digest", every: "daily", hour: 8, weekday: 1, empty: "skip" });

    expect((await x.call("POST", "/stacks", { name: "Edge", items: [PANOS] })).json().alertes_creees).toBe(2);
    await t.services.runs.dispatchAll();
    const alerts = await sqlRows<{ id: string; cve_id: string; palier: string }>(
      "select id, cve_id, palier from alerts where project_id = $1 order by cve_id",
      [x.projectId],
    );
    const p1s = alerts.filter((a) => a.palier === "P1");
    expect(hooks("/p1")).toHaveLength(p1s.length);
    // Nothing of the digest was sent; each run says where its notification went.
    expect(hooks("/digest")).toHaveLength(0);
    expect(mails).toHaveLength(0);
    const runs = (await x.call("GET", `/workflows/${wf}/runs`)).json();
    expect(runs).toHaveLength(2);
    const detail = (await x.call("GET", `/workflows/${wf}/runs/${runs[0].id}`)).json();
    expect(detail.status).toBe("success");
    expect(detail.steps[1].detail).toMatch(/^mis en attente dans le prochain résumé quotidien \(envoi prévu à /);
    expect((await itemsOf(wf)).map((i) => i.digest_id)).toEqual([null, null, null, null]);

    // The preview shows the next digest from the events waiting.
    const preview = (await x.call("GET", `/workflows/${wf}/digest-preview`)).json();
    expect(preview.resumes.map((r: { node_id: string; total: number }) => [r.node_id, r.total])).toEqual([
      ["hook", 2],
      ["mail", 2],
    ]);
    expect(preview.resumes[0].texte).toContain("CVE-2024-3400");
    expect(preview.derniers).toEqual([]);
    // The job now: the last 08:00 Paris came before these events, which wait for the next one
    // (the first digest of a node was closed at once, on the slot before its events).
    expect(await t.services.digests.run(new Date())).toEqual({ closed: 0, sent: 0, failed: 0, retrying: 0 });
    expect(hooks("/digest")).toHaveLength(0);

    const later = new Date(Date.now() + DAY);
    expect(await t.services.digests.run(later)).toEqual({ closed: 2, sent: 2, failed: 0, retrying: 0 });
    const digests = await digestsOf(wf);
    expect(digests.map((d) => [d.node_id, d.status, d.item_count])).toEqual(
      expect.arrayContaining([
        ["hook", "sent", 2],
        ["mail", "sent", 2],
      ]),
    );
    const hook = hooks("/digest");
    expect(hook).toHaveLength(1);
    const hookDigest = digests.find((d) => d.node_id === "hook")!;
    expect(hook[0]!.headers["x-vigie-delivery"]).toBe(hookDigest.id);
    const doc = JSON.parse(hook[0]!.body);
    expect(doc.events.map((e: { message: { cve: { id: string } } }) => e.message.cve.id).sort()).toEqual(alerts.map((a) => a.cve_id));
    expect(doc.link).toBe(`https://vigie.example.org/p/${x.projectId}/alerts?resume=${hookDigest.id}`);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain("2 événements");
    // The inbox filtered by the digest: exactly its alerts.
    const inbox = (await x.call("GET", `/alerts?resume=${hookDigest.id}`)).json();
    expect(inbox.items.map((a: { id: string }) => a.id).sort()).toEqual(alerts.map((a) => a.id).sort());
    expect((await x.call("GET", "/alerts?resume=00000000-0000-4000-8000-000000000000")).json().total).toBe(0);

    // Exactly once: the job again at the same instant, or later in the same period, sends nothing.
    expect(await t.services.digests.run(later)).toEqual({ closed: 0, sent: 0, failed: 0, retrying: 0 });
    expect(await t.services.digests.run(new Date(later.getTime() + HOUR))).toEqual({ closed: 0, sent: 0, failed: 0, retrying: 0 });
    expect(hooks("/digest")).toHaveLength(1);
  });

  it("a crash between the claim and the send, then one during the send: one digest, sent with the same id; no event in two digests", async () => {
    received = [];
    const x = await tenant("Digest B");
    const wf = await x.workflow([
      trigger,
      notify("hook", "notify_webhook", { url: `${base}/b`, delivery: { mode: "digest", every: "hourly" } }),
    ]);
    expect((await x.call("POST", "/stacks", { name: "Edge", items: [PANOS] })).json().alertes_creees).toBe(2);
    await t.services.runs.dispatchAll();
    const at = new Date(Date.now() + HOUR);
    // Killed after the claim's transaction committed, before any send.
    expect(await t.services.digests.closeDue(at)).toBe(1);
    const [closed] = await digestsOf(wf);
    expect(closed).toMatchObject({ status: "pending", item_count: 2, attempts: 0 });
    expect(hooks("/b")).toHaveLength(0);
    // A third event after the close waits for the next digest.
    expect(
      (await x.call("POST", "/stacks", { name: "More", items: [{ item_type: "cve", value: "CVE-2022-0028" }] })).json().alertes_creees,
    ).toBe(1);
    await t.services.runs.dispatchAll();

    // Restarted, the job sends it; but this process is killed once the receiver has it, before it records the send.
    const real = digestSender(loadConfig(ENV).notify, { sleep: async () => {} });
    const dying = new DigestsService(
      t.database.db,
      {
        send: async (...a) => {
          await real(...a);
          throw new Error("kill -9");
        },
        decrypt: (_a, p) => p,
        messageFor: (id) => t.services.runs.messageFor(id),
        lang: async () => "fr",
      },
      t.services.workflows,
      { publicUrl: ENV.VIGIE_PUBLIC_URL },
    );
    await expect(dying.run(at)).rejects.toThrow("kill -9");
    expect(hooks("/b")).toHaveLength(1);
    expect((await digestsOf(wf))[0]).toMatchObject({ status: "pending", attempts: 1 });
    // Within its lease nobody sends it again; once the lease is over, it goes again with the same id.
    expect((await t.services.digests.sendPending()).sent).toBe(0);
    // Restarted (the embedded database's start frees its killed predecessor's leases; PostgreSQL waits for the lease's end).
    expect(await t.services.digests.releaseLeases()).toBe(1);
    expect((await t.services.digests.sendPending()).sent).toBe(1);
    const sent = hooks("/b");
    expect(sent).toHaveLength(2);
    expect(sent.map((r) => r.headers["x-vigie-delivery"])).toEqual([closed!.id, closed!.id]);
    expect(sent[1]!.body.replace(/"added_at":"[^"]+"/g, "")).toBe(sent[0]!.body.replace(/"added_at":"[^"]+"/g, ""));
    expect((await digestsOf(wf)).map((d) => [d.status, d.item_count])).toEqual([["sent", 2]]);

    // The next hour's digest holds the third event only.
    expect(await t.services.digests.run(new Date(at.getTime() + HOUR))).toMatchObject({ closed: 1, sent: 1 });
    const all = await digestsOf(wf);
    expect(all.map((d) => [d.status, d.item_count])).toEqual([
      ["sent", 2],
      ["sent", 1],
    ]);
    const items = await itemsOf(wf);
    expect(items).toHaveLength(3);
    expect(new Set(items.map((i) => i.event_id)).size).toBe(3);
    expect(items.filter((i) => i.digest_id === all[0]!.id)).toHaveLength(2);
    expect(items.filter((i) => i.digest_id === all[1]!.id)).toHaveLength(1);
    expect(JSON.parse(hooks("/b")[2]!.body).events.map((e: { message: { cve: { id: string } } }) => e.message.cve.id)).toEqual([
      "CVE-2022-0028",
    ]);
  });

  it("an empty period sends nothing, or « rien à signaler » once when the node asks for it", async () => {
    received = [];
    mails = [];
    const x = await tenant("Digest C");
    const quiet = await x.workflow([
      trigger,
      notify("hook", "notify_webhook", { url: `${base}/quiet`, delivery: { mode: "digest", every: "daily" } }),
    ]);
    const told = await x.workflow([
      trigger,
      notify("mail", "notify_email", {
        to: ["equipe@example.org"],
        delivery: { mode: "digest", every: "daily", empty: "rien_a_signaler" },
      }),
    ]);
    const later = new Date(Date.now() + DAY);
    await t.services.digests.run(later);
    await t.services.digests.run(later);
    expect(hooks("/quiet")).toHaveLength(0);
    expect(await digestsOf(quiet)).toEqual([]);
    expect((await digestsOf(told)).map((d) => [d.status, d.item_count])).toEqual([["sent", 0]]);
    const mine = mails.filter((m) => m.text?.includes("Digest C"));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.subject).toMatch(/^Résumé Vigie : rien à signaler · /);
    expect(mine[0]!.text).toContain("Aucun événement n'a été retenu par ce workflow pendant la période.");
  });

  it("past the hourly limit the runs are throttled, their events carried into a digest, and the runs say so", async () => {
    received = [];
    const x = await tenant("Digest D");
    const wf = await x.workflow([trigger, notify("hook", "notify_webhook", { url: `${base}/limited` })]);
    const limit = await executeCommand(t.services, t.database, [
      "workflow",
      "limit",
      "--org",
      x.orgId,
      "--workflow",
      wf,
      "--max-runs-per-hour",
      "1",
    ]);
    expect(limit).toMatchObject({ ok: true });
    expect((await x.call("POST", "/stacks", { name: "Edge", items: [PANOS] })).json().alertes_creees).toBe(2);
    await t.services.runs.dispatchAll();
    const runs = (await x.call("GET", `/workflows/${wf}/runs`)).json() as { id: string; status: string }[];
    expect(runs.map((r) => r.status).sort()).toEqual(["success", "throttled"]);
    const throttled = runs.find((r) => r.status === "throttled")!;
    const detail = (await x.call("GET", `/workflows/${wf}/runs/${throttled.id}`)).json();
    expect(detail.erreur).toBe(
      "limite horaire de runs du workflow atteinte : rien n'a été exécuté ; l'événement est reporté dans un résumé horaire fait pour l'occasion (nœud hook)",
    );
    expect(hooks("/limited")).toHaveLength(1);
    const [item] = await itemsOf(wf);
    expect(item).toMatchObject({ throttled: true, digest_id: null, node_id: "hook" });
    const preview = (await x.call("GET", `/workflows/${wf}/digest-preview`)).json();
    expect(preview.resumes).toMatchObject([
      { node_id: "hook", every: "hourly", fait_pour_la_limite: true, total: 1, reportes_par_limite: 1 },
    ]);

    expect(await t.services.digests.run(new Date(Date.now() + HOUR))).toMatchObject({ closed: 1, sent: 1 });
    const sent = hooks("/limited");
    expect(sent).toHaveLength(2);
    expect(sent[1]!.headers["x-vigie-event"]).toBe("digest");
    const doc = JSON.parse(sent[1]!.body);
    expect(doc).toMatchObject({ count: 1, throttled: 1, every: "hourly" });
    // The throttled run's message is rebuilt from its event as its execution would have built it.
    const immediate = JSON.parse(sent[0]!.body).message;
    const carried = doc.events[0].message;
    expect(carried.project).toEqual(immediate.project);
    expect([carried.cve.id, immediate.cve.id].sort()).toEqual(["CVE-2024-3400", "CVE-2024-9468"]);
    expect(carried.palier).toMatch(/^P[1-4]$/);
  });

  it("past the limit a P1 still goes at once, and a throttled event its conditions would not notify goes into no digest", async () => {
    received = [];
    const x = await tenant("Digest F");
    // Items naming a CVE alone, on records older than the default 90 days.
    expect((await x.call("PATCH", "/alert-settings", { alert_backfill: "all" })).statusCode).toBe(200);
    const wf = await x.workflow(
      [
        trigger,
        { id: "c", type: "condition", match: "all", rules: [{ field: "alert.palier", op: "in", value: ["P1"] }] },
        notify("now", "notify_webhook", { url: `${base}/p1-only` }),
      ],
      [
        { from: "t", to: "c" },
        { from: "c", to: "now", when: "true" },
      ],
    );
    expect(
      await executeCommand(t.services, t.database, ["workflow", "limit", "--org", x.orgId, "--workflow", wf, "--max-runs-per-hour", "1"]),
    ).toMatchObject({ ok: true });
    const alert = async (cve: string) => {
      expect((await x.call("POST", "/stacks", { name: cve, items: [{ item_type: "cve", value: cve }] })).json().alertes_creees).toBe(1);
      await t.services.runs.dispatchAll();
      const [row] = await sqlRows<{ palier: string }>("select palier from alerts where project_id = $1 and cve_id = $2", [
        x.projectId,
        cve,
      ]);
      return row!.palier;
    };
    // The hour's one run: an alert below P1 (the condition holds not, nothing sent).
    expect(await alert("CVE-2024-9468")).not.toBe("P1");
    // Past the limit: a P1 is not throttled, and is sent at once.
    expect(await alert("CVE-2024-3400")).toBe("P1");
    expect(hooks("/p1-only").map((h) => JSON.parse(h.body).message.cve.id)).toEqual(["CVE-2024-3400"]);
    // Past the limit, below P1: throttled, and carried into no digest (the workflow would have sent nothing).
    expect(await alert("CVE-2024-6387")).not.toBe("P1");
    const runs = (await x.call("GET", `/workflows/${wf}/runs`)).json() as { id: string; status: string; cve_id: string }[];
    expect(runs.map((r) => [r.cve_id, r.status]).sort()).toEqual([
      ["CVE-2024-3400", "success"],
      ["CVE-2024-6387", "throttled"],
      ["CVE-2024-9468", "success"],
    ]);
    const throttled = runs.find((r) => r.status === "throttled")!;
    expect((await x.call("GET", `/workflows/${wf}/runs/${throttled.id}`)).json().erreur).toBe(
      "limite horaire de runs du workflow atteinte : rien n'a été exécuté ; ses conditions n'auraient rien notifié pour cet événement",
    );
    expect(await itemsOf(wf)).toEqual([]);
    expect(await t.services.digests.run(new Date(Date.now() + HOUR))).toMatchObject({ closed: 0, sent: 0 });
    expect(hooks("/p1-only")).toHaveLength(1);
  });

  it("refuses a bad delivery with a 422 pointing at it; another project's workflow has no preview (404)", async () => {
    const x = await tenant("Digest E");
    const res = await createWorkflow(t, x, {
      name: "bad",
      graph: {
        nodes: [trigger, notify("hook", "notify_webhook", { url: `${base}/x`, delivery: { mode: "digest", every: "daily", hour: 24 } })],
        edges: [{ from: "t", to: "hook" }],
      },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0]).toMatchObject({ loc: ["body", "graph", "nodes", 1, "action", "params", "delivery", "hour"], input: 24 });
    const y = await tenant("Digest F");
    const wf = await y.workflow([trigger, notify("hook", "notify_webhook", { url: `${base}/y`, delivery: { mode: "digest" } })]);
    expect((await x.call("GET", `/workflows/${wf}/digest-preview`)).statusCode).toBe(404);
    expect((await y.call("GET", `/workflows/${wf}/digest-preview`)).statusCode).toBe(200);
    // The dry run says the event would wait for the digest, and when it goes.
    const dry = await y.call("POST", `/workflows/${wf}/dry-run`, { cve_id: "CVE-2024-3400" });
    expect(dry.statusCode).toBe(201);
    const node = dry.json().noeuds[1];
    expect(node.resume).toEqual({ every: "daily", prochain_envoi: expect.stringMatching(/^\d{4}-\d\d-\d\dT0[67]:00:00\.000Z$/) });
    expect(node.detail).toBe(
      `mettrait l'événement dans le prochain résumé quotidien (envoi prévu à ${node.resume.prochain_envoi}) au lieu d'envoyer tout de suite`,
    );
  });
});

/**
 * One broad item must not stall the server (issue 33 §4, ADR 0037): past VIGIE_MATCH_INLINE_MAX
 * candidates an item's alerts are raised by the items-match job in batches, with its progress on
 * the item; each alert once however often the job runs; a small item still raises at once.
 * Real data: the first 400 records of the bundled snapshot's CVE 5 subset (2024 vulnrichment),
 * of which « cross-site scripting » names dozens. The bounds are lowered here (20 candidates
 * inline, batches of 10 CVEs, a warning past 30).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { importFeed } from "../src/feeds/import.js";
import { ItemMatching } from "../src/matching/background.js";
import { rowsOf } from "../src/platform/db/sql.js";
import { StacksService } from "../src/modules/stacks/stacks.service.js";
import { tagsRepository } from "../src/modules/tags/tags.repository.js";
import { cvesRepository } from "../src/modules/cves/cves.repository.js";
import { createTestApp, tenantWithScopes } from "./helpers.js";

const t = await createTestApp({ VIGIE_MATCH_INLINE_MAX: "20", VIGIE_MATCH_BATCH: "10", VIGIE_ITEM_ALERT_WARN: "30" });
const db = t.database.db;
const BROAD = "cross-site scripting";
// The job runs in another process: nothing here raises the deferred alerts until the test says so.
t.services.itemMatching.useQueue({ wake: async () => undefined });

interface Item {
  id: string;
  value: string;
  matching: { state: string; candidates: number; processed: number; raised: number } | null;
}

async function tenant(name: string) {
  const x = await tenantWithScopes(t, name, ["stacks-write", "alerts-write", "workflows-write"]);
  // The 2024 records are older than the default 90 days: every stored CVE alerts.
  expect((await x.call("PATCH", "/alert-settings", { alert_backfill: "all" })).statusCode).toBe(200);
  return x;
}

const count = async (q: ReturnType<typeof sql>) => (await rowsOf<{ n: number }>(db, q))[0]!.n;
const alertCves = async (projectId: string) =>
  (await rowsOf<{ cve_id: string }>(db, sql`select cve_id from alerts where project_id = ${projectId}::uuid order by cve_id`)).map(
    (r) => r.cve_id,
  );
const newMatchEvents = (projectId: string) =>
  count(sql`select count(*)::int as n from outbox_events where project_id = ${projectId}::uuid and event = 'cve.new_match'`);

/** The CVEs the broad keyword alerts on, raised the old way (everything inline) in a project of its own. */
async function inlineReference(): Promise<string[]> {
  const ref = await tenant("Reference");
  const inline = new ItemMatching(db, { inlineMax: 100_000, batch: 10, warnAbove: 100_000 });
  const stacks = new StacksService(db, tagsRepository, cvesRepository, inline);
  const r = await stacks.create(
    { id: ref.projectId, orgId: ref.orgId },
    { name: "ref", items: [{ item_type: "keyword", value: BROAD, min_severity: null, tag_ids: [] }] },
  );
  expect(r.items[0]!.id).toBeTruthy();
  expect(r.raised).toBeGreaterThan(30);
  return alertCves(ref.projectId);
}

let expected: string[] = [];

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "vigie-broad-"));
  const lines = gunzipSync(readFileSync("fixtures/snapshot/cve5/vulnrichment-2024-subset.jsonl.gz")).toString("utf8").split("\n");
  const file = join(dir, "cve5-400.jsonl");
  writeFileSync(file, `${lines.slice(0, 400).join("\n")}\n`);
  expect((await importFeed(db, "cve5", [file])).errors).toEqual([]);
  expected = await inlineReference();
}, 120_000);

describe("broad stack items", () => {
  it("a small item still raises its alerts in its request, without progress nor warning", async () => {
    const x = await tenant("Small");
    const res = await x.call("POST", "/stacks", { name: "small", items: [{ item_type: "keyword", value: "use after free" }] });
    expect(res.statusCode).toBe(201);
    const body = res.json() as { alertes_creees: number; avertissement: string | null; items: Item[] };
    expect(body.alertes_creees).toBeGreaterThan(0);
    expect(body.alertes_creees).toBeLessThanOrEqual(20);
    expect(body.avertissement).toBeNull();
    expect(body.items[0]!.matching).toBeNull();
    expect(await alertCves(x.projectId)).toHaveLength(body.alertes_creees);
    expect(await count(sql`select count(*)::int as n from stack_item_matching where project_id = ${x.projectId}::uuid`)).toBe(0);
  });

  it("a broad keyword goes to the job: 201 at once with its progress and a warning, then every alert once, batch by batch", async () => {
    const x = await tenant("Broad");
    const res = await x.call("POST", "/stacks", { name: "broad", items: [{ item_type: "keyword", value: BROAD }] });
    expect(res.statusCode).toBe(201);
    const body = res.json() as { id: string; alertes_creees: number; avertissement: string | null; items: Item[] };
    const item = body.items[0]!;
    expect(body.alertes_creees).toBe(0);
    expect(item.matching).toEqual({ state: "pending", candidates: expect.any(Number), processed: 0, raised: 0 });
    expect(item.matching!.candidates).toBeGreaterThanOrEqual(expected.length);
    expect(body.avertissement).toContain(`« ${BROAD} » (${item.matching!.candidates} CVE)`);
    expect(await alertCves(x.projectId)).toEqual([]);

    // Two batches, then the process "dies": what they raised is committed with their progress.
    const first = await t.services.itemMatching.runPending(2);
    expect(first.batches).toBe(2);
    const page = async () =>
      ((await x.call("GET", `/stacks/${body.id}/items`)).json() as { items: Item[] }).items.find((i) => i.id === item.id)!.matching!;
    const mid = await page();
    expect(mid.state).toBe("running");
    expect(mid.processed).toBe(20);
    expect(mid.raised).toBe((await alertCves(x.projectId)).length);
    expect(mid.raised).toBeGreaterThan(0);

    // The job resumes while a light request is answered between its batches.
    let finished = false;
    const run = t.services.itemMatching.runPending().then((r) => {
      finished = true;
      return r;
    });
    const light = await x.call("GET", "/workflows");
    expect(light.statusCode).toBe(200);
    expect(finished).toBe(false);
    await run;

    const done = await page();
    expect(done.state).toBe("done");
    expect(done.processed).toBe(done.candidates);
    expect(await alertCves(x.projectId)).toEqual(expected);
    expect(done.raised).toBe(expected.length);
    expect(await newMatchEvents(x.projectId)).toBe(expected.length);

    // Run again from the start (a job whose progress was lost), and twice at once: nothing is raised twice.
    await db.execute(
      sql`update stack_item_matching set state = 'pending', cursor = null, processed = 0, raised = 0 where item_id = ${item.id}::uuid`,
    );
    const other = new ItemMatching(db, t.services.itemMatching.settings);
    const [a, b] = await Promise.all([t.services.itemMatching.runPending(), other.runPending()]);
    expect(a.raised + b.raised).toBe(0);
    expect(await alertCves(x.projectId)).toEqual(expected);
    expect(await newMatchEvents(x.projectId)).toBe(expected.length);
    expect((await page()).state).toBe("done");
  });

  it("an item changed into a broad one is matched again in the background; a stack of many small items is matched in groups", async () => {
    const x = await tenant("Changed");
    const created = await x.call("POST", "/stacks", { name: "s", items: [{ item_type: "keyword", value: "use after free" }] });
    const stack = created.json() as { id: string; items: Item[] };
    const patched = await x.call("PATCH", `/stacks/${stack.id}/items/${stack.items[0]!.id}`, { value: BROAD });
    expect(patched.statusCode).toBe(200);
    expect((patched.json() as Item).matching).toMatchObject({ state: "pending", processed: 0 });
    await t.services.itemMatching.runPending();
    const cves = await alertCves(x.projectId);
    for (const c of expected) expect(cves).toContain(c);

    // Six CVE items of the corpus, three candidates each at most: 21+ together, in groups of at most 10.
    const y = await tenant("Many small");
    const ids = expected.slice(0, 25);
    const many = await y.call("POST", "/stacks", { name: "many", items: ids.map((value) => ({ item_type: "cve", value })) });
    expect(many.statusCode).toBe(201);
    const m = many.json() as { alertes_creees: number; avertissement: string | null; items: Item[] };
    expect(m.alertes_creees).toBe(0);
    expect(m.avertissement).toBeNull();
    expect(m.items.every((i) => i.matching?.state === "pending" && i.matching.candidates === 1)).toBe(true);
    const r = await t.services.itemMatching.runPending();
    expect(r.batches).toBe(3);
    expect(await alertCves(y.projectId)).toEqual([...ids].sort());
  });

  it("a server closing stops the background matching after the batch in flight; the next run resumes after it", async () => {
    const x = await tenant("Closing");
    // Without a queue, as a process without jobs: the request's commit starts the batches in this process.
    const own = new ItemMatching(db, { inlineMax: 20, batch: 10, warnAbove: 30 });
    const stacks = new StacksService(db, tagsRepository, cvesRepository, own);
    const r = await stacks.create(
      { id: x.projectId, orgId: x.orgId },
      { name: "closing", items: [{ item_type: "keyword", value: BROAD, min_severity: null, tag_ids: [] }] },
    );
    const itemId = r.items[0]!.id;
    await own.stop();
    const stopped = (await own.progress(db, [itemId])).get(itemId)!;
    expect(stopped.state).not.toBe("done");
    expect(stopped.processed).toBeLessThan(stopped.candidates);
    expect((await alertCves(x.projectId)).length).toBe(stopped.raised);
    expect((await own.runPending()).batches).toBe(0);
    // The next process (or the minute's job) resumes: every alert, once.
    await new ItemMatching(db, { inlineMax: 20, batch: 10, warnAbove: 30 }).runPending();
    expect((await own.progress(db, [itemId])).get(itemId)!.state).toBe("done");
    expect(await alertCves(x.projectId)).toEqual(expected);
    expect(await newMatchEvents(x.projectId)).toBe(expected.length);
  });
});

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { serveMirrors } from "../scripts/mirror/mirror.js";
import { osvMirror } from "../scripts/mirror/osv.js";
import { loadConfig } from "../src/config.js";
import { FeedsService } from "../src/feeds/feeds.service.js";
import type { OsvCheckpoint } from "../src/feeds/publishers/osv.js";
import { createTestApp, tenantWithScopes } from "./helpers.js";

const t = await createTestApp();
const tenant = await tenantWithScopes(t, "Osv", ["stacks-write", "alerts-write"]);

// The local bucket over small real advisories (test/fixtures/sync/osv): PyPI's archive answers 503
// then 429 before it serves; two advisories are damaged (one not JSON, one without id/modified);
// Go's first archive is cut short.
const mirror = osvMirror({
  data: "test/fixtures/sync/osv",
  busy: [503, 429],
  busyOn: /^PyPI\/all\.zip$/,
  corrupt: { "GO-2021-0159": "truncated", "RUSTSEC-2019-0027": "schema" },
});
mirror.damageZip.add("Go");
const served = await serveMirrors([mirror]);
afterAll(() => served.close());
const address = mirror.addresses(served.origin)[0]!;

const defaults = loadConfig({}).feeds;
const off = { cve5: [], nvd: [], kev: [], epss: [], poc: [], osv: [], certfr: [], rss: [], eol: [] };
// Vigie's eight ecosystems (five of them empty at this mirror), and one it does not publish.
const ecosystems = [...defaults.osvEcosystems, "Hex"];
const feeds = new FeedsService(t.database.db, {
  ...defaults,
  cacheDir: mkdtempSync(join(tmpdir(), "vigie-sync-osv-")),
  retryBaseMs: 1,
  urls: { ...off, osv: [address] },
  osvEcosystems: ecosystems,
});

/** The requests of one sync, as paths under the mirror's prefix with their status. */
async function sync() {
  const from = mirror.answers.length;
  const [outcome] = await feeds.sync(["osv"]);
  return { outcome: outcome!, address: outcome!.addresses[0]!, answers: mirror.answers.slice(from).map((a) => `${a.status} ${a.path}`) };
}

async function advisories(): Promise<Record<string, string>> {
  const { rows } = (await t.database.executeSql("select id, modified from public_vulns order by id")) as {
    rows: { id: string; modified: Date | string }[];
  };
  return Object.fromEntries(rows.map((r) => [r.id, new Date(r.modified).toISOString()]));
}

async function checkpoint(): Promise<OsvCheckpoint> {
  const state = (await feeds.status()).find((s) => s.source === "osv")!;
  return state.addresses[0]!.checkpoint as OsvCheckpoint;
}

async function alertIds(): Promise<string[]> {
  const res = await tenant.call("GET", "/alerts?page_size=100");
  expect(res.statusCode).toBe(200);
  return (res.json() as { items: { cve_id: string }[] }).items.map((a) => a.cve_id).sort();
}

const csvChecks = (status: number, except: string[] = []) =>
  defaults.osvEcosystems.filter((e) => !except.includes(e)).map((e) => `${status} ${encodeURIComponent(e)}/modified_id.csv`);

describe("OSV sync from its bucket: all.zip once, then modified_id.csv and the advisories modified since", () => {
  it("the first sync applies each ecosystem's archive; a damaged archive or advisory is reported and the rest goes on", async () => {
    const res = await tenant.call("POST", "/stacks", { name: "Web", items: [{ item_type: "purl", value: "pkg:pypi/django@4.2.3" }] });
    expect(res.statusCode).toBe(201);

    const { outcome, address: a, answers } = await sync();
    // Go's archive was cut short: Go fails (retried at the next attempt), the other ecosystems are applied.
    expect(outcome.status).toBe("failed");
    expect(a.error).toMatch(/^Go : all\.zip illisible/);
    expect(a.problems).toEqual([
      { where: "crates.io/all.zip:RUSTSEC-2019-0027.json", message: "document OSV sans id" },
      { where: "Hex/all.zip", message: expect.stringMatching(/non publié.*404/) },
    ]);
    expect(Object.keys(await advisories())).toEqual([
      "PYSEC-2021-335",
      "PYSEC-2021-361",
      "PYSEC-2021-655",
      "PYSEC-2023-100",
      "RUSTSEC-2016-0001",
      "RUSTSEC-2021-0014",
      "RUSTSEC-2024-0335",
    ]);
    expect(a.applied).toBeGreaterThanOrEqual(7);
    // 503 and 429 retried; each published ecosystem: its archive, then its index (an empty one
    // cannot answer a range: 416, then the whole); no advisory fetched by id (the index has nothing newer).
    expect(answers.filter((x) => x.includes("PyPI/all.zip"))).toEqual(["503 PyPI/all.zip", "429 PyPI/all.zip", "200 PyPI/all.zip"]);
    expect(answers.filter((x) => x.endsWith(".json"))).toEqual([]);
    expect(answers).toContain("206 PyPI/modified_id.csv");
    expect(answers).toContain("206 crates.io/modified_id.csv");
    expect(answers).toContain("200 Go/all.zip");
    expect(answers).not.toContain("200 Go/modified_id.csv");
    expect(answers.filter((x) => x.includes("npm/"))).toEqual(["200 npm/all.zip", "416 npm/modified_id.csv", "200 npm/modified_id.csv"]);

    const cp = await checkpoint();
    expect(cp.ecosystems.PyPI).toMatchObject({ zip: true, modified: "2023-07-11T16:37:11.407533Z", etag: expect.stringMatching(/^"/) });
    expect(cp.ecosystems["crates.io"]).toMatchObject({ zip: true, modified: "2024-07-02T23:39:37Z" });
    expect(cp.ecosystems.npm).toMatchObject({ zip: true, modified: null });
    expect(cp.ecosystems.Go).toBeUndefined();
    expect(cp.ecosystems.Hex).toBeUndefined();
    // Django 4.2.3 is fixed for CVE-2023-36053 (PYSEC-2023-100: 4.2 ≤ v < 4.2.3): no alert.
    expect(await alertIds()).toEqual([]);
  });

  it("the next sync applies only the failed archive; the others cost one conditional request, answered 304", async () => {
    const { outcome, address: a, answers } = await sync();
    expect(outcome.status).toBe("synced");
    expect(a.problems).toEqual([
      { where: "Go/all.zip:GO-2021-0159.json", message: expect.stringMatching(/^JSON invalide/) },
      { where: "Hex/all.zip", message: expect.stringMatching(/404/) },
    ]);
    expect(answers.sort()).toEqual(["200 Go/all.zip", "206 Go/modified_id.csv", "404 Hex/all.zip", ...csvChecks(304, ["Go"])].sort());
    expect(Object.keys(await advisories()).filter((id) => id.startsWith("GO-"))).toEqual([
      "GO-2020-0001",
      "GO-2022-0191",
      "GO-2023-2077",
      "GO-2026-4279",
    ]);
    // Go vulndb's placeholder `modified`: the mirror publishes a derived one (`published`, else the
    // date of the vulndb copy); the newest is the checkpoint.
    expect((await checkpoint()).ecosystems.Go).toMatchObject({ zip: true, modified: "2026-08-21T00:00:00Z" });

    const again = await sync();
    expect(again.outcome).toMatchObject({ status: "synced", applied: 0 });
    expect(again.answers.sort()).toEqual(["404 Hex/all.zip", ...csvChecks(304)].sort());
  });

  it("a modified advisory arrives by its id alone and raises the alert its new range calls for", async () => {
    await mirror.modify(
      "PyPI",
      "PYSEC-2023-100",
      (doc) => {
        // The fix of the 4.2 line moved to 4.2.4: 4.2.3 is now affected.
        const pkg = (doc.affected as { ranges: { events: Record<string, string>[] }[]; versions: string[] }[])[0]!;
        pkg.ranges[0]!.events[1] = { fixed: "4.2.4" };
        pkg.versions.push("4.2.3");
      },
      new Date("2026-11-20T08:00:00.123Z"),
    );
    const { outcome, answers } = await sync();
    expect(outcome.status).toBe("synced");
    expect(answers.sort()).toEqual(
      ["206 PyPI/modified_id.csv", "200 PyPI/PYSEC-2023-100.json", "404 Hex/all.zip", ...csvChecks(304, ["PyPI"])].sort(),
    );
    expect((await advisories())["PYSEC-2023-100"]).toBe("2026-11-20T08:00:00.123Z");
    expect(await alertIds()).toEqual(["CVE-2023-36053"]);
    expect((await checkpoint()).ecosystems.PyPI).toMatchObject({ modified: "2026-11-20T08:00:00.123Z" });
    const status = (await feeds.status()).find((s) => s.source === "osv")!;
    expect(status.addresses[0]!.applied_until).toEqual(new Date("2026-11-20T08:00:00.123Z"));
  });

  it("a sync failing mid-way keeps what it applied; the next one fetches only the rest", async () => {
    const at = (s: number) => new Date(Date.UTC(2026, 10, 21, 0, 0, s));
    const touch = (doc: Record<string, unknown>) => {
      doc.summary = `${String(doc.summary ?? "")} (revised)`;
    };
    // The checkpoint keeps `modified` as the index writes it (RFC3339Nano: no zero fraction).
    // A damaged advisory among the modified ones is reported and passed.
    await mirror.modify("crates.io", "RUSTSEC-2019-0027", touch, at(1));
    await mirror.modify("crates.io", "RUSTSEC-2016-0001", touch, at(2));
    await mirror.modify("crates.io", "RUSTSEC-2021-0014", touch, at(3));
    await mirror.modify("crates.io", "RUSTSEC-2024-0335", touch, at(4));
    mirror.failOn = /RUSTSEC-2021-0014/;
    const first = await sync();
    expect(first.outcome.status).toBe("failed");
    expect(first.address.error).toMatch(/^crates\.io : RUSTSEC-2021-0014\.json : HTTP 500/);
    expect(first.address.problems).toContainEqual({ where: "crates.io/RUSTSEC-2019-0027.json", message: "document OSV sans id" });
    expect((await checkpoint()).ecosystems["crates.io"]).toMatchObject({ modified: "2026-11-21T00:00:02Z", etag: null });
    expect((await advisories())["RUSTSEC-2016-0001"]).toBe(at(2).toISOString());

    mirror.failOn = null;
    const second = await sync();
    expect(second.outcome.status).toBe("synced");
    expect(second.answers.filter((x) => x.endsWith(".json"))).toEqual([
      "200 crates.io/RUSTSEC-2021-0014.json",
      "200 crates.io/RUSTSEC-2024-0335.json",
    ]);
    const now = await advisories();
    expect([now["RUSTSEC-2021-0014"], now["RUSTSEC-2024-0335"]]).toEqual([at(3).toISOString(), at(4).toISOString()]);
    expect((await checkpoint()).ecosystems["crates.io"]).toMatchObject({
      modified: "2026-11-21T00:00:04Z",
      etag: expect.stringMatching(/^"/),
    });
    // Nothing left: the next sync is one 304 per ecosystem.
    expect((await sync()).answers.sort()).toEqual(["404 Hex/all.zip", ...csvChecks(304)].sort());
  });

  it("stops at the next advisory when the sync is aborted, and resumes from its checkpoint", async () => {
    await mirror.modify("Go", "GO-2020-0001", () => undefined, new Date("2026-11-22T00:00:01Z"));
    await mirror.modify("Go", "GO-2022-0191", () => undefined, new Date("2026-11-22T00:00:02Z"));
    const abort = new AbortController();
    // Aborted as the first advisory is served (a shutdown, a lost lease): it is not applied.
    mirror.onAnswer = (path) => path === "Go/GO-2020-0001.json" && abort.abort(new Error("arrêt"));
    const [outcome] = await feeds.sync(["osv"], abort.signal);
    mirror.onAnswer = null;
    expect(outcome!.status).toBe("failed");
    expect(outcome!.addresses[0]!.error).toMatch(/interrompu/);
    const { answers } = await sync();
    // Nothing lost: both advisories come with the next sync.
    expect(answers.filter((x) => x.endsWith(".json"))).toEqual(["200 Go/GO-2020-0001.json", "200 Go/GO-2022-0191.json"]);
    expect((await advisories())["GO-2022-0191"]).toBe("2026-11-22T00:00:02.000Z");
    expect((await checkpoint()).ecosystems.Go).toMatchObject({ modified: "2026-11-22T00:00:02Z" });
  });
});

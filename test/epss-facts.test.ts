import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { importFeed } from "../src/feeds/import.js";
import { rowsOf } from "../src/platform/db/sql.js";
import { bearer, createTestApp, tenantWithScopes } from "./helpers.js";

/**
 * The statistics' EPSS figures follow every EPSS import (migration 0029: EPSS is no longer copied
 * into cve_facts; the statistics join epss_current, which keeps the newest score and the first score
 * date): the newer file first, an older file later (the first date moves back, the score stays the
 * newer one), the same file again (nothing changes), then a newer file that rescores one CVE. Real
 * records and scores of test/fixtures/stats (see its README); the last file is the 2026-08-16 one
 * with one score changed, written here.
 */

const D = "test/fixtures/stats";
const t = await createTestApp();
const db = t.database.db;
const a = await tenantWithScopes(t, "Alpha", []);
const tmp = mkdtempSync(join(tmpdir(), "vigie-epss-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Every record of cve5.jsonl is published in 2023 or 2024 (Paris days), but CVE-2024-1216 (REJECTED). */
const P = { from: "2023-01-01", to: "2024-12-31" };
const PUBLISHED = readFileSync(`${D}/cve5.jsonl`, "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => (JSON.parse(l) as { cveMetadata: { cveId: string; state: string } }).cveMetadata)
  .filter((m) => m.state === "PUBLISHED")
  .map((m) => m.cveId);

type Scores = Map<string, number>;
const scoresOf = (text: string): Scores =>
  new Map(
    text
      .split("\n")
      .filter((l) => /^CVE-/.test(l))
      .map((l) => l.split(","))
      .map(([cve, epss]) => [cve!, Number(epss)]),
  );
const older = scoresOf(readFileSync(`${D}/epss_scores-2026-08-09.csv`, "utf8"));
const newer = scoresOf(readFileSync(`${D}/epss_scores-2026-08-16.csv`, "utf8"));

/** What the statistics must say when the CVEs hold `current` scores first seen on `first` days. */
function expected(current: Scores, first: Map<string, string>) {
  const scored = PUBLISHED.filter((id) => current.has(id));
  // The mean, half up at 5 decimals, computed in integers (the files give 9 decimals).
  const sum = scored.reduce((s, id) => s + Math.round(current.get(id)! * 1e9), 0);
  const n = scored.length;
  const avg = n ? Math.floor((2 * sum + n * 1e4) / (2 * n * 1e4)) / 1e5 : null;
  const linear = new Map<string, number>();
  for (const id of PUBLISHED) {
    const e = current.get(id);
    const i = e === undefined ? null : Math.min(Math.floor(e * 10), 9);
    const bucket = i === null ? "sans_score" : `${(i / 10).toFixed(1)}-${((i + 1) / 10).toFixed(1)}`;
    linear.set(bucket, (linear.get(bucket) ?? 0) + 1);
  }
  const firstDays = new Map<string, number>();
  for (const id of scored) firstDays.set(first.get(id)!, (firstDays.get(first.get(id)!) ?? 0) + 1);
  return { avg, scored: n, linear, firstDays };
}

async function ok(path: string, query: Record<string, string>) {
  const res = await t.app.inject({ method: "GET", url: `/api/v1/stats/${path}?${new URLSearchParams(query)}`, headers: bearer(a.readKey) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Record<string, unknown>;
}

/** The figures the API gives (its answers are cached under the data version: each import must move it). */
async function figures() {
  const totals = await ok("totals", P);
  const distribution = (await ok("distribution", { ...P, metric: "epss" })) as { buckets: { bucket: string; total: number }[] };
  const series = (await ok("timeseries", { from: "2026-08-01", to: "2026-08-31", axis: "epss_published", granularity: "day" })) as {
    points: { start: string; count: number }[];
  };
  const delays = (await ok("delays", { from: "2026-08-01", to: "2026-08-31", metric: "publication_to_epss" })) as {
    overall: { count: number };
  };
  return {
    avg: totals.avg_epss,
    linear: new Map(distribution.buckets.filter((b) => b.total).map((b) => [b.bucket, b.total])),
    firstDays: new Map(series.points.filter((p) => p.count).map((p) => [p.start, p.count])),
    delays: delays.overall.count,
  };
}

async function check(current: Scores, first: Map<string, string>) {
  const e = expected(current, first);
  expect(await figures()).toEqual({ avg: e.avg, linear: e.linear, firstDays: e.firstDays, delays: e.scored });
}

const current = (ids: string[]) =>
  rowsOf<{ cve_id: string; epss: number; score_date: string; first_date: string }>(
    db,
    sql`select cve_id, epss, score_date::text as score_date, first_date::text as first_date from epss_current
        where cve_id = any(${`{${ids.join(",")}}`}::text[]) order by cve_id`,
  );

describe("the statistics' EPSS figures", () => {
  it("follow each EPSS import, whatever order the files come in", async () => {
    await importFeed(db, "cve5", [`${D}/cve5.jsonl`]);
    expect(PUBLISHED).toHaveLength(19);
    await check(new Map(), new Map());

    // The newer file first: scores and first dates from it.
    expect(await importFeed(db, "epss", [`${D}/epss_scores-2026-08-16.csv`])).toMatchObject({ inserted: 12, updated: 0 });
    const first = new Map([...newer.keys()].map((id) => [id, "2026-08-16"]));
    await check(newer, first);
    expect((await figures()).avg).toBe(0.66718); // the 12 scores of the file: 8.00614 / 12

    // An older file later: the first date moves back (CVEs in both files), the score stays the newer
    // one, and the CVEs only in the older file get their score; those rows only are counted.
    expect(await importFeed(db, "epss", [`${D}/epss_scores-2026-08-09.csv`])).toMatchObject({ inserted: 2, updated: 0 });
    for (const id of older.keys()) first.set(id, "2026-08-09");
    const both = new Map([...older, ...newer]);
    await check(both, first);
    expect((await figures()).firstDays).toEqual(
      new Map([
        ["2026-08-09", 6],
        ["2026-08-16", 8],
      ]),
    );
    expect(await current(["CVE-2024-0403", "CVE-2024-21762"])).toEqual([
      { cve_id: "CVE-2024-0403", epss: 0.00432, score_date: "2026-08-09", first_date: "2026-08-09" },
      { cve_id: "CVE-2024-21762", epss: 0.84285, score_date: "2026-08-16", first_date: "2026-08-09" },
    ]);

    // Again: nothing changes.
    expect(await importFeed(db, "epss", [`${D}/epss_scores-2026-08-16.csv`])).toMatchObject({ inserted: 0, updated: 0 });
    await check(both, first);

    // A newer file rescores CVE-2024-0001 (0.00949 → 0.61234): the average and its bucket follow,
    // the first dates stay.
    const rescored = readFileSync(`${D}/epss_scores-2026-08-16.csv`, "utf8").replace(
      "CVE-2024-0001,0.009490000,0.582470000",
      "CVE-2024-0001,0.612340000,0.990000000",
    );
    const file = join(tmp, "epss_scores-2026-08-23.csv");
    writeFileSync(file, `#model_version:v2025.03.14,score_date:2026-08-23T12:55:00Z\n${rescored}`);
    expect(await importFeed(db, "epss", [file])).toMatchObject({ inserted: 0, updated: 12 });
    const after = new Map([...both, ...scoresOf(rescored)]);
    expect(after.get("CVE-2024-0001")).toBe(0.61234);
    await check(after, first);
    expect((await figures()).linear.get("0.6-0.7")).toBe((expected(both, first).linear.get("0.6-0.7") ?? 0) + 1);
    expect(await current(["CVE-2024-0001"])).toEqual([
      { cve_id: "CVE-2024-0001", epss: 0.61234, score_date: "2026-08-23", first_date: "2026-08-16" },
    ]);
  });
});

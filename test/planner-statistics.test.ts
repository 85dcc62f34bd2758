/**
 * What the matcher's plans depend on (migration 0042). The package branch keeps the advisories not
 * withdrawn (`data->>'withdrawn' is null`); without statistics on that expression the planner took
 * it for 0.5 % of public_vulns and planned a 46,382-item SBOM's candidate count as if a handful of
 * advisories were left: 21–25 s instead of 2.8 s (BENCH=sbom). Real data: the bundled snapshot's
 * OSV subset.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { importFeed } from "../src/feeds/import.js";
import { openTestDatabase } from "./helpers.js";

const database = await openTestDatabase();
const rowsOf = async <T>(text: string) => ((await database.executeSql(text)) as { rows: T[] }).rows;

describe("planner statistics", () => {
  it("estimates the advisories not withdrawn as many as they are, once analyzed", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "vigie-planner-")), "osv.jsonl");
    writeFileSync(file, gunzipSync(readFileSync("fixtures/snapshot/osv/osv-subset.jsonl.gz")));
    expect((await importFeed(database.db, "osv", [file])).errors).toEqual([]);
    await database.executeSql("analyze public_vulns");
    const [row] = await rowsOf<{ n: number }>("select count(*)::int as n from public_vulns where data->>'withdrawn' is null");
    const n = row!.n;
    expect(n).toBeGreaterThan(1000);
    const [plan] = await rowsOf<{ "QUERY PLAN": [{ Plan: { "Plan Rows": number } }] }>(
      "explain (format json) select 1 from public_vulns where data->>'withdrawn' is null",
    );
    const estimate = plan!["QUERY PLAN"][0].Plan["Plan Rows"];
    expect(estimate).toBeGreaterThan(n * 0.9);
    expect(estimate).toBeLessThan(n * 1.1);
  });
});

import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { importFeed } from "../src/feeds/import.js";
import { rowsOf } from "../src/platform/db/sql.js";
import { createTestApp } from "./helpers.js";

/**
 * cve_facts follows EPSS imports with one row version per CVE and file (migration 0027): the
 * current score's trigger sets the score and the first score date, the history's trigger moves the
 * first date back only for an older file. Real scores of test/fixtures/stats (see its README).
 */

const D = "test/fixtures/stats";
const t = await createTestApp();
const db = t.database.db;

const facts = (ids: string[]) =>
  rowsOf<{ cve_id: string; epss: number | null; epss_first: string | null }>(
    db,
    sql`select cve_id, epss, epss_first::text as epss_first from cve_facts where cve_id = any(${`{${ids.join(",")}}`}::text[]) order by cve_id`,
  );

describe("EPSS facts", () => {
  it("take the newest score and the earliest date, whatever order the files come in", async () => {
    await importFeed(db, "cve5", [`${D}/cve5.jsonl`]);
    // The newer file first: score and first date from it.
    await importFeed(db, "epss", [`${D}/epss_scores-2026-08-16.csv`]);
    expect(await facts(["CVE-2024-0001", "CVE-2024-21762"])).toEqual([
      { cve_id: "CVE-2024-0001", epss: 0.00949, epss_first: "2026-08-16" },
      { cve_id: "CVE-2024-21762", epss: 0.84285, epss_first: "2026-08-16" },
    ]);
    // An older file later: the first date moves back, the score stays the newer one.
    await importFeed(db, "epss", [`${D}/epss_scores-2026-08-09.csv`]);
    expect(await facts(["CVE-2024-0001", "CVE-2024-21762"])).toEqual([
      { cve_id: "CVE-2024-0001", epss: 0.00949, epss_first: "2026-08-16" },
      { cve_id: "CVE-2024-21762", epss: 0.84285, epss_first: "2026-08-09" },
    ]);
    // Again: nothing changes.
    expect(await importFeed(db, "epss", [`${D}/epss_scores-2026-08-16.csv`])).toMatchObject({ inserted: 0, updated: 0 });
    expect((await facts(["CVE-2024-21762"]))[0]).toEqual({ cve_id: "CVE-2024-21762", epss: 0.84285, epss_first: "2026-08-09" });
  });
});

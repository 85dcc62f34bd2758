import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MIGRATIONS_DIR } from "./client.js";

/**
 * Drizzle's migrator applies a migration only when its journal time (`when`) is later than the
 * newest one applied: a migration generated with an earlier `when` than an applied one is skipped
 * on an existing database (0013/0014 carry hand-set times in 2026-11; 0015–0019 are older than them).
 * From 0020 on, each `when` must exceed every earlier one (set it by hand after `drizzle-kit generate`).
 */
describe("migration journal", () => {
  it("gives every migration from 0020 on a time later than all earlier ones", () => {
    const { entries } = JSON.parse(readFileSync(`${MIGRATIONS_DIR}/meta/_journal.json`, "utf8")) as {
      entries: { idx: number; when: number; tag: string }[];
    };
    const late = entries.filter((e) => e.idx >= 20);
    expect(late.length).toBeGreaterThan(0);
    for (const e of late) {
      const before = Math.max(...entries.filter((x) => x.idx < e.idx).map((x) => x.when));
      expect(e.when, e.tag).toBeGreaterThan(before);
    }
  });
});

import { describe, expect, it } from "vitest";
import { Invalid } from "../../platform/errors.js";
import { MAX_PERIODS, periodLabel, periodStart, periodsOf, resolvePeriod, sharesOf } from "./stats.periods.js";

describe("resolvePeriod", () => {
  it("defaults to the 365 days ending today in Paris (23:30 UTC on 31 December is already 1 January there)", () => {
    expect(resolvePeriod({}, new Date("2025-12-31T23:30:00Z"))).toEqual({ from: "2025-01-02", to: "2026-01-01", period: null });
    expect(resolvePeriod({}, new Date("2025-12-31T22:30:00Z"))).toEqual({ from: "2025-01-01", to: "2025-12-31", period: null });
  });

  it("with nothing asked, ends at the newest data held when it is before today; asked, as asked", () => {
    const now = new Date("2026-11-28T10:00:00Z");
    expect(resolvePeriod({}, now, "2026-01-23")).toEqual({ from: "2025-01-24", to: "2026-01-23", period: null });
    // Data of today (or none, or a day past today's Paris date): the year up to today.
    expect(resolvePeriod({}, now, "2026-11-28")).toMatchObject({ to: "2026-11-28" });
    expect(resolvePeriod({}, now, null)).toMatchObject({ to: "2026-11-28" });
    // Any of from, to or period: the data's end is not used.
    expect(resolvePeriod({ from: "2026-01-01" }, now, "2025-06-01")).toMatchObject({ from: "2026-01-01", to: "2026-11-28" });
    expect(resolvePeriod({ to: "2026-06-30" }, now, "2025-06-01")).toMatchObject({ to: "2026-06-30" });
    expect(resolvePeriod({ period: "30d" }, now, "2025-06-01")).toMatchObject({ to: "2026-11-28", period: "30d" });
  });

  it("takes from and to as given, a missing from being 364 days before to", () => {
    expect(resolvePeriod({ to: "2024-03-01" }, new Date())).toEqual({ from: "2023-03-03", to: "2024-03-01", period: null });
    expect(resolvePeriod({ from: "2024-01-01", to: "2024-01-01" }, new Date())).toMatchObject({ from: "2024-01-01", to: "2024-01-01" });
  });

  it("resolves the shortcuts up to today in Paris and echoes them", () => {
    const now = new Date("2028-02-29T12:00:00Z");
    expect(resolvePeriod({ period: "7d" }, now)).toEqual({ from: "2028-02-23", to: "2028-02-29", period: "7d" });
    expect(resolvePeriod({ period: "ytd" }, now)).toEqual({ from: "2028-01-01", to: "2028-02-29", period: "ytd" });
    // 29 February 2023 does not exist: five years back is 1 March 2023, the period starts the day after.
    expect(resolvePeriod({ period: "5y" }, now)).toEqual({ from: "2023-03-02", to: "2028-02-29", period: "5y" });
    expect(resolvePeriod({ period: "5y" }, new Date("2026-11-24T10:00:00Z")).from).toBe("2021-11-25");
  });

  it("refuses from after to, and a shortcut with dates (422 on the field)", () => {
    const locOf = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as Invalid).issues[0]!.loc;
      }
      return null;
    };
    expect(locOf(() => resolvePeriod({ from: "2024-02-01", to: "2024-01-31" }, new Date()))).toEqual(["query", "from"]);
    expect(locOf(() => resolvePeriod({ period: "30d", from: "2024-01-01" }, new Date()))).toEqual(["query", "period"]);
  });
});

describe("periods", () => {
  it("starts weeks on Monday and labels them by ISO week-year", () => {
    expect(periodStart("2024-12-31", "week")).toBe("2024-12-30");
    expect(periodLabel("2024-12-30", "week")).toBe("2025-W01");
    expect(periodLabel(periodStart("2021-01-03", "week"), "week")).toBe("2020-W53");
    expect(periodLabel(periodStart("2024-04-01", "week"), "week")).toBe("2024-W14");
  });

  it("labels days, months, quarters and years", () => {
    expect([periodStart("2024-08-17", "quarter"), periodLabel("2024-07-01", "quarter")]).toEqual(["2024-07-01", "2024-Q3"]);
    expect([periodStart("2024-08-17", "month"), periodLabel("2024-08-01", "month")]).toEqual(["2024-08-01", "2024-08"]);
    expect([periodStart("2024-08-17", "year"), periodLabel("2024-01-01", "year")]).toEqual(["2024-01-01", "2024"]);
  });

  it("lists every period meeting the range, the first one starting before `from`", () => {
    expect(periodsOf({ from: "2024-02-15", to: "2024-05-01", period: null }, "month")).toEqual([
      { period: "2024-02", start: "2024-02-01" },
      { period: "2024-03", start: "2024-03-01" },
      { period: "2024-04", start: "2024-04-01" },
      { period: "2024-05", start: "2024-05-01" },
    ]);
    expect(periodsOf({ from: "2023-11-30", to: "2024-01-01", period: null }, "quarter").map((p) => p.period)).toEqual([
      "2023-Q4",
      "2024-Q1",
    ]);
    expect(periodsOf({ from: "2024-02-28", to: "2024-03-01", period: null }, "day")).toHaveLength(3);
  });

  it("refuses more than MAX_PERIODS periods", () => {
    expect(periodsOf({ from: "2016-01-01", to: "2025-12-31", period: null }, "day")).toHaveLength(3653);
    expect(() => periodsOf({ from: "2000-01-01", to: "2025-12-31", period: null }, "day")).toThrow(Invalid);
    expect(MAX_PERIODS).toBe(3660);
  });
});

describe("sharesOf", () => {
  it("gives shares with two decimals that add up to exactly 100", () => {
    const shares = sharesOf([1, 1, 1]);
    expect(shares).toEqual([33.34, 33.33, 33.33]);
    expect(sharesOf([2, 3, 7, 0, 5]).reduce((a, b) => a + b, 0)).toBeCloseTo(100, 10);
    expect(sharesOf([0, 0])).toEqual([0, 0]);
  });
});

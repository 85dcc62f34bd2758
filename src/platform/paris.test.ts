import { describe, expect, it } from "vitest";
import { addDays, parisDate, parisMidnight } from "./paris.js";

describe("parisDate", () => {
  it("turns at 00:00 Paris, not at 00:00 UTC (winter: UTC+1)", () => {
    expect(parisDate(new Date("2026-01-14T22:59:59Z"))).toBe("2026-01-14");
    expect(parisDate(new Date("2026-01-14T23:00:00Z"))).toBe("2026-01-15");
  });

  it("turns at 00:00 Paris in summer (UTC+2)", () => {
    expect(parisDate(new Date("2026-07-14T21:59:59Z"))).toBe("2026-07-14");
    expect(parisDate(new Date("2026-07-14T22:00:00Z"))).toBe("2026-07-15");
  });

  it("holds across both daylight-saving changes (29 March and 25 October 2026)", () => {
    // The night of 28–29 March: midnight is still UTC+1; the clocks jump at 02:00.
    expect(parisDate(new Date("2026-03-28T22:59:59Z"))).toBe("2026-03-28");
    expect(parisDate(new Date("2026-03-28T23:00:00Z"))).toBe("2026-03-29");
    // The night of 24–25 October: midnight is still UTC+2; the clocks go back at 03:00.
    expect(parisDate(new Date("2026-10-24T21:59:59Z"))).toBe("2026-10-24");
    expect(parisDate(new Date("2026-10-24T22:00:00Z"))).toBe("2026-10-25");
  });
});

describe("addDays", () => {
  it("counts calendar days across months, years and leap days", () => {
    expect(addDays("2026-11-24", 7)).toBe("2026-12-01");
    expect(addDays("2026-12-31", 1)).toBe("2027-01-01");
    expect(addDays("2028-03-01", -1)).toBe("2028-02-29");
  });
});

describe("parisMidnight", () => {
  it("is 23:00 UTC the day before in winter and 22:00 UTC in summer, including both change days", () => {
    expect(parisMidnight("2026-01-15").toISOString()).toBe("2026-01-14T23:00:00.000Z");
    expect(parisMidnight("2026-07-15").toISOString()).toBe("2026-07-14T22:00:00.000Z");
    expect(parisMidnight("2026-03-29").toISOString()).toBe("2026-03-28T23:00:00.000Z");
    expect(parisMidnight("2026-03-30").toISOString()).toBe("2026-03-29T22:00:00.000Z");
    expect(parisMidnight("2026-10-25").toISOString()).toBe("2026-10-24T22:00:00.000Z");
    expect(parisMidnight("2026-10-26").toISOString()).toBe("2026-10-25T23:00:00.000Z");
  });
});

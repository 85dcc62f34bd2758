import { describe, expect, it } from "vitest";
import { formatDate, formatDuration, formatParisDate } from "./format";

describe("dates and durations", () => {
  it("formats a moment in the given (the user's) time zone and language", () => {
    expect(formatDate("2026-03-01T23:30:00Z", "fr", { timeZone: "Europe/Paris" })).toBe("2 mars 2026, 00:30");
    expect(formatDate("2026-03-01T23:30:00Z", "en", { timeZone: "America/New_York" })).toBe("1 Mar 2026, 18:30");
  });

  it("states a Paris day as such, whatever the user's zone", () => {
    // 23:30 UTC on 31 December is already 1 January in Paris.
    expect(formatParisDate("2026-12-31T23:30:00Z", "fr")).toBe("1 janvier 2027 (heure de Paris)");
    expect(formatParisDate("2026-12-31T23:30:00Z", "en")).toBe("1 January 2027 (Paris time)");
  });

  it("says a duration in its two largest units", () => {
    expect(formatDuration(3600, "fr")).toBe("1 h");
    expect(formatDuration(90_061, "fr")).toBe("1 j 1 h");
    expect(formatDuration(90_061, "en")).toBe("1 d 1 h");
    expect(formatDuration(0, "en")).toBe("0 s");
  });
});

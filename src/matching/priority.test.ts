import { describe, expect, it } from "vitest";
import { palier } from "./priority.js";

describe("palier", () => {
  it.each([
    [{ severity: "medium", epss: 0.01, isKev: true, hasPoc: false }, "P1"],
    [{ severity: "low", epss: 0.7, isKev: false, hasPoc: false }, "P1"],
    [{ severity: "critical", epss: null, isKev: false, hasPoc: true }, "P1"],
    [{ severity: "critical", epss: 0.01, isKev: false, hasPoc: false }, "P2"],
    [{ severity: "high", epss: 0.2, isKev: false, hasPoc: false }, "P2"],
    [{ severity: "high", epss: null, isKev: false, hasPoc: false }, "P3"],
    [{ severity: "medium", epss: null, isKev: false, hasPoc: true }, "P3"],
    [{ severity: "medium", epss: 0.05, isKev: false, hasPoc: false }, "P4"],
    [{ severity: "unknown", epss: null, isKev: false, hasPoc: false }, "P4"],
  ] as const)("%j → %s", (input, expected) => expect(palier(input)).toBe(expected));
});

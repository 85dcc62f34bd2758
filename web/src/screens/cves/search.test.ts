import { describe, expect, it } from "vitest";
import { validateStatsSearch } from "../stats/search";
import { validateCveSearch } from "./search";

describe("the CVE list's and the statistics wall's URL parameters", () => {
  it("keep a state other than the default (published, left out of the URL) and drop an unknown one", () => {
    expect(validateCveSearch({ state: "reference_only" })).toEqual({ state: "reference_only" });
    expect(validateCveSearch({ state: "all", q: "pan-os" })).toEqual({ state: "all", q: "pan-os" });
    expect(validateCveSearch({ state: "published" })).toEqual({});
    expect(validateCveSearch({ state: "REFERENCE_ONLY" })).toEqual({});
  });

  it("the wall includes the reference-only CVEs only when asked, and keeps no period unless given", () => {
    expect(validateStatsSearch({ include_reference_only: "true" })).toEqual({ include_reference_only: true });
    expect(validateStatsSearch({ include_reference_only: "false", from: "2025-01-01" })).toEqual({ from: "2025-01-01" });
    expect(validateStatsSearch({})).toEqual({});
  });
});

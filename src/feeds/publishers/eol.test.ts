import { describe, expect, it } from "vitest";
import { eolAppliedUntil, eolCheckpoint, eolPlan, REST_EVERY_MS } from "./eol.js";

const NOW = Date.parse("2026-11-26T04:00:00Z");
const ago = (ms: number) => new Date(NOW - ms).toISOString();

describe("eolPlan: the products named first, the rest about once a day", () => {
  const names = ["angular", "django", "nginx", "php", "python", "ubuntu"];

  it("first sync: the named products (those the list has), then every other one by name", () => {
    expect(eolPlan(names, ["php", "nginx", "not-listed"], {}, NOW)).toEqual({
      first: ["nginx", "php"],
      rest: ["angular", "django", "python", "ubuntu"],
    });
  });

  it("the named ones at every sync; of the rest, only those not asked for a day (less an hour), the oldest first", () => {
    const products = {
      nginx: { checked: ago(60_000) },
      angular: { checked: ago(60_000) },
      django: { checked: ago(REST_EVERY_MS) },
      python: { checked: ago(REST_EVERY_MS + 3600_000) },
      ubuntu: { checked: ago(REST_EVERY_MS - 1) },
    };
    // php never asked (a kill before its unit): first of the rest.
    expect(eolPlan(names, ["nginx"], products, NOW)).toEqual({ first: ["nginx"], rest: ["php", "python", "django"] });
  });

  it("nothing named (no stack, no subscription): the rest only", () => {
    expect(eolPlan(["a", "b"], [], { a: { checked: ago(1000) } }, NOW)).toEqual({ first: [], rest: ["b"] });
  });
});

describe("eolAppliedUntil and eolCheckpoint", () => {
  it("applied until the newest last_modified of the products applied; none: null", () => {
    expect(
      eolAppliedUntil({
        a: { checked: ago(0), modified: "2026-08-19T10:02:11+02:00" },
        b: { checked: ago(0), modified: "2026-08-19T09:00:00Z" },
        c: { checked: ago(0) },
        d: { checked: ago(0), modified: "not a date" },
      }),
    ).toEqual(new Date("2026-08-19T09:00:00Z"));
    expect(eolAppliedUntil({ c: { checked: ago(0) } })).toBeNull();
  });

  it("a stored checkpoint is taken as it is; another shape (a single file's validators) starts again", () => {
    const cp = { list: { etag: '"x"', names: ["nginx"] }, products: { nginx: { etag: '"y"', checked: ago(0) } } };
    expect(eolCheckpoint(cp)).toEqual(cp);
    expect(eolCheckpoint({ etag: '"old single file"' })).toEqual({ products: {} });
    expect(eolCheckpoint(null)).toEqual({ products: {} });
    expect(eolCheckpoint({ list: { etag: '"x"' }, products: {} })).toEqual({ products: {} });
  });
});

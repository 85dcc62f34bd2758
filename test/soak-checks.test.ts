import { describe, expect, it } from "vitest";
import {
  type Attempt,
  classify,
  duplicates,
  granted,
  quantile,
  type Receipt,
  remainingRises,
  spread,
  summary,
  type Window,
} from "../scripts/soak/checks.js";

/** The soak's verdicts (scripts/soak/checks.ts): what it allows around a kill and the connection drop, and what it never does. */
const kill: Window = { kind: "kill", process: "api-1", start: 1000, end: 2000 };
const crash: Window = { kind: "crash", process: "api-2", start: 1000, end: 2000 };
const drop: Window = { kind: "drop", process: "all", start: 5000, end: 6000 };
const windows = [kill, crash, drop];
const attempt = (over: Partial<Attempt>): Attempt => ({
  op: "workflows",
  api: "api-1",
  start: 0,
  end: 10,
  status: 200,
  expected: true,
  ...over,
});

describe("classify", () => {
  it("allows no answer only from a process killed while the request was in flight", () => {
    expect(classify(attempt({ status: null, start: 990, end: 1001 }), windows)).toBe("cut by a kill");
    expect(classify(attempt({ status: null, start: 1500, end: 1500 }), windows)).toBe("cut by a kill");
    // Before the kill, after it was ready again, or on the other process: a failure.
    expect(classify(attempt({ status: null, start: 900, end: 999 }), windows)).toBe("failure");
    expect(classify(attempt({ status: null, start: 2001, end: 2100 }), windows)).toBe("failure");
    expect(classify(attempt({ api: "api-2", status: null, start: 3000, end: 3001 }), windows)).toBe("failure");
    // A process that died on its own is no excuse.
    expect(classify(attempt({ api: "api-2", status: null, start: 1500, end: 1500 }), windows)).toBe("failure");
  });

  it("allows a 503 only while the connections are dropped; never another 5xx", () => {
    expect(classify(attempt({ status: 503, start: 5500, end: 5501 }), windows)).toBe("503 during the drop");
    expect(classify(attempt({ status: 503, start: 4000, end: 4001 }), windows)).toBe("failure");
    expect(classify(attempt({ status: 503, start: 1500, end: 1501 }), windows)).toBe("failure");
    expect(classify(attempt({ status: 500, start: 5500, end: 5501 }), windows)).toBe("failure");
    expect(classify(attempt({ status: 502, start: 1500, end: 1501 }), windows)).toBe("failure");
  });

  it("fails a status the operation does not expect, passes the expected ones", () => {
    expect(classify(attempt({ status: 404, expected: false }), windows)).toBe("failure");
    expect(classify(attempt({ status: 429, expected: true }), windows)).toBe("ok");
    expect(classify(attempt({ status: 201 }), windows)).toBe("ok");
  });
});

describe("duplicates", () => {
  const r = (delivery: string, runId: string, at: number): Receipt => ({ delivery, runId, at, signed: true });
  const worker: Window = { kind: "kill", process: "worker-2", start: 1500, end: 4000 };

  it("finds delivery ids received more than once, and only those", () => {
    const d = duplicates([r("e1:w:n", "run1", 1000), r("e2:w:n", "run2", 1100), r("e1:w:n", "run1", 3000)], () => 2, [worker]);
    expect(d).toEqual([{ delivery: "e1:w:n", runId: "run1", count: 2, first: 1000, last: 3000, attempts: 2, cause: worker }]);
  });

  it("explains a resend by a worker's end or the drop between the receipts, on a run taken again", () => {
    const twice = [r("e1:w:n", "run1", 1000), r("e1:w:n", "run1", 3000)];
    expect(duplicates(twice, () => 2, [drop, { ...drop, start: 2000 }])[0]!.cause).toEqual({ ...drop, start: 2000 });
    // An API's kill, a kill outside the two receipts, or a run taken once explains nothing.
    expect(duplicates(twice, () => 2, [{ ...worker, process: "api-1" }])[0]!.cause).toBeNull();
    expect(duplicates(twice, () => 2, [{ ...worker, start: 3500 }])[0]!.cause).toBeNull();
    expect(duplicates(twice, () => 1, [worker])[0]!.cause).toBeNull();
    // A worker that died on its own explains it too (and fails the processes' check).
    expect(duplicates(twice, () => 2, [{ ...worker, kind: "crash" }])[0]!.cause).toEqual({ ...worker, kind: "crash" });
  });
});

describe("figures", () => {
  it("counts every rise of X-RateLimit-Remaining, not the falls", () => {
    expect(remainingRises([300, 299, 297, 297, 296])).toEqual([]);
    expect(remainingRises([300, 292, 296, 291, 295])).toEqual([
      { from: 292, to: 296, index: 2 },
      { from: 291, to: 295, index: 4 },
    ]);
  });

  it("reads the grants from a counter that grows by what was asked", () => {
    expect(granted(301, 300)).toBe(300);
    expect(granted(280, 300)).toBe(280);
  });

  it("quantiles and spreads by nearest rank", () => {
    expect(quantile([5, 1, 3, 2, 4], 0.5)).toBe(3);
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(quantile([1, 2, 3, 4], 1)).toBe(4);
    expect(quantile([], 0.5)).toBeNaN();
    expect(spread([1900, 3200, 2400])).toBe("1.9–3.2 s (median 2.4)");
    expect(spread([3, 41, 7], "ms")).toBe("3–41 ms (median 7)");
    expect(spread([])).toBe("none");
  });

  it("prints each check with its figures, the failed ones with their details, and the count", () => {
    const text = summary([
      { name: "runs", pass: true, figures: "314 runs" },
      { name: "webhooks", pass: false, figures: "1 missing", details: ["run r1: no delivery received"] },
    ]);
    expect(text.split("\n")).toEqual([
      "check     result  figures",
      "runs      PASS    314 runs",
      "webhooks  FAIL    1 missing",
      "                  ↳ run r1: no delivery received",
      "1 of 2 checks FAILED",
    ]);
  });
});

import { describe, expect, it } from "vitest";
import { coalesced } from "./coalesce.js";

describe("coalesced", () => {
  it("one run in flight, one pending: a burst of requests costs two runs", async () => {
    let runs = 0;
    let release: () => void = () => undefined;
    const run = coalesced(
      () =>
        new Promise<void>((r) => {
          runs++;
          release = r;
        }),
      () => undefined,
    );
    run();
    for (let i = 0; i < 10; i++) run();
    expect(runs).toBe(1);
    release();
    await new Promise((r) => setTimeout(r, 0));
    expect(runs).toBe(2); // the pending one, for the ten requests
    release();
    await run.idle();
    expect(runs).toBe(2);
    run();
    release();
    await run.idle();
    expect(runs).toBe(3);
  });

  it("a failed run is reported and the next request runs again", async () => {
    const errors: unknown[] = [];
    let n = 0;
    const run = coalesced(
      async () => {
        if (++n === 1) throw new Error("boom");
      },
      (e) => errors.push(e),
    );
    run();
    await run.idle();
    run();
    await run.idle();
    expect(n).toBe(2);
    expect(errors.map((e) => (e as Error).message)).toEqual(["boom"]);
  });
});

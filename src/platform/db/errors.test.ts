import { describe, expect, it } from "vitest";
import { retryOnDeadlock } from "./errors.js";

const pgError = (code: string) => Object.assign(new Error(code), { code });

describe("retryOnDeadlock", () => {
  it("runs again a deadlock victim (40P01) and a serialization failure (40001), wrapped or not, until it succeeds", async () => {
    const failures = [pgError("40P01"), new Error("wrapped", { cause: pgError("40001") })];
    let calls = 0;
    const result = await retryOnDeadlock(async () => {
      calls++;
      const failure = failures.shift();
      if (failure) throw failure;
      return "done";
    });
    expect(result).toBe("done");
    expect(calls).toBe(3);
  });

  it("gives up after its attempts with the last error", async () => {
    let calls = 0;
    await expect(
      retryOnDeadlock(async () => {
        calls++;
        throw pgError("40P01");
      }, 3),
    ).rejects.toMatchObject({ code: "40P01" });
    expect(calls).toBe(3);
  });

  it("never runs again another error (a unique violation)", async () => {
    let calls = 0;
    await expect(
      retryOnDeadlock(async () => {
        calls++;
        throw pgError("23505");
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(calls).toBe(1);
  });
});

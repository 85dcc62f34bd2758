import { describe, expect, it } from "vitest";
import { GroupCommit } from "./group-commit.js";

describe("GroupCommit", () => {
  it("calls made while a batch is in flight go together in the next batch; each caller gets its own answer", async () => {
    const batches: number[][] = [];
    let release: () => void = () => undefined;
    const g = new GroupCommit<number, number>(
      async (items) => {
        batches.push(items);
        if (batches.length === 1) await new Promise<void>((r) => (release = r));
        return items.map((i) => i * 10);
      },
      async () => {
        throw new Error("not called: no batch failed");
      },
    );
    const first = g.run(1);
    await new Promise((r) => setTimeout(r, 5));
    const rest = [2, 3, 4, 5].map((i) => g.run(i));
    release();
    expect(await Promise.all([first, ...rest])).toEqual([10, 20, 30, 40, 50]);
    expect(batches).toEqual([[1], [2, 3, 4, 5]]);
  });

  it("a failed batch is redone item by item: the bad item fails alone, the others succeed once", async () => {
    const done: number[] = [];
    const g = new GroupCommit<number, string>(
      async (items) => {
        // All or nothing, as a transaction: nothing is kept when one item is bad.
        if (items.includes(3)) throw new Error("bad item in the batch");
        done.push(...items);
        return items.map(String);
      },
      async (i) => {
        if (i === 3) throw new Error(`item ${i} is bad`);
        done.push(i);
        return `${i} alone`;
      },
    );
    const out = await Promise.allSettled([1, 2, 3, 4].map((i) => g.run(i)));
    expect(out.map((o) => (o.status === "fulfilled" ? o.value : (o.reason as Error).message))).toEqual([
      "1 alone",
      "2 alone",
      "item 3 is bad",
      "4 alone",
    ]);
    expect(done).toEqual([1, 2, 4]);
  });

  it("an error no item caused (the connection lost) fails every call of the batch, without redoing them one by one", async () => {
    let alone = 0;
    const lost = Object.assign(new Error("connection lost"), { code: "57P01" });
    const g = new GroupCommit<number, number>(
      async () => {
        throw lost;
      },
      async (i) => {
        alone++;
        return i;
      },
      500,
      (err) => err === lost,
    );
    const out = await Promise.allSettled([1, 2, 3].map((i) => g.run(i)));
    expect(out.map((o) => o.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(alone).toBe(0);
  });

  it("without `one` (items that cannot be at fault), a failed batch fails each of its calls with its error; the next batch goes on", async () => {
    const batches: number[][] = [];
    const g = new GroupCommit<number, number>(async (items) => {
      batches.push(items);
      if (batches.length === 1) throw new Error("statement failed");
      return items;
    }, null);
    const out = await Promise.allSettled([1, 2, 3].map((i) => g.run(i)));
    expect(out.map((o) => (o.status === "rejected" ? (o.reason as Error).message : o.value))).toEqual([
      "statement failed",
      "statement failed",
      "statement failed",
    ]);
    expect(await g.run(4)).toBe(4);
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });
});

import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "./client.js";

describe("the embedded database (PGlite) in the server's thread", () => {
  it("lets the event loop turn during a long transaction, and another request's statement waits for its commit", async () => {
    const database = await openDatabase({ dataDir: "memory://" });
    afterAll(() => database.close());
    let inTransaction = false;
    let ticksDuring = 0;
    const timer = setInterval(() => {
      if (inTransaction) ticksDuring++;
    }, 1);
    const order: string[] = [];
    let other: Promise<unknown> | null = null;
    await database.db.transaction(async (tx) => {
      inTransaction = true;
      const start = performance.now();
      // Statements for 200 ms at least: each resolves as a microtask, so without the yield no timer fires until the end.
      while (performance.now() - start < 200) {
        await tx.execute(sql`select count(*) from generate_series(1, 2000)`);
        if (ticksDuring > 0 && !other) other = database.executeSql("select 1").then(() => order.push("other statement"));
      }
      inTransaction = false;
      order.push("commit");
    });
    clearInterval(timer);
    await other;
    expect(ticksDuring).toBeGreaterThan(3);
    expect(order).toEqual(["commit", "other statement"]);
  });
});

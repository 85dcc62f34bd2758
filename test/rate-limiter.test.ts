import { describe, expect, it } from "vitest";
import { RateLimiter } from "../src/platform/auth/rate-limiter.js";
import type { Database } from "../src/platform/db/client.js";
import { openTestDatabase } from "./helpers.js";

const database = await openTestDatabase();

async function newOrg(): Promise<{ orgId: string; keyId: string }> {
  const { rows } = (await database.executeSql("insert into organizations (name) values ('rl') returning id", [])) as { rows: { id: string }[] };
  const orgId = rows[0]!.id;
  const k = (await database.executeSql("insert into api_keys (org_id, name, prefix, key_hash) values ($1, 'k', 'vk_x', md5(random()::text)) returning id", [orgId])) as { rows: { id: string }[] };
  return { orgId, keyId: k.rows[0]!.id };
}

/** Counts the statements a limiter sends. */
function counting(db: Database): { db: Database; statements: () => number } {
  let n = 0;
  return { db: { ...db, raw: (name, text, values) => { n++; return db.raw(name, text, values); } }, statements: () => n };
}

describe("RateLimiter (shared hourly count per organization)", () => {
  it("two processes sharing one count accept exactly the limit, not one call more", async () => {
    const { orgId, keyId } = await newOrg();
    const a = new RateLimiter(database, 10);
    const b = new RateLimiter(database, 10);
    let accepted = 0;
    for (let i = 0; i < 1200; i++) {
      const r = await (i % 2 ? a : b).hit(orgId, keyId, 1000);
      if (r.allowed) accepted++;
      if (i % 97 === 0) await new Promise((res) => setTimeout(res, 12)); // let batches flush now and then
    }
    await a.close();
    await b.close();
    expect(accepted).toBe(1000);
    const { rows } = (await database.executeSql("select sum(count)::int as n from api_usage where org_id = $1", [orgId])) as { rows: { n: number }[] };
    expect(rows[0]!.n).toBe(1200); // refused calls are counted too
  });

  it("far from the limit, batches its writes; near it, counts every call", async () => {
    const { orgId, keyId } = await newOrg();
    const spy = counting(database);
    const limiter = new RateLimiter(spy.db, 50);
    const calls = await Promise.all(Array.from({ length: 2000 }, () => limiter.hit(orgId, keyId, 1_000_000)));
    expect(calls.every((c) => c.allowed)).toBe(true);
    await limiter.close();
    expect(spy.statements()).toBeLessThan(60); // ~2000 / 100 per batch, plus the first synchronous call
    const { rows } = (await database.executeSql("select count from api_usage where org_id = $1", [orgId])) as { rows: { count: number }[] };
    expect(rows[0]!.count).toBe(2000);
    const small = await newOrg();
    const spy2 = counting(database);
    const strict = new RateLimiter(spy2.db, 50);
    for (let i = 0; i < 10; i++) await strict.hit(small.orgId, small.keyId, 15);
    expect(spy2.statements()).toBeGreaterThanOrEqual(10); // within the 20-call margin: one write per call
    await strict.close();
  });

  it("writes last_used_at of the keys it saw", async () => {
    const { orgId, keyId } = await newOrg();
    const limiter = new RateLimiter(database, 10);
    await limiter.hit(orgId, keyId, 100);
    await limiter.close();
    const { rows } = (await database.executeSql("select last_used_at from api_keys where id = $1", [keyId])) as { rows: { last_used_at: Date | null }[] };
    expect(rows[0]!.last_used_at).not.toBeNull();
  });
});

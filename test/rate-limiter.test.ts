import type { LightMyRequestResponse } from "fastify";
import { describe, expect, it } from "vitest";
import { RateLimiter } from "../src/platform/auth/rate-limiter.js";
import type { Database } from "../src/platform/db/client.js";
import { bearer, openTestDatabase } from "./helpers.js";
import { appOver, countingRaw, secondConnection } from "./two-processes.js";

const database = await openTestDatabase();

const a = await appOver(database);
const b = await appOver(await secondConnection(database));

/** An organization on a plan of `limit` calls per hour, with one project and one key (no call spent). */
async function tenant(limit: number): Promise<{ orgId: string; projectId: string; key: string; keyId: string }> {
  const slug = `p${limit}`;
  await a.services.organizations.upsertPlan({ slug, name: `Plan ${limit}`, maxApiCallsPerHour: limit });
  const { org } = await a.services.organizations.createOrg({ name: `Org ${Math.random()}`, planSlug: slug });
  const project = await a.services.projects.create({ orgId: org.id, name: "P" });
  const { key, row } = await a.services.apiKeys.create({ orgId: org.id, scopes: [], projectIds: [] });
  return { orgId: org.id, projectId: project.id, key, keyId: row.id };
}

async function usage(orgId: string): Promise<number> {
  const { rows } = (await database.executeSql("select coalesce(sum(count), 0)::int as n from api_usage where org_id = $1", [orgId])) as {
    rows: { n: number }[];
  };
  return rows[0]!.n;
}

/** Counts the statements a limiter sends. */
function counting(db: Database): { db: Database; statements: () => number } {
  let n = 0;
  return {
    db: {
      ...db,
      raw: (name, text, values) => {
        n++;
        return db.raw(name, text, values);
      },
    },
    statements: () => n,
  };
}

function remaining(res: LightMyRequestResponse): number {
  return Number(res.headers["x-ratelimit-remaining"]);
}

describe("hourly call limit across processes", () => {
  it("400 concurrent requests at two app instances sharing one database: exactly the limit accepted, the rest 429", async () => {
    const t = await tenant(100);
    const url = `/api/v1/organizations/${t.orgId}/projects/${t.projectId}/workflows`;
    // Each instance's answers in the order they are sent, to check Remaining never increases there.
    const sent: Record<"a" | "b", LightMyRequestResponse[]> = { a: [], b: [] };
    await Promise.all(
      Array.from({ length: 400 }, (_, i) => {
        const name = i % 2 ? "a" : "b";
        return (name === "a" ? a : b).app.inject({ method: "GET", url, headers: bearer(t.key) }).then((res) => void sent[name].push(res));
      }),
    );
    const all = [...sent.a, ...sent.b];
    expect(all.filter((r) => r.statusCode === 200)).toHaveLength(100);
    expect(all.filter((r) => r.statusCode === 429)).toHaveLength(300);
    expect(sent.a.some((r) => r.statusCode === 200) && sent.b.some((r) => r.statusCode === 200)).toBe(true); // both served
    for (const name of ["a", "b"] as const) {
      const figures = sent[name].map(remaining);
      for (let i = 1; i < figures.length; i++)
        expect(figures[i], `${name} answer ${i}: ${figures.join(",")}`).toBeLessThanOrEqual(figures[i - 1]!);
      expect(figures.at(-1)).toBe(0);
    }
    for (const r of all.filter((x) => x.statusCode === 429)) {
      expect(r.headers["x-ratelimit-remaining"]).toBe("0");
      expect(Number(r.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    }
    // Once a process knows the window is spent, a refused call costs no round trip.
    const statements = await countingRaw(database, async () => {
      for (let i = 0; i < 10; i++) expect((await a.app.inject({ method: "GET", url, headers: bearer(t.key) })).statusCode).toBe(429);
    });
    expect([...statements]).toEqual([]);
  });

  it("X-RateLimit-Remaining never increases within a window, and is exact on one process", async () => {
    const t = await tenant(40);
    const url = "/api/v1/me";
    const seen: number[] = [];
    for (let i = 0; i < 45; i++) {
      const res = await a.app.inject({ method: "GET", url, headers: bearer(t.key) });
      seen.push(remaining(res));
      expect(res.statusCode).toBe(i < 40 ? 200 : 429);
    }
    expect(seen).toEqual([...Array.from({ length: 40 }, (_, i) => 39 - i), 0, 0, 0, 0, 0]);
    // Concurrent calls: in the order the answers leave, never an increase.
    const u = await tenant(1000);
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 300 }, () =>
        a.app.inject({ method: "GET", url, headers: bearer(u.key) }).then((r) => void order.push(remaining(r))),
      ),
    );
    for (let i = 1; i < order.length; i++) expect(order[i]).toBeLessThanOrEqual(order[i - 1]!);
    expect(order.at(-1)).toBe(700);
  });
});

describe("RateLimiter (quota reserved from the database)", () => {
  it("two limiters sharing one count accept exactly the limit, concurrent or sequential", async () => {
    const t = await tenant(1000);
    const l1 = new RateLimiter(database, 10);
    const l2 = new RateLimiter(await secondConnection(database), 10);
    const calls = await Promise.all(Array.from({ length: 1500 }, (_, i) => (i % 2 ? l1 : l2).hit(t.orgId, t.keyId, 1000)));
    let accepted = calls.filter((c) => c.allowed).length;
    for (let i = 0; i < 200; i++) if ((await (i % 2 ? l1 : l2).hit(t.orgId, t.keyId, 1000)).allowed) accepted++;
    expect(accepted).toBe(1000);
    await l1.close();
    await l2.close();
  });

  it("far from the limit, reserves blocks and prefetches them (no round trip per call); near it, one call at a time", async () => {
    const t = await tenant(1_000_000);
    const spy = counting(database);
    const limiter = new RateLimiter(spy.db, 50);
    for (let round = 0; round < 20; round++) {
      const calls = await Promise.all(Array.from({ length: 100 }, () => limiter.hit(t.orgId, t.keyId, 1_000_000)));
      expect(calls.every((c) => c.allowed)).toBe(true);
    }
    await limiter.close();
    expect(spy.statements()).toBeLessThan(40); // 2000 calls
    expect(await usage(t.orgId)).toBe(2000); // what was not used is handed back at close

    const small = await tenant(15);
    const spy2 = counting(database);
    const strict = new RateLimiter(spy2.db, 50);
    for (let i = 0; i < 10; i++) await strict.hit(small.orgId, small.keyId, 15);
    expect(spy2.statements()).toBeGreaterThanOrEqual(10); // under 16 × 2 calls left: one reservation per call
    await strict.close();
  });

  it("a block reserved by one process is never spent by another: the shared count bounds them all", async () => {
    const t = await tenant(64);
    const l1 = new RateLimiter(database, 10);
    const l2 = new RateLimiter(await secondConnection(database), 10);
    // l1 takes quota first; l2 then gets only what is left; together never more than 64.
    const first = await Promise.all(Array.from({ length: 50 }, () => l1.hit(t.orgId, t.keyId, 64)));
    const second = await Promise.all(Array.from({ length: 100 }, () => l2.hit(t.orgId, t.keyId, 64)));
    const third = await Promise.all(Array.from({ length: 100 }, () => l1.hit(t.orgId, t.keyId, 64)));
    expect([...first, ...second, ...third].filter((c) => c.allowed).length).toBe(64);
    expect(first.every((c) => c.allowed)).toBe(true);
    await l1.close();
    await l2.close();
  });

  it("writes last_used_at of the keys it saw", async () => {
    const t = await tenant(100);
    const limiter = new RateLimiter(database, 10);
    await limiter.hit(t.orgId, t.keyId, 100);
    await limiter.close();
    const { rows } = (await database.executeSql("select last_used_at from api_keys where id = $1", [t.keyId])) as {
      rows: { last_used_at: Date | null }[];
    };
    expect(rows[0]!.last_used_at).not.toBeNull();
  });
});

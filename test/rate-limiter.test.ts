import type { LightMyRequestResponse } from "fastify";
import { describe, expect, it } from "vitest";
import type { Services } from "../src/app.js";
import { RATE_TOPIC, RateLimiter } from "../src/platform/auth/rate-limiter.js";
import type { Database } from "../src/platform/db/client.js";
import { bearer, openTestDatabase } from "./helpers.js";
import { appOver, countingRaw, eventually, secondConnection } from "./two-processes.js";

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

/**
 * What an app instance has heard of the organization's reservations (all processes'): waits until it
 * has heard a count of at least `count`. On PostgreSQL a notification reaches the other instance's
 * listening connection shortly after the commit, not at once (ADR 0033 measures that lag); the
 * tests below let it arrive before the next call, so that they assert what the instances do with it.
 */
function hearing(instance: { services: Services }, orgId: string): { reached: (count: number) => Promise<void> } {
  let heard = 0;
  instance.services.cacheFeed.on(RATE_TOPIC, (key) => {
    const [org, , count] = key?.split(":") ?? [];
    if (org === orgId) heard = Math.max(heard, Number(count));
  });
  return { reached: (count) => eventually(() => heard >= count) };
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

  it("X-RateLimit-Remaining on one process: the limit minus the database's count, never increasing, 0 exactly at the limit", async () => {
    const t = await tenant(40);
    const url = "/api/v1/me";
    const seen: number[] = [];
    for (let i = 0; i < 45; i++) {
      const res = await a.app.inject({ method: "GET", url, headers: bearer(t.key) });
      seen.push(remaining(res));
      expect(res.statusCode).toBe(i < 40 ? 200 : 429);
      // Never more than is left: the count includes the block this process holds and has not used yet.
      expect(remaining(res)).toBeLessThanOrEqual(Math.max(0, 39 - i));
    }
    for (let i = 1; i < seen.length; i++) expect(seen[i], seen.join(",")).toBeLessThanOrEqual(seen[i - 1]!);
    // Near the limit (under 2 × 16 calls unreserved) every reservation is one call: the figure is exact.
    expect(seen.slice(24)).toEqual([...Array.from({ length: 16 }, (_, i) => 15 - i), 0, 0, 0, 0, 0]);
    // Concurrent calls: in the order the answers leave, never an increase; the last says what the count allowed.
    const u = await tenant(1000);
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 300 }, () =>
        a.app.inject({ method: "GET", url, headers: bearer(u.key) }).then((r) => void order.push(remaining(r))),
      ),
    );
    for (let i = 1; i < order.length; i++) expect(order[i]).toBeLessThanOrEqual(order[i - 1]!);
    expect(order.at(-1)).toBeLessThanOrEqual(700);
    expect(order.at(-1)).toBeGreaterThanOrEqual(1000 - (await usage(u.orgId)));
  });

  it("X-RateLimit-Remaining never increases across two app instances: calls alternating between them, then concurrent bursts", async () => {
    const url = "/api/v1/me";
    const t = await tenant(600);
    const heard = { a: hearing(a, t.orgId), b: hearing(b, t.orgId) };
    const figures: number[] = [];
    let accepted = 0;
    for (let i = 0; i < 640; i++) {
      const [to, other] = i % 2 ? (["a", "b"] as const) : (["b", "a"] as const);
      const res = await (to === "a" ? a : b).app.inject({ method: "GET", url, headers: bearer(t.key) });
      if (res.statusCode === 200) accepted++;
      else expect([res.statusCode, remaining(res)]).toEqual([429, 0]);
      figures.push(remaining(res));
      await heard[other].reached(600 - remaining(res));
    }
    for (let i = 1; i < figures.length; i++) expect(figures[i], `call ${i}: ${figures.join(",")}`).toBeLessThanOrEqual(figures[i - 1]!);
    expect(accepted).toBe(600);
    expect(figures.slice(-40)).toEqual(Array(40).fill(0));

    // Bursts of 200 concurrent calls, half at each instance: no answer of a burst says more than any of the one before.
    const u = await tenant(3000);
    const hear = { a: hearing(a, u.orgId), b: hearing(b, u.orgId) };
    let previous = 3000;
    let ok = 0;
    for (let burst = 0; burst < 18; burst++) {
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).app.inject({ method: "GET", url, headers: bearer(u.key) })),
      );
      const low = Math.min(...answers.map(remaining));
      expect(Math.max(...answers.map(remaining)), `burst ${burst}`).toBeLessThanOrEqual(previous);
      ok += answers.filter((r) => r.statusCode === 200).length;
      previous = low;
      await Promise.all([hear.a.reached(3000 - low), hear.b.reached(3000 - low)]);
    }
    expect([ok, previous]).toEqual([3000, 0]);
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

  it("a block handed back at close lowers the count, never the figure of a process that knew the higher one", async () => {
    const t = await tenant(1_000_000);
    const l1 = new RateLimiter(database, 10);
    const l2 = new RateLimiter(await secondConnection(database), 10);
    await Promise.all(Array.from({ length: 200 }, () => l1.hit(t.orgId, t.keyId, 1_000_000)));
    const held = (await l1.hit(t.orgId, t.keyId, 1_000_000)).quota;
    expect(held.held).toBeGreaterThan(100); // l1 reserved ahead of its traffic
    const { quota } = await l2.hit(t.orgId, t.keyId, 1_000_000);
    const known = await usage(t.orgId);
    expect(quota.remaining).toBe(1_000_000 - known);
    await l1.close();
    expect(await usage(t.orgId)).toBeLessThan(known - 100);
    // l2's next reservations start from the lowered count: its figure stays where it was, then falls.
    let figure = quota.remaining;
    for (let round = 0; round < 5; round++) {
      await Promise.all(Array.from({ length: 20 }, () => l2.hit(t.orgId, t.keyId, 1_000_000)));
      expect(quota.remaining).toBeLessThanOrEqual(figure);
      figure = quota.remaining;
    }
    expect(await usage(t.orgId)).toBeLessThan(known); // the count l2 reserved from was lower than the one it reports
    await l2.close();
  });

  it("api_usage.granted is what was granted: the limit exactly when count passes it, lowered by what is handed back", async () => {
    const row = async (orgId: string) => {
      const { rows } = (await database.executeSql("select count, granted from api_usage where org_id = $1", [orgId])) as {
        rows: { count: number; granted: number }[];
      };
      return rows[0]!;
    };
    // Two processes racing for the last calls: the last reservations ask more than is left.
    const t = await tenant(50);
    const l1 = new RateLimiter(database, 10);
    const l2 = new RateLimiter(await secondConnection(database), 10);
    const calls = await Promise.all(Array.from({ length: 120 }, (_, i) => (i % 2 ? l1 : l2).hit(t.orgId, t.keyId, 50)));
    expect(calls.filter((c) => c.allowed)).toHaveLength(50);
    const spent = await row(t.orgId);
    expect(spent.count).toBeGreaterThan(50); // every reservation's ask, past the limit
    expect(spent.granted).toBe(50); // the calls granted, all accepted
    await l1.close();
    await l2.close();
    expect((await row(t.orgId)).granted).toBe(50); // nothing held: nothing handed back

    // Far from the limit: a process's block is granted whole; what it did not use goes back at close.
    const far = await tenant(1_000_000);
    const l3 = new RateLimiter(database, 10);
    await Promise.all(Array.from({ length: 200 }, () => l3.hit(far.orgId, far.keyId, 1_000_000)));
    const { quota } = await l3.hit(far.orgId, far.keyId, 1_000_000);
    const before = await row(far.orgId);
    expect(before.granted).toBe(before.count); // below the limit every ask is granted
    expect(before.granted).toBe(201 + quota.held);
    await l3.close();
    expect(await row(far.orgId)).toEqual({ count: 201, granted: 201 });
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

import { sql } from "drizzle-orm";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { isConnectionLoss } from "../src/platform/db/errors.js";
import { UNAVAILABLE } from "../src/platform/messages.js";
import { bearer, createTenant, createTestApp, workflowsUrl } from "./helpers.js";
import { eventually } from "./two-processes.js";

const t = await createTestApp({ VIGIE_METRICS_TOKEN: "metrics-token-0123456789" });
const tenant = await createTenant(t);

/** One sample's value in a Prometheus text exposition, or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    const set = line.slice(name.length + 1, line.lastIndexOf("}"));
    if (Object.entries(labels).every(([k, v]) => set.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return undefined;
}

async function metrics(): Promise<string> {
  const res = await t.app.inject({ method: "GET", url: "/metrics", headers: bearer("metrics-token-0123456789") });
  expect(res.statusCode).toBe(200);
  expect(res.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.body;
}

describe("GET /healthz and /readyz", () => {
  it("answer without a key, and neither counts against the hourly limit", async () => {
    const health = await t.app.inject({ method: "GET", url: "/healthz" });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: "ok" });
    const ready = await t.app.inject({ method: "GET", url: "/readyz" });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: "ready", role: "all", checks: { database: "ok", listener: "ok" } });
    expect(ready.headers["x-ratelimit-remaining"]).toBeUndefined();
    const { rows } = (await t.database.executeSql("select coalesce(sum(count), 0)::int as n from api_usage where org_id = $1", [
      tenant.orgId,
    ])) as { rows: { n: number }[] };
    const before = rows[0]!.n;
    for (let i = 0; i < 5; i++) await t.app.inject({ method: "GET", url: "/readyz" });
    const after = (await t.database.executeSql("select coalesce(sum(count), 0)::int as n from api_usage where org_id = $1", [
      tenant.orgId,
    ])) as {
      rows: { n: number }[];
    };
    expect(after.rows[0]!.n).toBe(before);
  });

  it("/readyz says what is not ready: the notification listener lost, then the process shutting down", async () => {
    await t.services.cacheFeed.close();
    const lost = await t.app.inject({ method: "GET", url: "/readyz" });
    expect(lost.statusCode).toBe(503);
    expect(lost.headers["retry-after"]).toBe("2");
    expect(lost.json()).toEqual({
      detail: UNAVAILABLE.notReady,
      role: "all",
      checks: { database: "ok", listener: "connexion des notifications (LISTEN) absente : reconnexion en cours" },
    });
    await t.services.cacheFeed.start();
    await eventually(async () => (await t.app.inject({ method: "GET", url: "/readyz" })).statusCode === 200);
  });
});

describe("GET /metrics", () => {
  it("asks for VIGIE_METRICS_TOKEN as a bearer token when it is set", async () => {
    expect((await t.app.inject({ method: "GET", url: "/metrics" })).statusCode).toBe(401);
    const wrong = await t.app.inject({ method: "GET", url: "/metrics", headers: bearer("metrics-token-0123456788") });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ detail: "Not authenticated" });
    expect(wrong.headers["www-authenticate"]).toBe("Bearer");
  });

  it("counts requests by route template and status, caches by hit and miss, and reads the engine's figures", async () => {
    const route = "/api/v1/organizations/:org_id/projects/:project_id/workflows";
    const before = await metrics();
    const count = (text: string, status: string) => sample(text, "vigie_http_requests_total", { method: "GET", route, status }) ?? 0;
    const hits = (text: string) => sample(text, "vigie_cache_requests_total", { cache: "workflow_lists", result: "hit" }) ?? 0;
    for (let i = 0; i < 3; i++)
      expect((await t.app.inject({ method: "GET", url: workflowsUrl(tenant), headers: bearer(tenant.readKey) })).statusCode).toBe(200);
    await t.app.inject({ method: "GET", url: workflowsUrl(tenant), headers: bearer("vk_nope") });
    const after = await metrics();
    expect(count(after, "200") - count(before, "200")).toBe(3);
    expect(count(after, "401") - count(before, "401")).toBe(1);
    expect(hits(after) - hits(before)).toBeGreaterThanOrEqual(2); // the first read may fill the cache
    expect(sample(after, "vigie_http_request_duration_seconds_count", { route, status: "200" })).toBeGreaterThanOrEqual(3);
    expect(sample(after, "vigie_outbox_pending", {})).toBeGreaterThanOrEqual(0);
    expect(sample(after, "vigie_runs_unfinished", { lease: "expired" })).toBe(0);
    expect(after).toMatch(/^vigie_feed_failures\{source="kev",role="all"\} 0$/m);
    expect(after).toMatch(/^process_resident_memory_bytes\{role="all"\} \d+/m);
    if (t.database.driver === "postgres") expect(sample(after, "vigie_db_pool_connections", { state: "total" })).toBeGreaterThan(0);
  });
});

describe("the database connection lost", () => {
  it("a request that meets it answers 503 {detail} with Retry-After, and the next one is served", async () => {
    // A real error of a lost connection: the driver's own, from a port nobody listens on.
    const refused = await new pg.Client({ connectionString: "postgres://nobody@127.0.0.1:1/none", connectionTimeoutMillis: 2000 })
      .connect()
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(isConnectionLoss(refused)).toBe(true);
    expect(isConnectionLoss(new Error("duplicate key value violates unique constraint"))).toBe(false);
    const raw = t.database.raw;
    t.database.raw = () => Promise.reject(refused);
    try {
      t.services.authenticator.invalidate(); // the key's context is read from the database
      const res = await t.app.inject({ method: "GET", url: workflowsUrl(tenant), headers: bearer(tenant.readKey) });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ detail: UNAVAILABLE.database });
      expect(res.headers["retry-after"]).toBe("2");
    } finally {
      t.database.raw = raw;
    }
    expect((await t.app.inject({ method: "GET", url: workflowsUrl(tenant), headers: bearer(tenant.readKey) })).statusCode).toBe(200);
  });

  it.runIf(t.database.driver === "postgres")(
    "every backend terminated (pg_terminate_backend): the pool reconnects, the listener listens again, no restart",
    async () => {
      const url = (t.database.pool!.options as { connectionString: string }).connectionString;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      // A statement in flight when its backend is terminated gets the server's 57P01: a connection loss.
      const inFlight = t.database.executeSql("select pg_sleep(5)").then(
        () => null,
        (err: unknown) => err,
      );
      // A transaction between two statements when it happens: its client is checked out and idle, the
      // loss comes as an 'error' event on it (the process died of it before the pool listened on every client).
      let between: () => void = () => undefined;
      const paused = new Promise<void>((r) => {
        between = r;
      });
      const transaction = t.database.db
        .transaction(async (tx) => {
          await tx.execute(sql`select 1`);
          await paused;
          await tx.execute(sql`select 1`);
        })
        .then(
          () => null,
          (err: unknown) => err,
        );
      await new Promise((r) => setTimeout(r, 200));
      const { rows } = await admin.query(
        "select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()",
      );
      await admin.end();
      expect(rows[0].n).toBeGreaterThanOrEqual(2); // the pool's connections and the listener's
      expect(isConnectionLoss(await inFlight)).toBe(true);
      await new Promise((r) => setTimeout(r, 200)); // the 'error' event reaches the idle client
      between();
      expect(isConnectionLoss(await transaction)).toBe(true);
      const statuses: number[] = [];
      await eventually(async () => {
        const res = await t.app.inject({ method: "GET", url: workflowsUrl(tenant), headers: bearer(tenant.readKey) });
        statuses.push(res.statusCode);
        return res.statusCode === 200 && (await t.app.inject({ method: "GET", url: "/readyz" })).statusCode === 200;
      }, 10_000);
      expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    },
  );
});

describe("VIGIE_ROLE", () => {
  it("needs PostgreSQL apart from all, and a worker runs the jobs", () => {
    expect(() => loadConfig({ VIGIE_ROLE: "api" })).toThrow(/VIGIE_ROLE : api demande PostgreSQL \(DATABASE_URL\)/);
    expect(() => loadConfig({ VIGIE_ROLE: "worker", DATABASE_URL: "postgres://x@h/db", VIGIE_JOBS: "off" })).toThrow(
      /contredit VIGIE_ROLE=worker/,
    );
    const api = loadConfig({ VIGIE_ROLE: "api", DATABASE_URL: "postgres://x@h/db" });
    expect([api.serveApi, api.jobs]).toEqual([true, false]);
    const worker = loadConfig({ VIGIE_ROLE: "worker", DATABASE_URL: "postgres://x@h/db" });
    expect([worker.serveApi, worker.jobs]).toEqual([false, true]);
    const all = loadConfig({});
    expect([all.role, all.serveApi, all.jobs]).toEqual(["all", true, true]);
  });
});

import { createServer, type Server, type Socket, connect } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.js";
import { ConfigError, loadConfig } from "../src/config.js";
import { openForProcess } from "../src/main.js";
import { openDatabase } from "../src/platform/db/client.js";
import { DatabaseUnreachable, isConnectionLoss } from "../src/platform/db/errors.js";
import { errorAnswer } from "../src/platform/http/error-body.js";
import { createLogger } from "../src/platform/log.js";
import { UNAVAILABLE } from "../src/platform/messages.js";
import { bearer, openTestDatabase } from "./helpers.js";
import { eventually } from "./two-processes.js";

describe("VIGIE_DB_POOL_SIZE and VIGIE_DB_CONNECT_TIMEOUT_MS", () => {
  it("default to 10 connections and 3 s, and are checked like every setting", () => {
    expect(loadConfig({}).db).toEqual({ poolSize: 10, connectTimeoutMs: 3000 });
    expect(loadConfig({ VIGIE_DB_POOL_SIZE: "40", VIGIE_DB_CONNECT_TIMEOUT_MS: "500" }).db).toEqual({
      poolSize: 40,
      connectTimeoutMs: 500,
    });
    expect(() => loadConfig({ VIGIE_DB_POOL_SIZE: "0" })).toThrow(ConfigError);
    expect(() => loadConfig({ VIGIE_DB_POOL_SIZE: "dix" })).toThrow(/VIGIE_DB_POOL_SIZE/);
    expect(() => loadConfig({ VIGIE_DB_CONNECT_TIMEOUT_MS: "50" })).toThrow(/VIGIE_DB_CONNECT_TIMEOUT_MS/);
  });

  it("a known-unreachable database is a connection loss: 503 with the usual detail and Retry-After", () => {
    const err = new DatabaseUnreachable(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }));
    expect(isConnectionLoss(err)).toBe(true);
    expect(errorAnswer(err)).toEqual({ status: 503, headers: { "retry-after": "2" }, body: { detail: UNAVAILABLE.database } });
  });
});

/**
 * A TCP relay to PostgreSQL that can turn into a black hole: connections accepted and never
 * answered (a host that stopped answering, the case that waits the whole connect timeout), the
 * open ones cut. Counts the connections it accepts.
 */
async function relay(
  port: number,
): Promise<{ url: (u: string) => string; blackHole(on: boolean): void; accepted(): number; close(): void }> {
  let dark = false;
  let accepted = 0;
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    accepted++;
    open.add(client);
    client.on("close", () => open.delete(client));
    client.on("error", () => undefined);
    if (dark) return; // held, never answered
    const upstream = connect(port, "127.0.0.1");
    open.add(upstream);
    upstream.on("close", () => {
      open.delete(upstream);
      client.destroy();
    });
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const own = (server.address() as { port: number }).port;
  return {
    url: (u) => {
      const url = new URL(u);
      url.host = `127.0.0.1:${own}`;
      return url.toString();
    },
    blackHole(on) {
      dark = on;
      if (on) for (const s of open) s.destroy();
    },
    accepted: () => accepted,
    close() {
      for (const s of open) s.destroy();
      server.close();
    },
  };
}

describe.runIf(process.env.DATABASE_URL)("PostgreSQL unreachable", () => {
  it("the pool's size and connect timeout come from VIGIE_DB_POOL_SIZE and VIGIE_DB_CONNECT_TIMEOUT_MS", async () => {
    const base = await openTestDatabase();
    const url = (base.pool!.options as { connectionString: string }).connectionString;
    const config = loadConfig({ DATABASE_URL: url, VIGIE_DB_POOL_SIZE: "3", VIGIE_DB_CONNECT_TIMEOUT_MS: "1234" });
    const { database } = await openForProcess(config, null);
    try {
      expect(database.pool!.options.max).toBe(3);
      expect(database.pool!.options.connectionTimeoutMillis).toBe(1234);
    } finally {
      await database.close();
    }
  });

  it("after one connection attempt times out, requests answer 503 at once without trying; a probe finds it back", async () => {
    const base = await openTestDatabase();
    const url = (base.pool!.options as { connectionString: string }).connectionString;
    const proxy = await relay(Number(new URL(url).port || 5432));
    afterAll(() => proxy.close());
    const timeoutMs = 4000;
    const database = await openDatabase({ databaseUrl: proxy.url(url), poolSize: 4, connectTimeoutMs: timeoutMs, probeMs: 200 });
    afterAll(() => database.close());
    const config = loadConfig({ ...process.env, DATABASE_URL: proxy.url(url), VIGIE_JOBS: "off" });
    const { app, services } = await buildApp({ config, database, logger: createLogger("silent") });
    await app.ready();
    afterAll(() => app.close());
    const { org } = await services.organizations.createOrg({ name: "Panne" });
    const project = await services.projects.create({ orgId: org.id, name: "P" });
    const { key } = await services.apiKeys.create({ orgId: org.id, scopes: [], projectIds: [] });
    // A read the caches do not answer: it needs the database every time.
    const settings = `/api/v1/organizations/${org.id}/projects/${project.id}/notification-settings`;
    const get = () => app.inject({ method: "GET", url: settings, headers: bearer(key) });
    expect((await get()).statusCode).toBe(200);
    expect(database.reachable!()).toBe(true);

    proxy.blackHole(true);
    // The pool's connections were cut (a request may meet one before the pool drops it: 503); then a
    // request opens a connection, which waits the whole timeout: 503, and the database is known down.
    await eventually(async () => {
      expect((await get()).statusCode).toBe(503);
      return !database.reachable!();
    }, 3 * timeoutMs);
    // From now on no request waits for a connection: twenty answer 503 (the usual detail) within one
    // connect timeout, and the relay sees no connection from them (only the probe's, one at a time).
    const acceptedBefore = proxy.accepted();
    const started = Date.now();
    for (let i = 0; i < 20; i++) {
      const res = await get();
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ detail: UNAVAILABLE.database });
      expect(res.headers["retry-after"]).toBe("2");
    }
    expect(Date.now() - started).toBeLessThan(timeoutMs);
    expect(proxy.accepted() - acceptedBefore).toBeLessThanOrEqual(1);
    const ready = await app.inject({ method: "GET", url: "/readyz" });
    expect(ready.statusCode).toBe(503);
    expect(ready.json().checks.database).toMatch(/^base de données injoignable/);

    // Back: the probe connects, requests are served again without a restart.
    proxy.blackHole(false);
    await eventually(async () => database.reachable!() && (await get()).statusCode === 200, 3 * timeoutMs);
    await eventually(async () => (await app.inject({ method: "GET", url: "/readyz" })).statusCode === 200, 3 * timeoutMs);
  });
});

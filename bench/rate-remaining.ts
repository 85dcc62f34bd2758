/**
 * X-RateLimit-Remaining across two server processes (ADR 0033), on PostgreSQL: a client alternates
 * sequential calls between two `node dist/cli.js serve` over HTTP and counts the answers whose
 * figure is above the one before (rises); then the lag of a reservation's notification behind the
 * reserving connection's answer, and the reservation statement's cost with and without pg_notify.
 */
import { type ChildProcess, spawn } from "node:child_process";
import http from "node:http";
import autocannon from "autocannon";
import pg from "pg";
import { createServices } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { openDatabase } from "../src/platform/db/client.js";

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const CALLS = Number(process.env.CALLS ?? 20_000);

async function admin(q: string) {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  await c.query(q);
  await c.end();
}
const name = `vigie_rate_${process.pid}`;
await admin(`drop database if exists ${name} with (force)`);
await admin(`create database ${name}`);
const u = new URL(ADMIN_URL);
u.pathname = `/${name}`;
const url = u.toString();
const database = await openDatabase({ databaseUrl: url, poolSize: 2 });
await database.migrate();
const services = createServices(database, loadConfig({ ...process.env, DATABASE_URL: url, VIGIE_JOBS: "off" }));

async function tenant(limit: number): Promise<{ orgId: string; key: string }> {
  const slug = `p${limit}`;
  await services.organizations.upsertPlan({ slug, name: `Plan ${limit}`, maxApiCallsPerHour: limit });
  const { org } = await services.organizations.createOrg({ name: `Org ${Math.random()}`, planSlug: slug });
  const { key } = await services.apiKeys.create({ orgId: org.id, scopes: [], projectIds: [] });
  return { orgId: org.id, key };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
function get(port: number, key: string): Promise<{ status: number; remaining: number }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port, path: "/api/v1/me", agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode!, remaining: Number(res.headers["x-ratelimit-remaining"]) }));
    });
    req.on("error", reject);
  });
}

async function server(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [process.env.VIGIE_CLI ?? "dist/cli.js", "serve"], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_URL: url,
      VIGIE_JOBS: "off",
      LOG_LEVEL: "warn",
      VIGIE_SNAPSHOT: "off",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  for (let i = 0; ; i++) {
    try {
      if ((await get(port, "none")).status === 401) return child;
    } catch {
      if (i > 100) throw new Error(`server on ${port} did not start`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

const ports = [18731, 18732];
const servers = await Promise.all(ports.map(server));

/** Counts the reservations of an organization (its notifications) while `fn` runs. */
async function reservations(orgId: string, fn: () => Promise<void>): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  let n = 0;
  c.on("notification", (m) => void (m.payload?.startsWith(`rate:${orgId}:`) && n++));
  await c.query("listen vigie_cache");
  await fn();
  await new Promise((r) => setTimeout(r, 200));
  await c.end();
  return n;
}

async function alternate(label: string, limit: number, calls: number, load = false) {
  const t = await tenant(limit);
  let rises = 0;
  let near = 0;
  let largest = 0;
  let accepted = 0;
  const times: number[] = [];
  const background = load
    ? ports.map((port) =>
        autocannon({
          url: `http://127.0.0.1:${port}/api/v1/me`,
          connections: 5,
          duration: 3600,
          headers: { authorization: `Bearer ${t.key}` },
        }),
      )
    : [];
  const n = await reservations(t.orgId, async () => {
    let previous = Number.POSITIVE_INFINITY;
    for (let i = 0; i < calls; i++) {
      const start = performance.now();
      const r = await get(ports[i % 2]!, t.key);
      times.push(performance.now() - start);
      if (r.status === 200) accepted++;
      if (r.remaining > previous) {
        rises++;
        if (previous < 32) near++;
        largest = Math.max(largest, r.remaining - previous);
      }
      previous = r.remaining;
    }
    for (const b of background) (b as unknown as { stop(): void }).stop();
    await Promise.all(background);
  });
  times.sort((x, y) => x - y);
  console.log(
    `${label}: ${calls} alternating sequential calls (limit ${limit}${load ? ", 2 × 5 connections of load on the same organization" : ""}): ${accepted} accepted, ` +
      `${n} reservations (all processes), ${rises} rises (largest ${largest}; ${near} under 32 calls left); call p50 ${times[calls >> 1]!.toFixed(3)} ms, p1 ${times[Math.floor(calls / 100)]!.toFixed(3)} ms`,
  );
}

await alternate("far from the limit", 1_000_000_000, CALLS);
await alternate("the whole window spent", CALLS, CALLS);
await alternate("far from the limit, under load", 1_000_000_000, CALLS, true);

// The reservation statement of src/platform/auth/rate-limiter.ts, with and without its notification.
const WITH = `with r as (
  insert into api_usage (org_id, window_start, count) values ($1, to_timestamp($2::float8), $3)
  on conflict (org_id, window_start) do update set count = api_usage.count + excluded.count
  returning org_id, window_start, count)
select r.count from r, pg_notify('vigie_cache', 'rate:' || r.org_id || ':' || extract(epoch from r.window_start)::bigint || ':' || r.count)`;
const WITHOUT = `insert into api_usage (org_id, window_start, count) values ($1, to_timestamp($2::float8), $3)
on conflict (org_id, window_start) do update set count = api_usage.count + excluded.count
returning count`;
const t = await tenant(1_000_000_000);
const window = Math.floor(Date.now() / 3_600_000) * 3600;
const reserver = new pg.Client({ connectionString: url });
const listener = new pg.Client({ connectionString: url });
await Promise.all([reserver.connect(), listener.connect()]);
await listener.query("listen vigie_cache");
const heardAt = new Map<number, number>();
listener.on("notification", (m) => void heardAt.set(Number(m.payload!.split(":")[3]), performance.now()));
const lags: number[] = [];
for (let i = 0; i < 2000; i++) {
  const { rows } = await reserver.query({ name: "with", text: WITH, values: [t.orgId, window, 1] });
  const answeredAt = performance.now();
  const count = Number(rows[0].count);
  while (!heardAt.has(count)) await new Promise((r) => setImmediate(r));
  lags.push(heardAt.get(count)! - answeredAt);
}
lags.sort((x, y) => x - y);
const q = (p: number) => lags[Math.min(lags.length - 1, Math.floor(p * lags.length))]!.toFixed(3);
console.log(
  `notification heard on another connection, after the reserving connection's answer (2000 reservations, ms): p50 ${q(0.5)}, p99 ${q(0.99)}, max ${q(1)}, min ${q(0)}`,
);
const cost: Record<"without" | "with", number[]> = { without: [], with: [] };
for (let round = 0; round < 10; round++) {
  for (const [label, text] of [
    ["without", WITHOUT],
    ["with", WITH],
  ] as const) {
    const start = performance.now();
    for (let i = 0; i < 1000; i++) await reserver.query({ name: label, text, values: [t.orgId, window, 1] });
    cost[label].push(performance.now() - start); // ms for 1000 = µs each
  }
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!.toFixed(0);
console.log(
  `reservation statement, median of 10 alternating rounds of 1000: without pg_notify ${median(cost.without)} µs, with ${median(cost.with)} µs`,
);
await Promise.all([reserver.end(), listener.end()]);
for (const s of servers) s.kill("SIGTERM");
await Promise.all(servers.map((s) => new Promise((r) => s.once("exit", r))));
agent.destroy();
await database.close();
await admin(`drop database if exists ${name} with (force)`);

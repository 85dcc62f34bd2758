/**
 * API throughput, first side by side with the original stack: `../shared/bench/api-side-by-side.sh`
 * (BENCH_SIDE_BY_SIDE to use another copy) serves the workflow list with key authentication and the
 * hourly limit from Vigie (`node dist/cli.js serve`, PostgreSQL) and from FastAPI + uvicorn (2
 * workers) + asyncpg on the same PostgreSQL, in alternating rounds (BENCH_ROUNDS, default 5), and
 * prints each round and the median ratio — the figure that counts, measured beside the reference
 * on this machine rather than against a stale absolute number.
 * Then (BENCH_API_DETAIL=off skips it) the figures of one process: requests per second and latency
 * with 10 connections for GET /api/v1/me and the workflow list, beside a bare route and a
 * one-query route, on embedded PGlite and, when reachable, on PostgreSQL (BENCH_DATABASE_URL).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import autocannon from "autocannon";
import pg from "pg";

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 10;
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

interface Target {
  port: number;
  key: string;
  orgId: string;
  projectId: string;
}
interface Row {
  driver: string;
  route: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function startServer(env: Record<string, string>): Promise<{ target: Target; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/api-server.ts"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return {
    target: JSON.parse(line) as Target,
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

async function load(url: string, headers: Record<string, string>, duration: number) {
  const r = await autocannon({ url, connections: CONNECTIONS, duration, headers });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx };
}

async function measure(driver: string, env: Record<string, string>): Promise<Row[]> {
  const { target, stop } = await startServer(env);
  const base = `http://127.0.0.1:${target.port}`;
  const auth = { authorization: `Bearer ${target.key}` };
  const routes: [string, string, Record<string, string>][] = [
    ["bare Fastify route (constant)", "/bench/bare", {}],
    ["raw single-row query (same pool)", "/bench/raw", {}],
    ["GET /api/v1/me", "/api/v1/me", auth],
    ["GET workflows list", `/api/v1/organizations/${target.orgId}/projects/${target.projectId}/workflows`, auth],
  ];
  const rows: Row[] = [];
  try {
    for (const [route, path, headers] of routes) {
      await load(base + path, headers, 2); // warm-up: JIT, prepared statements, pool
      rows.push({ driver, route, ...(await load(base + path, headers, DURATION)) });
    }
  } finally {
    await stop();
  }
  return rows;
}

async function postgresDatabase(): Promise<{ url: string; drop: () => Promise<void> } | null> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  try {
    await admin.connect();
  } catch {
    return null;
  }
  const name = `vigie_bench_${process.pid}`;
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const a = new pg.Client({ connectionString: ADMIN_URL });
      await a.connect();
      await a.query(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}

const SIDE_BY_SIDE = process.env.BENCH_SIDE_BY_SIDE ?? resolve("../shared/bench/api-side-by-side.sh");

/** Runs the side-by-side script, echoing its rounds; returns the ratio of each round. */
async function sideBySide(): Promise<number[] | null> {
  if (!existsSync(SIDE_BY_SIDE)) {
    console.log(`side by side: ${SIDE_BY_SIDE} not found (BENCH_SIDE_BY_SIDE): skipped`);
    return null;
  }
  const child = spawn("bash", [SIDE_BY_SIDE], {
    env: { ...process.env, VIGIE: process.cwd(), ROUNDS: process.env.BENCH_ROUNDS ?? "5" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const ratios: number[] = [];
  for await (const line of createInterface({ input: child.stdout! })) {
    console.log(line);
    const m = / ratio ([\d.]+)$/.exec(line);
    if (m) ratios.push(Number(m[1]));
  }
  const code = await new Promise<number | null>((res) => (child.exitCode !== null ? res(child.exitCode) : child.once("exit", res)));
  if (code !== 0) throw new Error(`${SIDE_BY_SIDE} exited with ${code}`);
  return ratios;
}

export async function benchApi(): Promise<void> {
  console.log(
    "Workflow list with API key and the exact hourly limit: Vigie against FastAPI + uvicorn (2 workers) + asyncpg, alternating rounds",
  );
  const ratios = await sideBySide();
  if (ratios?.length) {
    const sorted = [...ratios].sort((x, y) => x - y);
    const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
    console.log(
      `side by side: ratio vigie/fastapi ${median.toFixed(2)}× (median of ${ratios.length} rounds; spread ${sorted[0]!.toFixed(2)}–${sorted.at(-1)!.toFixed(2)}×; goal ≥ 4×)`,
    );
  }
  if (process.env.BENCH_API_DETAIL === "off") return;
  const rows: Row[] = [];
  const dir = mkdtempSync(join(tmpdir(), "vigie-bench-"));
  try {
    rows.push(...(await measure("pglite", { VIGIE_DATA_DIR: join(dir, "data"), DATABASE_URL: "" })));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const pgdb = await postgresDatabase();
  if (pgdb) {
    try {
      rows.push(...(await measure("postgres", { DATABASE_URL: pgdb.url })));
    } finally {
      await pgdb.drop();
    }
  } else {
    console.log(`PostgreSQL not reachable at ${ADMIN_URL}: skipped`);
  }
  console.log(`\nAPI throughput — ${CONNECTIONS} connections, ${DURATION} s per route`);
  console.table(
    rows.map((r) => ({ driver: r.driver, route: r.route, "req/s": Math.round(r.rps), "p50 ms": r.p50, "p99 ms": r.p99, errors: r.errors })),
  );
  for (const driver of ["pglite", "postgres"]) {
    const raw = rows.find((r) => r.driver === driver && r.route.startsWith("raw"));
    const list = rows.find((r) => r.driver === driver && r.route === "GET workflows list");
    if (raw && list)
      console.log(
        `${driver}: workflow list = ${((100 * list.rps) / raw.rps).toFixed(0)}% of the one-query route (served from memory: above 100%)`,
      );
  }
}

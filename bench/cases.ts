/**
 * Cases benchmark: one project holding 50,000 cases (real CVE ids: the first 50,000 of the EPSS
 * score set in ../shared/data), 10,000 of them under an exception (5,000 expiring the same day):
 * 1. GET cases p50/p95, default and filtered;
 * 2. the expiry job when nothing expires, when the 5,000 expire at once, and run again;
 * 3. the CSV export of the 50,000 rows over a real socket: time, size and the process's peak RSS.
 * On PostgreSQL (BENCH_DATABASE_URL) and on embedded PGlite (BENCH_PGLITE=off to skip it).
 */
import { createReadStream } from "node:fs";
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createGunzip } from "node:zlib";
import { buildApp, createServices } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import type { Database } from "../src/platform/db/client.js";
import { createLogger } from "../src/platform/log.js";
import { addDays, parisDate, parisMidnight } from "../src/platform/paris.js";
import { benchTables } from "./drivers.js";

const DATA = process.env.VIGIE_SHARED_DATA ?? "../shared/data";
const CASES = 50_000;
const WITH_EXCEPTION = 10_000;
const EXPIRING_TOGETHER = 5_000;

type Row = Record<string, string | number>;

export async function sql<T>(database: Database, text: string, values: unknown[] = []): Promise<T[]> {
  return (await database.executeSql(text, values)).rows as T[];
}

/** The first `n` CVE ids of the EPSS score set. */
export async function realCveIds(n: number): Promise<string[]> {
  const ids: string[] = [];
  const input = createReadStream(join(DATA, "epss", "epss_scores-2026-08-16.from-first-api.csv.gz")).pipe(createGunzip());
  for await (const line of createInterface({ input })) {
    if (!line.startsWith("CVE-")) continue;
    ids.push(line.slice(0, line.indexOf(",")));
    if (ids.length === n) break;
  }
  input.destroy();
  return ids;
}

function percentiles(times: number[]): { p50: number; p95: number } {
  times.sort((a, b) => a - b);
  return { p50: +times[Math.floor(times.length / 2)]!.toFixed(1), p95: +times[Math.floor(times.length * 0.95)]!.toFixed(1) };
}

/** 50,000 cases: statuses and severities mixed, 5,000 MITIGATED exceptions ending on `soon`, 5,000 on `later`. */
async function fill(database: Database, orgId: string, projectId: string, ids: string[], soon: string, later: string): Promise<void> {
  await sql(
    database,
    `insert into cases (org_id, project_id, cve_id, status, severity, severity_manual, notes, exception_nature, exception_measure,
       exception_justification, exception_expires_on, exception_set_at, updated_at)
     select $1, $2, id,
       case when n <= $4 then 'attenue' else (array['nouveau','en_analyse','en_remediation','corrige','non_concerne'])[1 + n % 5] end,
       (array['critical','high','medium','low','unknown'])[1 + (n * 7) % 5], true,
       case when n % 10 = 0 then 'revue ' || id end,
       case when n <= $4 then 'MITIGATED' end, case when n <= $4 then 'règle WAF' end, case when n <= $4 then 'exposition limitée' end,
       case when n <= $5 then $6::date when n <= $4 then $7::date end, case when n <= $4 then now() end,
       now() - (n || ' seconds')::interval
     from unnest($3::text[]) with ordinality as u(id, n)`,
    [orgId, projectId, ids, WITH_EXCEPTION, EXPIRING_TOGETHER, soon, later],
  );
  await sql(database, `analyze cases`);
}

async function latency(app: Awaited<ReturnType<typeof buildApp>>["app"], key: string, base: string, today: string): Promise<Row[]> {
  const out: Row[] = [];
  const queries = [
    "",
    "status=en_analyse",
    "status=nouveau&status=en_remediation",
    "severity=critical",
    "has_exception=true",
    `expiring_before=${addDays(today, 10)}`,
    "sort=expires_on",
    "q=CVE-2016",
    "page=100",
  ];
  for (const query of queries) {
    const times: number[] = [];
    for (let i = 0; i < 60; i++) {
      const t0 = performance.now();
      const res = await app.inject({ method: "GET", url: `${base}/cases?${query}`, headers: { authorization: `Bearer ${key}` } });
      if (res.statusCode !== 200) throw new Error(`${query}: ${res.statusCode} ${res.body}`);
      if (i >= 10) times.push(performance.now() - t0);
    }
    out.push({ query: `GET cases?${query}`, ...percentiles(times) });
    console.log(JSON.stringify(out.at(-1)));
  }
  return out;
}

/** Downloads the CSV export over a socket, sampling the process's RSS (server and client share it). */
async function exportCsv(port: number, key: string, base: string): Promise<Row> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const t0 = performance.now();
  const { bytes, lines } = await new Promise<{ bytes: number; lines: number }>((resolve, reject) => {
    request({ port, path: `${base}/cases/export?format=csv`, headers: { authorization: `Bearer ${key}` } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`export: ${res.statusCode}`));
      let bytes = 0;
      let lines = 0;
      res.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
        for (const b of chunk) if (b === 10) lines++;
      });
      res.on("end", () => resolve({ bytes, lines }));
      res.on("error", reject);
    })
      .on("error", reject)
      .end();
  });
  clearInterval(sampler);
  return {
    step: "GET cases/export?format=csv (50,000 rows)",
    ms: Math.round(performance.now() - t0),
    lines,
    MB: +(bytes / 1e6).toFixed(1),
    "rss before MB": Math.round(before / 1e6),
    "peak rss MB": Math.round(peak / 1e6),
  };
}

async function benchDriver(database: Database): Promise<{ steps: Row[]; lat: Row[] }> {
  await database.migrate();
  const config = loadConfig({ ...process.env, VIGIE_JOBS: "off", LOG_LEVEL: "silent" });
  const services = createServices(database, config);
  const { app } = await buildApp({ config, database, logger: createLogger("silent"), services });
  const { org } = await services.organizations.createOrg({ name: "Bench cases" });
  const project = await services.projects.create({ orgId: org.id, name: "Production" });
  const { key } = await services.apiKeys.create({ orgId: org.id, scopes: ["cases-write"], projectIds: [] });
  const base = `/api/v1/organizations/${org.id}/projects/${project.id}`;
  const now = new Date();
  const today = parisDate(now);
  const soon = addDays(today, 3);
  const steps: Row[] = [];
  const ids = await realCveIds(CASES);
  let t0 = performance.now();
  await fill(database, org.id, project.id, ids, soon, addDays(today, 200));
  steps.push({ step: `insert ${CASES} cases (${WITH_EXCEPTION} with exceptions)`, ms: Math.round(performance.now() - t0) });
  const lat = await latency(app, key, base, today);

  const quiet: number[] = [];
  for (let i = 0; i < 11; i++) {
    t0 = performance.now();
    await services.caseExpiry.run(now);
    if (i) quiet.push(performance.now() - t0);
  }
  steps.push({ step: "expiry job, nothing expires (median of 10)", ms: percentiles(quiet).p50 });
  // 00:00 Paris the day after `soon`: the 5,000 exceptions end together.
  const at = parisMidnight(addDays(soon, 1));
  t0 = performance.now();
  const r = await services.caseExpiry.run(at);
  steps.push({
    step: `expiry job, ${EXPIRING_TOGETHER} exceptions expire at once`,
    ms: Math.round(performance.now() - t0),
    result: JSON.stringify(r),
  });
  t0 = performance.now();
  const again = await services.caseExpiry.run(at);
  steps.push({ step: "expiry job run again (idempotent)", ms: Math.round(performance.now() - t0), result: JSON.stringify(again) });

  await app.listen({ port: 0, host: "127.0.0.1" });
  steps.push(await exportCsv((app.server.address() as AddressInfo).port, key, base));
  await app.close();
  return { steps, lat };
}

export async function benchCases(): Promise<void> {
  await benchTables("cases", "Cases", benchDriver);
}

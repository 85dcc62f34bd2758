// BENCH=csaf's Vigie side, in processes of their own started as `npm start` starts the server (node
// on the built code, MALLOC_ARENA_MAX=2, --max-old-space-size=1024), so that their RSS is the served
// process's. `prepare`: creates and migrates the database, the organization, its projects, stack
// items and key, and prints them (one JSON line). Then, as a server restarted on that database
// (CSAF_BENCH_SETUP: what prepare printed): an organization follows the bench's provider
// (bench/csaf-provider.ts, port in CSAF_BENCH_PORT), first sync, a sync with nothing changed, then
// the provider revises one advisory and the csaf-sync job runs as its cron runs it — timed until the
// alert the revision changes has changed. Prints one JSON line. A fresh PGlite database costs its
// process a transient 300–600 MB (PGlite's initdb runs in a WebAssembly instance of its own, freed
// whenever V8 collects it): the two processes keep that out of the sync's figure, as a server
// started on an existing database has none of it. CSAF_BENCH_DIST names the built code (dist/ by
// default; the bench passes an older build to compare).
import { readFileSync, writeFileSync } from "node:fs";
import { sql } from "drizzle-orm";

const dist = new URL(`../${process.env.CSAF_BENCH_DIST ?? "dist"}/`, import.meta.url);
const { buildApp, createServices } = await import(new URL("app.js", dist).href);
const { loadConfig } = await import(new URL("config.js", dist).href);
const { openDatabase } = await import(new URL("platform/db/client.js", dist).href);
const { createLogger } = await import(new URL("platform/log.js", dist).href);
const { JOBS } = await import(new URL("jobs.js", dist).href);
const { rowsOf } = await import(new URL("platform/db/sql.js", dist).href);

const port = Number(process.env.CSAF_BENCH_PORT);
// CSAF_BENCH_TRACE=1: the process's memory every second on stderr (where a peak comes from).
if (process.env.CSAF_BENCH_TRACE)
  setInterval(() => {
    const m = process.memoryUsage();
    const mb = (n) => Math.round(n / 1e6);
    process.stderr.write(
      `rss ${mb(m.rss)} heap ${mb(m.heapUsed)}/${mb(m.heapTotal)} external ${mb(m.external)} buffers ${mb(m.arrayBuffers)}\n`,
    );
  }, 1000).unref();
const provider = `http://127.0.0.1:${port}`;

/** VmRSS and VmHWM (the peak since exec, or since the last reset) of this process, in MB. */
function memory() {
  const status = readFileSync("/proc/self/status", "utf8");
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { rss: Math.round(kb("VmRSS") / 1024), peak: Math.round(kb("VmHWM") / 1024) };
}
/** Resets VmHWM to the current RSS (Linux: `5` to clear_refs), so that the next peak is the step's own. */
function resetPeak() {
  writeFileSync("/proc/self/clear_refs", "5");
}
async function measured(f) {
  resetPeak();
  const before = memory().rss;
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const value = await f();
  const used = process.cpuUsage(cpu);
  return {
    value,
    ms: Math.round(performance.now() - t0),
    cpuMs: Math.round((used.user + used.system) / 1000),
    beforeMb: before,
    peakMb: memory().peak,
  };
}
const requests = async () => Number(await (await fetch(`${provider}/__requests`)).text());

const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL || undefined, dataDir: process.env.VIGIE_DATA_DIR });
const preparing = process.argv[2] === "prepare";
if (preparing) await database.migrate();
const config = loadConfig({
  ...process.env,
  VIGIE_JOBS: "off",
  LOG_LEVEL: "silent",
  VIGIE_CSAF_ALLOW_HTTP: "true",
  VIGIE_ALLOW_PRIVATE_TARGETS: "true",
  VIGIE_FEEDS_RETRIES: "0",
});
const logger = createLogger("silent");
const services = createServices(database, config);
const { app } = await buildApp({ config, database, logger, services });
if (preparing) {
  const { org } = await services.organizations.createOrg({ name: "Bench CSAF" });
  const project = await services.projects.create({ orgId: org.id, name: "Production" });
  const atelier = await services.projects.create({ orgId: org.id, name: "Atelier" });
  const { key } = await services.apiKeys.create({ orgId: org.id, scopes: ["stacks-write"], projectIds: [] });
  const stack = async (projectId, items) => {
    const r = await app.inject({
      method: "POST",
      url: `/api/v1/organizations/${org.id}/projects/${projectId}/stacks`,
      headers: { authorization: `Bearer ${key}` },
      payload: { name: "Bench", items },
    });
    if (r.statusCode !== 201) throw new Error(`stack: ${r.statusCode} ${r.body.slice(0, 300)}`);
  };
  // Items the documents name: the BSI converter's CPE, CISA products by name; in Atelier a C80 at BG,
  // affected by ICSA-23-208-03 version 5 only (version 6 says up to BF).
  await stack(project.id, [
    { item_type: "cpe", value: "cpe:2.3:a:csaf-tools:cvrf-csaf-converter:1.0.0-rc1:*:*:*:*:*:*:*" },
    { item_type: "product", value: "Mitsubishi Electric:C80 (BND-2036W000-**)@BE" },
    { item_type: "product", value: "Schneider Electric:IGSS Dashboard (DashBoard.exe)@16.0.0.23200" },
  ]);
  await stack(atelier.id, [{ item_type: "product", value: "Mitsubishi Electric:C80 (BND-2036W000-**)@BG" }]);
  process.stdout.write(`${JSON.stringify({ orgId: org.id, atelierId: atelier.id, key })}\n`);
  await app.close();
  await database.close();
  process.exit(0);
}
const setup = JSON.parse(process.env.CSAF_BENCH_SETUP);
const org = { id: setup.orgId };
const atelier = { id: setup.atelierId };
const headers = { authorization: `Bearer ${setup.key}` };
await requests();
const startedMb = memory().rss;

const first = await measured(() =>
  app.inject({
    method: "POST",
    url: `/api/v1/organizations/${org.id}/csaf/providers`,
    headers,
    payload: { fournisseur: `${provider}/.well-known/csaf/provider-metadata.json` },
  }),
);
const body = first.value.json();
if (first.value.statusCode !== 201 || body.synchronisation.status !== "synced")
  throw new Error(`first sync: ${first.value.statusCode} ${first.value.body.slice(0, 500)}`);
const s = body.synchronisation;
const firstRequests = await requests();

const idle = await measured(() =>
  app.inject({ method: "POST", url: `/api/v1/organizations/${org.id}/csaf/providers/${body.fournisseur.id}/sync`, headers }),
);
const i = idle.value.json();
const idleRequests = await requests();

// The revision: the alert of Atelier's C80 (raised by version 5) stops matching once version 6 is applied.
const c80 = async () =>
  (await rowsOf(database.db, sql`select matching from alerts where project_id = ${atelier.id}::uuid and cve_id = 'CVE-2023-3346'`))[0]
    ?.matching;
if ((await c80()) !== true) throw new Error(`Atelier's C80 alert before the revision: ${await c80()}`);
await fetch(`${provider}/__revise`, { method: "POST" });
const t0 = performance.now();
let changedMs = null;
const job = JOBS["csaf-sync"].handler({}, services, logger, new Date());
const poll = (async () => {
  while (changedMs === null) {
    if ((await c80()) === false) changedMs = Math.round(performance.now() - t0);
    else await new Promise((r) => setTimeout(r, 20));
  }
})();
const jobResult = await job;
const jobMs = Math.round(performance.now() - t0);
await Promise.race([poll, new Promise((r) => setTimeout(r, 5000))]);
const revised = jobResult.providers[0];

process.stdout.write(
  `${JSON.stringify({
    startedMb,
    first: {
      ms: first.ms,
      cpuMs: first.cpuMs,
      beforeMb: first.beforeMb,
      peakMb: first.peakMb,
      requests: firstRequests,
      result: `${s.appliquees} kept, ${s.refusees.length} refused, ${s.alertes} alerts, ${s.propositions} proposals`,
    },
    idle: {
      ms: idle.ms,
      cpuMs: idle.cpuMs,
      beforeMb: idle.beforeMb,
      peakMb: idle.peakMb,
      requests: idleRequests,
      result: `${i.appliquees} kept, ${i.inchangees} unchanged, ${i.alertes} alerts`,
    },
    revision: { alertChangedMs: changedMs, jobMs, result: `${revised.appliquees} kept, ${revised.refusees} refused` },
  })}\n`,
);
await app.close();
await database.close();
process.exit(0);

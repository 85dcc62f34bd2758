/**
 * BENCH=csaf: a CSAF provider of 5,000 advisories (bench/csaf-provider.ts, a child process: real
 * documents of test/fixtures/csaf replicated with distinct tracking ids), followed by an
 * organization with a small stack that its documents name (a purl, CPEs, product names): the first
 * sync from scratch (discovery, 5,000 × document + .sha512 + .asc, schema, hash, signature, write,
 * matching), then a sync with nothing changed — time, requests the provider served, the process's
 * peak RSS (Vigie alone: the provider is another process) and CPU. On PostgreSQL
 * (BENCH_DATABASE_URL) and on embedded PGlite (BENCH_PGLITE=off to skip it).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { buildApp, createServices } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import type { Database } from "../src/platform/db/client.js";
import { createLogger } from "../src/platform/log.js";
import { benchTables } from "./drivers.js";

const DOCS = Number(process.env.CSAF_BENCH_DOCS ?? 5000);

async function startProvider(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/csaf-provider.ts"], {
    env: { ...process.env, CSAF_BENCH_DOCS: String(DOCS) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /READY (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", (code) => reject(new Error(`provider exited: ${code}`)));
  });
  return { child, port };
}

/** Runs `f`, sampling the process's RSS every 20 ms: time, peak RSS, CPU (user + system). */
async function measured<T>(f: () => Promise<T>): Promise<{ value: T; ms: number; beforeMb: number; peakMb: number; cpuMs: number }> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  try {
    const value = await f();
    const used = process.cpuUsage(cpu);
    return {
      value,
      ms: Math.round(performance.now() - t0),
      beforeMb: Math.round(before / 1e6),
      peakMb: Math.round(Math.max(peak, process.memoryUsage().rss) / 1e6),
      cpuMs: Math.round((used.user + used.system) / 1000),
    };
  } finally {
    clearInterval(sampler);
  }
}

async function benchDriver(database: Database): Promise<{ steps: Record<string, string | number>[] }> {
  await database.migrate();
  const config = loadConfig({
    ...process.env,
    VIGIE_JOBS: "off",
    LOG_LEVEL: "silent",
    VIGIE_CSAF_ALLOW_HTTP: "true",
    VIGIE_ALLOW_PRIVATE_TARGETS: "true",
    VIGIE_FEEDS_RETRIES: "0",
  });
  const services = createServices(database, config);
  const { app } = await buildApp({ config, database, logger: createLogger("silent"), services });
  const { child, port } = await startProvider();
  const requests = async () => Number(await (await fetch(`http://127.0.0.1:${port}/__requests`)).text());
  try {
    const { org } = await services.organizations.createOrg({ name: "Bench CSAF" });
    const project = await services.projects.create({ orgId: org.id, name: "Production" });
    const { key } = await services.apiKeys.create({ orgId: org.id, scopes: ["stacks-write"], projectIds: [] });
    const headers = { authorization: `Bearer ${key}` };
    // Items the documents name: the BSI converter's CPE, CISA products by name.
    const stack = await app.inject({
      method: "POST",
      url: `/api/v1/organizations/${org.id}/projects/${project.id}/stacks`,
      headers,
      payload: {
        name: "Bench",
        items: [
          { item_type: "cpe", value: "cpe:2.3:a:csaf-tools:cvrf-csaf-converter:1.0.0-rc1:*:*:*:*:*:*:*" },
          { item_type: "product", value: "Mitsubishi Electric:C80 (BND-2036W000-**)@BE" },
          { item_type: "product", value: "Schneider Electric:IGSS Dashboard (DashBoard.exe)@16.0.0.23200" },
        ],
      },
    });
    if (stack.statusCode !== 201) throw new Error(`stack: ${stack.statusCode} ${stack.body.slice(0, 300)}`);
    await requests();
    const first = await measured(async () =>
      app.inject({
        method: "POST",
        url: `/api/v1/organizations/${org.id}/csaf/providers`,
        headers,
        payload: { fournisseur: `http://127.0.0.1:${port}/.well-known/csaf/provider-metadata.json` },
      }),
    );
    const body = first.value.json();
    if (first.value.statusCode !== 201 || body.synchronisation.status !== "synced")
      throw new Error(`first sync: ${first.value.statusCode} ${first.value.body.slice(0, 500)}`);
    const s = body.synchronisation;
    const firstRequests = await requests();
    if (process.env.CSAF_BENCH_REFUSALS) console.log([...new Set(s.refusees.map((r: { raison: string }) => r.raison))]);
    const idle = await measured(async () =>
      app.inject({ method: "POST", url: `/api/v1/organizations/${org.id}/csaf/providers/${body.fournisseur.id}/sync`, headers }),
    );
    const i = idle.value.json();
    const idleRequests = await requests();
    return {
      steps: [
        {
          step: `first sync, ${DOCS} advisories`,
          ms: first.ms,
          "cpu ms": first.cpuMs,
          "rss before MB": first.beforeMb,
          "peak rss MB": first.peakMb,
          requests: firstRequests,
          result: `${s.appliquees} kept, ${s.refusees.length} refused, ${s.alertes} alerts, ${s.propositions} proposals`,
        },
        {
          step: "sync again, nothing changed",
          ms: idle.ms,
          "cpu ms": idle.cpuMs,
          "rss before MB": idle.beforeMb,
          "peak rss MB": idle.peakMb,
          requests: idleRequests,
          result: `${i.appliquees} kept, ${i.inchangees} unchanged, ${i.alertes} alerts`,
        },
      ],
    };
  } finally {
    child.kill("SIGTERM");
    await app.close();
  }
}

export async function benchCsaf(): Promise<void> {
  await benchTables("csaf", `CSAF provider, ${DOCS} advisories`, benchDriver);
}

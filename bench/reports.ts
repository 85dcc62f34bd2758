/**
 * Evidence reports benchmark: one project holding 50,000 alerts and 10,000 cases on real CVE ids
 * (the first 50,000 of the EPSS score set in ../shared/data), inserted set-based. The CVE rows'
 * dates and KEV facts are synthetic (the benchmark measures cost, not facts): 1% KEV with a due date,
 * publication 1 to 400 days before the alert, a quarter of the cases closed with a history row.
 * 1. the project report (rapport_projet, 366 days): content + canonical JSON + fingerprint, PDF
 *    rendering, and the whole POST reports (stored), with the process's peak RSS;
 * 2. the KEV compliance report of the same project (every KEV CVE listed, ~500 rows);
 * 3. find-again by file: a 5 MB PDF uploaded (multipart) over a real socket, and by fingerprint.
 * Goal (issue 14): ≤ 3 s and ≤ 300 MB on PostgreSQL. Run under tsx, the process starts at ~230 MB
 * (tsx's transpiled sources: ~110 MB more than the built server), so the `Δ MB` column — peak
 * during the step minus RSS before it, after a GC with --expose-gc — is what the step costs. On PostgreSQL (BENCH_DATABASE_URL) and on
 * embedded PGlite (BENCH_PGLITE=off to skip it).
 */
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { buildApp, createServices } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import type { Database } from "../src/platform/db/client.js";
import { createLogger } from "../src/platform/log.js";
import { addDays, parisDate } from "../src/platform/paris.js";
import { canonicalJson, sha256Hex } from "../src/modules/reports/reports.canonical.js";
import { buildContent } from "../src/modules/reports/reports.content.js";
import { renderPdf } from "../src/modules/reports/reports.pdf.js";
import { realCveIds, sql } from "./cases.js";
import { benchTables } from "./drivers.js";

const ALERTS = 50_000;
const CASES = 10_000;
const UPLOAD_BYTES = 5 * 1024 * 1024;

type Row = Record<string, string | number>;

async function fill(database: Database, orgId: string, projectId: string, ids: string[]): Promise<void> {
  await sql(
    database,
    `insert into cves (cve_id, state, severity, cvss_score, date_published, is_kev, kev)
     select id, 'PUBLISHED', (array['critical','high','medium','low','unknown'])[1 + n % 5], (n % 100) / 10.0,
       now() - ((30 + n % 400) || ' days')::interval, n % 100 = 0,
       case when n % 100 = 0 then jsonb_build_object('date_added', to_char(now() - interval '60 days', 'YYYY-MM-DD'),
         'due_date', to_char(now() - ((n % 3) * 30 - 20 || ' days')::interval, 'YYYY-MM-DD')) end
     from unnest($1::text[]) with ordinality as u(id, n) on conflict (cve_id) do nothing`,
    [ids],
  );
  await sql(
    database,
    `insert into alerts (org_id, project_id, cve_id, triggered_at, severity, cvss_score, is_kev, has_poc, palier, vendor, product, source, match)
     select $1, $2, id, now() - ((n % 300) || ' days')::interval - (n || ' seconds')::interval,
       (array['critical','high','medium','low','unknown'])[1 + n % 5], (n % 100) / 10.0, n % 100 = 0, n % 7 = 0,
       (array['P1','P2','P3','P4'])[1 + n % 4], 'vendor' || (n % 50), 'product' || (n % 500), 'bench', '{}'::jsonb
     from unnest($3::text[]) with ordinality as u(id, n)`,
    [orgId, projectId, ids],
  );
  await sql(
    database,
    `insert into cases (org_id, project_id, cve_id, status, severity, exception_nature, exception_measure, exception_justification,
       exception_expires_on, exception_set_at, created_at, updated_at)
     select $1, $2, id,
       case when n % 10 = 0 then 'attenue' else (array['nouveau','en_analyse','en_remediation','corrige','non_concerne'])[1 + n % 5] end,
       (array['critical','high','medium','low','unknown'])[1 + n % 5],
       case when n % 10 = 0 then 'MITIGATED' end, case when n % 10 = 0 then 'règle WAF' end, case when n % 10 = 0 then 'exposition limitée' end,
       case when n % 10 = 0 then current_date + (n % 90)::int end, case when n % 10 = 0 then now() end,
       now() - ((n % 200) || ' days')::interval, now()
     from unnest($3::text[]) with ordinality as u(id, n) where n <= $4`,
    [orgId, projectId, ids, CASES],
  );
  await sql(
    database,
    `insert into case_history (case_id, event, from_status, to_status, actor_type, created_at)
     select id, 'status', 'en_analyse', status, 'job', created_at + interval '3 days' from cases
     where project_id = $1 and status in ('corrige', 'non_concerne', 'attenue')`,
    [projectId],
  );
  await sql(database, `analyze alerts; analyze cases; analyze case_history; analyze cves`);
}

/** Runs `f` while sampling the process's RSS every 10 ms (after a full GC when node runs with --expose-gc). */
async function measured<T>(f: () => Promise<T>): Promise<{ value: T; ms: number; peakMB: number; beforeMB: number }> {
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const t0 = performance.now();
  const value = await f();
  const ms = Math.round(performance.now() - t0);
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  return { value, ms, peakMB: Math.round(peak / 1e6), beforeMB: Math.round(before / 1e6) };
}

/** A multipart/form-data body holding `file` in the field `file`. */
async function multipart(file: Buffer): Promise<{ body: Buffer; type: string }> {
  const form = new FormData();
  form.append("file", new Blob([file]), "rapport.pdf");
  const req = new Request("http://127.0.0.1/", { method: "POST", body: form });
  return { body: Buffer.from(await req.arrayBuffer()), type: req.headers.get("content-type")! };
}

async function upload(
  port: number,
  key: string,
  path: string,
  form: { body: Buffer; type: string },
): Promise<{ status: number; body: string }> {
  const { body } = form;
  return new Promise((resolve, reject) => {
    const r = request(
      {
        port,
        path,
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": form.type, "content-length": body.length },
      },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode!, body: text }));
        res.on("error", reject);
      },
    );
    r.on("error", reject);
    r.end(body);
  });
}

async function benchDriver(database: Database): Promise<{ steps: Row[] }> {
  await database.migrate();
  const config = loadConfig({ ...process.env, VIGIE_JOBS: "off", LOG_LEVEL: "silent" });
  const services = createServices(database, config);
  const { app } = await buildApp({ config, database, logger: createLogger("silent"), services });
  const { org } = await services.organizations.createOrg({ name: "Bench reports" });
  const project = await services.projects.create({ orgId: org.id, name: "Production" });
  const { key } = await services.apiKeys.create({ orgId: org.id, scopes: ["reports-write"], projectIds: [] });
  const scope = { id: project.id, orgId: org.id };
  const steps: Row[] = [];
  steps.push({ step: "process after start-up", "rss before MB": Math.round(process.memoryUsage().rss / 1e6) });
  const ids = await realCveIds(ALERTS);
  const t0 = performance.now();
  await fill(database, org.id, project.id, ids);
  steps.push({
    step: `insert ${ALERTS} alerts, ${CASES} cases`,
    ms: Math.round(performance.now() - t0),
    "rss before MB": Math.round(process.memoryUsage().rss / 1e6),
  });

  const today = parisDate(new Date());
  const period = { from: addDays(today, -365), to: today };
  const input = {
    reportId: "00000000-0000-0000-0000-000000000000",
    type: "rapport_projet" as const,
    titre: "Bench",
    language: "fr" as const,
    orgId: org.id,
    project: { id: project.id, name: "Production" },
    projects: [{ id: project.id, name: "Production" }],
    period,
    today,
  };
  await buildContent(database.db, input); // warm-up (plans, JIT of the renderer's paths)
  const content = await measured(async () => {
    const c = await buildContent(database.db, input);
    const json = canonicalJson(c);
    return { c, json, empreinte: sha256Hex(json) };
  });
  steps.push({
    step: "rapport_projet: content + canonical JSON + fingerprint",
    ms: content.ms,
    "rss before MB": content.beforeMB,
    "peak rss MB": content.peakMB,
    "Δ MB": content.peakMB - content.beforeMB,
    KB: Math.round(content.value.json.length / 1024),
  });
  const pdf = await measured(() =>
    renderPdf(JSON.parse(content.value.json), {
      type: "rapport_projet",
      language: "fr",
      empreinte: content.value.empreinte,
      genereLe: "2026-11-24T12:00:00Z",
      version: 1,
    }),
  );
  steps.push({
    step: "rapport_projet: PDF rendering",
    ms: pdf.ms,
    "rss before MB": pdf.beforeMB,
    "peak rss MB": pdf.peakMB,
    "Δ MB": pdf.peakMB - pdf.beforeMB,
    KB: Math.round(pdf.value.length / 1024),
  });
  const post = await measured(() =>
    app.inject({
      method: "POST",
      url: `/api/v1/organizations/${org.id}/projects/${project.id}/reports`,
      headers: { authorization: `Bearer ${key}` },
      payload: { report_type: "rapport_projet", ...period },
    }),
  );
  if (post.value.statusCode !== 201) throw new Error(`POST reports: ${post.value.statusCode} ${post.value.body}`);
  const report = post.value.json() as { id: string; empreinte: string };
  steps.push({
    step: "POST reports rapport_projet (366 days): generate PDF + JSON, store",
    ms: post.ms,
    "rss before MB": post.beforeMB,
    "peak rss MB": post.peakMB,
    "Δ MB": post.peakMB - post.beforeMB,
  });
  const kev = await measured(() =>
    services.reports.create(scope, { report_type: "conformite_kev", language: "fr" }, { type: "job", id: null, label: "bench" }),
  );
  steps.push({
    step: "conformite_kev (every KEV alert listed), generated and stored",
    ms: kev.ms,
    "rss before MB": kev.beforeMB,
    "peak rss MB": kev.peakMB,
    "Δ MB": kev.peakMB - kev.beforeMB,
  });
  const resync = await measured(async () => {
    await sql(
      database,
      `insert into data_versions (name, version) values ('cves', 1) on conflict (name) do update set version = data_versions.version + 1`,
    );
    return services.reports.sync();
  });
  steps.push({
    step: "reports-sync after a cves bump (2 reports, unchanged figures)",
    ms: resync.ms,
    result: JSON.stringify(resync.value),
  });

  // A 5 MB PDF: the report's PDF padded after %%EOF (readers ignore it), stored as a version of its own.
  const stored = (
    await app.inject({
      method: "GET",
      url: `/api/v1/organizations/${org.id}/projects/${project.id}/reports/${report.id}/download?format=pdf`,
      headers: { authorization: `Bearer ${key}` },
    })
  ).rawPayload;
  const big = Buffer.concat([stored, Buffer.from("\n%"), Buffer.alloc(UPLOAD_BYTES - stored.length - 2, 0x20)]);
  await sql(
    database,
    `insert into report_versions (report_id, version, empreinte, genere_le, contenu, pdf, pdf_sha256)
     select report_id, 99, empreinte, genere_le, contenu, $2, $3 from report_versions where report_id = $1 and version = 1`,
    [report.id, big, sha256Hex(big)],
  );
  await app.listen({ port: 0, host: "127.0.0.1" });
  const port = (app.server.address() as AddressInfo).port;
  const findPath = `/api/v1/organizations/${org.id}/evidence/find`;
  const form = await multipart(big);
  await upload(port, key, findPath, form); // warm-up
  const times: number[] = [];
  let peak = 0;
  let before = Infinity;
  for (let i = 0; i < 5; i++) {
    const r = await measured(() => upload(port, key, findPath, form));
    if (r.value.status !== 200) throw new Error(`find: ${r.value.status} ${r.value.body}`);
    times.push(r.ms);
    peak = Math.max(peak, r.peakMB);
    before = Math.min(before, r.beforeMB);
  }
  times.sort((a, b) => a - b);
  steps.push({
    step: "find again by file: 5 MB PDF, multipart over a socket (median of 5)",
    ms: times[2]!,
    "rss before MB": before,
    "peak rss MB": peak,
    "Δ MB": peak - before,
  });
  const unknown = await multipart(Buffer.from("not found"));
  const byPrint = await measured(() => upload(port, key, findPath, unknown));
  steps.push({ step: "find again: an unknown file (404)", ms: byPrint.ms, status: byPrint.value.status });
  await app.close();
  return { steps };
}

export async function benchReports(): Promise<void> {
  await benchTables("reports", "Evidence reports", benchDriver);
}

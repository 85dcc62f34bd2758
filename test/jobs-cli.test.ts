import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { createServices } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { executeCommand } from "../src/main.js";
import { CasesService } from "../src/modules/cases/cases.service.js";
import { tagsRepository } from "../src/modules/tags/tags.repository.js";
import { openDatabase, type Database } from "../src/platform/db/client.js";
import { copyPgliteTemplate, templateKeyOfRun } from "./db-templates.js";
import { createTenant, createTestApp } from "./helpers.js";

const run = promisify(execFile);
const t = await createTestApp();
const cmd = (...argv: string[]) => executeCommand(t.services, t.database, argv);
const actor = { type: "api_key", id: null, label: "test" } as const;

// biome-ignore lint/suspicious/noExplicitAny: a command's JSON result, read field by field by the assertions.
function ok(res: Awaited<ReturnType<typeof cmd>>): Record<string, any> {
  if (!res.ok) throw new Error(res.message);
  return res.result;
}

/** A case of `cve` under a MITIGATED exception valid through `expiresOn`, set while the clock reads 2026-01-01. */
async function caseWithException(database: Database, project: { id: string; orgId: string }, cve: string, expiresOn: string) {
  const cases = new CasesService(database.db, tagsRepository, () => new Date("2026-01-01T12:00:00Z"));
  await cases.put(project, cve, {}, actor);
  await cases.setException(project, cve, { nature: "MITIGATED", measure: "WAF", justification: "j", expires_on: expiresOn }, actor);
}

describe("jobs list / jobs run (the admin commands)", () => {
  it("jobs list names every scheduled job with its schedule (UTC) and what it does", async () => {
    expect(ok(await cmd("jobs", "list", "--json"))).toEqual({
      jobs: [
        { name: "maintenance-purge", schedule: "17 * * * *", description: expect.stringContaining("runs"), takes_now: true },
        // Scheduled only when VIGIE_FEEDS_SYNC=on.
        { name: "feeds-sync", schedule: null, description: expect.any(String), takes_now: false },
        { name: "csaf-sync", schedule: "41 * * * *", description: expect.stringContaining("CSAF"), takes_now: false },
        { name: "cases-expiry", schedule: "0 * * * *", description: expect.stringContaining("Paris"), takes_now: true },
        { name: "eol-notices", schedule: "0 * * * *", description: expect.stringContaining("Paris"), takes_now: true },
        { name: "runs-dispatch", schedule: "* * * * *", description: expect.any(String), takes_now: false },
        { name: "runs-execute", schedule: null, description: expect.any(String), takes_now: false },
        { name: "digests-send", schedule: "* * * * *", description: expect.stringContaining("Paris"), takes_now: true },
        { name: "runs-recover", schedule: "* * * * *", description: expect.any(String), takes_now: false },
        { name: "reports-sync", schedule: "* * * * *", description: expect.any(String), takes_now: true },
        { name: "reports-schedule", schedule: "5 * * * *", description: expect.stringContaining("Paris"), takes_now: true },
        { name: "items-match", schedule: "* * * * *", description: expect.stringContaining("VIGIE_MATCH_BATCH"), takes_now: false },
        { name: "urls-scan-due", schedule: "* * * * *", description: expect.any(String), takes_now: true },
        { name: "urls-scan", schedule: null, description: expect.any(String), takes_now: false },
      ],
    });
  });

  it("jobs run runs a job once and prints its result; --now for cases-expiry only; bad input is a usage error", async () => {
    expect(ok(await cmd("jobs", "run", "maintenance-purge", "--json"))).toEqual({
      job: "maintenance-purge",
      now: expect.any(String),
      idempotency_keys: 0,
      runs: 0,
      events: 0,
      api_usage_windows: expect.any(Number),
      epss_scores: 0,
      digests: 0,
    });
    const tenant = await createTenant(t);
    await caseWithException(t.database, { id: tenant.projectId, orgId: tenant.orgId }, "CVE-2026-0001", "2026-03-28");
    expect(ok(await cmd("jobs", "run", "cases-expiry", "--now", "2026-03-29T00:59:59+02:00"))).toMatchObject({
      job: "cases-expiry",
      now: "2026-03-28T22:59:59.000Z",
      today: "2026-03-28",
      expired: 0,
    });
    expect(ok(await cmd("jobs", "run", "cases-expiry", "--now", "2026-03-29T00:00:00+01:00"))).toEqual({
      job: "cases-expiry",
      now: "2026-03-28T23:00:00.000Z",
      today: "2026-03-29",
      expired: 1,
      risks_expired: 0,
      reopened_by_register: 0,
      warned: 0,
    });
    const cases: [string[], RegExp][] = [
      [["jobs", "run", "runs-dispatch", "--now", "2026-03-29T00:00:00Z"], /ne dépend pas de l'instant/],
      [["jobs", "run", "feeds-sync", "--now", "2026-03-29T00:00:00Z"], /ne dépend pas de l'instant/],
      [["jobs", "run", "cases-expiry", "--now", "2026-03-29T00:00:00"], /instant ISO-8601 avec son décalage/],
      [["jobs", "run", "cases-expiry", "--now", "2026-02-30T00:00:00Z"], /instant ISO-8601/],
      [["jobs", "run", "cases-expiry", "--now", "demain"], /instant ISO-8601/],
      [["jobs", "run", "maintenance.purge"], /tâche inconnue/],
      [["jobs", "run"], /un argument est attendu/],
      [["jobs", "run", "cases-expiry", "feeds-sync"], /un argument est attendu/],
      [["jobs", "run", "cases-expiry", "--at", "2026-03-29T00:00:00Z"], /at/],
    ];
    for (const [argv, message] of cases) {
      const res = await cmd(...argv);
      expect(res, argv.join(" ")).toMatchObject({ ok: false, usage: true });
      if (!res.ok) expect(res.message).toMatch(message);
    }
  });
});

describe("vigie jobs run cases-expiry, in a process whose time zone is not Paris", () => {
  const dir = mkdtempSync(join(tmpdir(), "vigie-jobs-"));
  // The embedded database, migrated already (a copy of the run's template): the processes open it as it is.
  const key = templateKeyOfRun();
  if (key) copyPgliteTemplate(key, join(dir, "data"));
  const env = {
    ...process.env,
    VIGIE_DATA_DIR: join(dir, "data"),
    DATABASE_URL: "",
    LOG_LEVEL: "warn",
    VIGIE_JOBS: "off",
    VIGIE_SNAPSHOT: "off",
  };
  const cli = (tz: string, ...args: string[]) => run(process.execPath, ["dist/cli.js", ...args], { env: { ...env, TZ: tz } });
  const expiryAt = async (tz: string, now: string) =>
    JSON.parse((await cli(tz, "jobs", "run", "cases-expiry", "--now", now, "--json")).stdout) as Record<string, unknown>;
  let server: ChildProcess | undefined;
  afterAll(() => {
    server?.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  it("reopens at 00:00 Paris, not a second before, with the embedded database while no server runs, then through a running server", async () => {
    // The cases, written in the embedded database before any vigie process opens it.
    const database = await openDatabase({ dataDir: env.VIGIE_DATA_DIR });
    await database.migrate();
    const services = createServices(database, loadConfig({ ...env }));
    const { org } = await services.organizations.createOrg({ name: "Fuseaux" });
    const project = await services.projects.create({ orgId: org.id, name: "P" });
    const scope = { id: project.id, orgId: org.id };
    await caseWithException(database, scope, "CVE-2026-1001", "2026-03-28");
    await caseWithException(database, scope, "CVE-2026-1002", "2026-10-24");
    await caseWithException(database, scope, "CVE-2026-1003", "2026-12-31");
    await database.close();

    // New York (UTC−4 that night): 2026-03-28T22:59:59Z is still the 28th in Paris (23:59:59).
    expect(await expiryAt("America/New_York", "2026-03-28T22:59:59Z")).toMatchObject({ today: "2026-03-28", expired: 0 });
    expect(await expiryAt("America/New_York", "2026-03-28T23:00:00Z")).toMatchObject({ today: "2026-03-29", expired: 1 });
    // Kiritimati (UTC+14): its own calendar is already on the 25th, Paris is not.
    expect(await expiryAt("Pacific/Kiritimati", "2026-10-24T21:59:59Z")).toMatchObject({ today: "2026-10-24", expired: 0 });
    expect(await expiryAt("Pacific/Kiritimati", "2026-10-24T22:00:00Z")).toMatchObject({ today: "2026-10-25", expired: 1 });
    await expect(cli("UTC", "jobs", "run", "cases-expiry", "--now", "tomorrow")).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("ISO-8601"),
    });
    const listed = (await cli("UTC", "jobs", "list")).stdout;
    expect(listed).toMatch(/^cases-expiry +0 \* \* \* \* \(UTC\) +rouvre les dossiers/m);
    expect(listed).toMatch(/^feeds-sync +non planifiée/m);

    // The server holds the data directory: the command goes through its admin socket and runs there.
    server = spawn(process.execPath, ["dist/cli.js", "serve"], {
      env: { ...env, TZ: "Pacific/Kiritimati", PORT: "0", LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    await new Promise<void>((resolve, reject) => {
      let out = "";
      server!.stdout!.on("data", (c: Buffer) => {
        out += c.toString();
        if (out.includes("Server listening")) resolve();
      });
      server!.on("exit", (code) => reject(new Error(`serve exited ${code}`)));
      setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 60_000);
    });
    expect(await expiryAt("America/New_York", "2026-12-31T22:59:59Z")).toMatchObject({ today: "2026-12-31", expired: 0 });
    expect(await expiryAt("America/New_York", "2026-12-31T23:00:00Z")).toMatchObject({ today: "2027-01-01", expired: 1 });
    expect(await expiryAt("America/New_York", "2026-12-31T23:00:00Z")).toMatchObject({ expired: 0, warned: 0 });
    const exited = new Promise((resolve) => server!.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
    server = undefined;
  }, 180_000);
});

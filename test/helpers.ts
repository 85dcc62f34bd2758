import { randomBytes } from "node:crypto";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import pg from "pg";
import { afterAll } from "vitest";
import { buildApp, createServices, type ServiceOptions, type Services } from "../src/app.js";
import { loadConfig, type Config } from "../src/config.js";
import { openDatabase, type Database } from "../src/platform/db/client.js";
import { createLogger } from "../src/platform/log.js";
import { pgliteTemplateTar, pgTemplateName, templateKeyOfRun } from "./db-templates.js";

/**
 * A fresh database of one's own, migrated: in-memory PGlite by default, or a new PostgreSQL database
 * (created from DATABASE_URL, dropped afterwards) when DATABASE_URL is set. Both start as a copy of
 * the run's migrated template (test/db-templates.ts); `migrate()` then finds nothing to apply.
 */
export async function openTestDatabase(): Promise<Database> {
  const url = process.env.DATABASE_URL;
  const key = templateKeyOfRun();
  if (!url) {
    const tar = pgliteTemplateTar(key);
    const database = await openDatabase({ dataDir: "memory://", ...(tar && { loadDataDir: tar }) });
    await database.migrate();
    afterAll(() => database.close());
    return database;
  }
  const name = `vigie_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${name}${key ? ` template ${pgTemplateName(key)}` : ""}`);
  await admin.end();
  const u = new URL(url);
  u.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: u.toString(), poolSize: 5 });
  await database.migrate();
  afterAll(async () => {
    await database.close();
    const a = new pg.Client({ connectionString: url });
    await a.connect();
    await a.query(`drop database if exists ${name} with (force)`);
    await a.end();
  });
  return database;
}

export interface TestApp {
  app: FastifyInstance;
  services: Services;
  database: Database;
  config: Config;
}

/** The whole application over a fresh database (or the one given), closed after the file. */
export async function createTestApp(env: Record<string, string> = {}, options?: ServiceOptions, over?: Database): Promise<TestApp> {
  const database = over ?? (await openTestDatabase());
  // A key per app: no key file is written into the working directory's data dir.
  const config = loadConfig({ ...process.env, VIGIE_JOBS: "off", VIGIE_SECRET_KEY: randomBytes(32).toString("base64"), ...env });
  const { app, services } = await buildApp({
    config,
    database,
    logger: createLogger("silent"),
    ...(options && { services: createServices(database, config, options) }),
  });
  await app.ready();
  afterAll(() => app.close());
  return { app, services, database, config };
}

export interface Tenant {
  orgId: string;
  projectId: string;
  /** Default workflow of the project. */
  defaultWorkflowId: string;
  /** A key with every scope and no restriction. */
  key: string;
  /** A key with no scope. */
  readKey: string;
}

/** A new organization with one project and two keys (read-only and workflows-write). */
export async function createTenant(t: TestApp, opts: { plan?: string; name?: string } = {}): Promise<Tenant> {
  const { org } = await t.services.organizations.createOrg({
    name: opts.name ?? `Org ${randomBytes(3).toString("hex")}`,
    planSlug: opts.plan,
  });
  const project = await t.services.projects.create({ orgId: org.id, name: "Production" });
  const write = await t.services.apiKeys.create({ orgId: org.id, scopes: ["workflows-write"], projectIds: [] });
  const read = await t.services.apiKeys.create({ orgId: org.id, scopes: [], projectIds: [] });
  const list = await t.app.inject({
    method: "GET",
    url: `/api/v1/organizations/${org.id}/projects/${project.id}/workflows`,
    headers: bearer(read.key),
  });
  return {
    orgId: org.id,
    projectId: project.id,
    defaultWorkflowId: (list.json() as { id: string }[])[0]!.id,
    key: write.key,
    readKey: read.key,
  };
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

export function workflowsUrl(t: Tenant, suffix = ""): string {
  return `/api/v1/organizations/${t.orgId}/projects/${t.projectId}/workflows${suffix}`;
}

/** POST a workflow creation with a fresh idempotency key unless one is given. */
export function createWorkflow(
  t: TestApp,
  tenant: Tenant,
  body: unknown,
  key = randomBytes(8).toString("hex"),
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: "POST",
    url: workflowsUrl(tenant),
    headers: { ...bearer(tenant.key), "idempotency-key": key, "content-type": "application/json" },
    payload: JSON.stringify(body),
  });
}

/**
 * A new tenant (createTenant) with one more key named "ci" holding `scopes`, and `call(method, path,
 * payload?, token?)` on its project's /api/v1 routes (`path` after …/projects/{project_id}).
 */
export async function tenantWithScopes(t: TestApp, name: string, scopes: string[]) {
  const tenant = await createTenant(t, { name });
  const { key } = await t.services.apiKeys.create({ orgId: tenant.orgId, name: "ci", scopes, projectIds: [] });
  const base = `/api/v1/organizations/${tenant.orgId}/projects/${tenant.projectId}`;
  const call = (method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", path: string, payload?: unknown, token = key) =>
    t.app.inject({ method, url: `${base}${path}`, headers: bearer(token), ...(payload !== undefined && { payload: payload as object }) });
  /** The project as services receive it. */
  const project = { id: tenant.projectId, orgId: tenant.orgId };
  return { ...tenant, key, base, call, project };
}

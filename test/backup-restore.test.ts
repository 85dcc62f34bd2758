/**
 * Backup and restore as docs/operations.md says them, on the database the run uses: with PGlite
 * (no DATABASE_URL), the server stopped, the data directory archived with tar and unpacked into a
 * new directory; with PostgreSQL, `pg_dump -Fc` of the database and `pg_restore` into a new one.
 * The data is made by the command line (an organization on a plan, a project, an API key, a
 * workflow holding a webhook secret) and read back through the API of a server started on the
 * restored copy — the key still authenticates, the workflow is there — and the secret is still
 * decrypted by the key kept with the copy (the data directory's secret.key, or VIGIE_SECRET_KEY).
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../src/platform/db/client.js";
import { loadSecretKey, SecretBox } from "../src/platform/secrets.js";
import { cliSession, freshStore, type ServerStore, startServer } from "./server-process.js";

const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), "vigie-backup-"));
const stores: ServerStore[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups) await c();
  for (const s of stores) await s.remove();
  rmSync(work, { recursive: true, force: true });
});

const SECRET = "secret-du-webhook-0042";

/** Makes the data through the command line's commands (in one process), on a stopped store; returns what to find again. */
async function makeData(env: Record<string, string>) {
  const session = cliSession(env);
  const cli = (...args: string[]) => session.run<{ id: string; key: string }>(...args);
  const org = await cli("org", "create", "--name", "Sauvegarde SA", "--plan", "pro");
  const project = await cli("project", "create", "--org", org.id, "--name", "Recette");
  const key = await cli("apikey", "create", "--org", org.id, "--name", "restauration");
  const body = join(work, `workflow-${randomBytes(3).toString("hex")}.json`);
  writeFileSync(
    body,
    JSON.stringify({
      name: "Webhook signé",
      trigger: { event: "cve.kev_added" },
      actions: [{ type: "notify_webhook", params: { url: "https://hooks.example.org/vigie", secret: SECRET } }],
    }),
  );
  const workflow = await cli("workflow", "create", "--org", org.id, "--project", project.id, "--file", body);
  await session.close();
  return { org, project, key: key.key, workflow };
}

/** Starts a server on the restored store and reads the data back through the API with the old key. */
async function readBack(env: Record<string, string>, made: Awaited<ReturnType<typeof makeData>>) {
  const server = startServer({ ...env, VIGIE_SNAPSHOT: "off", VIGIE_FEEDS_SYNC: "off" });
  try {
    const base = await server.ready(120_000);
    const get = async (path: string) => {
      const r = await fetch(`${base}/api/v1${path}`, { headers: { authorization: `Bearer ${made.key}` } });
      return { status: r.status, body: await r.json() };
    };
    const me = await get("/me");
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ org_id: made.org.id, org_name: "Sauvegarde SA", plan: { slug: "pro" } });
    const projects = await get(`/organizations/${made.org.id}/projects`);
    expect((projects.body as { name: string }[]).map((p) => p.name)).toContain("Recette");
    const workflows = await get(`/organizations/${made.org.id}/projects/${made.project.id}/workflows`);
    expect(workflows.status).toBe(200);
    const names = (workflows.body as { name: string }[]).map((w) => w.name);
    expect(names).toContain("Webhook signé");
  } finally {
    await server.stop();
  }
}

/** The webhook secret of the restored workflow, decrypted with the restored key. */
async function storedSecret(open: () => ReturnType<typeof openDatabase>, box: SecretBox, workflowId: string): Promise<string> {
  const db = await open();
  try {
    const { rows } = await db.executeSql("select graph::text as graph from workflows where id = $1", [workflowId]);
    const graph = (rows[0] as { graph: string }).graph;
    const stored = /"secret":\s*"(enc:v1:[^"]+)"/.exec(graph)?.[1];
    expect(stored, "the secret is stored encrypted").toBeDefined();
    return box.decrypt(stored!);
  } finally {
    await db.close();
  }
}

describe.runIf(!process.env.DATABASE_URL)("backup and restore, embedded database (PGlite)", () => {
  it("the data directory archived while stopped and unpacked elsewhere holds everything, the secret key included", async () => {
    const store = await freshStore();
    stores.push(store);
    const dataDir = store.env.VIGIE_DATA_DIR!;
    const made = await makeData(store.env);
    expect(existsSync(join(dataDir, "secret.key"))).toBe(true);

    // docs/operations.md, "Back up and restore": the server stopped, the directory archived.
    const archive = join(work, "vigie-backup.tar.gz");
    await run("tar", ["-C", dataDir, "-czf", archive, "."]);
    const restored = join(work, "restored-data");
    mkdirSync(restored);
    await run("tar", ["-C", restored, "-xzf", archive]);
    // The original is gone: only the copy can answer.
    rmSync(dataDir, { recursive: true, force: true });

    await readBack({ VIGIE_DATA_DIR: restored, DATABASE_URL: "" }, made);
    const box = new SecretBox(loadSecretKey({ secretKey: undefined, dataDir: restored, driver: "pglite" }));
    expect(await storedSecret(() => openDatabase({ dataDir: restored }), box, made.workflow.id)).toBe(SECRET);
  }, 300_000);
});

describe.runIf(!!process.env.DATABASE_URL)("backup and restore, PostgreSQL", () => {
  it("pg_dump -Fc, then pg_restore into a new database: the copy answers with the same key and secrets", async () => {
    const store = await freshStore();
    stores.push(store);
    const secretKey = randomBytes(32).toString("base64");
    const env = { ...store.env, VIGIE_SECRET_KEY: secretKey };
    const made = await makeData(env);

    const dump = join(work, "vigie.dump");
    await run("pg_dump", ["-Fc", "-f", dump, store.env.DATABASE_URL!]);
    const name = `vigie_restored_${process.pid}_${randomBytes(4).toString("hex")}`;
    const admin = async (q: string) => {
      const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await c.connect();
      await c.query(q);
      await c.end();
    };
    await admin(`create database ${name}`);
    cleanups.push(() => admin(`drop database if exists ${name} with (force)`));
    const url = new URL(store.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    await run("pg_restore", ["--no-owner", "--exit-on-error", "-d", url.toString(), dump]);
    // The original is gone: only the copy can answer.
    await admin(`drop database ${new URL(store.env.DATABASE_URL!).pathname.slice(1)} with (force)`);

    await readBack({ VIGIE_DATA_DIR: join(work, "pg-data"), DATABASE_URL: url.toString(), VIGIE_SECRET_KEY: secretKey }, made);
    const box = new SecretBox(Buffer.from(secretKey, "base64"));
    expect(await storedSecret(() => openDatabase({ databaseUrl: url.toString(), poolSize: 1 }), box, made.workflow.id)).toBe(SECRET);
  }, 300_000);
});

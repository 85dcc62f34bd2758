import { execFile } from "node:child_process";
import { promisify } from "node:util";
import pg from "pg";
import type { Client } from "./client.js";

const run = promisify(execFile);

/** The soak's own PostgreSQL database, created fresh beside the admin URL's and dropped at the end. */
export interface SoakDatabase {
  name: string;
  url: string;
  /** A connection of the driver's own (checks, the connection drop). */
  sql: pg.Client;
  drop(): Promise<void>;
}

export async function createDatabase(adminUrl: string, name: string): Promise<SoakDatabase> {
  const admin = async (q: string) => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      await c.query(q);
    } finally {
      await c.end();
    }
  };
  await admin(`create database ${name}`);
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  const sql = new pg.Client({ connectionString: u.toString() });
  await sql.connect();
  return {
    name,
    url: u.toString(),
    sql,
    async drop() {
      await sql.end().catch(() => undefined);
      await admin(`drop database if exists ${name} with (force)`);
    },
  };
}

/** `node dist/cli.js … --json` in its own process (the operator's commands, black box); its JSON result. */
export function cliRunner(env: Record<string, string>) {
  // biome-ignore lint/suspicious/noExplicitAny: a command's JSON result, read field by field.
  return async (...args: string[]): Promise<any> => {
    const { stdout } = await run(process.execPath, ["dist/cli.js", ...args, "--json"], {
      env: { ...process.env, ...env, LOG_LEVEL: "silent" },
      timeout: 300_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    return JSON.parse(stdout);
  };
}

export type Cli = ReturnType<typeof cliRunner>;

export interface Project {
  id: string;
  /** /api/v1/organizations/{org}/projects/{id} */
  base: string;
}

/** What the traffic works on: the organization, its key, its three projects and their workflows. */
export interface Tenant {
  orgId: string;
  key: string;
  plan: string;
  /** Stack changes that raise alerts, reads, tags, alert triage; its webhook workflow and a probe workflow for the caches. */
  traffic: Project & { stackId: string; webhookId: string; probeId: string };
  /** CVEs arriving by imports and the mirror, watched by its stack; its webhook workflow. */
  feeds: Project & { webhookId: string };
  /** Workflows created (Idempotency-Key) and changed by the client. */
  writes: Project;
  /** Two more keys of the organization, for the caches' probes to revoke. */
  spareKeys: { id: string; key: string }[];
}

/** Plans of the soak: the main organization's (the cache probe changes its limit) and the small one whose limit is counted. */
export const MAIN_PLAN = "soak-main";
export const QUOTA_PLAN = "soak-quota";
export const SCOPES = ["workflows-write", "stacks-write", "alerts-write", "tags-write"];

/** The main organization, created by the CLI (as an operator would), then, once `serving`, its workflows and stacks through the API. */
export async function createTenant(
  cli: Cli,
  client: Client,
  serving: Promise<void>,
  opts: { hook: string; secret: string; watched: string[] },
): Promise<Tenant> {
  await cli("plan", "upsert", "--slug", MAIN_PLAN, "--name", "Soak", "--max-api-calls-per-hour", "500000");
  const org = await cli("org", "create", "--name", "Soak", "--plan", MAIN_PLAN);
  const [traffic, feeds, writes, key, ...spareKeys] = await Promise.all([
    cli("project", "create", "--org", org.id, "--name", "Trafic"),
    cli("project", "create", "--org", org.id, "--name", "Flux"),
    cli("project", "create", "--org", org.id, "--name", "Écritures"),
    cli("apikey", "create", "--org", org.id, "--name", "soak", ...SCOPES.flatMap((s) => ["--scope", s])),
    cli("apikey", "create", "--org", org.id, "--name", "spare 1"),
    cli("apikey", "create", "--org", org.id, "--name", "spare 2"),
  ]);
  await serving;
  const project = (p: { id: string }): Project => ({ id: p.id, base: `/api/v1/organizations/${org.id}/projects/${p.id}` });
  const [t, f, w] = [project(traffic), project(feeds), project(writes)];
  const call = async (op: string, method: "POST" | "PATCH", path: string, body: unknown, headers?: Record<string, string>) => {
    const { answer } = await client.untilAnswered({ op: `setup ${op}`, method, path, key: key.key, body, headers });
    if (!answer || answer.status >= 300) throw new Error(`setup ${op}: ${answer?.status} ${JSON.stringify(answer?.body)}`);
    return answer.body;
  };
  const webhook = (p: Project, name: string) =>
    call(
      "workflow",
      "POST",
      `${p.base}/workflows`,
      {
        name,
        trigger: { event: "cve.new_match" },
        actions: [{ type: "notify_webhook", params: { url: opts.hook, secret: opts.secret } }],
        create_case: false,
      },
      { "idempotency-key": `setup-${p.id}-${name}` },
    );
  // A stack item alerts on every stored CVE it names, not only the recent ones.
  for (const p of [t, f]) await call("alert-settings", "PATCH", `${p.base}/alert-settings`, { alert_backfill: "all" });
  const [trafficHook, feedsHook, probe, stack] = await Promise.all([
    webhook(t, "Webhook"),
    webhook(f, "Webhook"),
    call(
      "probe workflow",
      "POST",
      `${t.base}/workflows`,
      { name: "Sonde", trigger: { event: "url.recovered" }, actions: [{ type: "add_tag", params: { tag: "sonde" } }], create_case: false },
      { "idempotency-key": "setup-probe" },
    ),
    call("stack", "POST", `${t.base}/stacks`, { name: "Trafic", items: [] }),
  ]);
  for (let i = 0; i < opts.watched.length; i += 1000)
    await call("watched stack", "POST", `${f.base}/stacks`, {
      name: `Veille ${i / 1000 + 1}`,
      items: opts.watched.slice(i, i + 1000).map((value) => ({ item_type: "cve", value })),
    });
  // Every alert must reach the webhook: no throttling at 500 runs an hour.
  await Promise.all(
    [trafficHook, feedsHook].map((wf) => cli("workflow", "limit", "--org", org.id, "--workflow", wf.id, "--max-runs-per-hour", "1000000")),
  );
  return {
    orgId: org.id,
    key: key.key,
    plan: MAIN_PLAN,
    traffic: { ...t, stackId: stack.id, webhookId: trafficHook.id, probeId: probe.id },
    feeds: { ...f, webhookId: feedsHook.id },
    writes: w,
    spareKeys: spareKeys.map((k) => ({ id: k.id, key: k.key })),
  };
}

import { readFileSync } from "node:fs";
import { parseArgs, type ParseArgsConfig } from "node:util";
import type { Services } from "./app.js";
import type { Database } from "./platform/db/client.js";
import { RequestInvalid } from "./platform/http/error-body.js";
import { validate, type PydanticError } from "./platform/pydantic/validate.js";
import { presentApiKey } from "./modules/apikeys/apikeys.presenter.js";
import { presentOrg, presentPlan } from "./modules/organizations/organizations.presenter.js";
import { presentProject } from "./modules/projects/projects.presenter.js";
import { presentWorkflow } from "./modules/workflows/workflows.presenter.js";
import { WorkflowEcritureIn } from "./modules/workflows/workflows.schemas.js";
import { isSource, SOURCES, type Source } from "./feeds/importers/index.js";
import { FormatError } from "./feeds/reader.js";
import { z } from "zod";
import { loadConfig } from "./config.js";
import { JOBS } from "./jobs.js";
import { cronOf } from "./platform/jobs/jobs.js";
import { createLogger } from "./platform/log.js";

/** A one-line progress display on a terminal (stderr); nothing otherwise. read < 0 ends the line. */
function progressBar(source: string): ((read: number) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  const started = Date.now();
  return (read) => {
    if (read < 0) return void process.stderr.write("\n");
    const rate = Math.round(read / Math.max(0.001, (Date.now() - started) / 1000));
    process.stderr.write(`\r${source} : ${read.toLocaleString("fr-FR")} enregistrements lus (${rate.toLocaleString("fr-FR")}/s)   `);
  };
}

/** Bad command-line usage: exit code 2 with the message. */
export class UsageError extends Error {
  override name = "UsageError";
}

type Options = NonNullable<ParseArgsConfig["options"]>;
type Values = Record<string, string | string[] | boolean | undefined>;

interface Command {
  usage: string;
  options: Options;
  required: string[];
  /** Takes positional arguments: file paths (one or more, made absolute before they go to a running server), or one name. */
  positionals?: "paths" | "one";
  run(s: Services, db: Database, v: Values, positionals: string[]): Promise<Record<string, unknown>>;
  /** The human form of the result (default: one `key: value` line each). */
  text?(result: Record<string, unknown>): string;
}

const str = { type: "string" } as const;
const many = { type: "string", multiple: true } as const;

const Instant = z.iso.datetime({ offset: true });

/** An ISO-8601 instant with its offset (Z or ±hh:mm): a local time would depend on the zone of the process. */
function instant(name: string, raw: string): Date {
  if (!Instant.safeParse(raw).success)
    throw new UsageError(
      `--${name} attend un instant ISO-8601 avec son décalage (2026-03-28T23:00:00Z, 2026-03-29T00:00:00+01:00), reçu « ${raw} »`,
    );
  return new Date(raw);
}

type JobName = keyof typeof JOBS;
const isJob = (name: string): name is JobName => Object.hasOwn(JOBS, name);

/** --source values, each a source of the registry. */
function sourcesOf(raw: unknown): Source[] {
  const only = (raw as string[] | undefined) ?? [];
  const unknown = only.filter((x) => !isSource(x));
  if (unknown.length) throw new UsageError(`--source : ${unknown.join(", ")} inconnue (${SOURCES.join(", ")})`);
  return only.filter(isSource);
}

function int(name: string, raw: string): number {
  if (!/^\d{1,9}$/.test(raw)) throw new UsageError(`--${name} attend un entier positif, reçu « ${raw} »`);
  return Number(raw);
}

/** The admin commands; the same table serves the CLI and the running server's admin socket. */
export const COMMANDS: Record<string, Command> = {
  migrate: {
    usage: "migrate",
    options: {},
    required: [],
    run: async (_s, db) => {
      await db.migrate();
      return { migrated: true, driver: db.driver };
    },
  },
  "plan upsert": {
    usage: "plan upsert --slug S --name N --max-api-calls-per-hour N",
    options: { slug: str, name: str, "max-api-calls-per-hour": str },
    required: ["slug", "name", "max-api-calls-per-hour"],
    run: async (s, _db, v) => {
      const row = await s.organizations.upsertPlan({
        slug: v.slug as string,
        name: v.name as string,
        maxApiCallsPerHour: int("max-api-calls-per-hour", v["max-api-calls-per-hour"] as string),
      });
      return { id: row.id, ...presentPlan(row)! };
    },
  },
  "org create": {
    usage: "org create --name N [--plan SLUG]",
    options: { name: str, plan: str },
    required: ["name"],
    run: async (s, _db, v) => {
      const { org, plan } = await s.organizations.createOrg({ name: v.name as string, planSlug: v.plan as string | undefined });
      const { role: _role, ...item } = presentOrg(org, "owner");
      return { ...item, plan: presentPlan(plan) };
    },
  },
  "project create": {
    usage: "project create --org ORG_ID --name N [--description D]",
    options: { org: str, name: str, description: str },
    required: ["org", "name"],
    run: async (s, _db, v) =>
      presentProject(
        await s.projects.create({ orgId: v.org as string, name: v.name as string, description: v.description as string | undefined }),
      ),
  },
  "apikey create": {
    usage: "apikey create --org ORG_ID [--scope S]... [--project PROJECT_ID]... [--name N]",
    options: { org: str, scope: many, project: many, name: str },
    required: ["org"],
    run: async (s, _db, v) => {
      const r = await s.apiKeys.create({
        orgId: v.org as string,
        name: v.name as string | undefined,
        scopes: (v.scope as string[] | undefined) ?? [],
        projectIds: (v.project as string[] | undefined) ?? [],
      });
      return presentApiKey(r.row, r.projectIds, r.key);
    },
  },
  "apikey revoke": {
    usage: "apikey revoke --id ID",
    options: { id: str },
    required: ["id"],
    run: async (s, _db, v) => {
      const row = await s.apiKeys.revoke(v.id as string, null);
      return presentApiKey(row, []);
    },
  },
  "apikey list": {
    usage: "apikey list --org ORG_ID",
    options: { org: str },
    required: ["org"],
    run: async (s, _db, v) => ({ items: (await s.apiKeys.list(v.org as string)).map((k) => presentApiKey(k, k.projectIds)) }),
  },
  "user create": {
    usage: "user create --email E --password P [--org ORG_ID] [--role owner|admin|member|viewer]",
    options: { email: str, password: str, org: str, role: str },
    required: ["email", "password"],
    run: async (s, _db, v) => {
      const r = await s.users.create({
        email: v.email as string,
        password: v.password as string,
        orgId: v.org as string | undefined,
        role: v.role as string | undefined,
      });
      return { id: r.user.id, email: r.user.email, created_at: r.user.createdAt.toISOString(), org_id: r.orgId, role: r.role };
    },
  },
  setup: {
    usage: "setup --email E --password P [--org NAME] [--project NAME]  (the first account: owner of a new organization and project)",
    options: { email: str, password: str, org: str, project: str },
    required: ["email", "password"],
    run: async (s, _db, v) => {
      const r = await s.users.setUp(
        {
          email: v.email as string,
          password: v.password as string,
          orgName: (v.org as string | undefined) ?? "Mon organisation",
          projectName: (v.project as string | undefined) ?? "Production",
        },
        {
          org: async (name) => (await s.organizations.createOrg({ name })).org,
          project: (orgId, name) => s.projects.create({ orgId, name }),
        },
      );
      return { user_id: r.user.id, email: r.user.email, org_id: r.orgId, project_id: r.projectId, role: "owner" };
    },
  },
  "feeds import": {
    usage: `feeds import --source ${SOURCES.join("|")} PATH... [--date AAAA-MM-JJ]`,
    options: { source: str, date: str },
    required: ["source"],
    positionals: "paths",
    run: async (s, _db, v, paths) => {
      const source = v.source as string;
      if (!isSource(source)) throw new UsageError(`--source : ${source} inconnue (${SOURCES.join(", ")})`);
      if (v.date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(v.date as string)) throw new UsageError("--date attend AAAA-MM-JJ");
      const bar = progressBar(source);
      try {
        // The events it writes wake the servers' dispatch at commit (NOTIFY); with no server running, they wait for its start.
        return { ...(await s.feeds.import(source, paths, { date: v.date as string | undefined, progress: bar })) };
      } catch (err) {
        if (err instanceof FormatError) throw new UsageError(err.message);
        throw err;
      } finally {
        bar?.(-1);
      }
    },
  },
  "feeds sync": {
    usage: `feeds sync [--source ${SOURCES.join("|")}]...  (from each publisher now, from the stored checkpoints)`,
    options: { source: many },
    required: [],
    run: async (s, _db, v) => ({ sources: await s.feeds.sync(sourcesOf(v.source)) }),
  },
  "feeds status": {
    usage: "feeds status  (per source: addresses, checkpoint, last success, last error, lag, next run)",
    options: {},
    required: [],
    run: async (s) => ({ sources: await s.feeds.status() }),
  },
  "jobs list": {
    usage: "jobs list  (the scheduled jobs: name, schedule in UTC, what each does)",
    options: {},
    required: [],
    run: async () => {
      const config = loadConfig();
      return {
        jobs: Object.entries(JOBS).map(([name, def]) => ({
          name,
          schedule: cronOf(def, config),
          description: def.description,
          takes_now: def.clock === true,
        })),
      };
    },
    text: (r) =>
      (r.jobs as { name: string; schedule: string | null; description: string }[])
        .map((j) => `${j.name.padEnd(18)} ${(j.schedule ? `${j.schedule} (UTC)` : "non planifiée").padEnd(22)} ${j.description}\n`)
        .join(""),
  },
  "jobs run": {
    usage: `jobs run ${Object.keys(JOBS).join("|")} [--now ISO-8601]  (once, in this process; --now: ${clocked().join(", ")})`,
    options: { now: str },
    required: [],
    positionals: "one",
    run: async (s, _db, v, [name]) => {
      if (!isJob(name!)) throw new UsageError(`tâche inconnue : ${name} (${Object.keys(JOBS).join(", ")})`);
      const def = JOBS[name];
      let now = new Date();
      if (v.now !== undefined) {
        if (!def.clock) throw new UsageError(`--now : la tâche ${name} ne dépend pas de l'instant (seulement : ${clocked().join(", ")})`);
        now = instant("now", v.now as string);
      }
      const result = await def.handler(def.payload.parse({}), s, createLogger("warn", 2), now);
      return { job: name, now: now.toISOString(), ...result };
    },
  },
  "workflow limit": {
    usage:
      "workflow limit --org ORG_ID --workflow WORKFLOW_ID --max-runs-per-hour N  (runs past N in the last hour are recorded throttled; default 500)",
    options: { org: str, workflow: str, "max-runs-per-hour": str },
    required: ["org", "workflow", "max-runs-per-hour"],
    run: async (s, _db, v) => {
      for (const name of ["org", "workflow"])
        if (!z.uuid().safeParse(v[name]).success) throw new UsageError(`--${name} attend un UUID, reçu « ${v[name] as string} »`);
      return s.workflows.setMaxRunsPerHour(
        v.org as string,
        v.workflow as string,
        int("max-runs-per-hour", v["max-runs-per-hour"] as string),
      );
    },
  },
  "workflow create": {
    usage: "workflow create --org ORG_ID [--project PROJECT_ID] --file BODY.json  (organization workflow when --project is omitted)",
    options: { org: str, project: str, file: str },
    required: ["org", "file"],
    run: async (s, _db, v) => {
      let json: unknown;
      try {
        json = JSON.parse(readFileSync(v.file as string, "utf8"));
      } catch (err) {
        throw new UsageError(`--file : JSON illisible (${(err as Error).message})`);
      }
      const errors: PydanticError[] = [];
      const body = validate(WorkflowEcritureIn, json, ["body"], errors) as WorkflowEcritureIn;
      if (errors.length) throw new RequestInvalid(errors);
      const project = v.project ? await s.projects.getInOrg(v.org as string, v.project as string) : null;
      return presentWorkflow(await s.workflows.createAsOperator({ ...body, orgId: v.org as string, projectId: project?.id ?? null }));
    },
  },
};

function clocked(): string[] {
  return Object.entries(JOBS)
    .filter(([, d]) => d.clock)
    .map(([n]) => n);
}

/** Splits argv into a command of the table and its options; throws UsageError with help. */
export function parseCommand(argv: string[]): {
  name: string;
  command: Command;
  values: Values;
  positionals: string[];
  /** The positionals that are file paths. */
  paths: string[];
  json: boolean;
} {
  const words = argv.filter((a) => !a.startsWith("-")).slice(0, 2);
  const name = COMMANDS[words.join(" ")] ? words.join(" ") : COMMANDS[words[0] ?? ""] ? words[0]! : null;
  if (!name) throw new UsageError(`commande inconnue : ${words.join(" ") || "(aucune)"}\n${help()}`);
  const command = COMMANDS[name]!;
  const rest = argv.slice(argv.indexOf(name.split(" ").at(-1)!) + 1);
  let values: Values;
  let positionals: string[];
  try {
    const parsed = parseArgs({
      args: rest,
      options: { ...command.options, json: { type: "boolean" } },
      strict: true,
      allowPositionals: !!command.positionals,
    });
    values = parsed.values as Values;
    positionals = parsed.positionals;
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\nusage : vigie ${command.usage} [--json]`);
  }
  const missingOpts = command.required.filter((r) => values[r] === undefined || values[r] === "");
  if (missingOpts.length)
    throw new UsageError(`option requise : ${missingOpts.map((m) => `--${m}`).join(", ")}\nusage : vigie ${command.usage} [--json]`);
  if (command.positionals === "paths" && !positionals.length)
    throw new UsageError(`au moins un chemin est requis\nusage : vigie ${command.usage} [--json]`);
  if (command.positionals === "one" && positionals.length !== 1)
    throw new UsageError(`un argument est attendu, reçu ${positionals.length}\nusage : vigie ${command.usage} [--json]`);
  return { name, command, values, positionals, paths: command.positionals === "paths" ? positionals : [], json: values.json === true };
}

export function help(): string {
  return ["usage : vigie <commande> [options] [--json]", "  serve", ...Object.values(COMMANDS).map((c) => `  ${c.usage}`)].join("\n");
}

import PgBoss from "pg-boss";
import type { Logger } from "pino";
import { z } from "zod";
import type { Services } from "../../app.js";
import type { Config } from "../../config.js";
import type { Database } from "../db/client.js";

/**
 * The typed job catalog: each job name has a payload schema, a retry policy, an optional cron
 * schedule and exactly one handler. Jobs run in pg-boss over the same database (PGlite or
 * PostgreSQL), so a deployment needs nothing else.
 */
interface JobDef<P extends z.ZodType> {
  payload: P;
  retryLimit: number;
  /** Cron expression (UTC) when the job is scheduled; from the configuration when it may be off (null). */
  cron?: string | ((config: Config) => string | null);
  handler(payload: z.output<P>, services: Services, logger: Logger): Promise<void>;
}

function job<P extends z.ZodType>(def: JobDef<P>): JobDef<z.ZodType> {
  return def as unknown as JobDef<z.ZodType>;
}

export const JOBS = {
  /** Hourly: forgets idempotency keys past retention, old login failures and expired sessions. */
  "maintenance.purge": job({
    payload: z.object({}),
    retryLimit: 2,
    cron: "17 * * * *",
    handler: async (_p, services, logger) => {
      const keys = await services.workflows.purgeIdempotencyKeys();
      await services.sessions.purge();
      logger.info({ idempotencyKeys: keys }, "maintenance.purge done");
    },
  }),
  /** Downloads and imports the configured feeds (VIGIE_FEEDS_SYNC=on, every VIGIE_FEEDS_CRON). */
  "feeds.sync": job({
    payload: z.object({}),
    retryLimit: 1,
    cron: (config) => config.feedsCron,
    handler: async (_p, services, logger) => {
      const outcomes = await services.feedSync.run();
      for (const o of outcomes) logger[o.status === "failed" ? "warn" : "info"]({ source: o.source, url: o.url, status: o.status, error: o.error, read: o.result?.read }, "feeds.sync");
    },
  }),
} as const;

/** A job's schedule under this configuration (null: not scheduled). */
export function cronOf(def: { cron?: string | ((config: Config) => string | null) }, config: Config): string | null {
  return typeof def.cron === "function" ? def.cron(config) : (def.cron ?? null);
}

export type JobName = keyof typeof JOBS;

export interface Jobs {
  boss: PgBoss;
  /** Enqueues a job (call after the transaction that motivates it has committed). */
  send<N extends JobName>(name: N, payload: z.input<(typeof JOBS)[N]["payload"]>): Promise<string | null>;
  stop(): Promise<void>;
}

/** Starts pg-boss on the service's database, creates the queues, schedules cron jobs and workers. */
export async function startJobs(database: Database, services: Services, logger: Logger, config: Config): Promise<Jobs> {
  const boss = new PgBoss({
    db: { executeSql: (text: string, values: unknown[]) => database.executeSql(text, values) as Promise<{ rows: unknown[] }> },
    schema: "pgboss",
    // One PGlite connection is shared with the HTTP server: poll gently.
    supervise: true,
    schedule: true,
  } as unknown as PgBoss.ConstructorOptions);
  boss.on("error", (err) => logger.error({ err }, "pg-boss"));
  await boss.start();
  for (const [name, def] of Object.entries(JOBS)) {
    await boss.createQueue(name, { name, retryLimit: def.retryLimit, retryBackoff: true });
    const cron = cronOf(def, config);
    if (cron) await boss.schedule(name, cron, {}, { tz: "UTC" });
    else await boss.unschedule(name);
    await boss.work(name, { pollingIntervalSeconds: 10 }, async (batch) => {
      for (const j of batch) {
        await def.handler(def.payload.parse(j.data), services, logger.child({ job: name, jobId: j.id }));
      }
    });
  }
  return {
    boss,
    send: (name, payload) => boss.send(name, JOBS[name].payload.parse(payload) as object),
    stop: () => boss.stop({ graceful: true, timeout: 10_000 }),
  };
}

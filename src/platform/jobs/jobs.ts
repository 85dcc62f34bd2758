import PgBoss from "pg-boss";
import type { Logger } from "pino";
import type { z } from "zod";
import type { Config } from "../../config.js";
import type { Database } from "../db/client.js";
import { retryOnConnectionLoss, retryOnDeadlock } from "../db/errors.js";

/**
 * One job of a catalog: a payload schema, a retry policy, an optional cron schedule and exactly
 * one handler, run with the application's services `S`. Jobs run in pg-boss over the same
 * database (PGlite or PostgreSQL), so a deployment needs nothing else.
 */
export interface JobDef<P extends z.ZodType, S> {
  /** One line for `vigie jobs list`. */
  description: string;
  payload: P;
  retryLimit: number;
  /** Cron expression (UTC) when the job is scheduled; from the configuration when it may be off (null). */
  cron?: string | ((config: Config) => string | null);
  /** The handler works at the instant it is given (`now`): `vigie jobs run NAME --now ISO-8601` may choose it. */
  clock?: boolean;
  /** How often an idle worker looks for this job (seconds; default 10): short for the jobs a user waits on. */
  pollSeconds?: number;
  /** Workers of this job in each process (default 1): jobs of one name run that many at a time. */
  workers?: number | ((config: Config) => number);
  /** Runs the job once at `now` (the current instant unless `jobs run --now` chose one); its result is what `jobs run` prints. */
  handler(payload: z.output<P>, services: S, logger: Logger, now: Date): Promise<Record<string, unknown> | undefined>;
}

/** Jobs by name, each handled with services `S`. */
export type JobCatalog<S> = Record<string, JobDef<z.ZodType, S>>;

/** The `job()` declaration helper of a catalog over services `S` (each handler typed by its own payload). */
export function jobOf<S>() {
  return <P extends z.ZodType>(def: JobDef<P, S>): JobDef<z.ZodType, S> => def as unknown as JobDef<z.ZodType, S>;
}

/** A job's schedule under this configuration (null: not scheduled). */
export function cronOf(def: { cron?: string | ((config: Config) => string | null) }, config: Config): string | null {
  return typeof def.cron === "function" ? def.cron(config) : (def.cron ?? null);
}

export interface Jobs<C extends Record<string, { payload: z.ZodType }>> {
  boss: PgBoss;
  /** Enqueues a job (call after the transaction that motivates it has committed). */
  send<N extends keyof C & string>(name: N, payload: z.input<C[N]["payload"]>): Promise<string | null>;
  /** Enqueues many jobs of one name in one statement. */
  sendMany<N extends keyof C & string>(name: N, payloads: z.input<C[N]["payload"]>[]): Promise<void>;
  /** Stops taking jobs, waits up to `timeoutMs` for the running ones (default 10 s). */
  stop(timeoutMs?: number): Promise<void>;
}

const QUEUES_LOCK_ID = 4242_0003;

export interface JobQueueOptions {
  /**
   * true: this process runs the jobs (workers, cron schedules, pg-boss's supervision); false: it only
   * enqueues them (VIGIE_ROLE=api), the workers of other processes run them.
   */
  work: boolean;
  /** Called after each job a worker of this process handled (metrics). */
  observe?: (name: string, outcome: "completed" | "failed", seconds: number) => void;
}

/** Starts pg-boss on the service's database, creates the catalog's queues, and (work) schedules cron jobs and starts workers. */
export async function startJobQueue<S, C extends JobCatalog<S>>(
  database: Database,
  catalog: C,
  services: S,
  logger: Logger,
  config: Config,
  opts: JobQueueOptions = { work: true },
): Promise<Jobs<C>> {
  // A connection lost on the way (PostgreSQL dropping its connections while this process starts):
  // that attempt's pg-boss is stopped, and the start begins again.
  return retryOnConnectionLoss(
    async () => {
      const boss = new PgBoss({
        db: { executeSql: (text: string, values: unknown[]) => database.executeSql(text, values) as Promise<{ rows: unknown[] }> },
        schema: "pgboss",
        supervise: opts.work,
        schedule: opts.work,
      } as unknown as PgBoss.ConstructorOptions);
      boss.on("error", (err) => logger.error({ err }, "pg-boss"));
      try {
        return await startWith(boss, database, catalog, services, logger, config, opts);
      } catch (err) {
        await boss.stop({ graceful: false, wait: true }).catch(() => undefined);
        throw err;
      }
    },
    (err, attempt) => logger.warn({ err, attempt }, "connexion à la base perdue au démarrage des jobs : nouvel essai"),
  );
}

/** One attempt's start: queues, schedules and workers of `boss`. */
async function startWith<S, C extends JobCatalog<S>>(
  boss: PgBoss,
  database: Database,
  catalog: C,
  services: S,
  logger: Logger,
  config: Config,
  opts: JobQueueOptions,
): Promise<Jobs<C>> {
  // Two processes creating queues at once deadlock (seen by the soak; in CI, ours against the other
  // process's boss.start(), whose timekeeper creates pg-boss's own send-it queue): start and queue
  // creation one process at a time. A queue added by an upgrade can still meet older processes'
  // sends: a deadlock victim is created again (create_queue is one atomic statement).
  await database.exclusive(QUEUES_LOCK_ID, async () => {
    await boss.start();
    for (const [name, def] of Object.entries(catalog))
      await retryOnDeadlock(() => boss.createQueue(name, { name, retryLimit: def.retryLimit, retryBackoff: true }));
  });
  // A job renamed or removed: its schedule goes, so that an upgraded database runs no orphan cron.
  if (opts.work) for (const s of await boss.getSchedules()) if (!Object.hasOwn(catalog, s.name)) await boss.unschedule(s.name);
  const workers = new Map<string, string[]>();
  for (const [name, def] of Object.entries(catalog)) {
    if (!opts.work) continue;
    const cron = cronOf(def, config);
    if (cron) await boss.schedule(name, cron, {}, { tz: "UTC" });
    else await boss.unschedule(name);
    const count = typeof def.workers === "function" ? def.workers(config) : (def.workers ?? 1);
    for (let i = 0; i < count; i++) {
      const id: string = await boss.work(name, { pollingIntervalSeconds: def.pollSeconds ?? 10 }, async (batch) => {
        for (const j of batch) {
          const start = performance.now();
          let outcome: "completed" | "failed" = "failed";
          try {
            await def.handler(def.payload.parse(j.data), services, logger.child({ job: name, jobId: j.id }), new Date());
            outcome = "completed";
          } finally {
            opts.observe?.(name, outcome, (performance.now() - start) / 1000);
          }
        }
        // A worker that found work looks again at once (pg-boss would wait its polling interval): a
        // queue drains at the speed of its handlers, not one job per poll and worker (16 → see bench/engine.ts).
        if (batch.length) boss.notifyWorker(id);
      });
      workers.set(name, [...(workers.get(name) ?? []), id]);
    }
  }
  // A job sent by this process wakes this process's idle workers at once (others find it at their next poll).
  const wake = (name: string) => {
    for (const id of workers.get(name) ?? []) boss.notifyWorker(id);
  };
  return {
    boss,
    send: async (name, payload) => {
      const id = await boss.send(name, catalog[name]!.payload.parse(payload) as object);
      wake(name);
      return id;
    },
    sendMany: async (name, payloads) => {
      if (!payloads.length) return;
      await boss.insert(payloads.map((p) => ({ name, data: catalog[name]!.payload.parse(p) as object })));
      wake(name);
    },
    // Running jobs get `timeout` to finish; pg-boss then fails those still running (retried by a worker).
    stop: (timeout = 10_000) => boss.stop({ graceful: true, timeout, wait: true }),
  };
}

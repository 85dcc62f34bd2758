import type { Logger } from "pino";
import { z } from "zod";
import type { Services } from "./app.js";
import type { Config } from "./config.js";
import type { Database } from "./platform/db/client.js";
import { jobOf, startJobQueue, type Jobs } from "./platform/jobs/jobs.js";

const job = jobOf<Services>();

/** The typed job catalog: each job name has a payload schema, a retry policy, an optional cron schedule and exactly one handler. */
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
      const outcomes = await services.feeds.sync();
      for (const o of outcomes)
        logger[o.status === "failed" ? "warn" : "info"](
          { source: o.source, url: o.url, status: o.status, error: o.error, read: o.result?.read },
          "feeds.sync",
        );
    },
  }),
} as const;

/** Starts the catalog's jobs in this process. */
export function startJobs(database: Database, services: Services, logger: Logger, config: Config): Promise<Jobs<typeof JOBS>> {
  return startJobQueue(database, JOBS, services, logger, config);
}

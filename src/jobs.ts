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
  "maintenance-purge": job({
    description: "oublie les clés d'idempotence échues, les vieux échecs de connexion et les sessions expirées",
    payload: z.object({}),
    retryLimit: 2,
    cron: "17 * * * *",
    handler: async (_p, services, logger) => {
      const keys = await services.workflows.purgeIdempotencyKeys();
      await services.sessions.purge();
      logger.info({ idempotencyKeys: keys }, "maintenance-purge done");
      return { idempotency_keys: keys };
    },
  }),
  /** Downloads and imports the configured feeds (VIGIE_FEEDS_SYNC=on, every VIGIE_FEEDS_CRON). */
  "feeds-sync": job({
    description: "télécharge et importe les flux configurés (planifié si VIGIE_FEEDS_SYNC=on, selon VIGIE_FEEDS_CRON)",
    payload: z.object({}),
    retryLimit: 1,
    cron: (config) => config.feedsCron,
    handler: async (_p, services, logger) => {
      const outcomes = await services.feeds.sync();
      for (const o of outcomes)
        logger[o.status === "failed" ? "warn" : "info"](
          { source: o.source, url: o.url, status: o.status, error: o.error, read: o.result?.read },
          "feeds-sync",
        );
      return { sources: outcomes };
    },
  }),
  /**
   * Exceptions and register entries past their last day (Paris time) reopen their cases; warnings
   * N days before. Every hour at minute 0 UTC: 00:00 Europe/Paris is a whole UTC hour in winter
   * (23:00 UTC) and in summer (22:00 UTC), so a case reopens at the first run of its day, and a server
   * that was down at midnight catches up at its next hourly run (the job works from today's Paris
   * date, not from the hour it was due).
   */
  "cases-expiry": job({
    description: "rouvre les cas dont l'exception ou l'entrée du registre a expiré (heure de Paris) et prévient N jours avant",
    payload: z.object({}),
    retryLimit: 2,
    cron: "0 * * * *",
    clock: true,
    handler: async (_p, services, logger, now) => {
      const result = await services.caseExpiry.run(now);
      logger.info(result, "cases-expiry done");
      return { ...result };
    },
  }),
} as const;

/** Starts the catalog's jobs in this process. */
export function startJobs(database: Database, services: Services, logger: Logger, config: Config): Promise<Jobs<typeof JOBS>> {
  return startJobQueue(database, JOBS, services, logger, config);
}

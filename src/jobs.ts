import type { Logger } from "pino";
import { z } from "zod";
import type { Services } from "./app.js";
import type { Config } from "./config.js";
import type { Database } from "./platform/db/client.js";
import { FeedScheduler } from "./feeds/sync/scheduler.js";
import { coalesced } from "./platform/coalesce.js";
import { OUTBOX_TOPIC } from "./platform/db/cache-feed.js";
import { jobOf, startJobQueue, type JobQueueOptions, type Jobs } from "./platform/jobs/jobs.js";
import { RUN_DEFAULTS } from "./modules/runs/runs.service.js";

const job = jobOf<Services>();

/** The typed job catalog: each job name has a payload schema, a retry policy, an optional cron schedule and exactly one handler. */
export const JOBS = {
  /**
   * Hourly: forgets idempotency keys past retention, old login failures and expired sessions,
   * finished workflow runs past VIGIE_RUNS_RETENTION_DAYS and processed events past
   * VIGIE_EVENTS_RETENTION_DAYS (ADR 0010), the hourly call counts of past windows, and the EPSS
   * scores past VIGIE_EPSS_HISTORY_DAYS.
   */
  "maintenance-purge": job({
    description:
      "oublie les clés d'idempotence échues, les vieux échecs de connexion, les sessions expirées, les runs terminés et les événements traités au-delà de leur rétention, les compteurs d'appels des heures passées, les scores EPSS au-delà de leur historique",
    payload: z.object({}),
    retryLimit: 2,
    cron: "17 * * * *",
    clock: true,
    handler: async (_p, services, logger, now) => {
      const keys = await services.workflows.purgeIdempotencyKeys();
      await services.sessions.purge();
      const purged = await services.runs.purge(now);
      const digests = await services.digests.purge(now);
      const usage = await services.authenticator.limiter.purge(now);
      const epss = await services.feeds.purgeEpssHistory();
      logger.info({ idempotencyKeys: keys, ...purged, digests, apiUsageWindows: usage, epssScores: epss }, "maintenance-purge done");
      return { idempotency_keys: keys, runs: purged.runs, events: purged.events, digests, api_usage_windows: usage, epss_scores: epss };
    },
  }),
  /**
   * Syncs every enabled source from its publisher now, whatever its schedule (`vigie jobs run
   * feeds-sync`); with VIGIE_FEEDS_SYNC=on the feed scheduler runs each source on its own rhythm.
   */
  "feeds-sync": job({
    description: "synchronise maintenant chaque source depuis son éditeur (sinon chacune à son rythme si VIGIE_FEEDS_SYNC=on)",
    payload: z.object({}),
    retryLimit: 0,
    handler: async (_p, services, logger) => {
      const outcomes = await services.feeds.sync();
      for (const o of outcomes)
        logger[o.status === "failed" ? "warn" : "info"](
          { source: o.source, status: o.status, applied: o.applied, seconds: o.seconds },
          "feeds-sync",
        );
      return { sources: outcomes };
    },
  }),
  /**
   * Syncs every CSAF provider the organizations follow (modules/csaf), one after the other, each
   * under its lease: an unchanged provider costs a 304 per listing (its metadata and keys are read
   * again once a day, or when a listing fails or a signature does not verify: docs/csaf-providers.md).
   */
  "csaf-sync": job({
    description:
      "synchronise les fournisseurs CSAF suivis par les organisations (avis des éditeurs : empreintes, signatures, correspondances)",
    payload: z.object({}),
    retryLimit: 0,
    cron: "41 * * * *",
    handler: async (_p, services, logger) => {
      const outcomes = await services.csaf.syncAll();
      for (const o of outcomes)
        logger[o.status === "failed" ? "warn" : "info"](
          { provider: o.provider_id, status: o.status, applied: o.appliquees, refused: o.refusees.length, alerts: o.alertes },
          "csaf-sync",
        );
      return { providers: outcomes.map((o) => ({ ...o, refusees: o.refusees.length })) };
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
    description: "rouvre les dossiers dont l'exception ou l'entrée du registre a expiré (heure de Paris) et prévient N jours avant",
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
  /**
   * EOL notices of the subscribed cycles (eol.approaching N days before the end of life or of active
   * support, eol.reached on the day), by Paris calendar day. A daily notice, checked every hour at
   * minute 0 UTC like cases-expiry: 00:00 Paris is a whole UTC hour in both seasons, and a server
   * down at midnight catches up at its next run (each notice is written once).
   */
  "eol-notices": job({
    description: "annonce la fin de vie (ou de support) des cycles suivis : N jours avant, puis le jour venu (heure de Paris)",
    payload: z.object({}),
    retryLimit: 2,
    cron: "0 * * * *",
    clock: true,
    handler: async (_p, services, logger, now) => {
      const result = await services.eolNotices.run(now);
      logger.info(result, "eol-notices done");
      return { ...result };
    },
  }),
  /**
   * Pending outbox events become runs (FOR UPDATE SKIP LOCKED batches: several workers share them),
   * sent to runs-execute. At start-up and every minute, as the floor: each server also dispatches
   * when the database notifies that events were committed, by whichever process (startJobs).
   */
  "runs-dispatch": job({
    description: "transforme les événements en attente en runs de workflows (puis les confie à runs-execute)",
    payload: z.object({}),
    retryLimit: 2,
    cron: "* * * * *",
    pollSeconds: 1,
    handler: async (_p, services, logger) => {
      const r = await services.runs.dispatchAll();
      if (r.events) logger.info(r, "runs-dispatch done");
      return { ...r };
    },
  }),
  /**
   * The engine's loop: without run_id, claims the runs nobody took yet by batches (P1 first) and
   * executes them until none is left (`runs.drain`); with one, executes that run. A run held by
   * another worker is left to it.
   */
  "runs-execute": job({
    description: "exécute les runs pas encore pris, par lots, P1 d'abord (avec run_id : ce run)",
    payload: z.object({ run_id: z.uuid().optional() }),
    retryLimit: 2,
    pollSeconds: 1,
    // Runs wait on the network (webhooks, SMTP): several at a time on PostgreSQL; one connection with PGlite.
    workers: (config) => (config.driver === "pglite" ? 1 : 4),
    handler: async (p, services) => {
      if (p.run_id) return { run_id: p.run_id, status: await services.runs.execute(p.run_id) };
      return { executed: await services.runs.drain() };
    },
  }),
  /**
   * Digests (issue 37): closes those whose schedule came (Europe/Paris hours; the digest row and the
   * claim of its events in one transaction), then sends every digest waiting, its id as the
   * receiver's idempotency key; a digest whose sender died is sent again when its lease runs out.
   */
  "digests-send": job({
    description: "ferme les résumés arrivés à échéance (heure de Paris) et envoie ceux en attente (reprise après arrêt : même identifiant)",
    payload: z.object({}),
    retryLimit: 1,
    cron: "* * * * *",
    clock: true,
    handler: async (_p, services, logger, now) => {
      const r = await services.digests.run(now);
      if (r.closed || r.sent || r.failed || r.retrying) logger.info(r, "digests-send done");
      return { ...r };
    },
  }),
  /** Runs whose worker died (lease expired) are resumed, completed steps skipped, or finished failed after their last attempt. */
  "runs-recover": job({
    description: "reprend les runs dont le bail a expiré (worker arrêté en cours de route), ou les termine en échec",
    payload: z.object({}),
    retryLimit: 1,
    cron: "* * * * *",
    pollSeconds: 2,
    handler: async (_p, services, logger) => {
      const r = await services.runs.recover();
      if (r.resumed) logger.info(r, "runs-recover done");
      return { ...r };
    },
  }),
  /**
   * Reports not frozen whose data moved (data versions alerts:/cases:<project>, cves, the Paris
   * day, the stacks) are regenerated; a version is added when the fingerprint changes. Every
   * minute: the check reads one row per report and the data versions.
   */
  "reports-sync": job({
    description: "régénère les rapports non figés dont les données ont changé (nouvelle version si l'empreinte change)",
    payload: z.object({}),
    retryLimit: 1,
    cron: "* * * * *",
    clock: true,
    handler: async (_p, services, logger, now) => {
      const r = await services.reports.sync(now);
      if (r.regenerated || r.errors) logger.info(r, "reports-sync done");
      return { ...r };
    },
  }),
  /**
   * Each project's scheduled report: on its day of the month (Paris time, or at the first run after
   * it), the previous calendar month's. Hourly at minute 5 UTC (00:05 Paris is always minute 5 of a
   * UTC hour); a month is claimed once per project.
   */
  "reports-schedule": job({
    description: "génère le rapport mensuel des projets qui l'ont programmé (le mois précédent, heure de Paris)",
    payload: z.object({}),
    retryLimit: 1,
    cron: "5 * * * *",
    clock: true,
    handler: async (_p, services, logger, now) => {
      const r = await services.reports.runSchedule(now);
      if (r.generated) logger.info(r, "reports-schedule done");
      return { ...r };
    },
  }),
  /**
   * Broad stack items (ADR 0037): the alerts of the items their request left to the background
   * (stack_item_matching), VIGIE_MATCH_BATCH CVEs per transaction. Sent when such a request
   * commits; every minute as the floor (a process killed mid-way: the next run resumes after the
   * last batch committed).
   */
  "items-match": job({
    description: "crée les alertes des éléments de pile trop larges pour leur requête, par lots (VIGIE_MATCH_BATCH CVE par transaction)",
    payload: z.object({}),
    retryLimit: 2,
    cron: "* * * * *",
    pollSeconds: 1,
    handler: async (_p, services, logger) => {
      const r = await services.itemMatching.runPending();
      if (r.batches) logger.info(r, "items-match done");
      return { ...r };
    },
  }),
  /**
   * Monitored URLs due at `now` (each every scan_interval_hours, ±10 % by id so they spread out),
   * taken with FOR UPDATE SKIP LOCKED — several processes share them — and scanned
   * VIGIE_URLS_SCAN_CONCURRENCY at a time in this process. Every minute.
   */
  "urls-scan-due": job({
    description: "scanne les URL surveillées arrivées à échéance (VIGIE_URLS_SCAN_CONCURRENCY à la fois)",
    payload: z.object({}),
    retryLimit: 1,
    cron: "* * * * *",
    clock: true,
    pollSeconds: 5,
    handler: async (_p, services, logger, now) => {
      const r = await services.urls.scanDue(now);
      if (r.scanned) logger.info(r, "urls-scan-due done");
      return { ...r };
    },
  }),
  /** Scans one URL now (POST …/monitored-urls/{id}/scan); without url_id (jobs run), every URL due. */
  "urls-scan": job({
    description: "scanne une URL surveillée maintenant (POST …/scan ; sans url_id : toutes celles arrivées à échéance)",
    payload: z.object({ url_id: z.uuid().optional() }),
    retryLimit: 1,
    pollSeconds: 1,
    handler: async (p, services) => {
      if (!p.url_id) return { ...(await services.urls.scanDue()) };
      const r = await services.urls.scanOne(p.url_id);
      return { url_id: p.url_id, ...(r ?? { scanned: 0 }) };
    },
  }),
} as const;

/**
 * Starts the catalog's jobs in this process, hands the run queue to the engine and asks for a
 * dispatch at once: events written while no server ran (an import by the CLI) are processed now;
 * with the embedded database, runs a killed server left unfinished are resumed now too. From then
 * on, every commit that writes outbox events — in this process or another — wakes a dispatch here
 * (NOTIFY at commit, ADR 0016), coalesced: one in flight, one pending.
 * Without `work` (VIGIE_ROLE=api), the queue only takes jobs this process asks for (a URL scan).
 */
export async function startJobs(
  database: Database,
  services: Services,
  logger: Logger,
  config: Config,
  opts: JobQueueOptions = { work: true },
): Promise<Jobs<typeof JOBS>> {
  // One process owns a PGlite directory (ADR 0002): the leases its killed predecessor left are freed
  // before any worker starts (runs), and the digests it was sending are sent again with the same id.
  if (opts.work && database.driver === "pglite") {
    await services.runs.releaseLeases();
    await services.digests.releaseLeases();
  }
  const jobs = await startJobQueue(database, JOBS, services, logger, config, opts);
  const scans = {
    scan: async (url_id: string) => {
      await jobs.send("urls-scan", { url_id });
    },
  };
  services.urls.useQueue(scans);
  services.itemMatching.useQueue({
    wake: async () => {
      await jobs.send("items-match", {});
    },
  });
  if (!opts.work) {
    return {
      ...jobs,
      stop: async (timeoutMs) => {
        services.urls.useQueue(null);
        services.itemMatching.useQueue(null);
        await jobs.stop(timeoutMs);
      },
    };
  }
  // Runs created: as many draining jobs as batches to claim, up to what the workers of two
  // processes take at once (each job drains until nothing is left; one that finds nothing ends at once).
  services.runs.useQueue({
    wake: (runs) =>
      jobs.sendMany(
        "runs-execute",
        Array.from({ length: Math.min(8, Math.ceil(runs / RUN_DEFAULTS.claim)) }, () => ({})),
      ),
  });
  const dispatch = coalesced(
    async () => {
      const r = await services.runs.dispatchAll();
      if (r.events) logger.info({ ...r, wake: "notify" }, "runs-dispatch done");
    },
    (err) => logger.warn({ err }, "runs-dispatch on notification failed (the minute's job will take the events)"),
  );
  const unsubscribe = services.cacheFeed.on(OUTBOX_TOPIC, dispatch);
  await services.cacheFeed.start();
  await jobs.send("runs-dispatch", {});
  // Runs whose lease ran out while no worker held them (a killed process) are resumed now, not at the next minute.
  await jobs.send("runs-recover", {});
  const feeds = config.feeds.sync ? new FeedScheduler(services.feeds, logger) : null;
  feeds?.start();
  return {
    ...jobs,
    stop: async (timeoutMs) => {
      await feeds?.stop();
      unsubscribe();
      await dispatch.idle();
      services.runs.useQueue(null);
      services.urls.useQueue(null);
      services.itemMatching.useQueue(null);
      await jobs.stop(timeoutMs);
    },
  };
}

import { join } from "node:path";
import type { Server } from "node:net";
import { buildApp, buildOpsServer, createServices, type Services } from "./app.js";
import { parseCommand, UsageError } from "./commands.js";
import type { Config } from "./config.js";
import { listenAdminSocket, type AdminResponse } from "./platform/admin-socket.js";
import { openDatabase, type Database } from "./platform/db/client.js";
import { isConnectionLoss, retryOnConnectionLoss } from "./platform/db/errors.js";
import { acquireLock } from "./platform/db/lock.js";
import { errorAnswer } from "./platform/http/error-body.js";
import { createLogger } from "./platform/log.js";
import { loadSecretKey } from "./platform/secrets.js";
import { startJobs, type JOBS } from "./jobs.js";
import type { Jobs } from "./platform/jobs/jobs.js";

export const ADMIN_SOCKET = "vigie.sock";

/** Opens the configured database (taking the PGlite directory lock) and applies migrations. */
export async function openForProcess(config: Config, socket: string | null): Promise<{ database: Database; release: () => void }> {
  const release = config.driver === "pglite" ? acquireLock(config.dataDir, socket) : () => undefined;
  try {
    const database = await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      poolSize: config.db.poolSize,
      connectTimeoutMs: config.db.connectTimeoutMs,
    });
    await database.migrate();
    return { database, release };
  } catch (err) {
    release();
    throw err;
  }
}

/** Runs one admin command against the services; errors become a response, never a throw. */
export async function executeCommand(services: Services, database: Database, argv: string[]): Promise<AdminResponse> {
  try {
    const { command, values, positionals } = parseCommand(argv);
    return { ok: true, result: await command.run(services, database, values, positionals) };
  } catch (err) {
    if (err instanceof UsageError) return { ok: false, usage: true, message: err.message };
    const known = errorAnswer(err);
    if (known) return { ok: false, usage: known.status === 422, message: (err as Error).message, detail: known.body.detail };
    throw err;
  }
}

/** Two processes starting on an empty PostgreSQL database import the bundled snapshot once. */
const SNAPSHOT_LOCK_ID = 4242_0002;

/**
 * `vigie serve`: database, migrations, then by VIGIE_ROLE the HTTP API (all, api), the jobs (all,
 * worker; an api process only enqueues), /healthz /readyz /metrics (every role), and (PGlite) the
 * admin socket. SIGTERM or SIGINT stops gracefully (see shutdown); a second one exits at once.
 */
export async function serve(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel).child({ role: config.role });
  const socketPath = config.driver === "pglite" ? join(config.dataDir, ADMIN_SOCKET) : null;
  const { database, release } = await openForProcess(config, socketPath);
  // The secrets key is read, or generated into the data directory, at start: a problem shows now, not at the first webhook.
  const secretKey = loadSecretKey(config, (message) => logger.warn(message));
  const services = createServices(database, { ...config, secretKey }, { logger });
  // A connection lost while this process starts (PostgreSQL dropping them, or restarting): the step begins again.
  const step = <T>(name: string, run: () => Promise<T>) =>
    retryOnConnectionLoss(run, (err, attempt) =>
      logger.warn({ err, attempt, step: name }, "connexion à la base perdue au démarrage : nouvel essai"),
    );
  const sealed = await step("secrets", () => services.workflows.sealStoredSecrets());
  if (sealed) logger.info({ workflows: sealed }, "secrets des workflows chiffrés au repos");
  // Not an API process's to import (it starts at once): the others, one at a time.
  if (config.snapshot && config.role !== "api")
    await step("snapshot", () => database.exclusive(SNAPSHOT_LOCK_ID, () => services.feeds.importSnapshotIfEmpty(logger)));
  const { app, ops } = config.serveApi
    ? await buildApp({ config, database, logger, services })
    : await buildOpsServer({ config, database, logger, services });
  let jobs: Jobs<typeof JOBS> | null = null;
  if (config.jobs) ops.health.add("jobs", () => (jobs ? { ok: true } : { ok: false, detail: "runner de jobs en cours de démarrage" }));
  let admin: Server | null = null;

  let stopping = false;
  /**
   * Graceful stop: /readyz answers 503 at once, the server stops accepting connections, in-flight
   * requests and running jobs get VIGIE_SHUTDOWN_TIMEOUT_MS to finish; past it, open connections are
   * closed, pg-boss hands the jobs still running back to the queue, and the leases of the workflow
   * runs still in hand end (another worker resumes them at once). Then the quota this process
   * reserved and did not use goes back, and the pool closes. A second signal exits at once.
   */
  const shutdown = async (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, "second signal : arrêt immédiat");
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal, timeout_ms: config.shutdownTimeoutMs }, "arrêt en cours");
    ops.health.shuttingDown();
    const grace = new Promise<"late">((resolve) => setTimeout(() => resolve("late"), config.shutdownTimeoutMs).unref());
    const http = (async () => {
      const closed = app.close(); // also stops the cache notifications, hands back unused call quota, writes key usage
      if ((await Promise.race([closed, grace])) === "late") {
        logger.warn("requêtes encore en cours à l'échéance : connexions fermées");
        app.server.closeAllConnections();
        await closed;
      }
    })();
    await Promise.all([http, jobs?.stop(Math.max(1000, config.shutdownTimeoutMs))]);
    const released = await services.runs.releaseHeld().catch(() => 0);
    if (released) logger.warn({ runs: released }, "runs encore en cours : baux rendus, un autre worker les reprend");
    admin?.close();
    if (!config.serveApi) await services.cacheFeed.close();
    await database.close();
    release();
    logger.info("arrêté");
    process.exit(0);
  };
  // A library's promise rejected by a lost connection (pg-boss failing a job while the database is
  // gone) must not kill the process: the connection comes back. Any other unhandled rejection does.
  process.on("unhandledRejection", (err) => {
    if (!isConnectionLoss(err)) throw err;
    logger.warn({ err }, "connexion à la base perdue pendant une opération de fond : elle reprendra");
  });
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));

  if (config.jobs) jobs = await startJobs(database, services, logger, config, { work: true, observe: (...a) => ops.metrics.job(...a) });
  else if (config.role === "api") jobs = await startJobs(database, services, logger, config, { work: false });
  if (socketPath) admin = await listenAdminSocket(socketPath, (req) => executeCommand(services, database, req.argv));
  // Listening last: once a client can connect, the process is whole (the jobs run, the admin socket answers).
  const url = `${await app.listen({ port: config.port, host: config.host })}/`;
  logger.info({ url, driver: database.driver, dataDir: database.driver === "pglite" ? config.dataDir : undefined }, `Vigie prêt : ${url}`);
  if (config.serveApi && (await services.users.none())) {
    logger.info(
      "aucun compte : créez le premier (propriétaire d'une organisation et d'un projet) avec npm run vigie -- setup --email VOUS@EXEMPLE.FR --password '…'",
    );
  }
}

import { join } from "node:path";
import type { Server } from "node:net";
import { buildApp, createServices, type Services } from "./app.js";
import { parseCommand, UsageError } from "./commands.js";
import type { Config } from "./config.js";
import { listenAdminSocket, type AdminResponse } from "./platform/admin-socket.js";
import { openDatabase, type Database } from "./platform/db/client.js";
import { acquireLock } from "./platform/db/lock.js";
import { errorAnswer } from "./platform/http/error-body.js";
import { createLogger } from "./platform/log.js";
import { loadSecretKey } from "./platform/secrets.js";
import { startJobs } from "./jobs.js";

export const ADMIN_SOCKET = "vigie.sock";

/** Opens the configured database (taking the PGlite directory lock) and applies migrations. */
export async function openForProcess(config: Config, socket: string | null): Promise<{ database: Database; release: () => void }> {
  const release = config.driver === "pglite" ? acquireLock(config.dataDir, socket) : () => undefined;
  try {
    const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
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

/** `vigie serve`: database, migrations, HTTP, jobs, and (PGlite) the admin socket. */
export async function serve(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  const socketPath = config.driver === "pglite" ? join(config.dataDir, ADMIN_SOCKET) : null;
  const { database, release } = await openForProcess(config, socketPath);
  // The secrets key is read, or generated into the data directory, at start: a problem shows now, not at the first webhook.
  const secretKey = loadSecretKey(config, (message) => logger.warn(message));
  const services = createServices(database, { ...config, secretKey }, { logger });
  const sealed = await services.workflows.sealStoredSecrets();
  if (sealed) logger.info({ workflows: sealed }, "secrets des workflows chiffrés au repos");
  if (config.snapshot) await services.feeds.importSnapshotIfEmpty(logger);
  const { app } = await buildApp({ config, database, logger, services });
  const jobs = config.jobs ? await startJobs(database, services, logger, config) : null;
  let admin: Server | null = null;
  if (socketPath) admin = await listenAdminSocket(socketPath, (req) => executeCommand(services, database, req.argv));

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, "arrêt en cours");
    await app.close(); // also stops the cache notifications, hands back unused call quota, writes key usage
    admin?.close();
    await jobs?.stop();
    await database.close();
    release();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));

  const url = `${await app.listen({ port: config.port, host: config.host })}/`;
  logger.info({ url, driver: database.driver, dataDir: database.driver === "pglite" ? config.dataDir : undefined }, `Vigie prêt : ${url}`);
  if (await services.users.none()) {
    logger.info(
      "aucun compte : créez le premier (propriétaire d'une organisation et d'un projet) avec npm run vigie -- setup --email VOUS@EXEMPLE.FR --password '…'",
    );
  }
}

#!/usr/bin/env node
import { resolve } from "node:path";
import { help, parseCommand, UsageError } from "./commands.js";
import { ConfigError, loadConfig } from "./config.js";
import { sendAdminCommand, type AdminResponse } from "./platform/admin-socket.js";
import { DataDirLockedError, readLock } from "./platform/db/lock.js";

function print(res: AdminResponse, json: boolean, text?: (result: Record<string, unknown>) => string): number {
  if (res.ok) {
    process.stdout.write(json ? JSON.stringify(res.result) + "\n" : (text ?? humanize)(res.result));
    return 0;
  }
  process.stderr.write(`vigie : ${res.message}\n`);
  if (json) process.stdout.write(JSON.stringify({ error: { message: res.message, detail: res.detail ?? null } }) + "\n");
  return res.usage ? 2 : 1;
}

function humanize(obj: Record<string, unknown>): string {
  return (
    Object.entries(obj)
      .map(([k, v]) => `${k}: ${typeof v === "object" && v !== null ? JSON.stringify(v) : String(v)}`)
      .join("\n") + "\n"
  );
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h" || argv[0] === "help") {
    process.stdout.write(help() + "\n");
    return argv.length === 0 ? 2 : 0;
  }
  const config = loadConfig();
  // The application (./main.js, ./app.js) is loaded only by the commands that run it here: `--help`
  // and a command handed to the running server start in a fraction of the time.
  if (argv[0] === "serve") {
    const { serve } = await import("./main.js");
    await serve(config);
    return -1; // keeps running
  }
  const { json, paths, command } = parseCommand(argv); // usage errors before touching the database
  const text = command.text?.bind(command);
  if (config.driver === "pglite") {
    const holder = readLock(config.dataDir);
    // The server runs elsewhere: file paths are made absolute before they are handed to it.
    const forwarded = argv.map((a) => (paths.includes(a) ? resolve(a) : a));
    if (holder?.socket) return print(await sendAdminCommand(holder.socket, { argv: forwarded }), json, text);
  }
  const [{ executeCommand, openForProcess }, { createServices }] = await Promise.all([import("./main.js"), import("./app.js")]);
  const { database, release } = await openForProcess(config, null);
  try {
    return print(await executeCommand(createServices(database, config), database, argv), json, text);
  } finally {
    await database.close();
    release();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err: unknown) => {
    if (err instanceof UsageError || err instanceof ConfigError || err instanceof DataDirLockedError) {
      process.stderr.write(`vigie : ${err.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`vigie : erreur inattendue : ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);

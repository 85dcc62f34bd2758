// `vigie` admin commands for the process tests and the end-to-end harness, many in one process: the store is opened (and
// migrated) once, then each line read on stdin (a JSON array of arguments, as `vigie <args>`) runs
// through the CLI's own parser and commands (dist/main.js executeCommand), and its answer is written
// as one JSON line: {"ok":true,"result":…} or {"ok":false,"message":…}. The store is closed at the end
// of stdin. Same environment as the CLI (VIGIE_DATA_DIR, DATABASE_URL); run from the repository root.
import { createInterface } from "node:readline";
import { createServices } from "../dist/app.js";
import { loadConfig } from "../dist/config.js";
import { executeCommand, openForProcess } from "../dist/main.js";

const config = loadConfig();
const { database, release } = await openForProcess(config, null);
try {
  const services = createServices(database, config);
  for await (const line of createInterface({ input: process.stdin })) {
    if (!line.trim()) continue;
    const answer = await executeCommand(services, database, JSON.parse(line)).catch((err) => ({ ok: false, message: String(err?.stack ?? err) }));
    process.stdout.write(`${JSON.stringify(answer)}\n`);
  }
} finally {
  await database.close();
  release();
}

// One import in its own process, through the built code that `vigie feeds import` runs (so that its
// peak RSS is the importer's own): prints the result and the peak RSS.
import { importFeed } from "../dist/feeds/import.js";
import { openDatabase } from "../dist/platform/db/client.js";

const [source, ...paths] = process.argv.slice(2);
const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL || undefined, dataDir: process.env.VIGIE_DATA_DIR });
await database.migrate();
const result = await importFeed(database.db, source, paths);
await database.close();
process.stdout.write(
  JSON.stringify({ ...result, errors: result.errors.length, peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024) }) + "\n",
);

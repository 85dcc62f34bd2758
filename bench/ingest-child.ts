/** One import in its own process (so that its peak RSS is its own): prints the result and the peak RSS. */
import { importFeed } from "../src/feeds/import.js";
import type { Source } from "../src/feeds/pipeline.js";
import { openDatabase } from "../src/platform/db/client.js";

const [source, ...paths] = process.argv.slice(2);
const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL || undefined, dataDir: process.env.VIGIE_DATA_DIR });
await database.migrate();
const result = await importFeed(database.db, source as Source, paths);
await database.close();
process.stdout.write(JSON.stringify({ ...result, errors: result.errors.length, peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024) }) + "\n");

/**
 * The server measured by bench/sbom.ts, in its own process (its peak RSS is the figure): the Vigie
 * app over BENCH_DB_URL (or BENCH_DATA_DIR), with an organization and a key holding stacks-write.
 * Prints {"port", "key", "base"} once listening; GET /bench/matching says what the background matching has left. `prepare` (another process, run first) migrates
 * and imports the bundled snapshot of real data, as the first `vigie serve` does, so that the
 * server's peak is the upload's, not the snapshot's.
 */
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { importSnapshotIfEmpty } from "../src/feeds/snapshot.js";
import { openDatabase } from "../src/platform/db/client.js";
import { createLogger } from "../src/platform/log.js";

const config = loadConfig({ ...process.env, LOG_LEVEL: "warn", VIGIE_JOBS: "off" });
const database = await openDatabase({ databaseUrl: process.env.BENCH_DB_URL, dataDir: process.env.BENCH_DATA_DIR });
const logger = createLogger("warn");
if (process.argv[2] === "prepare") {
  await database.migrate();
  // The first start's snapshot (fixtures/snapshot): the CVEs the items are matched against.
  await importSnapshotIfEmpty(database.db, logger);
  await database.close();
  process.exit(0);
}
const { app, services } = await buildApp({ config, database, logger });
const plan = await services.organizations.upsertPlan({ slug: "bench", name: "Bench", maxApiCallsPerHour: 1_000_000_000 });
const { org } = await services.organizations.createOrg({ name: "Bench SBOM", planSlug: plan.slug });
const project = await services.projects.create({ orgId: org.id, name: "Bench SBOM" });
const { key } = await services.apiKeys.create({ orgId: org.id, scopes: ["stacks-write"], projectIds: [] });
// A database in use, as issue 33 measured it: a project watching a few products typed by hand,
// the statistics taken then (autovacuum's ANALYZE), before any SBOM. A product's SBOM then goes
// into a project of its own.
const watching = await services.projects.create({ orgId: org.id, name: "Typed by hand" });
await services.stacks.create(
  { id: watching.id, orgId: org.id },
  {
    name: "by hand",
    items: ["apache:http_server", "openssl:openssl", "microsoft:windows_10", "linux:linux_kernel", "oracle:mysql"].map((value) => ({
      item_type: "product" as const,
      value,
      min_severity: null,
      tag_ids: [],
    })),
  },
);
await database.executeSql("analyze");
const product = await services.projects.create({ orgId: org.id, name: "Bench SBOM 1k" });

// The alerts the background matching (ADR 0037: past VIGIE_MATCH_INLINE_MAX candidates) has still to raise, and those raised.
app.get("/bench/matching", async () => {
  const [row] = await database.raw<{ pending: number; alerts: number }>(
    "bench_matching",
    `select (select count(*)::int from stack_item_matching where state <> 'done') as pending, (select count(*)::int from alerts) as alerts`,
    [],
  );
  return row;
});
await app.listen({ port: 0, host: "127.0.0.1" });
const address = app.server.address();
const port = typeof address === "object" && address ? address.port : 0;
const base = (id: string) => `/api/v1/organizations/${org.id}/projects/${id}`;
process.stdout.write(`${JSON.stringify({ port, key, base: base(project.id), base1k: base(product.id) })}\n`);
process.on("SIGTERM", async () => {
  await app.close();
  await database.close();
  process.exit(0);
});

/**
 * The server measured by bench/api.ts, in its own process: the Vigie app plus two reference
 * routes in the same Fastify instance — a constant, and one raw single-row query through the
 * same database pool. Prints {"port", "key", "orgId", "projectId"} once listening.
 */
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { openDatabase } from "../src/platform/db/client.js";
import { createLogger } from "../src/platform/log.js";

const config = loadConfig({ ...process.env, LOG_LEVEL: "warn", VIGIE_JOBS: "off" });
const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
await database.migrate();
const { app, services } = await buildApp({ config, database, logger: createLogger("warn") });

const plan = await services.organizations.upsertPlan({ slug: "bench", name: "Bench", maxApiCallsPerHour: 1_000_000_000 });
const { org } = await services.organizations.createOrg({ name: "Bench org", planSlug: plan.slug });
const project = await services.projects.create({ orgId: org.id, name: "Bench project" });
for (let i = 1; i <= 4; i++) {
  await services.workflows.createAsOperator({
    orgId: org.id,
    projectId: project.id,
    name: `Workflow ${i}`,
    trigger: { event: "cve.kev_added", match: "all" },
    actions: [],
    create_case: true,
  });
}
const { key } = await services.apiKeys.create({ orgId: org.id, scopes: ["workflows-write"], projectIds: [] });

app.get("/bench/bare", async () => ({ ok: true }));
app.get("/bench/raw", async () => {
  const [row] = await database.raw<{ id: string; name: string }>("bench_raw", "select id, name from projects where id = $1", [project.id]);
  return row;
});

await app.listen({ port: 0, host: "127.0.0.1" });
const address = app.server.address();
process.stdout.write(
  JSON.stringify({ port: typeof address === "object" && address ? address.port : 0, key, orgId: org.id, projectId: project.id }) + "\n",
);
process.on("SIGTERM", async () => {
  await app.close();
  await database.close();
  process.exit(0);
});

import { describe, expect, it } from "vitest";
import { bearer, openTestDatabase } from "./helpers.js";
import { appOver, countingRaw, eventually, secondConnection } from "./two-processes.js";

// Two server processes over one database: `a` writes, `b` must not serve what `a` changed.
const database = await openTestDatabase();
const a = await appOver(database);
const b = await appOver(await secondConnection(database));

await a.services.organizations.upsertPlan({ slug: "big", name: "Big", maxApiCallsPerHour: 10_000_000 });

/** An organization on a large plan, with one project and one key of every scope. */
async function tenant() {
  const { org } = await a.services.organizations.createOrg({ name: `Org ${Math.random()}`, planSlug: "big" });
  const project = await a.services.projects.create({ orgId: org.id, name: "Production" });
  const { key, row } = await a.services.apiKeys.create({ orgId: org.id, scopes: ["workflows-write"], projectIds: [] });
  return { orgId: org.id, projectId: project.id, key, keyId: row.id };
}

const workflowsUrl = (t: { orgId: string; projectId: string }, suffix = "") =>
  `/api/v1/organizations/${t.orgId}/projects/${t.projectId}/workflows${suffix}`;

const names = async (app: typeof a, t: Awaited<ReturnType<typeof tenant>>): Promise<string[]> => {
  const res = await app.app.inject({ method: "GET", url: workflowsUrl(t), headers: bearer(t.key) });
  return res.statusCode === 200 ? (res.json() as { name: string }[]).map((w) => w.name) : [`${res.statusCode}`];
};

describe("in-memory caches of the /api/v1 hot path", () => {
  it("in the steady state the workflow list needs no round trip: key, quota and list come from memory", async () => {
    const t = await tenant();
    for (let i = 0; i < 50; i++) await b.app.inject({ method: "GET", url: workflowsUrl(t), headers: bearer(t.key) }); // warm-up
    const statements = await countingRaw(b.database, async () => {
      for (let i = 0; i < 500; i++)
        expect((await b.app.inject({ method: "GET", url: workflowsUrl(t), headers: bearer(t.key) })).statusCode).toBe(200);
    });
    expect(statements.get("vigie_api_key_lookup")).toBeUndefined();
    expect(statements.get("vigie_workflows_list")).toBeUndefined();
    expect(statements.get("vigie_rate_reserve") ?? 0).toBeLessThanOrEqual(5); // a block of quota now and then
  });

  it("a workflow written through one process is listed by the other (NOTIFY at commit), and at once by the writer", async () => {
    const t = await tenant();
    expect(await names(b, t)).toEqual(["Correspondance vérifiée P1/P2 → dossier"]); // cached in b
    expect(await names(a, t)).toEqual(["Correspondance vérifiée P1/P2 → dossier"]); // cached in a
    const created = await a.app.inject({
      method: "POST",
      url: workflowsUrl(t),
      headers: { ...bearer(t.key), "idempotency-key": "k1", "content-type": "application/json" },
      payload: JSON.stringify({ name: "Second", trigger: { event: "cve.new_match" } }),
    });
    expect(created.statusCode).toBe(201);
    expect(await names(a, t)).toEqual(["Correspondance vérifiée P1/P2 → dossier", "Second"]); // the writer reads its write
    await eventually(async () => (await names(b, t)).length === 2);
    const id = created.json().id as string;
    const renamed = await a.app.inject({
      method: "PATCH",
      url: workflowsUrl(t, `/${id}`),
      headers: bearer(t.key),
      payload: { version: 1, name: "Renamed" },
    });
    expect(renamed.statusCode).toBe(200);
    await eventually(async () => (await names(b, t)).includes("Renamed"));
    await a.app.inject({ method: "PATCH", url: workflowsUrl(t, `/${id}/enabled`), headers: bearer(t.key), payload: { enabled: false } });
    await eventually(async () => {
      const res = await b.app.inject({ method: "GET", url: workflowsUrl(t), headers: bearer(t.key) });
      return (res.json() as { name: string; is_enabled: boolean }[]).find((w) => w.name === "Renamed")?.is_enabled === false;
    });
    expect((await a.app.inject({ method: "DELETE", url: workflowsUrl(t, `/${id}`), headers: bearer(t.key) })).statusCode).toBe(204);
    await eventually(async () => (await names(b, t)).length === 1);
  });

  it("a change made outside Vigie (psql) reaches the caches too: the triggers notify", async () => {
    const t = await tenant();
    expect(await names(b, t)).toHaveLength(1);
    await database.executeSql("update workflows set name = 'Par psql' where project_id = $1", [t.projectId]);
    await eventually(async () => (await names(b, t))[0] === "Par psql");
    await database.executeSql("delete from projects where id = $1", [t.projectId]);
    await eventually(async () => (await names(b, t))[0] === "404");
  });

  it("a key revoked, restricted or moved to a smaller plan through one process takes effect in the other", async () => {
    const t = await tenant();
    const me = () => b.app.inject({ method: "GET", url: "/api/v1/me", headers: bearer(t.key) });
    expect((await me()).statusCode).toBe(200); // cached in b
    await a.services.organizations.upsertPlan({ slug: "cache-test", name: "Cache test", maxApiCallsPerHour: 5000 });
    await database.executeSql("update organizations set plan_id = (select id from plans where slug = 'cache-test') where id = $1", [
      t.orgId,
    ]);
    await eventually(async () => (await me()).headers["x-ratelimit-limit"] === "5000");
    await database.executeSql("insert into api_key_projects (api_key_id, project_id) values ($1, $2)", [t.keyId, t.projectId]);
    await database.executeSql("update api_keys set restricted = true where id = $1", [t.keyId]);
    const other = await a.services.projects.create({ orgId: t.orgId, name: "Other" });
    await eventually(
      async () =>
        (
          await b.app.inject({
            method: "GET",
            url: `/api/v1/organizations/${t.orgId}/projects/${other.id}/workflows`,
            headers: bearer(t.key),
          })
        ).statusCode === 404,
    );
    await a.services.apiKeys.revoke(t.keyId, null);
    await eventually(async () => (await me()).statusCode === 401);
  });

  it("last_used_at is not a change the caches care about: writing it drops nothing", async () => {
    const t = await tenant();
    await b.app.inject({ method: "GET", url: workflowsUrl(t), headers: bearer(t.key) });
    await b.services.authenticator.limiter.flush();
    await new Promise((r) => setTimeout(r, 100)); // a notification, if any, would have arrived
    const statements = await countingRaw(b.database, async () => {
      await b.app.inject({ method: "GET", url: workflowsUrl(t), headers: bearer(t.key) });
    });
    expect(statements.get("vigie_api_key_lookup")).toBeUndefined();
  });

  it.runIf(database.driver === "postgres")(
    "the listening connection lost: every cache is dropped and bypassed until it listens again",
    async () => {
      const t = await tenant();
      expect(await names(b, t)).toHaveLength(1);
      expect(b.services.cacheFeed.live).toBe(true);
      // Kill every LISTEN connection of this database (both processes' feeds).
      await database.executeSql(
        "select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and (query ilike 'listen%' or query = 'select 1')",
        [],
      );
      await eventually(() => !b.services.cacheFeed.live);
      // Meanwhile a change is made: no notification can reach b, and b must not answer from memory.
      await database.executeSql("update workflows set name = 'Pendant la coupure' where project_id = $1", [t.projectId]);
      const statements = await countingRaw(b.database, async () => {
        expect(await names(b, t)).toEqual(["Pendant la coupure"]);
        expect(await names(b, t)).toEqual(["Pendant la coupure"]);
      });
      expect(statements.get("vigie_workflows_list")).toBe(2); // not stored while not listening
      await eventually(() => b.services.cacheFeed.live, 10_000);
      expect(await names(b, t)).toEqual(["Pendant la coupure"]);
    },
  );
});

import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { executeCommand } from "../src/main.js";
import { copyPgliteTemplate, templateKeyOfRun } from "./db-templates.js";
import { bearer, createTestApp } from "./helpers.js";

const run = promisify(execFile);
const t = await createTestApp();
const cmd = (...argv: string[]) => executeCommand(t.services, t.database, argv);

// biome-ignore lint/suspicious/noExplicitAny: a command's JSON result, read field by field by the assertions.
function ok(res: Awaited<ReturnType<typeof cmd>>): Record<string, any> {
  if (!res.ok) throw new Error(res.message);
  return res.result;
}

describe("admin commands (the CLI contract)", () => {
  it("creates an organization, a project, keys and a user that work on the API", async () => {
    const plan = ok(await cmd("plan", "upsert", "--slug", "team", "--name", "Team", "--max-api-calls-per-hour", "5000", "--json"));
    expect(plan).toMatchObject({ slug: "team", name: "Team", max_api_calls_per_hour: 5000 });
    const org = ok(await cmd("org", "create", "--name", "Acme", "--plan", "team", "--json"));
    expect(org).toMatchObject({ id: expect.any(String), name: "Acme", plan: { slug: "team", name: "Team", max_api_calls_per_hour: 5000 } });
    const project = ok(await cmd("project", "create", "--org", org.id, "--name", "Web", "--json"));
    expect(Object.keys(project).sort()).toEqual(["created_at", "description", "id", "is_default", "name", "org_id"]);
    expect(project).toMatchObject({ name: "Web", org_id: org.id, is_default: true, description: null });
    const key = ok(
      await cmd("apikey", "create", "--org", org.id, "--scope", "workflows-write", "--project", project.id, "--name", "ci", "--json"),
    );
    expect(key).toMatchObject({
      id: expect.any(String),
      key: expect.stringMatching(/^vk_/),
      scopes: ["workflows-write"],
      project_ids: [project.id],
      name: "ci",
    });
    expect(key.key.startsWith(key.prefix)).toBe(true);
    const me = await t.app.inject({ method: "GET", url: "/api/v1/me", headers: bearer(key.key) });
    expect(me.json()).toMatchObject({ org_id: org.id, org_name: "Acme", plan: { slug: "team" } });
    const user = ok(
      await cmd("user", "create", "--email", "ops@acme.example", "--password", "s3cret-pass", "--org", org.id, "--role", "admin", "--json"),
    );
    expect(user).toMatchObject({ id: expect.any(String), email: "ops@acme.example", role: "admin", org_id: org.id });
    const listed = ok(await cmd("apikey", "list", "--org", org.id));
    expect(listed.items[0]).not.toHaveProperty("key");
    const revoked = ok(await cmd("apikey", "revoke", "--id", key.id, "--json"));
    expect(revoked.revoked_at).toEqual(expect.any(String));
    const after = await t.app.inject({ method: "GET", url: "/api/v1/me", headers: bearer(key.key) });
    expect(after.statusCode).toBe(401);
  });

  it("setup: the first account, owner of a new organization and project, signs in and sees both; a bad address changes nothing", async () => {
    const orgs = async () =>
      ((await t.database.executeSql("select count(*)::int as n from organizations")) as { rows: { n: number }[] }).rows[0]!.n;
    const before = await orgs();
    for (const argv of [
      ["setup", "--email", "not-an-email", "--password", "long enough"],
      ["setup", "--email", "first@acme.example", "--password", "short"],
    ]) {
      expect((await cmd(...argv)).ok).toBe(false);
    }
    expect(await orgs()).toBe(before);
    const r = ok(await cmd("setup", "--email", "first@acme.example", "--password", "long enough", "--org", "Acme SOC", "--json"));
    expect(r).toMatchObject({ email: "first@acme.example", role: "owner" });
    const again = await cmd("setup", "--email", "first@acme.example", "--password", "long enough");
    expect(again.ok).toBe(false);
    expect(await orgs()).toBe(before + 1);
    const login = await t.app.inject({
      method: "POST",
      url: "/auth/login",
      payload: { email: "first@acme.example", password: "long enough" },
    });
    const session = await t.app.inject({ method: "GET", url: "/auth/session", headers: bearer(login.json().token) });
    expect(session.json().organizations).toEqual([
      expect.objectContaining({ id: r.org_id, name: "Acme SOC", role: "owner", projects: [{ id: r.project_id, name: "Production" }] }),
    ]);
  });

  it("an organization created without --plan has none", async () => {
    const org = ok(await cmd("org", "create", "--name", "Solo", "--json"));
    expect(org.plan).toBeNull();
  });

  it("refuses bad input with a clear message and changes nothing", async () => {
    const org = ok(await cmd("org", "create", "--name", "Strict", "--json"));
    const cases: [string[], RegExp][] = [
      [["org", "create", "--json"], /--name/],
      [["org", "create", "--name", "X", "--plan", "platinum"], /Plan introuvable/],
      [["plan", "upsert", "--slug", "x", "--name", "X", "--max-api-calls-per-hour", "many"], /entier/],
      [["apikey", "create", "--org", org.id, "--scope", "everything"], /scope inconnu/],
      [["apikey", "create", "--org", org.id, "--project", "00000000-0000-4000-8000-000000000000"], /projet introuvable/],
      [["project", "create", "--org", "00000000-0000-4000-8000-000000000000", "--name", "P"], /Organisation introuvable/],
      [["user", "create", "--email", "not-an-email", "--password", "long enough"], /e-mail/],
      [["user", "create", "--email", "a@b.example", "--password", "x", "--role", "god", "--org", org.id], /mot de passe|rôle/],
      [["frobnicate"], /commande inconnue/],
      [["org", "create", "--name", "X", "--bogus", "1"], /bogus/],
    ];
    for (const [argv, message] of cases) {
      const res = await cmd(...argv);
      expect(res.ok, argv.join(" ")).toBe(false);
      if (!res.ok) expect(res.message).toMatch(message);
    }
    expect((await t.services.apiKeys.list(org.id)).length).toBe(0);
  });

  it("feeds import prints the counts, and refuses an unknown source, a missing path or a file of another format", async () => {
    const r = ok(await cmd("feeds", "import", "--source", "kev", "test/fixtures/import/kev-sample.json", "--json"));
    expect(r).toMatchObject({ source: "kev", read: 3, inserted: 3, updated: 0, unchanged: 0, skipped: 0, errors: [] });
    expect(ok(await cmd("feeds", "import", "--source", "kev", "test/fixtures/import/kev-sample.json"))).toMatchObject({ unchanged: 3 });
    const cases: [string[], RegExp][] = [
      [["feeds", "import", "--source", "mitre", "x.json"], /mitre inconnue/],
      [["feeds", "import", "--source", "kev"], /au moins un chemin/],
      [["feeds", "import", "--source", "kev", "nowhere.json"], /introuvable/],
      [["feeds", "import", "--source", "epss", "test/fixtures/feeds/kev/kev-rows.csv"], /pas au format epss/],
      [["feeds", "import", "--source", "epss", "test/fixtures/import/kev-sample.json"], /extension non reconnue/],
      [["feeds", "import", "--source", "epss", "x.csv", "--date", "16/08/2026"], /AAAA-MM-JJ/],
    ];
    for (const [argv, message] of cases) {
      const res = await cmd(...argv);
      expect(res.ok, argv.join(" ")).toBe(false);
      if (!res.ok) expect(res.message).toMatch(message);
    }
  });
});

describe("the vigie process", () => {
  const dir = mkdtempSync(join(tmpdir(), "vigie-cli-"));
  // The embedded database, migrated already (a copy of the run's template): the processes open it as it is.
  const key = templateKeyOfRun();
  if (key) copyPgliteTemplate(key, join(dir, "data"));
  const env = {
    ...process.env,
    VIGIE_DATA_DIR: join(dir, "data"),
    DATABASE_URL: "",
    LOG_LEVEL: "warn",
    VIGIE_JOBS: "off",
    VIGIE_SNAPSHOT: "off",
  };
  const cli = (...args: string[]) => run(process.execPath, ["dist/cli.js", ...args], { env });
  let server: ChildProcess | undefined;
  afterAll(() => {
    server?.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  it("prints one JSON object, exits non-zero on bad input; a second process on the same data directory fails clearly while the first forwards commands", async () => {
    const org = JSON.parse((await cli("org", "create", "--name", "Proc", "--json")).stdout);
    expect(org).toMatchObject({ name: "Proc", plan: null });
    await expect(cli("org", "create")).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining("--name") });

    server = spawn(process.execPath, ["dist/cli.js", "serve"], {
      env: { ...env, PORT: "0", LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    await new Promise<void>((resolve, reject) => {
      let out = "";
      server!.stdout!.on("data", (c: Buffer) => {
        out += c.toString();
        if (out.includes("Server listening")) resolve();
      });
      server!.on("exit", (code) => reject(new Error(`serve exited ${code}`)));
      setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 60_000);
    });
    await expect(cli("serve")).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining("déjà utilisé par le processus") });
    // While the server holds the directory, commands go through its admin socket.
    const project = JSON.parse((await cli("project", "create", "--org", org.id, "--name", "Via socket", "--json")).stdout);
    expect(project).toMatchObject({ org_id: org.id, name: "Via socket", is_default: true });
    await expect(cli("project", "create", "--org", org.id, "--name", "Via socket", "--json")).rejects.toMatchObject({ code: 1 });
    // A killed server loses nothing committed, and its stale lock does not block the next process.
    const exited = new Promise((resolve) => server!.once("exit", resolve));
    server.kill("SIGKILL");
    await exited;
    const again = JSON.parse((await cli("project", "create", "--org", org.id, "--name", "After kill", "--json")).stdout);
    expect(again).toMatchObject({ org_id: org.id, is_default: false });
  }, 120_000);
});

/**
 * The Dockerfile and compose.yaml (README, "Several processes: API and workers apart"). No Docker
 * engine runs where the tests run, so what can be checked without one is checked on the files:
 * - the image: built in stages, its production dependencies installed by `npm ci --omit=dev`, run
 *   as a user that is not root by `npm start`'s own command and environment, on the Node major of
 *   package.json's engines; every file the server reads beside dist/ at run time copied into it,
 *   every package the built server imports a production dependency, the build context let through
 *   .dockerignore;
 * - the compose file: it parses; PostgreSQL with a health check and a volume, two `api` processes
 *   and one `worker`, each waiting for a healthy database, checked on /readyz, given longer than
 *   the shutdown timeout to stop; every variable it sets is one the server's configuration reads,
 *   and each service's environment, placeholders filled, is accepted by loadConfig (one key for all,
 *   one process importing the snapshot).
 */
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, posix, relative } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";

const ROOT = new URL("..", import.meta.url).pathname;
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
const pkg = JSON.parse(read("package.json")) as {
  engines: { node: string };
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** The paths the server answers without a key, for a probe (issue 25): alive, and ready to serve. */
const HEALTH_PATHS = ["/healthz", "/readyz"];

interface Instruction {
  keyword: string;
  args: string;
}
interface Stage {
  name: string | null;
  from: string;
  instructions: Instruction[];
}

/** The Dockerfile's stages: its lines joined at `\`, comments dropped, one instruction each. */
function stages(text: string): { args: Record<string, string>; stages: Stage[] } {
  const lines = text
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  const args: Record<string, string> = {};
  const out: Stage[] = [];
  for (const line of lines) {
    const [, keyword, rest] = /^(\S+)\s+(.*)$/.exec(line)!;
    const instruction = { keyword: keyword!.toUpperCase(), args: rest!.trim() };
    if (instruction.keyword === "FROM") {
      const [from, , name] = instruction.args.split(/\s+/);
      out.push({ from: from!, name: name ?? null, instructions: [] });
    } else if (!out.length && instruction.keyword === "ARG") {
      const [k, v] = instruction.args.split("=");
      args[k!] = v ?? "";
    } else out.at(-1)!.instructions.push(instruction);
  }
  return { args, stages: out };
}

const dockerfile = stages(read("Dockerfile"));
const final = dockerfile.stages.at(-1)!;
const of = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);
/** COPY's flags, sources and destination. */
const copies = (stage: Stage) =>
  of(stage, "COPY").map((a) => {
    const words = a.split(/\s+/);
    const from = words.find((w) => w.startsWith("--from="))?.slice("--from=".length) ?? null;
    const paths = words.filter((w) => !w.startsWith("--"));
    return { from, sources: paths.slice(0, -1), dest: paths.at(-1)! };
  });
/** ENV's assignments (`ENV A=1 B=2`). */
const envOf = (stage: Stage) =>
  Object.fromEntries(of(stage, "ENV").flatMap((a) => a.split(/\s+/).map((kv) => kv.split("=") as [string, string])));
/** What `npm start` runs once built: its environment assignments and its command. */
function startCommand(): { env: Record<string, string>; argv: string[] } {
  const words = pkg.scripts.start!.split("&&").at(-1)!.trim().split(/\s+/);
  const env = words.filter((w) => /^[A-Z_]+=/.test(w));
  return { env: Object.fromEntries(env.map((w) => w.split("=") as [string, string])), argv: words.slice(env.length) };
}

function* files(dir: string, ext: RegExp): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path, ext);
    else if (ext.test(entry.name)) yield path;
  }
}

describe("Dockerfile", () => {
  it("builds in stages on the Node major of package.json's engines, the image that runs on the same slim base", () => {
    expect(dockerfile.stages.length).toBeGreaterThanOrEqual(3);
    const major = /(\d+)/.exec(pkg.engines.node)![1];
    const image = (s: Stage) => s.from.replace(/^\$\{(\w+)\}$/, (_, arg: string) => dockerfile.args[arg] ?? "");
    expect(image(dockerfile.stages[0]!)).toMatch(new RegExp(`^node:${major}-[a-z]+-slim$`));
    expect(image(final)).toBe(image(dockerfile.stages[0]!));
    expect(final.name).toBeNull();
  });

  it("runs as a user that is not root, with NODE_ENV=production, listening beyond the container", () => {
    const user = of(final, "USER").at(-1);
    expect(user).toBeDefined();
    expect(["root", "0"]).not.toContain(user!.split(":")[0]);
    const order = final.instructions.map((i) => i.keyword);
    expect(order.lastIndexOf("USER")).toBeLessThan(order.indexOf("CMD"));
    expect(envOf(final)).toMatchObject({ NODE_ENV: "production", HOST: "0.0.0.0" });
  });

  it("runs npm start's command with npm start's environment", () => {
    const start = startCommand();
    expect(start.argv).toEqual(["node", "--max-old-space-size=1024", "dist/cli.js", "serve"]);
    expect(JSON.parse(of(final, "CMD").at(-1)!)).toEqual(start.argv);
    expect(envOf(final)).toMatchObject(start.env);
    expect(Object.keys(start.env)).toContain("MALLOC_ARENA_MAX");
  });

  it("takes node_modules from a stage that ran npm ci --omit=dev, and dist/ from the stage that built it; no compiler and no install in the image", () => {
    const byName = new Map(dockerfile.stages.map((s) => [s.name, s]));
    const modules = copies(final).find((c) => c.sources.some((s) => s.endsWith("/node_modules")));
    expect(modules?.from).toBeTruthy();
    expect(of(byName.get(modules!.from)!, "RUN").some((r) => /\bnpm ci\b.*--omit=dev/.test(r))).toBe(true);
    const dist = copies(final).find((c) => c.sources.some((s) => s.endsWith("/dist")));
    expect(dist?.from).toBeTruthy();
    expect(of(byName.get(dist!.from)!, "RUN")).toContain("npm run build");
    for (const run of of(final, "RUN")) {
      expect(run).not.toMatch(/\bnpm (ci|install|i)\b/);
      expect(run).not.toMatch(/\b(g\+\+|gcc|make|python3|build-essential)\b/);
    }
  });

  it("copies every file the built server reads beside dist/ at run time", () => {
    const copied = copies(final).map((c) => (c.dest === "./" ? c.sources[0]! : c.dest).replace(/\/$/, ""));
    const outside: string[] = [];
    for (const file of files(join(ROOT, "src"), /(?<!\.test|\.testkit)\.ts$/)) {
      const built = relative(ROOT, file)
        .replace(/^src\//, "dist/")
        .replace(/\.ts$/, ".js");
      for (const m of readFileSync(file, "utf8").matchAll(/new URL\("(\.\.\/[^"]*)", import\.meta\.url\)/g)) {
        const target = posix.join(dirname(built), m[1]!).replace(/\/$/, "");
        if (!target.startsWith("dist/")) outside.push(target);
      }
    }
    // The bundled fingerprints and schemas, the snapshot, package.json (the version): if this list grows, so must the image.
    expect(new Set(outside)).toEqual(new Set(["assets/wappalyzer", "assets/schemas", "fixtures/snapshot", "package.json"]));
    for (const target of outside)
      expect(
        copied.some((c) => target === c || target.startsWith(`${c}/`)),
        target,
      ).toBe(true);
  });

  it("the built server imports production dependencies only (npm ci --omit=dev installs nothing else)", () => {
    // The one devDependency named in dist/, and why the image never reaches it.
    const devOnly: Record<string, { file: string; why: string }> = {
      tsx: {
        file: "dist/modules/reports/reports.renderer.js",
        why: "the PDF worker's .ts source is loaded through tsx only when the server runs from src/",
      },
    };
    const builtins = new Set(builtinModules);
    const found = new Map<string, Set<string>>();
    // Static imports and re-exports, side-effect imports, dynamic imports, require and require.resolve.
    const specifier =
      /^(?:import|export)\s[^;]*?\bfrom\s*"([^".][^"]*)";|^import\s*"([^".][^"]*)";|\b(?:import|require|require\.resolve)\(\s*"([^".][^"]*)"\s*\)/gms;
    for (const file of files(join(ROOT, "dist"), /\.js$/)) {
      if (relative(ROOT, file).startsWith("dist/web/")) continue; // the browser's bundle, served as files
      for (const m of readFileSync(file, "utf8").matchAll(specifier)) {
        const spec = (m[1] ?? m[2] ?? m[3])!;
        if (spec.startsWith("node:") || builtins.has(spec.split("/")[0]!)) continue;
        const name = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!;
        found.set(name, (found.get(name) ?? new Set()).add(relative(ROOT, file)));
      }
    }
    expect(found.size).toBeGreaterThan(10);
    for (const [name, where] of found) {
      if (name in pkg.dependencies) continue;
      expect(devOnly[name], `${name}, imported by ${[...where].join(", ")}, is not a production dependency`).toBeDefined();
      expect([...where]).toEqual([devOnly[name]!.file]);
    }
    for (const name of Object.keys(devOnly)) expect(found.has(name), `${name}: the exception no longer holds`).toBe(true);
  });

  it("sends only what it copies: each COPY from the context exists and is let through .dockerignore", () => {
    const allowed = read(".dockerignore")
      .split("\n")
      .filter((l) => l.startsWith("!"))
      .map((l) => l.slice(1));
    expect(read(".dockerignore").split("\n")).toContain("*");
    const sources = dockerfile.stages.flatMap((s) => copies(s).filter((c) => c.from === null)).flatMap((c) => c.sources);
    expect(sources.length).toBeGreaterThan(5);
    for (const source of sources) {
      expect(existsSync(join(ROOT, source)), source).toBe(true);
      expect(
        allowed.some((a) => source === a || source.startsWith(`${a}/`)),
        `${source} is not let through .dockerignore`,
      ).toBe(true);
    }
  });

  it("checks that the process is alive on a path the server answers without a key", () => {
    const probe = of(final, "HEALTHCHECK").at(-1)!;
    const path = /http:\/\/127\.0\.0\.1:\$\{process\.env\.PORT\}(\/[a-z]+)/.exec(probe)?.[1];
    expect(HEALTH_PATHS).toContain(path);
  });
});

/** A compose file's `${VAR:?message}` / `${VAR:-default}` filled from `values` (a required one missing throws). */
function interpolate(text: string, values: Record<string, string>): string {
  return text.replace(/\$\{([A-Z_]+)(?::([?-])([^}]*))?\}/g, (_, name: string, kind: string | undefined, rest: string) => {
    if (values[name] !== undefined) return values[name]!;
    if (kind === "-") return rest;
    throw new Error(`${name} is required by compose.yaml and has no placeholder here`);
  });
}

// The values a user puts in .env: a password for the URL, a 32-byte key, a metrics token.
const PLACEHOLDERS = {
  POSTGRES_PASSWORD: "0123456789abcdef0123456789abcdef",
  VIGIE_SECRET_KEY: Buffer.alloc(32, 7).toString("base64"),
  VIGIE_METRICS_TOKEN: "a-metrics-token-of-32-characters",
};

interface Service {
  image?: string;
  build?: unknown;
  environment?: Record<string, string | number | null>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[]; start_period?: string };
  stop_grace_period?: string;
  ports?: string[];
  volumes?: string[];
  init?: boolean;
}

describe("compose.yaml", () => {
  const raw = read("compose.yaml");
  const compose = parse(interpolate(raw, PLACEHOLDERS), { merge: true }) as {
    services: Record<string, Service>;
    volumes: Record<string, unknown>;
  };
  const vigie = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);
  const env = (s: Service) => Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, String(v ?? "")]));
  const seconds = (d: string) => Number(/^(\d+)s$/.exec(d)![1]);

  it("parses, every required variable has a placeholder, and unset optional ones are left empty", () => {
    expect(() => interpolate(raw, {})).toThrow(/POSTGRES_PASSWORD|VIGIE_SECRET_KEY/);
    expect(interpolate(raw, { POSTGRES_PASSWORD: "p", VIGIE_SECRET_KEY: "k" })).toContain("VIGIE_METRICS_TOKEN: \n");
    expect(Object.keys(compose.services).sort()).toEqual(["api-1", "api-2", "postgres", "worker"]);
  });

  it("runs PostgreSQL 15 with a health check and a named volume", () => {
    const pg = compose.services.postgres!;
    expect(pg.image).toBe("postgres:15");
    expect(pg.healthcheck?.test).toContain("pg_isready");
    const volume = pg.volumes![0]!.split(":");
    expect(volume[1]).toBe("/var/lib/postgresql/data");
    expect(compose.volumes).toHaveProperty(volume[0]!);
  });

  it("runs two api processes and one worker of the image, on the one database, with one secret key", () => {
    const configs = vigie.map(([name, s]) => ({ name, config: loadConfig(env(s)), env: env(s) }));
    expect(configs.map((c) => c.config.role).sort()).toEqual(["api", "api", "worker"]);
    const pg = env(compose.services.postgres!);
    for (const { config } of configs) {
      expect(config.driver).toBe("postgres");
      const url = new URL(config.databaseUrl!);
      expect([url.hostname, url.username, url.password, url.pathname]).toEqual([
        "postgres",
        pg.POSTGRES_USER,
        pg.POSTGRES_PASSWORD,
        `/${pg.POSTGRES_DB}`,
      ]);
      expect(config.secretKey).toEqual(Buffer.from(PLACEHOLDERS.VIGIE_SECRET_KEY, "base64"));
      expect(config.metricsToken).toBe(PLACEHOLDERS.VIGIE_METRICS_TOKEN);
    }
    // An empty database gets the bundled snapshot from one process, not from three at once.
    expect(configs.filter((c) => c.config.snapshot).map((c) => c.config.role)).toEqual(["worker"]);
    expect(new Set(vigie.map(([, s]) => s.image)).size).toBe(1);
  });

  it("sets only variables the server's configuration reads", () => {
    const config = read("src/config.ts");
    const schema = config.slice(config.indexOf("const EnvSchema = z.object({"), config.indexOf("\n});", config.indexOf("const EnvSchema")));
    expect(schema).toContain("VIGIE_ROLE:");
    for (const [name, s] of vigie)
      for (const key of Object.keys(s.environment ?? {}))
        expect(new RegExp(`^\\s+${key}:`, "m").test(schema), `${name}: ${key} is not in src/config.ts`).toBe(true);
  });

  it("starts each process once PostgreSQL is healthy, checks it on /readyz, stops it after its shutdown timeout, and publishes the APIs apart", () => {
    const containerPort = envOf(final).PORT;
    const published: string[] = [];
    for (const [name, s] of vigie) {
      expect(s.depends_on?.postgres?.condition, name).toBe("service_healthy");
      expect(s.init, name).toBe(true);
      const probe = s.healthcheck!.test.join(" ");
      const [, port, path] = /http:\/\/127\.0\.0\.1:(\d+)(\/[a-z]+)/.exec(probe)!;
      expect([port, path], name).toEqual([containerPort, "/readyz"]);
      expect(HEALTH_PATHS).toContain(path);
      const timeout = loadConfig(env(s)).shutdownTimeoutMs / 1000;
      expect(seconds(s.stop_grace_period!), name).toBeGreaterThan(timeout);
      for (const p of s.ports ?? []) {
        const [host, container] = p.split(":");
        expect(container).toBe(containerPort);
        published.push(host!);
      }
      if (loadConfig(env(s)).role === "worker") expect(s.ports, "the worker serves only probes and metrics").toBeUndefined();
    }
    expect(published).toHaveLength(2);
    expect(new Set(published).size).toBe(2);
  });
});

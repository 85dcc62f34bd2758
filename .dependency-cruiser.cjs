// The layer direction of docs/adr/0006-lint-format-dependency-rule.md, checked by `npm run lint`:
//   platform (+ config.ts, version.ts)  <-  events  <-  matching, engine  <-  feeds  <-  modules  <-  mcp  <-  app.ts, jobs.ts, cli.ts, commands.ts, main.ts
// Type-only imports count: a type pulled from a higher layer ties the lower one to it all the same.
const FLOOR = "^src/(platform/|config\\.ts$|version\\.ts$)";
// Tests beside the code may join layers (a matching test fed by a feed parser); cycles are checked everywhere.
const TEST = "\\.test\\.ts$";

/** A rule forbidding the files under `from` to import anything in src/ but `allowed`. */
function layer(name, from, allowed, comment) {
  return {
    name,
    comment,
    severity: "error",
    from: { path: from, pathNot: TEST },
    to: { path: "^src/", pathNot: allowed },
  };
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: "no-circular", severity: "error", comment: "Import cycles, type-only ones included.", from: {}, to: { circular: true } },
    layer("platform-imports-no-layer-above", FLOOR, FLOOR, "platform/, config.ts and version.ts import nothing above them."),
    layer(
      "events-import-platform-only",
      "^src/events/",
      `${FLOOR}|^src/events/`,
      "The event catalog and outbox writer sit on platform: every producer (matching, modules) and the engine use them.",
    ),
    layer(
      "matching-imports-platform-only",
      "^src/matching/",
      `${FLOOR}|^src/(events|matching)/`,
      "matching sits on platform (and the event catalog); feeds and modules use it.",
    ),
    layer(
      "engine-imports-platform-only",
      "^src/engine/",
      `${FLOOR}|^src/(events|engine)/`,
      "engine sits on platform and the event catalog; modules use it.",
    ),
    layer(
      "feeds-import-matching-and-platform",
      "^src/feeds/",
      `${FLOOR}|^src/(events|matching|feeds)/`,
      "feeds import matching and platform, never a module.",
    ),
    layer(
      "sbom-imports-matching-and-platform",
      "^src/sbom/",
      `${FLOOR}|^src/(matching|sbom)/`,
      "The SBOM readers and writer sit on matching (package URLs) and platform; the stacks' SBOM module uses them.",
    ),
    layer(
      "modules-import-no-application-file",
      "^src/modules/",
      `${FLOOR}|^src/(events|matching|engine|feeds|sbom|modules)/`,
      "Modules never import the composition root, the job catalog or the command line.",
    ),
    layer(
      "mcp-imports-modules-and-platform",
      "^src/mcp/",
      `${FLOOR}|^src/(events|engine|modules|mcp)/`,
      "The MCP tools adapt the modules' services; nothing below imports them.",
    ),
    {
      name: "mcp-calls-services-not-repositories",
      comment: "MCP tools call the services the REST routes call, never a repository (no query written twice); row types only.",
      severity: "error",
      from: { path: "^src/mcp/", pathNot: TEST },
      to: { path: "\\.repository\\.ts$", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "no-other-module-repository",
      comment:
        "A service that uses another module's repository receives it in its constructor (wired in app.ts); " +
        "only its row types may be imported.",
      severity: "error",
      from: { path: "^src/modules/([^/]+)/", pathNot: TEST },
      to: { path: "^src/modules/([^/]+)/[^/]+\\.repository\\.ts$", pathNot: "^src/modules/$1/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "src-imports-no-test-code",
      severity: "error",
      from: { path: "^src/", pathNot: TEST },
      to: { path: `${TEST}|^test/` },
    },
    {
      name: "web-screens-import-no-router",
      comment:
        "The router imports every screen: a screen, the shell or a shared component reads its route through " +
        "web/src/routes.ts (getRouteApi), never router.tsx (the circle of issue 34).",
      severity: "error",
      from: { path: "^web/src/(screens|layout|ui|api|i18n)/", pathNot: "\\.test\\.tsx?$|/testing\\.tsx$" },
      to: { path: "^web/src/router\\.tsx$" },
    },
  ],
  options: {
    includeOnly: "^(src|test|bench|web/src)/",
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
  },
};

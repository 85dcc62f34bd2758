/**
 * ADR 0017: a module's tables are queried in its own folder. Other modules go through its read
 * model (`<module>.read.ts`) or its service; the few files that may name the table in their own SQL
 * are listed below, each with its reason. The scan reads src/ (tests aside) for SQL that names an
 * owned table (`from cases`, `join alerts`, `update projects`, `insert into workflow_runs`…) and for
 * the Drizzle table objects, and fails on a file outside the owner's folder that is not listed —
 * and on a listed exception that no longer holds (the list stays the truth).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = new URL("..", import.meta.url).pathname;

/** Each owned table: its owner's folder and its Drizzle object (platform/db/schema). */
const OWNERS: Record<string, { folder: string; object: string }> = {
  alerts: { folder: "src/modules/alerts/", object: "alerts" },
  cases: { folder: "src/modules/cases/", object: "cases" },
  case_history: { folder: "src/modules/cases/", object: "caseHistory" },
  projects: { folder: "src/modules/projects/", object: "projects" },
  workflow_runs: { folder: "src/modules/runs/", object: "workflowRuns" },
};

/** The files outside an owner's folder that may name its table in their SQL, and why (ADR 0017). */
const EXCEPTIONS: Record<string, { tables: string[]; why: string }> = {
  "src/matching/matcher.ts": {
    tables: ["alerts", "cases", "projects"],
    why: "ADR 0004: an import raises alerts and their events in one set-based statement inside its transaction, re-ranks cases' severity with them, joins projects for their organization",
  },
  "src/modules/reports/reports.data.ts": {
    tables: ["alerts", "cases", "case_history", "projects"],
    why: "ADR 0015: a report is a set-based snapshot of its projects' alerts and cases, one statement per section",
  },
  "src/modules/stats/stats.repository.ts": {
    tables: ["alerts", "cases", "case_history"],
    why: "ADR 0012: a project narrows the statistics to its alerted CVEs; the delays join alerts to case closures",
  },
  "src/modules/risks/risks.repository.ts": {
    tables: ["cases"],
    why: "ADR 0008: a register entry holds its cases; accepting or ending a risk moves them in one statement",
  },
  "src/modules/cases/cases.repository.ts": {
    tables: ["alerts", "projects"],
    why: "a reopened case marks its alert unread in the same statement; the expiry warning setting is a project column",
  },
  "src/modules/alerts/alerts.repository.ts": {
    tables: ["projects"],
    why: "the alert backfill settings are project columns the alerts module owns",
  },
  "src/matching/raise.ts": {
    tables: ["alerts"],
    why: "ADR 0004: the one set-based insert of alerts and their cve.new_match events, shared by the matcher and the CSAF module (ADR 0038)",
  },
  "src/modules/csaf/csaf.repository.ts": {
    tables: ["projects"],
    why: "ADR 0038: the organization's stack items join projects for their organization",
  },
  "src/modules/csaf/csaf.matching.ts": {
    tables: ["alerts"],
    why: "ADR 0038: a revised advisory re-decides the alerts it raised (still affected, no longer, taken over) in set-based statements, as the matcher does for a changed CVE",
  },
  "src/modules/runs/runs.repository.ts": {
    tables: ["projects"],
    why: "the notification language is a project column the runs module owns; a run's context joins its project",
  },
};

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (path.endsWith("platform/db/schema") || path.endsWith("platform/db/migrations")) continue;
      yield* sources(path);
    } else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) yield path;
  }
}

/** The code without its comments (a comment may say "from cases"). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[\s;{}(),])\/\/.*$/gm, "$1");
}

/** The owned tables a file's code names: in SQL (any case, across lines) or as Drizzle table objects. */
function tablesNamed(text: string): string[] {
  const body = code(text);
  const named = new Set<string>();
  for (const [table, { object }] of Object.entries(OWNERS)) {
    const inSql = new RegExp(`\\b(from|join|into|update|using)\\s+(only\\s+)?"?${table}"?(?![\\w.-])`, "i");
    const asObject = new RegExp(`import\\s*(type\\s*)?\\{[^}]*\\b${object}\\b[^}]*\\}\\s*from\\s*"[^"]*db/schema/index\\.js"`);
    if (inSql.test(body) || asObject.test(body)) named.add(table);
  }
  return [...named].sort();
}

/** Each file outside the owners' folders that names an owned table, with those tables. */
function foreignQueries(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const path of sources(join(ROOT, "src"))) {
    const file = relative(ROOT, path);
    const foreign = tablesNamed(readFileSync(path, "utf8")).filter((t) => !file.startsWith(OWNERS[t]!.folder));
    if (foreign.length) out[file] = foreign;
  }
  return out;
}

describe("ADR 0017: a module's tables are queried in its folder", () => {
  it("the scan recognises SQL and Drizzle objects, not prose", () => {
    expect(tablesNamed("sql`select status from cases where id = $1`")).toEqual(["cases"]);
    expect(tablesNamed("sql`select 1\n  FROM\n  alerts a join projects p on p.id = a.project_id`")).toEqual(["alerts", "projects"]);
    expect(tablesNamed("sql`insert into workflow_runs (id) values (1)`")).toEqual(["workflow_runs"]);
    expect(tablesNamed('import { cases, tags } from "../../platform/db/schema/index.js";')).toEqual(["cases"]);
    expect(tablesNamed("// the runs read from cases here\n/** joins alerts */ const x = 1;")).toEqual([]);
    expect(tablesNamed("sql`select * from cases_view`; sql`from case_tags`; sql`from projects_x`")).toEqual([]);
  });

  it("outside its owner's folder, a table is named only by the listed exceptions", () => {
    const allowed = Object.fromEntries(Object.entries(EXCEPTIONS).map(([file, e]) => [file, [...e.tables].sort()]));
    expect(foreignQueries()).toEqual(allowed);
  });

  it("every exception says why", () => {
    for (const [file, e] of Object.entries(EXCEPTIONS)) expect(e.why.length, file).toBeGreaterThan(20);
  });
});

import { mkdirSync, writeFileSync } from "node:fs";
import { relative } from "node:path";
import type { Reporter, TestModule } from "vitest/node";

/**
 * Each test file's whole time (prepare, import with its top-level setup, tests and hooks), the
 * slowest first: `npx vitest run --reporter=default --reporter=./test/durations-reporter.ts` prints
 * the 15 slowest and writes them all to var/test-durations-<pglite|postgres>.json (docs/testing.md).
 */
export default class DurationsReporter implements Reporter {
  private readonly rows: { file: string; seconds: number; collect: number; tests: number; state: string }[] = [];

  onTestModuleEnd(module: TestModule): void {
    const d = module.diagnostic();
    const s = (ms: number) => Math.round(ms / 100) / 10;
    this.rows.push({
      file: relative(process.cwd(), module.moduleId),
      seconds: s(d.prepareDuration + d.collectDuration + d.setupDuration + d.duration),
      collect: s(d.collectDuration),
      tests: s(d.duration),
      state: module.state(),
    });
  }

  onTestRunEnd(): void {
    this.rows.sort((a, b) => b.seconds - a.seconds);
    mkdirSync("var", { recursive: true });
    writeFileSync(`var/test-durations-${process.env.DATABASE_URL ? "postgres" : "pglite"}.json`, `${JSON.stringify(this.rows, null, 1)}\n`);
    const sum = this.rows.reduce((n, r) => n + r.seconds, 0);
    console.log(
      `\nslowest test files (whole time; import and top-level setup, tests) — ${this.rows.length} files, ${Math.round(sum)} s in all:`,
    );
    for (const r of this.rows.slice(0, 15))
      console.log(
        `${String(r.seconds).padStart(7)} s  ${r.file}  (import ${r.collect} s, tests ${r.tests} s)${r.state === "passed" ? "" : ` ${r.state}`}`,
      );
  }
}

// The order the end-to-end files start in: the longest first (durations of a run on a 2-core machine,
// docs/testing-e2e.md), so that two workers end near each other instead of one waiting on a long file
// started last. Vitest's own order uses its results cache, which a fresh CI checkout does not have.
import { basename } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const LONGEST_FIRST = [
  "layout",
  // Its server imports the bundled snapshot at start, unless test/snapshot.test.ts kept it this run.
  "first-day",
  "first-day-features",
  "sbom-vex",
  "stacks",
  "settings",
  "shell",
  "inbox",
  "cases",
  "stats-reports",
  "workflows",
].map((name) => `${name}.e2e.ts`);

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = LONGEST_FIRST.indexOf(basename(f.moduleId));
      return i < 0 ? LONGEST_FIRST.length : i;
    };
    return [...files].sort((a, b) => rank(a) - rank(b) || a.moduleId.localeCompare(b.moduleId));
  }
}

import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files known to take longest start first, in this order, so that none of them starts last and
 * keeps one worker busy alone at the end (the suite's wall time on two workers is at least its
 * longest file). Vitest orders the rest as usual (by the durations of the last run it cached, else by
 * size). Measured with `npx vitest run --reporter=default --reporter=./test/durations-reporter.ts`
 * (docs/testing.md): keep this list to the files that stand out.
 */
const SLOWEST_FIRST = [
  "test/snapshot.test.ts",
  "test/contract.test.ts",
  "test/digests-process.test.ts",
  "test/sbom-import.test.ts",
  "test/csaf-providers.test.ts",
  "test/engine-process.test.ts",
  "test/jobs-cli.test.ts",
  "test/vex-export.test.ts",
  "test/backup-restore.test.ts",
  "test/events-process.test.ts",
  "test/cli.test.ts",
];

export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = SLOWEST_FIRST.findIndex((p) => f.moduleId.endsWith(`/${p}`));
      return i < 0 ? SLOWEST_FIRST.length : i;
    };
    const sorted = await super.sort(files);
    return sorted
      .map((file, i) => ({ file, i }))
      .sort((a, b) => rank(a.file) - rank(b.file) || a.i - b.i)
      .map((x) => x.file);
  }
}

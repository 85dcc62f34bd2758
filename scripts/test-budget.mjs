// `npm test`: runs the whole suite (`vitest run`) and fails when it took longer than its budget, so
// that the suite does not grow slow again unnoticed (issue 35: 4 minutes on the 2-core CI machine,
// failing past 6 — not reached yet: 549 s on PGlite on 2026-11-28, 568 s with one import per worker on
// a machine loaded 7–14 by other work, not yet measured idle nor on PostgreSQL; so the line is drawn at
// 900 s for now, above both passes, and comes down to 360 s as the files get faster). VIGIE_TEST_BUDGET_S sets the budget
// in seconds (default 900; 0 turns the check off).
// A run narrowed by its arguments (a file, -t, --changed, --project…) is not the suite: it is timed
// and told, never failed for its time. Reporter options (--reporter=…, --outputFile=…) do not narrow.
import { spawn } from "node:child_process";
import { join } from "node:path";

const args = process.argv.slice(2);
const budget = Number(process.env.VIGIE_TEST_BUDGET_S ?? 900);
if (!Number.isFinite(budget) || budget < 0) {
  console.error(`VIGIE_TEST_BUDGET_S: a number of seconds expected (0: no check), got ${process.env.VIGIE_TEST_BUDGET_S}`);
  process.exit(2);
}
const whole = args.every((a) => /^--(reporter|outputFile)=/.test(a));

const started = Date.now();
const child = spawn(join("node_modules", ".bin", "vitest"), ["run", ...args], { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => {
  const seconds = Math.round((Date.now() - started) / 1000);
  const db = process.env.DATABASE_URL ? "PostgreSQL" : "PGlite";
  if (code !== 0) {
    console.error(`npm test: failed after ${seconds} s (${db})`);
    process.exit(code ?? 1);
  }
  if (!whole || budget === 0) {
    console.error(`npm test: ${seconds} s (${db}${whole ? ", budget check off" : ", part of the suite: no budget"})`);
    process.exit(0);
  }
  if (seconds > budget) {
    console.error(
      `npm test: the suite took ${seconds} s on ${db}, over its budget of ${budget} s (VIGIE_TEST_BUDGET_S). ` +
        "Make the slow files faster (docs/testing.md) rather than raising the budget.",
    );
    process.exit(1);
  }
  console.error(`npm test: ${seconds} s of its ${budget} s budget (${db})`);
});

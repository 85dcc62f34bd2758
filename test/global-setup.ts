import { execFileSync } from "node:child_process";

/** Tests that spawn the server or run the README's commands use the built CLI: build it once, if stale. */
export default function setup(): void {
  execFileSync(process.execPath, ["scripts/ensure-build.mjs"], { stdio: "inherit" });
}

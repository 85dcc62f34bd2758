// Builds dist/ when it is missing or older than any source file (server in src/, web application in
// web/), so `npm start` works on a fresh clone.
import { execSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    // Installed packages are not sources (web/node_modules may be a link to another checkout's, or dangling).
    if (e.name === "node_modules") continue;
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

const stamp = "dist/.build-stamp";
const stale = !existsSync(stamp) || Math.max(newest("src"), newest("web"), statSync("package.json").mtimeMs) > statSync(stamp).mtimeMs;
if (stale) {
  console.error("vigie: building (npm run build)…");
  execSync("npm run build --silent", { stdio: "inherit" });
}

// Copies the SQL migrations next to the compiled client (tsc copies only .ts output),
// then stamps the build so that `npm start` knows dist/ is current.
import { cpSync, writeFileSync } from "node:fs";
cpSync("src/platform/db/migrations", "dist/platform/db/migrations", { recursive: true });
writeFileSync("dist/.build-stamp", new Date().toISOString());

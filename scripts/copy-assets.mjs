// Copies the SQL migrations next to the compiled client (tsc copies only .ts output), writes the
// web build's hashed assets precompressed (brotli and gzip, beside each file, for the server to
// choose by Accept-Encoding: src/platform/http/web.ts), then stamps the build so that `npm start`
// knows dist/ is current.
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

cpSync("src/platform/db/migrations", "dist/platform/db/migrations", { recursive: true });

// Text assets only (images and fonts are compressed already). Brotli at its best quality and gzip
// at level 9: done once per build, read on every first visit. A variant not smaller is not written.
const ASSETS = "dist/web/assets";
const TEXT = /\.(js|mjs|css|svg|json|html|txt|wasm)$/;
if (existsSync(ASSETS)) {
  for (const name of readdirSync(ASSETS)) {
    if (!TEXT.test(name)) continue;
    const file = join(ASSETS, name);
    const bytes = readFileSync(file);
    const br = brotliCompressSync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    });
    const gz = gzipSync(bytes, { level: 9 });
    if (br.length < bytes.length) writeFileSync(`${file}.br`, br);
    if (gz.length < bytes.length) writeFileSync(`${file}.gz`, gz);
  }
}
writeFileSync("dist/.build-stamp", new Date().toISOString());

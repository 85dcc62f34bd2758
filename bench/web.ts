/**
 * BENCH=web: the gzipped JavaScript the login screen loads first — the entry chunk, what index.html
 * preloads, the login's own chunk and their static imports — read from the build's manifest
 * (dist/web/.vite/manifest.json). Target (issue 23): at most 250 KB. Then the same files and the
 * stylesheet on the wire: asked of the server's static route (registerWeb over dist/web) as
 * Chromium asks (Accept-Encoding: gzip, deflate, br, zstd), the bytes of each answer summed.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import Fastify from "fastify";
import { registerWeb } from "../src/platform/http/web.js";

const DIR = "dist/web";
const TARGET_KB = 250;

interface Chunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
}

/** The files of the login's first load: the entry, the login chunk, their static imports, index.html's preloads. */
export function loginFirstLoad(manifest: Record<string, Chunk>, indexHtml: string): string[] {
  const files = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (!chunk || files.has(chunk.file)) return;
    files.add(chunk.file);
    for (const i of chunk.imports ?? []) visit(i);
  };
  const entry = Object.keys(manifest).find((k) => manifest[k]!.isEntry);
  if (!entry) throw new Error("no entry chunk in the manifest");
  visit(entry);
  visit("src/screens/Login.tsx");
  for (const m of indexHtml.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)) files.add(m[1]!);
  return [...files];
}

export async function benchWeb(): Promise<void> {
  const manifest = JSON.parse(readFileSync(join(DIR, ".vite/manifest.json"), "utf8")) as Record<string, Chunk>;
  const files = loginFirstLoad(manifest, readFileSync(join(DIR, "index.html"), "utf8"));
  let raw = 0;
  let gz = 0;
  console.log("== web: login route's first load (gzipped JavaScript)");
  for (const f of files) {
    const bytes = readFileSync(join(DIR, f));
    const z = gzipSync(bytes).length;
    raw += bytes.length;
    gz += z;
    console.log(`  ${f}: ${(bytes.length / 1024).toFixed(1)} KB, gzip ${(z / 1024).toFixed(1)} KB`);
  }
  const verdict = gz / 1024 <= TARGET_KB ? "within" : "OVER";
  console.log(`  total: ${(raw / 1024).toFixed(1)} KB, gzip ${(gz / 1024).toFixed(1)} KB (${verdict} the ${TARGET_KB} KB target)`);
  await onTheWire([...files, ...stylesheets(readFileSync(join(DIR, "index.html"), "utf8"))]);
}

/** The stylesheets index.html links. */
function stylesheets(indexHtml: string): string[] {
  return [...indexHtml.matchAll(/href="\/(assets\/[^"]+\.css)"/g)].map((m) => m[1]!);
}

async function onTheWire(files: string[]): Promise<void> {
  const app = Fastify();
  await registerWeb(app, resolve(DIR));
  await app.ready();
  let raw = 0;
  let wire = 0;
  console.log("== web: login route's first load on the wire (JavaScript and CSS, Accept-Encoding: gzip, deflate, br, zstd)");
  for (const f of files) {
    const res = await app.inject({ method: "GET", url: `/${f}`, headers: { "accept-encoding": "gzip, deflate, br, zstd" } });
    if (res.statusCode !== 200) throw new Error(`${f}: HTTP ${res.statusCode}`);
    const size = res.rawPayload.length;
    raw += readFileSync(join(DIR, f)).length;
    wire += size;
    console.log(`  ${f}: ${(size / 1024).toFixed(1)} KB (${res.headers["content-encoding"] ?? "identity"})`);
  }
  console.log(`  total on the wire: ${(wire / 1024).toFixed(1)} KB for ${(raw / 1024).toFixed(1)} KB of files`);
  await app.close();
}

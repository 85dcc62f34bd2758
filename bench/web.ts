/**
 * BENCH=web: the gzipped JavaScript the login screen loads first — the entry chunk, what index.html
 * preloads, the login's own chunk and their static imports — read from the build's manifest
 * (dist/web/.vite/manifest.json). Target (issue 23): at most 250 KB.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

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
}

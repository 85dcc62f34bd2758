import { createReadStream, statSync, readdirSync, type Stats } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createGunzip } from "node:zlib";
import type { Readable } from "node:stream";

/** A file that is not of the announced format: the import stops before writing anything. */
export class FormatError extends Error {
  override name = "FormatError";
}

/** True when the file name ends with one of `endings`, plain or gzip-compressed. */
export function hasEnding(path: string, endings: readonly string[]): boolean {
  return endings.some((end) => path.endsWith(end) || path.endsWith(`${end}.gz`));
}

/** Files under the given paths (directories recursively, sorted), keeping only the wanted endings. */
export function expandPaths(paths: string[], endings: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    let st: Stats;
    try {
      st = statSync(p);
    } catch {
      throw new FormatError(`${p} : fichier ou répertoire introuvable`);
    }
    if (st.isDirectory()) {
      for (const e of readdirSync(p).sort()) walk(join(p, e));
    } else if (hasEnding(p, endings)) {
      out.push(p);
    } else if (paths.includes(p)) {
      throw new FormatError(`${p} : extension non reconnue (attendu : ${endings.map((e) => `${e}, ${e}.gz`).join(", ")})`);
    }
  };
  paths.forEach(walk);
  return out;
}

/** The file's text as a stream, decompressed when it ends in .gz. */
export function openText(path: string): Readable {
  const raw = createReadStream(path);
  const stream = path.endsWith(".gz") ? raw.pipe(createGunzip()) : raw;
  raw.on("error", (e) => stream.destroy(e));
  stream.setEncoding("utf8");
  return stream;
}

/** The first `bytes` characters of a file (decompressed), to recognise its format before any write. */
export async function head(path: string, bytes = 65536): Promise<string> {
  let text = "";
  const stream = openText(path);
  for await (const chunk of stream) {
    text += chunk as string;
    if (text.length >= bytes) break;
  }
  stream.destroy();
  return text.slice(0, bytes);
}

/** A whole (small) file's text, decompressed: per-record files such as one advisory or one feed. */
export async function readWhole(path: string): Promise<string> {
  let text = "";
  for await (const chunk of openText(path)) text += chunk as string;
  return text;
}

/** Lines of a text file (numbered from 1). */
export async function* lines(path: string): AsyncIterable<{ line: number; text: string }> {
  const rl = createInterface({ input: openText(path), crlfDelay: Infinity });
  let line = 0;
  for await (const text of rl) {
    line++;
    yield { line, text };
  }
}

/**
 * The elements of a JSON array inside a document, as text, without holding the document in
 * memory: the top-level array, or the array under one of `keys` at the top level (NVD 1.1
 * "CVE_Items", NVD 2.0 / KEV "vulnerabilities"). Yields nothing when there is no such array.
 */
export async function* jsonArrayItems(chunks: AsyncIterable<string | Buffer>, keys: string[] | null): AsyncIterable<string> {
  let buf = "";
  let pos = 0;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let strStart = -1;
  let lastKey: string | null = null;
  let arrayDepth = -1; // depth inside the target array once found
  let itemStart = -1;
  let expectArray = keys === null; // top-level array wanted, or a key just matched
  for await (const chunk of chunks) {
    buf += typeof chunk === "string" ? chunk : chunk.toString("utf8");
    for (; pos < buf.length; pos++) {
      const c = buf.charCodeAt(pos);
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 92)
          escaped = true; // backslash
        else if (c === 34) {
          inString = false;
          if (arrayDepth < 0 && depth === 1 && strStart >= 0) lastKey = buf.slice(strStart + 1, pos);
        }
        continue;
      }
      if (c === 34) {
        inString = true;
        strStart = pos;
        continue;
      }
      if (c === 58 && arrayDepth < 0 && keys && depth === 1 && lastKey !== null) {
        expectArray = keys.includes(lastKey); // ':' after a top-level key
        continue;
      }
      if (c === 123 || c === 91) {
        // { or [
        if (arrayDepth < 0 && c === 91 && expectArray && depth === (keys ? 1 : 0)) {
          arrayDepth = depth + 1;
        } else if (arrayDepth >= 0 && depth === arrayDepth && itemStart < 0) {
          itemStart = pos;
        }
        depth++;
        continue;
      }
      if (c === 125 || c === 93) {
        depth--;
        if (arrayDepth >= 0 && depth === arrayDepth && itemStart >= 0) {
          yield buf.slice(itemStart, pos + 1);
          itemStart = -1;
        } else if (arrayDepth >= 0 && depth === arrayDepth - 1) {
          return; // end of the target array
        }
      }
      // Scalars as array elements are not records: ignored.
    }
    // Keep only what a pending item or string still needs.
    const keep = itemStart >= 0 ? itemStart : inString ? strStart : pos;
    if (keep > 0) {
      buf = buf.slice(keep);
      pos -= keep;
      if (itemStart >= 0) itemStart -= keep;
      if (strStart >= 0) strStart -= keep;
    }
  }
}

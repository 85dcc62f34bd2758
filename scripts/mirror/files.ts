import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Mirror } from "./mirror.js";

/**
 * A publisher of single files at fixed addresses (the KEV catalog, EPSS's daily scores, news
 * feeds): each file served as is under `/<source>/<name>`, with an ETag (its digest) and
 * Last-Modified (the file's time), answering 304 to a request that has them.
 */
export function filesMirror(source: string, files: Record<string, string>): Mirror & { replace(name: string, path: string): void } {
  const served = new Map<string, { path: string; etag: string; lastModified: string }>();
  const replace = (name: string, path: string) => {
    const etag = `"${createHash("sha1").update(readFileSync(path)).digest("base64url")}"`;
    served.set(`/${source}/${name}`, { path, etag, lastModified: statSync(path).mtime.toUTCString() });
  };
  for (const [name, path] of Object.entries(files)) replace(name, path);
  return {
    source,
    replace,
    addresses: (origin) => [...served.keys()].map((p) => `${origin}${p}`),
    handle(req: IncomingMessage, res: ServerResponse) {
      const file = served.get(new URL(req.url ?? "/", "http://x").pathname);
      if (!file) return false;
      if (req.headers["if-none-match"] === file.etag || req.headers["if-modified-since"] === file.lastModified) {
        res.writeHead(304).end();
        return true;
      }
      res.writeHead(200, { etag: file.etag, "last-modified": file.lastModified, "content-type": "application/octet-stream" });
      res.end(readFileSync(file.path));
      return true;
    },
  };
}

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * One publisher's layout served from real files (../shared/data, or a test's fixtures), so that a
 * sync runs against it exactly as against the publisher: the tests' local publishers and
 * `scripts/mirror.ts` (a whole mirror for a new user's trial and the benchmarks) are the same code.
 * A mirror answers under its own path prefix; its `address` is what VIGIE_FEED_URLS_<SOURCE> names.
 */
export interface Mirror {
  /** The source id it publishes (cve5, nvd, osv, certfr, eol, poc…). */
  readonly source: string;
  /** The address(es) to configure, given the server's origin (http://127.0.0.1:port). */
  addresses(origin: string): string[];
  /** Answers a request of its own (true), or leaves it (false). */
  handle(req: IncomingMessage, res: ServerResponse, origin: string): boolean | Promise<boolean>;
}

export interface MirrorServer {
  origin: string;
  server: Server;
  /** Every request path served, in order (tests count what a sync transferred). */
  requests: string[];
  /** VIGIE_FEED_URLS_<SOURCE> of each mirror, ready for an environment. */
  env(): Record<string, string>;
  close(): Promise<void>;
}

/** Serves the mirrors on one local port (0: any free port); a request no mirror takes is a 404. */
export async function serveMirrors(mirrors: Mirror[], port = 0, host = "127.0.0.1"): Promise<MirrorServer> {
  const requests: string[] = [];
  let origin = "";
  const server = createServer(async (req, res) => {
    requests.push(req.url ?? "");
    try {
      for (const m of mirrors) if (await m.handle(req, res, origin)) return;
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(String((err as Error).message));
    }
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  origin = `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    server,
    requests,
    env: () => Object.fromEntries(mirrors.map((m) => [`VIGIE_FEED_URLS_${m.source.toUpperCase()}`, m.addresses(origin).join(",")])),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

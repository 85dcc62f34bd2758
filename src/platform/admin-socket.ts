import { chmodSync, rmSync } from "node:fs";
import { createConnection, createServer, type Server } from "node:net";

/**
 * With embedded PGlite only one process may open the data directory. While the server runs, the
 * CLI sends its admin commands to it over this Unix socket (mode 0600: only the same user), one
 * JSON line each way.
 */
export interface AdminRequest {
  argv: string[];
}
export type AdminResponse =
  | { ok: true; result: Record<string, unknown> }
  | { ok: false; usage: boolean; message: string; detail?: unknown };

export function listenAdminSocket(path: string, handle: (req: AdminRequest) => Promise<AdminResponse>): Promise<Server> {
  rmSync(path, { force: true });
  const server = createServer((sock) => {
    let buf = "";
    sock.setEncoding("utf8");
    sock.on("data", (chunk: string) => {
      buf += chunk;
      const nl = buf.indexOf("\n");
      if (nl < 0) return;
      const line = buf.slice(0, nl);
      void (async () => {
        let res: AdminResponse;
        try {
          res = await handle(JSON.parse(line) as AdminRequest);
        } catch (err) {
          res = { ok: false, usage: false, message: (err as Error).message };
        }
        sock.end(JSON.stringify(res) + "\n");
      })();
    });
    sock.on("error", () => undefined);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => {
      chmodSync(path, 0o600);
      resolve(server);
    });
  });
}

export function sendAdminCommand(path: string, req: AdminRequest): Promise<AdminResponse> {
  return new Promise((resolve, reject) => {
    const sock = createConnection(path);
    let buf = "";
    sock.setEncoding("utf8");
    sock.on("connect", () => sock.write(JSON.stringify(req) + "\n"));
    sock.on("data", (c: string) => (buf += c));
    sock.on("end", () => {
      try {
        resolve(JSON.parse(buf) as AdminResponse);
      } catch {
        reject(new Error("réponse illisible du serveur Vigie"));
      }
    });
    sock.on("error", reject);
  });
}

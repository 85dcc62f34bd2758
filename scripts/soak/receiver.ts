import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Receipt } from "./checks.js";

/** The webhook receiver of the soak: every request it gets, in order, its signature checked (README, Notifications). */
export interface Receiver {
  url: string;
  receipts: Receipt[];
  close(): Promise<void>;
}

export async function startReceiver(secret: string): Promise<Receiver> {
  const receipts: Receipt[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const want = Buffer.from(
        `sha256=${createHmac("sha256", secret).update(`${req.headers["x-vigie-timestamp"]}.${body}`).digest("hex")}`,
      );
      const got = Buffer.from(String(req.headers["x-vigie-signature"] ?? ""));
      let runId = "";
      try {
        runId = String((JSON.parse(body) as { run_id?: unknown }).run_id ?? "");
      } catch {
        // An unreadable body is recorded with no run; the checks report it as a delivery of no run.
      }
      receipts.push({
        delivery: String(req.headers["x-vigie-delivery"] ?? ""),
        runId,
        at: Date.now(),
        signed: got.length === want.length && timingSafeEqual(got, want),
      });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    receipts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

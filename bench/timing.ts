import { createServer } from "node:http";

/** A webhook receiver: arrival time of each delivery, and how many times each was received. */
export function receiver() {
  const arrivals = new Map<string, number>();
  let duplicates = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const id = String(req.headers["x-vigie-delivery"]);
      if (arrivals.has(id)) duplicates++;
      else arrivals.set(id, performance.now());
      res.writeHead(204).end();
    });
  });
  return { server, arrivals, duplicates: () => duplicates };
}

export async function waitFor(test: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > until) throw new Error("timeout");
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(s.length * p))]!);
}

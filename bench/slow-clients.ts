/**
 * Slow and hostile clients: the built server (`node dist/cli.js serve`, no snapshot) is started,
 * its idle RSS read, then SLOW_CONNECTIONS (1,000) connections each send headers announcing an
 * ~800 KB body and most of it, then trickle one byte every 5 s. The server's RSS (VmRSS of
 * /proc/<pid>/status) is sampled until every connection is closed, then one minute later.
 * Goal: peak ≤ 300 MB, and back within 20 % of the idle figure. Then a slow-loris connection
 * (headers, then one body byte every 5 s) shows the time the server takes to close it.
 * Runs on PostgreSQL and on PGlite (bench/drivers.ts); the server's limits are its defaults
 * unless set in the environment (VIGIE_HTTP_*).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { createInterface } from "node:readline";
import { onEachDriver, type BenchTarget } from "./drivers.js";

const CONNECTIONS = Number(process.env.SLOW_CONNECTIONS ?? 1000);
const DECLARED = 800_000;
const SENT = 700_000;
const TRICKLE_MS = 5_000;
const AFTER_MS = Number(process.env.SLOW_AFTER_SECONDS ?? 60) * 1000;
const BODY = Buffer.alloc(SENT, "x"); // one buffer shared by every connection's write

const mb = (kb: number) => kb / 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssKb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) : 0;
}

async function startServer(target: BenchTarget): Promise<{ child: ChildProcess; port: number }> {
  const env = {
    ...process.env,
    PORT: "0",
    LOG_LEVEL: "info",
    VIGIE_SNAPSHOT: "off",
    VIGIE_FEEDS_SYNC: "off",
    VIGIE_JOBS: "off",
    MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? "2", // as `npm start` runs it
    DATABASE_URL: target.databaseUrl ?? "",
    VIGIE_DATA_DIR: target.dataDir ?? "",
  };
  const child = spawn(process.execPath, ["dist/cli.js", "serve"], { env, stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (l) => {
      const m = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(l);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
  child.stdout!.resume();
  return { child, port };
}

/** One slow-body connection; resolves when the server (or the network) closes it, with what it answered. */
function slowBody(port: number, sendBody: boolean): Promise<{ ms: number; status: string }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, "127.0.0.1");
    let first = "";
    let timer: NodeJS.Timeout | undefined;
    socket.on("connect", () => {
      socket.write(`POST /auth/login HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: ${DECLARED}\r\n\r\n`);
      if (sendBody) socket.write(BODY);
      timer = setInterval(() => socket.writable && socket.write("x"), TRICKLE_MS);
    });
    socket.on("data", (b) => {
      if (!first) first = b.toString("latin1", 0, 12);
    });
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearInterval(timer);
      resolve({ ms: Date.now() - started, status: first.slice(9, 12) || "reset" });
    });
  });
}

/** RSS once start-up is over: two readings 5 s apart within 2 % (PGlite gives back its migration peak slowly). */
async function settled(pid: number): Promise<number> {
  let last = rssKb(pid);
  for (let i = 0; i < 24; i++) {
    await sleep(5_000);
    const now = rssKb(pid);
    if (Math.abs(now - last) <= 0.02 * last) return now;
    last = now;
  }
  return last;
}

interface Figures {
  idleMb: number;
  peakMb: number;
  afterMb: number;
  closedS: number;
  statuses: string;
  lorisS: number;
  lorisStatus: string;
}

async function measure(target: BenchTarget): Promise<Figures> {
  if (target.driver === "pglite") {
    // A first start creates the cluster (initdb) and leaves PGlite's memory at ~800 MB for the
    // process's life; measure the steady state instead: a server restarted on its directory.
    const first = await startServer(target);
    first.child.kill("SIGTERM");
    await new Promise((r) => first.child.once("exit", r));
  }
  const { child, port } = await startServer(target);
  const pid = child.pid!;
  try {
    const idle = await settled(pid);
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rssKb(pid))), 200);
    const started = Date.now();
    const results = await Promise.all(Array.from({ length: CONNECTIONS }, () => slowBody(port, true)));
    const closedS = (Date.now() - started) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, rssKb(pid));
    const tally = new Map<string, number>();
    for (const r of results) tally.set(r.status, (tally.get(r.status) ?? 0) + 1);
    await sleep(AFTER_MS);
    const after = rssKb(pid);
    const loris = await slowBody(port, false);
    return {
      idleMb: mb(idle),
      peakMb: mb(peak),
      afterMb: mb(after),
      closedS,
      statuses: [...tally].map(([s, n]) => `${n}×${s}`).join(", "),
      lorisS: loris.ms / 1000,
      lorisStatus: loris.status,
    };
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
  }
}

/** `BENCH=slow`: prints idle, peak and one-minute-after RSS, and the slow-loris close time. */
export async function benchSlowClients(): Promise<void> {
  console.log(
    `\nSlow clients — ${CONNECTIONS} connections, each ${SENT / 1000} KB of a ${DECLARED / 1000} KB body then 1 byte / ${TRICKLE_MS / 1000} s`,
  );
  const rows = await onEachDriver("slow", measure);
  for (const r of rows) {
    const back = (100 * (r.afterMb - r.idleMb)) / r.idleMb;
    console.log(
      `${r.driver}: RSS idle ${r.idleMb.toFixed(0)} MB, peak ${r.peakMb.toFixed(0)} MB (goal ≤ 300), ` +
        `${AFTER_MS / 1000} s after the last close ${r.afterMb.toFixed(0)} MB (${back >= 0 ? "+" : ""}${back.toFixed(0)} % of idle, goal ≤ 20 %); ` +
        `all closed by the server in ${r.closedS.toFixed(1)} s (${r.statuses}); slow-loris closed after ${r.lorisS.toFixed(1)} s (${r.lorisStatus})`,
    );
  }
}

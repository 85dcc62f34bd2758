/**
 * What bench/roles.ts needs of processes: Vigie processes of one role on a fixed port (so that a
 * replacement answers where the killed one did), the time until an address first answers 200, and
 * the CPU each process used, read from /proc (Linux).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";

export type Role = "api" | "worker";

export interface VigieProcess {
  role: Role;
  port: number;
  proc: ChildProcess;
  /** performance.now() when it was spawned. */
  spawnedAt: number;
  /** SIGTERM (graceful) or SIGKILL, and wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * A port free now, kept for the process's replacements. Below the kernel's ephemeral range
 * (ip_local_port_range, from 32768 by default): while a killed process's port has no listener,
 * an outgoing connection — the readiness polls to that very port among them (TCP self-connect) —
 * may be given it as its local port, and the replacement would fail with EADDRINUSE.
 */
export async function freePort(): Promise<number> {
  const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").split(/\s+/)[0]);
  for (let port = 20_000 + Math.floor(Math.random() * 5_000); port < low; port++) {
    const server = createServer();
    const free = await new Promise<boolean>((r) => {
      server.once("error", () => r(false));
      server.listen(port, "127.0.0.1", () => r(true));
    });
    if (free) {
      await new Promise((r) => server.close(r));
      return port;
    }
  }
  throw new Error(`no free port below ${low}`);
}

const running = new Set<VigieProcess>();

/** Spawns `node dist/cli.js serve` with this role on this port; logs at warn (request logs would cost the figures). */
export function spawnVigie(role: Role, port: number, env: Record<string, string>): VigieProcess {
  const spawnedAt = performance.now();
  const proc = spawn(process.execPath, ["dist/cli.js", "serve"], {
    env: { ...process.env, ...env, VIGIE_ROLE: role, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warn" },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const exited = new Promise<void>((r) => proc.once("exit", () => r()));
  const p: VigieProcess = {
    role,
    port,
    proc,
    spawnedAt,
    async stop(signal = "SIGTERM") {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      await exited;
      running.delete(p);
    },
  };
  running.add(p);
  return p;
}

/** Stops (SIGTERM) every process spawned here and still running. */
export async function stopAll(): Promise<void> {
  for (const p of [...running]) await p.stop();
}

/** Milliseconds from `since` (performance.now()) until `url` first answers 200, asking every 5 ms. */
export async function msUntil200(url: string, since: number, headers: Record<string, string> = {}, timeoutMs = 60_000): Promise<number> {
  while (performance.now() - since < timeoutMs) {
    const status = await fetch(url, { headers }).then(
      async (r) => {
        await r.arrayBuffer();
        return r.status;
      },
      () => 0,
    );
    if (status === 200) return performance.now() - since;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`${url}: no 200 within ${timeoutMs} ms`);
}

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat (0 once it has gone). */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, from field 3 (state): utime and stime are fields 14 and 15, in clock ticks (100 a second on Linux).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Busy and total CPU seconds of the whole machine (all cores), from /proc/stat. */
function machineSeconds(): { busy: number; total: number } {
  const [, ...ticks] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).map(Number);
  const total = ticks.reduce((a, b) => a + b, 0);
  // idle and iowait are the 4th and 5th figures.
  return { busy: (total - ticks[3]! - ticks[4]!) / 100, total: total / 100 };
}

/** The PostgreSQL backends serving this database, found by their process title (`postgres: … <user> <database> …`). */
export function backendsOf(database: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(` ${database} `)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/**
 * CPU used by groups of processes over an interval, in % of one core (200% = both cores of this
 * machine), and `others`: what the rest of the machine used meanwhile. A group is a function
 * giving its processes' ids, asked every 250 ms (a process that appears counts from 0; one that
 * ends counts to its last sample), or `self`, this process.
 */
export function cpuMeter(groups: Record<string, (() => number[]) | "self">): () => Record<string, number> {
  const seen = Object.fromEntries(Object.keys(groups).map((k) => [k, new Map<number, { first: number; last: number }>()]));
  const self = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  };
  const sample = (initial: boolean) => {
    for (const [k, g] of Object.entries(groups)) {
      if (g === "self") continue;
      for (const pid of g()) {
        const used = cpuSeconds(pid);
        const known = seen[k]!.get(pid);
        if (known) known.last = Math.max(known.last, used);
        else seen[k]!.set(pid, { first: initial ? used : 0, last: used });
      }
    }
  };
  sample(true);
  const timer = setInterval(() => sample(false), 250);
  const startSelf = self();
  const startMachine = machineSeconds();
  const startWall = performance.now();
  return () => {
    clearInterval(timer);
    sample(false);
    const wall = (performance.now() - startWall) / 1000;
    const out: Record<string, number> = {};
    let ours = 0;
    for (const [k, g] of Object.entries(groups)) {
      const s = g === "self" ? self() - startSelf : [...seen[k]!.values()].reduce((a, p) => a + p.last - p.first, 0);
      ours += s;
      out[`${k} CPU %`] = Math.round((100 * s) / wall);
    }
    const machine = machineSeconds();
    out["others CPU %"] = Math.max(0, Math.round((100 * (machine.busy - startMachine.busy - ours)) / wall));
    out["machine busy %"] = Math.round((100 * (machine.busy - startMachine.busy)) / (machine.total - startMachine.total));
    return out;
  };
}

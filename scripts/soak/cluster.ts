import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import type { Window } from "./checks.js";

export type Role = "api" | "worker";

interface Member {
  name: string;
  role: Role;
  port: number;
  child: ChildProcess;
  exited: Promise<void>;
  /** The driver killed or stopped it: its exit is no surprise. */
  expected: boolean;
}

/** A free local port, for a process that must come back on the same one after a kill. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The Vigie processes of the soak, `node dist/cli.js serve` each with its role and port, their logs
 * in `<logDir>/<name>.log`. Kills are SIGKILL; a process that exits on its own is recorded and
 * started again, so that the soak goes on and says so.
 */
export class Cluster {
  private readonly members = new Map<string, Member>();
  /** Processes that exited without being killed or stopped by the driver. */
  readonly unexpectedExits: { name: string; at: number; code: number | null; signal: string | null }[] = [];
  /** Time from the kill (or the crash) and from the spawn to /readyz 200, of every start after one (ms). */
  readonly restarts: { name: string; kind: "kill" | "crash"; killToReady: number; spawnToReady: number }[] = [];
  /** From each kill (or crash) to /readyz 200 again. */
  readonly windows: Window[] = [];
  /** Processes killed (or dead) and not yet ready again: the client sends them nothing. */
  readonly down = new Set<string>();
  /** Process ids killed or dead (a lease such a process held is released only when it runs out). */
  readonly deadPids = new Set<number>();

  constructor(
    private readonly env: Record<string, string>,
    private readonly logDir: string,
    /** How long a process may take to answer /readyz 200. */
    private readonly readyMs: number,
  ) {}

  /** Starts every process of `roles` ("api-1", "worker-1"…) at once and waits until each is ready. */
  async start(roles: Role[]): Promise<void> {
    const counts: Record<Role, number> = { api: 0, worker: 0 };
    const names = [];
    for (const role of roles) {
      const name = `${role}-${++counts[role]}`;
      this.spawn(name, role, await freePort());
      names.push(name);
    }
    await Promise.all(names.map((n) => this.ready(n)));
  }

  names(role?: Role): string[] {
    return [...this.members.values()].filter((m) => !role || m.role === role).map((m) => m.name);
  }

  url(name: string): string {
    return `http://127.0.0.1:${this.member(name).port}`;
  }

  pid(name: string): number | undefined {
    return this.member(name).child.pid;
  }

  private member(name: string): Member {
    const m = this.members.get(name);
    if (!m) throw new Error(`no process ${name}`);
    return m;
  }

  private spawn(name: string, role: Role, port: number): Member {
    const log = openSync(join(this.logDir, `${name}.log`), "a");
    const child = spawn(process.execPath, ["--max-old-space-size=1024", "dist/cli.js", "serve"], {
      env: {
        ...process.env,
        ...this.env,
        VIGIE_ROLE: role,
        PORT: String(port),
        VIGIE_DATA_DIR: join(this.logDir, name),
        MALLOC_ARENA_MAX: "2",
      },
      stdio: ["ignore", log, log],
    });
    closeSync(log);
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const member: Member = { name, role, port, child, exited, expected: false };
    this.members.set(name, member);
    child.once("exit", (code, signal) => {
      if (member.expected) return;
      this.down.add(name);
      if (child.pid) this.deadPids.add(child.pid);
      this.unexpectedExits.push({ name, at: Date.now(), code, signal });
      this.restart(name, Date.now(), "crash").catch((err) => console.error(`${name}: ${(err as Error).message}`));
    });
    return member;
  }

  /** Polls GET /readyz until 200; the milliseconds it took. */
  async ready(name: string): Promise<number> {
    const started = Date.now();
    const url = `${this.url(name)}/readyz`;
    for (;;) {
      const status = await fetch(url, { signal: AbortSignal.timeout(1000) }).then(
        async (r) => {
          await r.arrayBuffer();
          return r.status;
        },
        () => 0,
      );
      if (status === 200) return Date.now() - started;
      if (Date.now() - started > this.readyMs) throw new Error(`${name} not ready after ${this.readyMs} ms (last status ${status})`);
      await sleep(100);
    }
  }

  /** SIGKILL, then the same process (role, port) started again; resolves once it is ready. */
  async kill(name: string): Promise<{ killToReady: number; spawnToReady: number }> {
    const m = this.member(name);
    const at = Date.now();
    m.expected = true;
    this.down.add(name);
    if (m.child.pid) this.deadPids.add(m.child.pid);
    m.child.kill("SIGKILL");
    await m.exited;
    return this.restart(name, at, "kill");
  }

  private async restart(name: string, at: number, kind: "kill" | "crash"): Promise<{ killToReady: number; spawnToReady: number }> {
    const old = this.member(name);
    const window: Window = { kind, process: name, start: at, end: Number.POSITIVE_INFINITY };
    this.windows.push(window);
    this.spawn(name, old.role, old.port);
    const spawnToReady = await this.ready(name);
    window.end = Date.now();
    this.down.delete(name);
    const r = { killToReady: window.end - at, spawnToReady };
    this.restarts.push({ name, kind, ...r });
    return r;
  }

  /** Resolves once every process answers /readyz 200 (after the connection drop). */
  async allReady(): Promise<void> {
    await Promise.all(this.names().map((n) => this.ready(n)));
  }

  /** SIGKILL to every process still running, at once (the driver is exiting on an error). */
  killAll(): void {
    for (const m of this.members.values()) {
      m.expected = true;
      if (m.child.exitCode === null && m.child.signalCode === null) m.child.kill("SIGKILL");
    }
  }

  /** SIGTERM to every process; each one's exit code and how long it took (a graceful stop). */
  async stop(timeoutMs: number): Promise<{ name: string; code: number | null; signal: string | null; ms: number }[]> {
    return Promise.all(
      [...this.members.values()].map(async (m) => {
        const at = Date.now();
        m.expected = true;
        if (m.child.exitCode === null && m.child.signalCode === null) m.child.kill("SIGTERM");
        const timer = setTimeout(() => m.child.kill("SIGKILL"), timeoutMs);
        await m.exited;
        clearTimeout(timer);
        return { name: m.name, code: m.child.exitCode, signal: m.child.signalCode, ms: Date.now() - at };
      }),
    );
  }
}

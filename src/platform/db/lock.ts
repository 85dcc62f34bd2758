import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";

export const LOCK_FILE = "vigie.lock";

export interface LockInfo {
  pid: number;
  /** Unix socket of the process holding the lock, where the CLI forwards admin commands. */
  socket: string | null;
  startedAt: string;
}

export class DataDirLockedError extends Error {
  override name = "DataDirLockedError";
  constructor(
    readonly dir: string,
    readonly holder: LockInfo,
  ) {
    super(
      `Le répertoire de données ${dir} est déjà utilisé par le processus ${holder.pid} ` +
        `(démarré le ${holder.startedAt}). PGlite ne gère qu'un seul processus par répertoire : ` +
        `arrêtez ce processus, ou utilisez un autre VIGIE_DATA_DIR, ou DATABASE_URL pour PostgreSQL.`,
    );
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Reads the lock of a data directory; null when free or held by a dead process. */
export function readLock(dir: string): LockInfo | null {
  try {
    const info = JSON.parse(readFileSync(join(dir, LOCK_FILE), "utf8")) as LockInfo;
    return info.pid !== process.pid && alive(info.pid) ? info : null;
  } catch {
    return null;
  }
}

/**
 * Takes the data directory for this process (PGlite does not lock it and two writers corrupt it).
 * A lock left by a dead process is taken over. Returns the release function.
 */
export function acquireLock(dir: string, socket: string | null): () => void {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, LOCK_FILE);
  const info: LockInfo = { pid: process.pid, socket, startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, JSON.stringify(info));
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        try {
          if ((JSON.parse(readFileSync(path, "utf8")) as LockInfo).pid === process.pid) unlinkSync(path);
        } catch {
          /* already gone */
        }
      };
      process.once("exit", release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const holder = readLock(dir);
      if (holder) throw new DataDirLockedError(dir, holder);
      try {
        unlinkSync(path); // stale lock of a dead process
      } catch {
        /* raced with another process: retry decides */
      }
    }
  }
  const holder = readLock(dir);
  throw new DataDirLockedError(dir, holder ?? { pid: -1, socket: null, startedAt: "?" });
}

/** A task run on demand, coalesced: see `coalesced`. */
export interface Coalesced {
  /** Asks for a run: starts one now, or (one in flight) marks one more to follow it. */
  (): void;
  /** Resolves once no run is in flight nor pending. */
  idle(): Promise<void>;
}

/**
 * Wraps `task` so that at most one run is in flight and at most one is pending: requests that
 * arrive while it runs are served by a single run after it (they asked before it could see their
 * work). A burst of N requests costs two runs, not N. Errors go to `onError`; the next request runs again.
 */
export function coalesced(task: () => Promise<unknown>, onError: (err: unknown) => void): Coalesced {
  let running: Promise<void> | null = null;
  let pending = false;
  const loop = async () => {
    do {
      pending = false;
      try {
        await task();
      } catch (err) {
        onError(err);
      }
    } while (pending);
    running = null;
  };
  const request = (() => {
    if (running) pending = true;
    else running = loop();
  }) as Coalesced;
  request.idle = async () => {
    while (running) await running;
  };
  return request;
}

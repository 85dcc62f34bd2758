import { type HttpClient, OutboundError, type OutboundRequest, type OutboundResponse } from "../../platform/net/http-client.js";
import { ActionError } from "../actions.js";
import { MASK } from "../secret-params.js";

/**
 * The retry policy of the HTTP notifications: up to 3 attempts, waiting 1 s then 4 s, when the
 * receiver answers 5xx, 408 or 429 or cannot be reached (network error, timeout, DNS failure
 * that may pass). Any other answer is final: 2xx succeeds, another 4xx (or an unfollowed 3xx)
 * fails at once, and so does a refused address. Delays are injectable so tests do not wait.
 */
export interface RetryPolicy {
  /** Waits between attempts; attempts = delays + 1. */
  delaysMs: readonly number[];
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
}

export const DEFAULT_DELAYS_MS = [1_000, 4_000] as const;

/** Resolves after `ms`, or rejects as soon as `signal` aborts. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

function retryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/** Up to 200 characters of a receiver's answer, on one line, for the run's step. */
export function excerpt(body: string): string {
  const one = body.replace(/\s+/g, " ").trim();
  return one.length > 200 ? `${one.slice(0, 200)}…` : one;
}

/**
 * Sends a request built afresh for each attempt (a webhook signs each one with its own
 * timestamp) until it succeeds or the policy gives up. `sent` describes the delivery for the
 * run's step, secrets masked; an ActionError carries it too.
 */
export async function sendWithRetry(
  client: HttpClient,
  build: () => OutboundRequest,
  policy: RetryPolicy,
  signal: AbortSignal,
  sent: (outcome: { status: number | null; attempts: number }) => Record<string, unknown>,
): Promise<{ response: OutboundResponse; attempts: number; sent: Record<string, unknown> }> {
  const attempts = policy.delaysMs.length + 1;
  for (let attempt = 1; ; attempt++) {
    let failure: string;
    let status: number | null = null;
    let retry: boolean;
    try {
      const response = await client({ ...build(), signal });
      status = response.status;
      if (status >= 200 && status < 300) return { response, attempts: attempt, sent: sent({ status, attempts: attempt }) };
      retry = retryableStatus(status);
      const body = excerpt(response.body);
      failure = `le destinataire a répondu HTTP ${status}${body ? ` : ${body}` : ""}`;
    } catch (err) {
      if (!(err instanceof OutboundError)) throw err;
      retry = err.retryable;
      failure = err.message;
    }
    if (!retry || attempt >= attempts || signal.aborted) {
      const tries = attempt > 1 ? ` (après ${attempt} tentatives)` : "";
      throw new ActionError(`${failure}${tries}`, sent({ status, attempts: attempt }));
    }
    try {
      await policy.sleep(policy.delaysMs[attempt - 1]!, signal);
    } catch {
      throw new ActionError(`${failure} ; nouvelle tentative annulée`, sent({ status, attempts: attempt }));
    }
  }
}

/**
 * A URL as a run's step may show it: user and password, query values and fragment masked
 * (tokens often travel there); scheme, host, port and path kept.
 */
export function maskUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return MASK;
  }
  const auth = url.username || url.password ? `${MASK}@` : "";
  const query = [...url.searchParams.keys()].map((k) => `${encodeURIComponent(k)}=${MASK}`).join("&");
  return `${url.protocol}//${auth}${url.host}${url.pathname}${query ? `?${query}` : ""}${url.hash ? `#${MASK}` : ""}`;
}

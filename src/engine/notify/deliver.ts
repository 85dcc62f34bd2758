import { type HttpClient, OutboundError, type OutboundRequest, type OutboundResponse } from "../../platform/net/http-client.js";
import { type ActionContext, ActionError } from "../actions.js";
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

/** Where failed notification attempts are written: the process's logger (pino's `warn(fields, message)`). */
export interface NotifyLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** Told of each failed attempt: its number, the reason, and whether another attempt follows. */
export type AttemptFailed = (attempt: number, reason: string, retrying: boolean) => void;

/**
 * Logs each failed attempt of one action node at warn, so that an operator sees why a run ends
 * partial without reading its steps: run, node, action, attempt (of how many), the reason. The
 * target keeps scheme, host and port only (tokens travel in paths, queries and user info), and
 * those parts of the URL and every secret given are masked in the reason (a receiver or a
 * library may echo one).
 */
/** Who a failed attempt's log line names: a run's node (an ActionContext), or a digest (runId: the digest's id, event: null). */
export type AttemptSubject = Pick<ActionContext, "runId" | "nodeId"> & { workflow: { id: string }; event: { id: number } | null };

export function attemptLogger(
  log: NotifyLog,
  ctx: AttemptSubject,
  action: string,
  target: { url: string; secrets: readonly (string | undefined)[]; attempts: number },
): AttemptFailed {
  return (attempt, reason, retrying) =>
    log.warn(
      {
        run_id: ctx.runId,
        node_id: ctx.nodeId,
        workflow_id: ctx.workflow.id,
        event_id: ctx.event?.id ?? null,
        action,
        attempt,
        attempts: target.attempts,
        retrying,
        target: logTarget(target.url),
        reason: scrub(reason, [...urlSecrets(target.url), ...target.secrets]),
      },
      "notification : tentative échouée",
    );
}

/** Scheme, host and port of a URL, its path masked: what a log line may show of a notification target. */
export function logTarget(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.protocol}//${url.host}${url.pathname.length > 1 ? `/${MASK}` : ""}`;
  } catch {
    return MASK;
  }
}

/** The parts of a URL that may carry a token and that a receiver's answer may echo: the URL, its path and query, user info, query values. */
function urlSecrets(raw: string): string[] {
  try {
    const url = new URL(raw);
    const path = `${url.pathname}${url.search}`;
    return [raw, ...(path.length > 1 ? [path] : []), url.username, url.password, ...url.searchParams.values()];
  } catch {
    return [raw];
  }
}

/** `text` with each secret (and its URL-decoded form) replaced by the mask; secrets under 4 characters are left, they would mask ordinary words. */
function scrub(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) {
    if (!s) continue;
    for (const form of new Set([s, safeDecode(s)])) if (form.length >= 4) out = out.replaceAll(form, MASK);
  }
  return out;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

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
 * run's step, secrets masked; an ActionError carries it too. `failed` hears of each failed attempt.
 */
export async function sendWithRetry(
  client: HttpClient,
  build: () => OutboundRequest,
  policy: RetryPolicy,
  signal: AbortSignal,
  sent: (outcome: { status: number | null; attempts: number }) => Record<string, unknown>,
  failed: AttemptFailed,
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
    const last = !retry || attempt >= attempts || signal.aborted;
    failed(attempt, failure, !last);
    if (last) {
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

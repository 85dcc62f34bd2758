import type { RateLimitState } from "./auth/rate-limiter.js";

/**
 * Domain errors: services throw these. They say what went wrong in the domain's terms and know
 * nothing of HTTP: the HTTP layer (http/error-body.ts) alone turns them into statuses and
 * FastAPI-shaped bodies.
 */
export abstract class DomainError extends Error {}

/** Where in an input a value sits: field names and list indexes from the top. */
export type Loc = (string | number)[];

/** Why a value is refused: where, why (French), and the value refused. */
export interface Issue {
  loc: Loc;
  message: string;
  input: unknown;
  /** Set when a schema check refused the value (its kind and facts, e.g. "missing"); absent for a rule of the domain. */
  check?: { type: string; ctx?: Record<string, unknown> };
}

/** The resource does not exist for this caller (never reveal that it exists elsewhere). */
export class NotFound extends DomainError {}

/** The change conflicts with the current state: a stable code, its message, and facts of the conflict. */
export class Conflict extends DomainError {
  constructor(
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** The caller is known but lacks a right. */
export class Forbidden extends DomainError {}

/** The caller is not known (no credential, or a bad one). */
export class Unauthorized extends DomainError {
  constructor(message = "Not authenticated") {
    super(message);
  }
}

/** Too many calls: try again in `retryAfterSeconds`; `window` is the call window that is spent, when there is one. */
export class TooManyRequests extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    readonly window?: RateLimitState,
  ) {
    super(message);
  }
}

/** The input is refused: every issue at once. */
export class Invalid extends DomainError {
  constructor(readonly issues: Issue[]) {
    super(issues.map((i) => `${i.loc.join(".")}: ${i.message}`).join("; "));
  }
}

/** One bad input at `field` (CLI option or service argument). */
export function invalid(field: string | Loc, message: string, input: unknown): Invalid {
  return new Invalid([{ loc: typeof field === "string" ? [field] : field, message, input }]);
}

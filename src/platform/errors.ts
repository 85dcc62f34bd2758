import { valueError, type PydanticError } from "./http/pydantic.js";

/**
 * Domain errors: services throw these; they know nothing of HTTP. The HTTP error handler maps
 * each to its status and a FastAPI-shaped body ({"detail": ...}).
 */
export abstract class DomainError extends Error {
  abstract readonly status: number;
  /** The value of "detail" in the response body. */
  abstract get detail(): unknown;
  headers?: Record<string, string>;
}

/** 404: the resource does not exist for this tenant (never reveal that it exists elsewhere). */
export class NotFound extends DomainError {
  readonly status = 404;
  get detail() {
    return this.message;
  }
}

/** 409 with a stable code: {"detail": {"code", "message", ...extra}}. */
export class Conflict extends DomainError {
  readonly status = 409;
  constructor(readonly code: string, message: string, readonly extra: Record<string, unknown> = {}) {
    super(message);
  }
  get detail() {
    return { code: this.code, message: this.message, ...this.extra };
  }
}

/** 403: the credential is valid but lacks a right. */
export class Forbidden extends DomainError {
  readonly status = 403;
  get detail() {
    return this.message;
  }
}

/** 401 with WWW-Authenticate: Bearer. */
export class Unauthorized extends DomainError {
  readonly status = 401;
  constructor(message = "Not authenticated") {
    super(message);
    this.headers = { "www-authenticate": "Bearer" };
  }
  get detail() {
    return this.message;
  }
}

/** 429 with Retry-After (seconds). */
export class TooManyRequests extends DomainError {
  readonly status = 429;
  constructor(message: string, readonly retryAfterSeconds: number) {
    super(message);
    this.headers = { "retry-after": String(Math.max(1, Math.ceil(retryAfterSeconds))) };
  }
  get detail() {
    return this.message;
  }
}

/**
 * 400 "There was an error parsing the body": what FastAPI answers when json.loads raises something
 * other than a JSONDecodeError (a RecursionError for a body nested too deep).
 */
export class BodyParseError extends DomainError {
  readonly status = 400;
  get detail() {
    return "There was an error parsing the body";
  }
}

/** 422 with FastAPI/Pydantic-shaped entries: {"detail": [{type, loc, msg, input, ctx?}]}. */
export class ValidationFailed extends DomainError {
  readonly status = 422;
  constructor(readonly errors: PydanticError[]) {
    super(errors.map((e) => `${e.loc.join(".")}: ${e.msg.replace(/^Value error, /, "")}`).join("; "));
  }
  /** Every item carries `input`, as Pydantic's do (null when a validator left it unset). */
  get detail() {
    return this.errors.map(({ type, loc, msg, input, ctx }) => ({ type, loc, msg, input: input ?? null, ...(ctx ? { ctx } : {}) }));
  }
}

/** One bad operator input (CLI option or service argument), reported as a Pydantic value_error. */
export function invalid(field: string, message: string, input: unknown): ValidationFailed {
  return new ValidationFailed([valueError([field], message, input)]);
}

import { rateHeaders } from "../auth/api-key-auth.js";
import { Conflict, DomainError, Forbidden, Invalid, NotFound, TooManyRequests, Unauthorized, type Issue } from "../errors.js";
import { isConnectionLoss } from "../db/errors.js";
import { UNAVAILABLE } from "../messages.js";
import { valueError, type PydanticError } from "../pydantic/validate.js";

/** An error of the HTTP layer itself (request decoding and validation, body budget): it knows its answer. */
export abstract class HttpError extends Error {
  abstract readonly status: number;
  /** The value of "detail" in the response body. */
  abstract readonly detail: unknown;
  readonly headers: Record<string, string> = {};
}

/** 422 of request validation: FastAPI/Pydantic-shaped items, {"detail": [{type, loc, msg, input, ctx?}]}. */
export class RequestInvalid extends HttpError {
  readonly status = 422;
  constructor(readonly errors: PydanticError[]) {
    super(errors.map((e) => `${e.loc.join(".")}: ${e.msg.replace(/^Value error, /, "")}`).join("; "));
  }
  /** Every item carries `input`, as Pydantic's do (null when a validator left it unset). */
  get detail() {
    return this.errors.map(pydanticItem);
  }
}

/**
 * 400 "There was an error parsing the body": what FastAPI answers when json.loads raises something
 * other than a JSONDecodeError (a RecursionError for a body nested too deep).
 */
export class BodyParseError extends HttpError {
  readonly status = 400;
  readonly detail = "There was an error parsing the body";
}

/** An answer to send: status, extra headers and the JSON body. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: { detail: unknown };
}

function pydanticItem({ type, loc, msg, input, ctx }: PydanticError): PydanticError {
  return { type, loc, msg, input: input ?? null, ...(ctx ? { ctx } : {}) };
}

/** A domain issue as the Pydantic item FastAPI would answer: a rule is a value_error ("Value error, …"). */
export function issueItem(issue: Issue): PydanticError {
  if (!issue.check) return pydanticItem(valueError(issue.loc, issue.message, issue.input));
  return pydanticItem({ type: issue.check.type, loc: issue.loc, msg: issue.message, input: issue.input, ctx: issue.check.ctx });
}

function answer(status: number, detail: unknown, headers: Record<string, string> = {}): ErrorAnswer {
  return { status, headers, body: { detail } };
}

/** The FastAPI-compatible answer to an error of the domain or of the HTTP layer; null for any other error (a 500). */
export function errorAnswer(err: unknown): ErrorAnswer | null {
  if (err instanceof HttpError) return answer(err.status, err.detail, err.headers);
  // The database connection lost or refused: not the request's fault, and over once it is back.
  if (isConnectionLoss(err)) return answer(503, UNAVAILABLE.database, { "retry-after": "2" });
  if (!(err instanceof DomainError)) return null;
  if (err instanceof NotFound) return answer(404, err.message);
  if (err instanceof Conflict) return answer(409, { code: err.code, message: err.message, ...err.extra });
  if (err instanceof Invalid) return answer(422, err.issues.map(issueItem));
  if (err instanceof Forbidden) return answer(403, err.message);
  if (err instanceof Unauthorized) return answer(401, err.message, { "www-authenticate": "Bearer" });
  if (err instanceof TooManyRequests) {
    const retryAfter = String(Math.max(1, Math.ceil(err.retryAfterSeconds)));
    return answer(429, err.message, { "retry-after": retryAfter, ...(err.window ? rateHeaders(err.window) : {}) });
  }
  return null;
}

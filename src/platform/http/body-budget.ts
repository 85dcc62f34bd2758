import type { FastifyReply, FastifyRequest, RequestPayload } from "fastify";
import { HttpError } from "./error-body.js";

/** 503: the budget of buffered request bodies is spent; the connection is closed after the answer. */
export class BodyBudgetExceeded extends HttpError {
  readonly status = 503;
  override readonly headers = { connection: "close", "retry-after": "5" };
  readonly detail = "Trop de corps de requête en cours de réception : réessayez plus tard";
}

/**
 * The bytes of request bodies buffered across all in-flight requests. Bodies are read whole into
 * memory by the content parser (up to the body limit), so without a global cap a thousand slow
 * uploads of 800 KB held 800 MB that glibc did not give back. A request reserves what its body may
 * take before a byte of it is read: its Content-Length, or the body limit for a chunked body (its
 * size is unknown until it ends); the reservation is released when the response closes, whatever
 * the outcome (answered, timed out, client gone).
 */
export class BodyBudget {
  #inFlight = 0;
  constructor(
    readonly maxBytes: number,
    readonly bodyLimit: number,
  ) {}

  /** Bytes currently reserved. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * preParsing hook: reserve the body's bytes, or refuse the request before its body is read.
   * Callback style, not async: it runs on every request (a GET pays no promise for it).
   */
  readonly hook = (
    req: FastifyRequest,
    reply: FastifyReply,
    payload: RequestPayload,
    done: (err: Error | null, payload?: RequestPayload) => void,
  ): void => {
    // A route that reads its body as a stream (an SBOM) holds no more of it than its reader does.
    if (req.routeOptions?.config?.streamedBody) return done(null, payload);
    const length = req.headers["content-length"];
    // A route may take larger bodies (an upload declares its own limit).
    const limit = req.routeOptions?.bodyLimit ?? this.bodyLimit;
    let bytes = 0;
    if (length !== undefined) bytes = Math.min(Number(length) || 0, limit);
    else if (req.headers["transfer-encoding"] !== undefined) bytes = limit;
    if (bytes === 0) return done(null, payload);
    if (this.#inFlight + bytes > this.maxBytes) return done(new BodyBudgetExceeded());
    this.#inFlight += bytes;
    reply.raw.once("close", () => {
      this.#inFlight -= bytes;
    });
    done(null, payload);
  };
}

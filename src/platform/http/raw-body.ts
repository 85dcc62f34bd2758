import type { FastifyInstance, FastifyRequest } from "fastify";
import { Transform, type Readable, type TransformCallback } from "node:stream";
import { HttpError } from "./error-body.js";

/**
 * A route whose body is a document read as a stream, not a JSON value: the media types it takes
 * (another is a 415), its size limit (beyond it a 413), and what the document is (OpenAPI).
 */
export interface RawBodySpec {
  mediaTypes: readonly string[];
  maxBytes: number;
  description: string;
}

/** The body of a raw-body route: its bytes as they arrive, and its media type (lower case, without parameters). */
export interface RawBody {
  stream: Readable;
  mediaType: string;
}

const MIB = 1024 * 1024;

/** 413: the body is over the route's limit (its Content-Length says so, or its bytes passed it). */
export class BodyTooLarge extends HttpError {
  readonly status = 413;
  readonly detail: string;
  // The rest of the body is not read: the connection closes after the answer.
  override readonly headers = { connection: "close" };
  constructor(maxBytes: number, what = "Corps de requête") {
    super("body too large");
    this.detail = `${what} trop volumineux : au plus ${maxBytes / MIB} Mio (${maxBytes} octets)`;
  }
}

/** 415: a Content-Type the route does not take. */
export class UnsupportedMediaType extends HttpError {
  readonly status = 415;
  readonly detail: string;
  constructor(got: string | undefined, accepted: readonly string[]) {
    super("unsupported media type");
    this.detail = `Type de contenu non pris en charge : ${got ? `« ${got} »` : "aucun"} (acceptés : ${accepted.join(", ")})`;
  }
}

/** Counts the bytes that pass and fails the stream past `max` (a chunked body has no Content-Length to refuse up front). */
class Limit extends Transform {
  #seen = 0;
  /** Whether the body passed the limit (the route answers 413 whatever its reader made of the cut stream). */
  exceeded = false;
  constructor(private readonly max: number) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.#seen += chunk.length;
    if (this.#seen > this.max) {
      this.exceeded = true;
      done(new BodyTooLarge(this.max));
      return;
    }
    done(null, chunk);
  }
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** The route reads its body as a stream (RawBodySpec): the body budget reserves nothing for it. */
    streamedBody?: boolean;
  }
}

/**
 * The content parsers of a raw-body route, in its own encapsulated context (the application's
 * parsers keep JSON bodies as text for every other route): its media types hand the request
 * stream to the handler unread; any other Content-Type is a 415; a Content-Length over the limit
 * is a 413 before a byte is read.
 */
export function rawBodyParsers(child: FastifyInstance, spec: RawBodySpec): void {
  child.removeAllContentTypeParsers();
  child.addContentTypeParser([...spec.mediaTypes], (req, payload, done) => {
    if (Number(req.headers["content-length"]) > spec.maxBytes) {
      done(new BodyTooLarge(spec.maxBytes), undefined);
      return;
    }
    done(null, payload);
  });
  child.addContentTypeParser("*", (req, _payload, done) => {
    done(new UnsupportedMediaType(req.headers["content-type"], spec.mediaTypes), undefined);
  });
}

/**
 * The body a raw-body route's handler reads, behind the byte limit (undefined: the request had
 * none). Made when the handler is called: a request refused before (401, 403, 422) leaves its body
 * unread, and Node discards it.
 */
export function rawBodyOf(req: FastifyRequest, spec: RawBodySpec): RawBody | undefined {
  const payload = req.body as Readable | undefined;
  if (!payload) return undefined;
  const limit = new Limit(spec.maxBytes);
  payload.on("error", (err) => limit.destroy(err));
  const mediaType = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  return { stream: payload.pipe(limit), mediaType };
}

/** Whether the body passed its route's limit while it was read. */
export function bodyExceeded(body: RawBody | undefined): boolean {
  return body?.stream instanceof Limit && body.stream.exceeded;
}

/**
 * After the handler: what it left unread of the body is read and dropped (as Node does for a body
 * no one reads), so that the connection serves the next request.
 */
export function drainBody(req: FastifyRequest): void {
  const payload = req.body as Readable | undefined;
  if (!payload || payload.readableEnded || payload.destroyed) return;
  payload.unpipe();
  payload.resume();
}

/** The OpenAPI request body of a raw-body route: each media type with a binary string. */
export function rawBodyDoc(spec: RawBodySpec): unknown {
  const schema = { type: "string", format: "binary" };
  return {
    required: true,
    description: `${spec.description}; at most ${spec.maxBytes} bytes`,
    content: Object.fromEntries(spec.mediaTypes.map((t) => [t, { schema }])),
  };
}

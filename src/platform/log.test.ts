import { Writable } from "node:stream";
import Fastify, { type FastifyBaseLogger } from "fastify";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { REDACT_PATHS, requestLogger } from "./log.js";

/** A pino logger as createLogger makes it, writing into an array of parsed lines; and how many children it made. */
function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  const logger = pino({ level, redact: { paths: REDACT_PATHS, censor: "[redacted]" } }, stream);
  let children = 0;
  const child = logger.child.bind(logger);
  logger.child = ((...args: Parameters<typeof child>) => {
    children++;
    return child(...args);
  }) as typeof logger.child;
  return { logger, lines, children: () => children };
}

describe("the request logger (req.log)", () => {
  it("makes pino's child only for a line it writes, with the request id and the redaction", () => {
    const { logger, lines, children } = capture("warn");
    const log = requestLogger(logger, { reqId: "req-7" }, {});
    log.info({ req: { url: "/x" } }, "incoming request");
    log.debug("nothing");
    expect(children()).toBe(0);
    expect(lines).toEqual([]);
    log.error({ err: new Error("boom"), password: "hunter2" }, "unhandled error");
    log.warn("second");
    expect(children()).toBe(1);
    expect(lines.map((l) => [l.reqId, l.msg, l.password])).toEqual([
      ["req-7", "unhandled error", "[redacted]"],
      ["req-7", "second", undefined],
    ]);
    expect(log.level).toBe("warn");
  });

  it("is the logger of Fastify's requests: an unhandled error's line carries the request id", async () => {
    const { logger, lines } = capture("info");
    const app = Fastify({
      loggerInstance: logger as FastifyBaseLogger,
      childLoggerFactory: (l, bindings, options) => requestLogger(l as never, bindings, options as never) as unknown as FastifyBaseLogger,
      genReqId: () => "req-42",
    });
    app.get("/boom", async (req) => {
      req.log.info("inside");
      throw new Error("boom");
    });
    const res = await app.inject({ method: "GET", url: "/boom" });
    expect(res.statusCode).toBe(500);
    await app.close();
    expect(lines.filter((l) => l.reqId === "req-42").map((l) => l.msg)).toEqual(
      expect.arrayContaining(["incoming request", "inside", "request completed"]),
    );
  });
});

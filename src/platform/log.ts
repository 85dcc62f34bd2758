import { pino, type Logger } from "pino";

/** Paths never written to logs: credentials in headers, bodies and our own objects. */
export const REDACT_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  'req.headers["idempotency-key"]',
  'res.headers["set-cookie"]',
  "password",
  "*.password",
  "token",
  "*.token",
  "key",
  "*.key",
  // Secret action parameters (platform/secrets.ts, engine/secret-params.ts) and the settings that hold secrets.
  "secret",
  "*.secret",
  "params.secret",
  "*.params.secret",
  "webhook_url",
  "*.webhook_url",
  "params.webhook_url",
  "*.params.webhook_url",
  "secretKey",
  "*.secretKey",
  "smtpUrl",
  "*.smtpUrl",
  "*.*.smtpUrl",
];

/** The process logger; request loggers are its children. `fd` 2: on stderr (a command whose stdout is its result). */
export function createLogger(level: string, fd: 1 | 2 = 1): Logger {
  const options = { level, redact: { paths: REDACT_PATHS, censor: "[redacted]" } };
  return fd === 1 ? pino(options) : pino(options, pino.destination(fd));
}

type LogFn = (...args: unknown[]) => void;

/**
 * A request's logger (Fastify's `req.log`): the child of the process logger with the request id,
 * made on its first line. pino makes a child by serialising its bindings through the redaction
 * paths (about 2% of a workflow-list call); most requests write no line at the configured level.
 * A line below the process logger's level is dropped without making the child.
 */
export class RequestLogger {
  #child: Logger | null = null;
  constructor(
    private readonly parent: Logger,
    private readonly bindings: Record<string, unknown>,
    private readonly options: Record<string, unknown>,
  ) {}

  /** The pino child, made now if no line was written yet. */
  get logger(): Logger {
    if (this.#child === null) this.#child = this.parent.child(this.bindings, this.options);
    return this.#child;
  }

  get level(): string {
    return this.#child?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  child(bindings: Record<string, unknown>, options?: Record<string, unknown>): Logger {
    return this.logger.child(bindings, options);
  }

  isLevelEnabled(level: string): boolean {
    return (this.#child ?? this.parent).isLevelEnabled(level);
  }

  private write(level: "fatal" | "error" | "warn" | "info" | "debug" | "trace", args: unknown[]): void {
    if (this.isLevelEnabled(level)) (this.logger[level] as LogFn)(...args);
  }

  fatal(...args: unknown[]): void {
    this.write("fatal", args);
  }
  error(...args: unknown[]): void {
    this.write("error", args);
  }
  warn(...args: unknown[]): void {
    this.write("warn", args);
  }
  info(...args: unknown[]): void {
    this.write("info", args);
  }
  debug(...args: unknown[]): void {
    this.write("debug", args);
  }
  trace(...args: unknown[]): void {
    this.write("trace", args);
  }
  silent(): void {}
}

/** Fastify's childLoggerFactory: a RequestLogger (its child made on the first line written). */
export function requestLogger(logger: Logger, bindings: Record<string, unknown>, options: Record<string, unknown>): RequestLogger {
  const log = new RequestLogger(logger, bindings, options);
  // A route's own level needs the child at once (none of Vigie's routes sets one).
  if (options.level !== undefined) void log.logger;
  return log;
}

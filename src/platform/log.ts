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

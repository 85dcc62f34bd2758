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
];

/** The process logger; request loggers are its children. */
export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: "[redacted]" } });
}

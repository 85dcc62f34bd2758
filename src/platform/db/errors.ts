/** PostgreSQL error helpers (same SQLSTATE codes from node-postgres and PGlite). */
export function pgCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  const code = typeof e?.code === "string" ? e.code : typeof e?.cause?.code === "string" ? e.cause.code : undefined;
  return code;
}

function constraintOf(err: unknown): string | undefined {
  const e = err as { constraint?: string; cause?: { constraint?: string } };
  return e?.constraint ?? e?.cause?.constraint;
}

/** True for a unique violation (23505), of the named constraint when given. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  return pgCode(err) === "23505" && (!constraint || constraintOf(err) === constraint);
}

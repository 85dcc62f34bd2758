/**
 * Scopes an API key can carry. Reads need no scope; each family of writes needs its own,
 * granted explicitly when the key is created.
 */
export const SCOPES = [
  "workflows-write",
  "stacks-write",
  "alerts-write",
  "tags-write",
  "cases-write",
  "urls-write",
  "eol-write",
  "reports-write",
] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

import type { Role } from "../db/schema/index.js";

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

/**
 * The least role a signed-in user needs for what a scope grants a key: members triage (alerts,
 * tags, cases and their exceptions), admins manage what the project watches and runs.
 */
export const ROLE_OF_SCOPE: Record<Scope, Role> = {
  "alerts-write": "member",
  "tags-write": "member",
  "cases-write": "member",
  "workflows-write": "admin",
  "stacks-write": "admin",
  "urls-write": "admin",
  "eol-write": "admin",
  "reports-write": "admin",
};

const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

/** True when `role` is `least` or above it (viewer < member < admin < owner). */
export function roleAtLeast(role: Role, least: Role): boolean {
  return RANK[role] >= RANK[least];
}

import { createContext, useContext } from "react";
import { ApiError } from "../../api/client";
import { fieldMessages } from "../../api/pydantic";
import type { components } from "../../api/schema";
import type { Role, Session } from "../../api/session";
import { activeLang } from "../../i18n/i18n";

/** The write scopes an API key can hold: the server's enum (schema.d.ts). */
export type Scope = components["schemas"]["ApiKeyIn"]["scopes"][number];

/** Every role, least first (the server's order: viewer < member < admin < owner). */
export const ROLES: readonly Role[] = ["viewer", "member", "admin", "owner"];

/** True when `role` is `least` or above (the server's rule, src/platform/auth/scopes.ts). */
export function roleAtLeast(role: Role, least: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(least);
}

export type Org = Session["organizations"][number];
export type Project = Org["projects"][number];

/** What every settings section works on: the session, the current organization and project, the role there. */
export interface SettingsScope {
  session: Session;
  org: Org;
  /** The current project when it is one of `org`'s. */
  project: Project | null;
  role: Role;
}

export const SettingsContext = createContext<SettingsScope | null>(null);

export function useSettings(): SettingsScope {
  const ctx = useContext(SettingsContext);
  if (!ctx) throw new Error("useSettings outside the settings layout");
  return ctx;
}

interface Issue {
  loc: (string | number)[];
  msg: string;
}

/** The issues of a 422 answer (FastAPI's shape), else none. */
export function issues(err: unknown): Issue[] {
  return err instanceof ApiError && err.status === 422 && Array.isArray(err.detail) ? (err.detail as Issue[]) : [];
}

/**
 * The server's words for a failed call: its `detail` message (403 « Rôle insuffisant… », a 404), a
 * conflict's message (409 dernier_proprietaire…), a 422's issues by field; else `fallback`.
 */
export function errorText(err: unknown, fallback: string, labels: Record<string, string> = {}): string {
  if (!(err instanceof ApiError)) return fallback;
  const d = err.detail;
  // A 403 names the role in the user's words (ApiError's message, api/pydantic.ts).
  if (err.status === 403) return err.message;
  if (typeof d === "string") return d;
  if (d && typeof d === "object" && "message" in d && typeof d.message === "string") return d.message;
  // A 422: each field by the form's name for it, in the application's words.
  const found = Object.entries(fieldMessages(d, activeLang()));
  return found.length ? found.map(([field, msg]) => `${labels[field] ?? field} : ${msg}`).join(" ; ") : fallback;
}

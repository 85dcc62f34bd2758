import { queryOptions } from "@tanstack/react-query";
import { ApiError } from "./client";

export type Role = "owner" | "admin" | "member" | "viewer";

/** GET /auth/session: the signed-in user, the session's end, their organizations and projects. */
export interface Session {
  user: { id: string; email: string };
  expires_at: string;
  organizations: { id: string; name: string; role: Role; projects: { id: string; name: string }[] }[];
}

/** The session, or null when nobody is signed in (401). */
async function fetchSession(): Promise<Session | null> {
  const res = await fetch("/auth/session", { credentials: "same-origin", headers: { accept: "application/json" } });
  if (res.status === 401) return null;
  if (!res.ok) throw new ApiError(res.status, ((await res.json().catch(() => ({}))) as { detail?: unknown }).detail);
  return (await res.json()) as Session;
}

export const sessionQuery = queryOptions({ queryKey: ["session"], queryFn: fetchSession, staleTime: 60_000 });

import { queryOptions } from "@tanstack/react-query";
import { ApiError, api } from "./client";
import type { components } from "./schema";

/** GET /auth/session: the signed-in user, the session's end, their organizations (with role) and projects. */
export type Session = components["schemas"]["Session"];
export type Role = Session["organizations"][number]["role"];

/** The session, or null when nobody is signed in (401). */
async function fetchSession(): Promise<Session | null> {
  const { data, error, response } = await api.GET("/auth/session");
  if (response.status === 401) return null;
  if (!data) throw new ApiError(response.status, error?.detail);
  return data;
}

export const sessionQuery = queryOptions({ queryKey: ["session"], queryFn: fetchSession, staleTime: 60_000 });

import { queryOptions } from "@tanstack/react-query";
import { ApiError, api } from "./client";
import type { components } from "./schema";

/** GET /auth/session: the signed-in user, the session's end, their organizations (with role) and projects. */
export type Session = components["schemas"]["Session"];
export type Role = Session["organizations"][number]["role"];

/**
 * A mark in this browser that a session was opened here (set by a sign-in, removed by a sign-out or
 * a 401). The session cookie is HttpOnly, so the page cannot see it: without the mark, the session
 * is not asked for, and a visitor's login page logs no 401 in the console. A session opened before
 * the mark existed signs in once more.
 */
const MARK = "vigie.signed-in";

function marked(): boolean {
  try {
    return localStorage.getItem(MARK) === "1";
  } catch {
    return true; // No storage (private mode): ask, as before.
  }
}

function mark(on: boolean): void {
  try {
    if (on) localStorage.setItem(MARK, "1");
    else localStorage.removeItem(MARK);
  } catch {
    // No storage: the session is asked for each time.
  }
}

api.use({
  onResponse({ request, response }) {
    const path = new URL(request.url, location.origin).pathname;
    if (path === "/auth/login" && response.ok) mark(true);
    else if ((path === "/auth/logout" || path === "/auth/logout-everywhere") && response.ok) mark(false);
    return response;
  },
});

/** The session, or null when nobody is signed in (no mark, or 401). */
async function fetchSession(): Promise<Session | null> {
  if (!marked()) return null;
  const { data, error, response } = await api.GET("/auth/session");
  if (response.status === 401) {
    mark(false);
    return null;
  }
  if (!data) throw new ApiError(response.status, error?.detail);
  return data;
}

export const sessionQuery = queryOptions({ queryKey: ["session"], queryFn: fetchSession, staleTime: 60_000 });

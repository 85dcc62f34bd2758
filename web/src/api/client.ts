import createClient from "openapi-fetch";
import { activeLang } from "../i18n/i18n";
import { forbiddenWords, itemWords, type PydanticItem } from "./pydantic";
import type { paths } from "./schema";

/**
 * The API client, typed by schema.d.ts (generated from the server's /openapi.json by
 * `npm run api:types`, never written by hand). The session cookie goes with each call (same origin).
 */
export const api = createClient<paths>({ baseUrl: "", credentials: "same-origin" });

/** An answer the screens did not expect: its status and the server's `detail`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** The server's `detail`: a message, a conflict `{code, message}`, or a 422's list of issues. */
    readonly detail: unknown,
  ) {
    super(detailText(status, detail) ?? `HTTP ${status}`);
  }
}

/**
 * The words of a `detail`: a string (a 403's in the user's language), a coded error's `message`
 * (409), or a 422's items in the application's words (api/pydantic.ts; a form shows them on its fields).
 */
function detailText(status: number, detail: unknown): string | undefined {
  if (status === 403) return forbiddenWords(detail, activeLang());
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    const msgs = (detail as PydanticItem[]).map((d) => itemWords(d, activeLang()));
    return msgs.length ? [...new Set(msgs)].join(" ; ") : undefined;
  }
  const message = (detail as { message?: unknown } | null | undefined)?.message;
  return typeof message === "string" ? message : undefined;
}

/** The data of an openapi-fetch answer, or an ApiError (what TanStack Query's queryFn throws). */
export async function data<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  throw new ApiError(response.status, (error as { detail?: unknown } | undefined)?.detail);
}

let onExpired: () => void = () => {};

/** What to do when a call answers 401 while signed in (the router sends the user to the login screen). */
export function whenSessionExpires(handler: () => void): void {
  onExpired = handler;
}

// A 401 on any call but the session's own routes means the session has ended (expired, revoked).
api.use({
  onResponse({ request, response }) {
    if (response.status === 401 && !new URL(request.url, location.origin).pathname.startsWith("/auth/")) onExpired();
    return response;
  },
});

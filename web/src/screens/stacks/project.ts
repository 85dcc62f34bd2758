import { useEffect, useState } from "react";
import { ApiError } from "../../api/client";
import { projectRoute } from "../../routes";
import { roleAtLeast } from "../settings/access";

/**
 * The current project's ids (the API's path parameters) and whether the signed-in user manages it:
 * stacks, monitored URLs and EOL subscriptions need `admin` (the server answers 403 anyway).
 */
export function useProject(): { path: { org_id: string; project_id: string }; canManage: boolean } {
  const { org, project } = projectRoute.useRouteContext();
  return {
    path: { org_id: org?.id ?? "", project_id: project?.id ?? "" },
    canManage: !!org && roleAtLeast(org.role, "admin"),
  };
}

/** `value` once it has not changed for `ms` milliseconds. */
export function useDebounced<T>(value: T, ms = 250): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** The words of a failed call: the server's detail (a 403, a 409…), else the fallback. */
export function errorText(err: unknown, fallback: string): string {
  if (err instanceof ApiError && err.message && !err.message.startsWith("HTTP ")) return err.message;
  return fallback;
}

import { useQuery } from "@tanstack/react-query";
import { ApiError, api, data } from "../../api/client";
import { fieldMessages, forbiddenWords } from "../../api/pydantic";
import type { components } from "../../api/schema";
import type { Role } from "../../api/session";
import { formatParisDate } from "../../format";
import { activeLang, useI18n, useWords } from "../../i18n/i18n";
import { TagManager } from "../tags/TagManager";
import { parisDaysLeft } from "./paris";
import { words } from "./words";

export type Case = components["schemas"]["CaseOut"];
export type CaseStatus = Case["status"];

/** Members and above triage: cases, exceptions, tags and the risk register (the server's cases-write role). */
export function canTriage(role: Role | undefined): boolean {
  return role === "member" || role === "admin" || role === "owner";
}

/** A write the server refused: its message (a string `detail`, a 409's `detail.message`, a 422's messages by field). */
export class Refused extends ApiError {
  constructor(
    status: number,
    message: string,
    /** 422: the message of each body field (`loc` ["body", field]). */
    readonly fields: Record<string, string> = {},
  ) {
    super(status, message);
  }
}

/** The data of an openapi-fetch answer, or a Refused carrying the server's words. */
export async function send<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data: body, error, response } = await call;
  if (response.ok) return body as T;
  const detail = (error as { detail?: unknown } | undefined)?.detail;
  if (Array.isArray(detail)) {
    const fields = fieldMessages(detail, activeLang());
    throw new Refused(response.status, Object.values(fields).join(" ; "), fields);
  }
  if (response.status === 403) throw new Refused(403, forbiddenWords(detail, activeLang()) ?? "HTTP 403");
  if (typeof detail === "string") throw new Refused(response.status, detail);
  if (detail && typeof detail === "object" && "message" in detail) throw new Refused(response.status, String(detail.message));
  throw new Refused(response.status, `HTTP ${response.status}`);
}

/** The project's tags (for filters, bulk tagging and a case's tags). */
export function useProjectTags(orgId: string, projectId: string) {
  return useQuery({
    queryKey: ["tags", projectId],
    queryFn: () =>
      data(
        api.GET("/api/v1/organizations/{org_id}/projects/{project_id}/tags", {
          params: { path: { org_id: orgId, project_id: projectId } },
        }),
      ),
    staleTime: 60_000,
  });
}

/** The project's tags to create, rename, recolour or delete (the cases list and a case's page). */
export function ProjectTagManager({ orgId, projectId }: { orgId: string; projectId: string }) {
  const tags = useProjectTags(orgId, projectId);
  return <TagManager orgId={orgId} projectId={projectId} tags={tags.data ?? []} />;
}

export function StatusBadge({ status }: { status: string }) {
  const w = useWords(words);
  return <span className={`badge case-status case-status-${status}`}>{w.statuses[status] ?? status}</span>;
}

export function SeverityBadge({ severity }: { severity: string | null }) {
  const w = useWords(words);
  if (!severity) return <span className="badge badge-idle">{w.noSeverity}</span>;
  return <span className={`badge sev sev-${severity}`}>{w.severities[severity] ?? severity}</span>;
}

/**
 * "expire dans N jours (jours calendaires de Paris)", and the last day, stated in Paris time: an
 * exception lasts through its `expires_on` day in Europe/Paris whatever the user's zone.
 */
export function Countdown({ expiresOn, now, long = false }: { expiresOn: string; now?: Date; long?: boolean }) {
  const w = useWords(words);
  const { lang } = useI18n();
  const days = parisDaysLeft(expiresOn, now);
  const tone = days <= 7 ? "badge-bad" : days <= 30 ? "badge-warn" : "badge-idle";
  return (
    <span className="countdown">
      <span className={`badge ${tone}`}>{w.expiresIn(days)}</span> <span className="sub-inline">({w.parisDays})</span>
      {long && <span className="sub">{w.expiresOn(formatParisDate(expiresOn, lang))}</span>}
    </span>
  );
}

export function Failed({ onRetry }: { onRetry: () => void }) {
  const w = useWords(words);
  return (
    <div role="alert" className="error">
      {w.loadError}{" "}
      <button type="button" className="button-secondary" onClick={onRetry}>
        {w.retry}
      </button>
    </div>
  );
}

import { api, ApiError } from "../../api/client";
import type { components } from "../../api/schema";
import { itemWords, type PydanticItem } from "../../api/pydantic";
import { activeLang } from "../../i18n/i18n";

export type Workflow = components["schemas"]["Workflow"];
export type WorkflowItem = components["schemas"]["WorkflowItem"];
export type Run = components["schemas"]["WorkflowRun"];
export type RunDetail = components["schemas"]["WorkflowRunDetailOut"];
export type DryRun = components["schemas"]["WorkflowDryRunOut"];
export type DigestPreview = components["schemas"]["DigestPreviewOut"];

/** An error answer with its whole body: a 409's `{code, message, current_version}`, a 422's issues. */
export class WorkflowApiError extends ApiError {
  constructor(
    status: number,
    readonly body: unknown,
  ) {
    const detail = (body as { detail?: unknown } | undefined)?.detail;
    super(status, typeof detail === "object" && detail && "message" in detail ? (detail as { message: unknown }).message : detail);
  }

  /** The 409 code (`version_perimee`, `workflow_par_defaut`, …), if any. */
  get code(): string | undefined {
    const detail = (this.body as { detail?: { code?: unknown } } | undefined)?.detail;
    return typeof detail === "object" && typeof detail?.code === "string" ? detail.code : undefined;
  }

  /** A 422's issues (`detail` is the FastAPI list), each `msg` in the application's words (api/pydantic.ts). */
  get issues(): { loc: (string | number)[]; msg: string }[] {
    const detail = (this.body as { detail?: unknown } | undefined)?.detail;
    if (this.status !== 422 || !Array.isArray(detail)) return [];
    return (detail as PydanticItem[]).map((d) => ({ loc: d.loc ?? [], msg: itemWords(d, activeLang()) }));
  }
}

/** The data of an answer, or a WorkflowApiError carrying the body. */
export async function result<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  throw new WorkflowApiError(response.status, error);
}

export interface Scope {
  orgId: string;
  projectId: string;
}

const path = ({ orgId, projectId }: Scope) => ({ org_id: orgId, project_id: projectId });

// Query keys start with the resource and the project id.
export const keys = {
  list: (projectId: string) => ["workflows", projectId, "list"] as const,
  one: (projectId: string, id: string) => ["workflows", projectId, "one", id] as const,
  runs: (projectId: string, id: string) => ["workflow-runs", projectId, id] as const,
  run: (projectId: string, id: string, runId: string) => ["workflow-runs", projectId, id, runId] as const,
  digests: (projectId: string, id: string) => ["workflow-digests", projectId, id] as const,
};

export const calls = {
  list: (s: Scope) => result(api.GET("/api/v1/organizations/{org_id}/projects/{project_id}/workflows", { params: { path: path(s) } })),
  get: (s: Scope, id: string) =>
    result(api.GET("/projects/{project_id}/workflows/{workflow_id}", { params: { path: { project_id: s.projectId, workflow_id: id } } })),
  // The graph form: `create_case` (the short form's, typed as required for its default) is not sent.
  create: (s: Scope, body: Omit<components["schemas"]["WorkflowEcritureIn"], "create_case">, key: string) =>
    result(
      api.POST("/api/v1/organizations/{org_id}/projects/{project_id}/workflows", {
        params: { path: path(s), header: { "idempotency-key": key } },
        body: body as components["schemas"]["WorkflowEcritureIn"],
      }),
    ),
  update: (s: Scope, id: string, body: components["schemas"]["WorkflowMiseAJourIn"]) =>
    result(
      api.PATCH("/api/v1/organizations/{org_id}/projects/{project_id}/workflows/{workflow_id}", {
        params: { path: { ...path(s), workflow_id: id } },
        body,
      }),
    ),
  setEnabled: (s: Scope, id: string, enabled: boolean) =>
    result(
      api.PATCH("/api/v1/organizations/{org_id}/projects/{project_id}/workflows/{workflow_id}/enabled", {
        params: { path: { ...path(s), workflow_id: id } },
        body: { enabled },
      }),
    ),
  remove: (s: Scope, id: string) =>
    result(
      api.DELETE("/api/v1/organizations/{org_id}/projects/{project_id}/workflows/{workflow_id}", {
        params: { path: { ...path(s), workflow_id: id } },
      }),
    ),
  runs: (s: Scope, id: string) =>
    result(
      api.GET("/api/v1/organizations/{org_id}/projects/{project_id}/workflows/{workflow_id}/runs", {
        params: { path: { ...path(s), workflow_id: id }, query: { limit: 20 } },
      }),
    ),
  run: (s: Scope, id: string, runId: string) =>
    result(
      api.GET("/api/v1/organizations/{org_id}/projects/{project_id}/workflows/{workflow_id}/runs/{run_id}", {
        params: { path: { ...path(s), workflow_id: id, run_id: runId } },
      }),
    ),
  digestPreview: (s: Scope, id: string) =>
    result(
      api.GET("/api/v1/organizations/{org_id}/projects/{project_id}/workflows/{workflow_id}/digest-preview", {
        params: { path: { ...path(s), workflow_id: id } },
      }),
    ),
  dryRun: (s: Scope, id: string, cveId: string) =>
    result(
      api.POST("/api/v1/organizations/{org_id}/projects/{project_id}/workflows/{workflow_id}/dry-run", {
        params: { path: { ...path(s), workflow_id: id } },
        body: { cve_id: cveId },
      }),
    ),
};

/** The roles that may write workflows (the server answers 403 below admin). */
export const canWrite = (role: string | undefined) => role === "admin" || role === "owner";

import { z } from "zod";
import { orgScopeOf, type ApiKeyContext, type ProjectResolver, type ProjectScope } from "../platform/auth/context.js";
import { NotFound } from "../platform/errors.js";
import { MCP, NOT_FOUND } from "../platform/messages.js";
import { presentAlertList } from "../modules/alerts/alerts.presenter.js";
import { AlertListOut, AlertListQuery } from "../modules/alerts/alerts.schemas.js";
import type { AlertsService } from "../modules/alerts/alerts.service.js";
import { presentCaseDetail, presentCaseList } from "../modules/cases/cases.presenter.js";
import { CaseDetailOut, CaseListOut, CaseListQuery, CaseParams } from "../modules/cases/cases.schemas.js";
import type { CasesService } from "../modules/cases/cases.service.js";
import { presentCveDetail, presentCveList } from "../modules/cves/cves.presenter.js";
import { CveDetailOut, CveListOut, CveListQuery, CveParams } from "../modules/cves/cves.schemas.js";
import type { CvesService } from "../modules/cves/cves.service.js";
import { ProjectParams } from "../modules/projects/projects.schemas.js";
import { presentRunDetail } from "../modules/runs/runs.presenter.js";
import { WorkflowRunDetailOut } from "../modules/runs/runs.schemas.js";
import type { RunsService } from "../modules/runs/runs.service.js";
import {
  DelaysOut,
  DelaysQuery,
  DistributionOut,
  DistributionQuery,
  StatsQuery,
  StatsTotalsOut,
  TimeseriesOut,
  TimeseriesQuery,
  TopOut,
  TopQuery,
  TopTrendOut,
  TopTrendQuery,
} from "../modules/stats/stats.schemas.js";
import type { StatsService } from "../modules/stats/stats.service.js";
import { presentRun, presentWorkflow, presentWorkflowItem } from "../modules/workflows/workflows.presenter.js";
import { Run, RunsQuery, Workflow, WorkflowItem, WorkflowParams } from "../modules/workflows/workflows.schemas.js";
import type { WorkflowsService } from "../modules/workflows/workflows.service.js";

/**
 * What the tools call: the very services (and the project resolver) the REST routes call, so that
 * no query is written twice (STYLE.md 11).
 */
export interface ToolServices {
  projectAccess: ProjectResolver;
  workflows: Pick<WorkflowsService, "get" | "getOrgWorkflow" | "list" | "runs">;
  runs: Pick<RunsService, "get">;
  alerts: Pick<AlertsService, "list">;
  cves: Pick<CvesService, "list" | "get">;
  cases: Pick<CasesService, "list" | "get">;
  stats: Pick<StatsService, "totals" | "top" | "trend" | "timeseries" | "distribution" | "delays">;
}

/** A tool: its input and output schemas (JSON Schema in tools/list), and one service call. */
export interface ToolDef<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  run(args: z.output<I>, caller: ApiKeyContext, services: ToolServices): Promise<z.input<O>>;
}

/** Identity helper that keeps each tool's types. */
function tool<I extends z.ZodObject, O extends z.ZodObject>(def: ToolDef<I, O>): ToolDef {
  // A copy of the output schema without its OpenAPI id: converted with its id, the root would be a
  // bare {"$ref": "#/definitions/Workflow"}, and MCP wants `"type": "object"` at an output schema's root.
  return { ...def, output: def.output.extend({}) } as unknown as ToolDef;
}

/**
 * The project a tool names, as the REST routes resolve it (ProjectResolver with the key's own
 * organization): another organization's, or one outside the key's restriction, does not exist.
 */
async function projectOf(services: ToolServices, caller: ApiKeyContext, projectId: string): Promise<ProjectScope> {
  const project = await services.projectAccess.resolve(caller, projectId, caller.orgId);
  if (!project) throw new NotFound(NOT_FOUND.project);
  return project;
}

const ProjectIn = ProjectParams.pick({ project_id: true });

/** The project a statistics tool narrows to, when it names one. */
const statsScope = (s: ToolServices, caller: ApiKeyContext, projectId: string | undefined) =>
  projectId === undefined ? Promise.resolve(undefined) : projectOf(s, caller, projectId);

/** A statistics tool: the REST endpoint's parameters and answer, the same service method. */
function statsTool<I extends z.ZodObject, O extends z.ZodObject>(
  name: string,
  endpoint: string,
  title: string,
  input: I,
  output: O,
  run: (s: ToolServices["stats"], query: z.output<I>, project: ProjectScope | undefined) => Promise<z.input<O>>,
): ToolDef {
  return tool({
    name,
    title,
    description: `${title}, as GET /api/v1/stats/${endpoint} (same parameters, definitions and answer; project_id narrows to the CVEs alerted in that project). Periods are Europe/Paris calendar days; default: the last 365 days.`,
    input,
    output,
    run: async (query, caller, s) => run(s.stats, query, await statsScope(s, caller, (query as { project_id?: string }).project_id)),
  });
}
const WorkflowIn = WorkflowParams.omit({ org_id: true });
const items = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item) });

const GetWorkflowIn = z
  .object({
    project_id: z.uuid().optional().describe("The project of a project workflow"),
    org_id: z.uuid().optional().describe("The organization of an organization workflow (the API key's own)"),
    workflow_id: z.uuid(),
  })
  .refine((v) => (v.project_id === undefined) !== (v.org_id === undefined), { message: MCP.workflowTarget })
  .meta({ oneOf: [{ required: ["project_id"] }, { required: ["org_id"] }] });

/** The tools of /mcp, all reads: each calls the service method and presenter of its REST twin. */
export const TOOLS: ToolDef[] = [
  tool({
    name: "get_workflow",
    title: "Read a workflow with its graph",
    description:
      "A workflow with its graph: {project_id, workflow_id} for a project workflow, {org_id, workflow_id} for an organization workflow (applies to every project). The same record as the session API's GET /projects/{project_id}/workflows/{workflow_id} and GET /organizations/{org_id}/workflows/{workflow_id}.",
    input: GetWorkflowIn,
    output: Workflow,
    run: async (args, caller, s) => {
      if (args.project_id !== undefined) {
        return presentWorkflow(await s.workflows.get(await projectOf(s, caller, args.project_id), args.workflow_id));
      }
      const org = orgScopeOf(caller, args.org_id!);
      if (!org) throw new NotFound(NOT_FOUND.organization);
      return presentWorkflow(await s.workflows.getOrgWorkflow(org.id, args.workflow_id));
    },
  }),
  tool({
    name: "list_workflows",
    title: "List a project's workflows",
    description: "The project's workflows without their graph (as GET /api/v1/…/projects/{project_id}/workflows), in `items`.",
    input: ProjectIn,
    output: items(WorkflowItem),
    run: async (args, caller, s) => ({
      items: (await s.workflows.list(await projectOf(s, caller, args.project_id))).map(presentWorkflowItem),
    }),
  }),
  tool({
    name: "list_runs",
    title: "List a workflow's runs",
    description: "A project workflow's runs, newest first (as GET …/workflows/{workflow_id}/runs), in `items`; limit 1 to 200, default 50.",
    input: WorkflowIn.extend(RunsQuery.shape),
    output: items(Run),
    run: async (args, caller, s) => {
      const project = await projectOf(s, caller, args.project_id);
      return { items: (await s.workflows.runs(project, args.workflow_id, args.limit)).map(presentRun) };
    },
  }),
  tool({
    name: "get_run",
    title: "Read one run of a workflow",
    description: "One run of a project workflow with what its nodes did (as GET …/workflows/{workflow_id}/runs/{run_id}).",
    input: WorkflowIn.extend({ run_id: z.uuid() }),
    output: WorkflowRunDetailOut,
    run: async (args, caller, s) => {
      const project = await projectOf(s, caller, args.project_id);
      return presentRunDetail(await s.runs.get(project, args.workflow_id, args.run_id));
    },
  }),
  tool({
    name: "list_alerts",
    title: "List a project's alerts",
    description:
      "The project's alerts with the REST list's filters, sort and paging (as GET …/projects/{project_id}/alerts): items, total, unread_count, page, page_size.",
    input: ProjectIn.extend(AlertListQuery.shape),
    output: AlertListOut,
    run: async ({ project_id, ...query }, caller, s) =>
      presentAlertList(await s.alerts.list(await projectOf(s, caller, project_id), query), query),
  }),
  tool({
    name: "search_cves",
    title: "Search CVEs",
    description:
      "Search the CVEs Vigie holds (merged from CVE List, NVD, EPSS, KEV, PoC, advisories) with the filters, sort and paging of GET /api/v1/cves.",
    input: CveListQuery,
    output: CveListOut,
    run: async (query, _caller, s) => presentCveList(await s.cves.list(query), query),
  }),
  tool({
    name: "get_cve",
    title: "Read one CVE",
    description: "One CVE with every merged field (as GET /api/v1/cves/{cve_id}); an alias (GHSA-…) resolves to its CVE.",
    input: CveParams,
    output: CveDetailOut,
    run: async (args, _caller, s) => {
      const { cve, affected } = await s.cves.get(args.cve_id);
      return presentCveDetail(cve, affected);
    },
  }),
  tool({
    name: "list_cases",
    title: "List a project's cases",
    description: "The project's cases with the REST list's filters, sort and paging (as GET …/projects/{project_id}/cases).",
    input: ProjectIn.extend(CaseListQuery.shape),
    output: CaseListOut,
    run: async ({ project_id, ...query }, caller, s) =>
      presentCaseList(await s.cases.list(await projectOf(s, caller, project_id), query), query),
  }),
  tool({
    name: "get_case",
    title: "Read one case with its history",
    description: "The project's case of a CVE with its history, oldest first (as GET …/projects/{project_id}/cases/{cve_id}).",
    input: CaseParams.omit({ org_id: true }),
    output: CaseDetailOut,
    run: async (args, caller, s) => {
      const c = await s.cases.get(await projectOf(s, caller, args.project_id), args.cve_id);
      return presentCaseDetail(c.row, c.tags, c.history);
    },
  }),
  statsTool("stats_totals", "totals", "CVE totals of a period", StatsQuery, StatsTotalsOut, (s, q, p) => s.totals(q, p)),
  statsTool("stats_top", "top", "Top values of a dimension", TopQuery, TopOut, (s, q, p) => s.top(q, p)),
  statsTool("stats_top_trend", "top/trend", "Top values of a dimension per period", TopTrendQuery, TopTrendOut, (s, q, p) => s.trend(q, p)),
  statsTool("stats_timeseries", "timeseries", "CVEs per period along a date axis", TimeseriesQuery, TimeseriesOut, (s, q, p) =>
    s.timeseries(q, p),
  ),
  statsTool("stats_distribution", "distribution", "Distribution of a metric in buckets", DistributionQuery, DistributionOut, (s, q, p) =>
    s.distribution(q, p),
  ),
  statsTool("stats_delays", "delays", "Delays between two dates of a CVE's life", DelaysQuery, DelaysOut, (s, q, p) => s.delays(q, p)),
];

import { z } from "zod";
import type { ApiKeyContext, OrgScope, ProjectResolver, ProjectScope } from "../platform/auth/context.js";
import { resolveOrg, resolveProject } from "../platform/auth/resolve.js";
import { MCP } from "../platform/messages.js";
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
import { presentRun, presentRunDetail } from "../modules/runs/runs.presenter.js";
import { Run, RunsQuery, WorkflowRunDetailOut } from "../modules/runs/runs.schemas.js";
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
import { presentAdvisory, presentProvider } from "../modules/csaf/csaf.presenter.js";
import { CsafAdvisoryListOut, CsafAdvisoryListQuery, CsafProviderListOut } from "../modules/csaf/csaf.schemas.js";
import type { CsafService } from "../modules/csaf/csaf.service.js";
import { VEX_FORMATS, VexExportQuery } from "../modules/vex/vex.schemas.js";
import type { VexService } from "../modules/vex/vex.service.js";
import { presentWorkflow, presentWorkflowItem } from "../modules/workflows/workflows.presenter.js";
import { Workflow, WorkflowItem, WorkflowParams } from "../modules/workflows/workflows.schemas.js";
import type { WorkflowsService } from "../modules/workflows/workflows.service.js";
import { presentItemPage } from "../modules/stacks/stacks.presenter.js";
import { StackItemListQuery, StackItemPage } from "../modules/stacks/stacks.schemas.js";
import type { StacksService } from "../modules/stacks/stacks.service.js";
import { presentImport } from "../modules/sbom/sbom.presenter.js";
import { SBOM_MEDIA_TYPES, SbomImport } from "../modules/sbom/sbom.schemas.js";
import type { SbomService } from "../modules/sbom/sbom.service.js";
import { Forbidden } from "../platform/errors.js";
import { AUTH } from "../platform/messages.js";

/**
 * What the tools call: the very services (and the project resolver) the REST routes call, so that
 * no query is written twice (STYLE.md 11).
 */
export interface ToolServices {
  projectAccess: ProjectResolver;
  workflows: Pick<WorkflowsService, "get" | "getOrgWorkflow" | "list">;
  runs: Pick<RunsService, "list" | "get">;
  alerts: Pick<AlertsService, "list">;
  cves: Pick<CvesService, "list" | "get">;
  cases: Pick<CasesService, "list" | "get">;
  stats: Pick<StatsService, "totals" | "top" | "trend" | "timeseries" | "distribution" | "delays">;
  // VEX (get_vex).
  vex: Pick<VexService, "export">;
  // CSAF providers (list_csaf_providers, list_csaf_advisories).
  csaf: Pick<CsafService, "list" | "advisories">;
  stacks: Pick<StacksService, "listItems">;
  sbom: Pick<SbomService, "importInto">;
}

/** What a tool's run receives besides its arguments: the caller and the tenancy its declaration resolved. */
export interface ToolCall<J extends true | "optional" | undefined = undefined, G extends "optional" | undefined = undefined> {
  caller: ApiKeyContext;
  /** The `project_id` argument resolved (`project: true`; `"optional"`: when given). */
  project: J extends true ? ProjectScope : J extends "optional" ? ProjectScope | undefined : undefined;
  /** The `org_id` argument resolved when given (`org: "optional"`). */
  org: G extends "optional" ? OrgScope | undefined : undefined;
}

/** A tool: its input and output schemas (JSON Schema in tools/list), its tenancy, and one service call. */
export interface ToolDef<
  I extends z.ZodObject = z.ZodObject,
  O extends z.ZodObject = z.ZodObject,
  J extends true | "optional" | undefined = true | "optional" | undefined,
  G extends "optional" | undefined = "optional" | undefined,
> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  /**
   * The `project_id` argument is resolved against the API key before `run`, by the resolver the
   * routes' `project: true` uses (404 « Projet introuvable »); `"optional"`: when the argument is given.
   */
  project?: J;
  /** The `org_id` argument, when given, is resolved as a route's `org: true` (404 « Organisation introuvable »). */
  org?: G;
  /**
   * A write tool: the scope the API key must hold, as its REST twin's route (« Scope manquant »
   * otherwise, before anything is resolved). A tool without one only reads.
   */
  scope?: string;
  run(args: z.output<I>, call: ToolCall<J, G>, services: ToolServices): Promise<z.input<O>>;
}

/** Identity helper that keeps each tool's types. */
function tool<
  I extends z.ZodObject,
  O extends z.ZodObject,
  J extends true | "optional" | undefined = undefined,
  G extends "optional" | undefined = undefined,
>(def: ToolDef<I, O, J, G>): ToolDef {
  // A copy of the output schema without its OpenAPI id: converted with its id, the root would be a
  // bare {"$ref": "#/definitions/Workflow"}, and MCP wants `"type": "object"` at an output schema's root.
  return { ...def, output: def.output.extend({}) } as unknown as ToolDef;
}

/**
 * Runs a tool for its caller: the tenancy it declares is resolved first — tenancy decided in one
 * place for REST and MCP (ADR 0007) — then its one service call.
 */
export async function runTool(def: ToolDef, args: Record<string, unknown>, caller: ApiKeyContext, services: ToolServices) {
  if (def.scope && !caller.scopes.has(def.scope)) throw new Forbidden(AUTH.missingScope(def.scope));
  const projectId = args.project_id as string | undefined;
  const orgId = args.org_id as string | undefined;
  const project =
    def.project && projectId !== undefined ? await resolveProject(services.projectAccess, caller, projectId, caller.orgId) : undefined;
  const org = def.org && orgId !== undefined ? resolveOrg(caller, orgId) : undefined;
  return def.run(args as never, { caller, project, org } as never, services);
}

const ProjectIn = ProjectParams.pick({ project_id: true });

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
    project: "optional",
    run: async (query, { project }, s) => run(s.stats, query, project),
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

/** The tools of /mcp, reads and one write (import_sbom): each calls the service method and presenter of its REST twin. */
export const TOOLS: ToolDef[] = [
  tool({
    name: "get_workflow",
    title: "Read a workflow with its graph",
    description:
      "A workflow with its graph: {project_id, workflow_id} for a project workflow, {org_id, workflow_id} for an organization workflow (applies to every project). The same record as the session API's GET /projects/{project_id}/workflows/{workflow_id} and GET /organizations/{org_id}/workflows/{workflow_id}.",
    input: GetWorkflowIn,
    output: Workflow,
    project: "optional",
    org: "optional",
    run: async (args, { project, org }, s) =>
      presentWorkflow(
        project ? await s.workflows.get(project, args.workflow_id) : await s.workflows.getOrgWorkflow(org!.id, args.workflow_id),
      ),
  }),
  tool({
    name: "list_workflows",
    title: "List a project's workflows",
    description: "The project's workflows without their graph (as GET /api/v1/…/projects/{project_id}/workflows), in `items`.",
    input: ProjectIn,
    output: items(WorkflowItem),
    project: true,
    run: async (_args, { project }, s) => ({ items: (await s.workflows.list(project)).map(presentWorkflowItem) }),
  }),
  tool({
    name: "list_runs",
    title: "List a workflow's runs",
    description: "A project workflow's runs, newest first (as GET …/workflows/{workflow_id}/runs), in `items`; limit 1 to 200, default 50.",
    input: WorkflowIn.extend(RunsQuery.shape),
    output: items(Run),
    project: true,
    run: async (args, { project }, s) => ({ items: (await s.runs.list(project, args.workflow_id, args.limit)).map(presentRun) }),
  }),
  tool({
    name: "get_run",
    title: "Read one run of a workflow",
    description: "One run of a project workflow with what its nodes did (as GET …/workflows/{workflow_id}/runs/{run_id}).",
    input: WorkflowIn.extend({ run_id: z.uuid() }),
    output: WorkflowRunDetailOut,
    project: true,
    run: async (args, { project }, s) => presentRunDetail(await s.runs.get(project, args.workflow_id, args.run_id)),
  }),
  tool({
    name: "list_alerts",
    title: "List a project's alerts",
    description:
      "The project's alerts with the REST list's filters, sort and paging (as GET …/projects/{project_id}/alerts): items, total, unread_count, page, page_size.",
    input: ProjectIn.extend(AlertListQuery.shape),
    output: AlertListOut,
    project: true,
    run: async ({ project_id: _, ...query }, { project }, s) => presentAlertList(await s.alerts.list(project, query), query),
  }),
  tool({
    name: "search_cves",
    title: "Search CVEs",
    description:
      "Search the CVEs Vigie holds (merged from CVE List, NVD, EPSS, KEV, PoC, advisories) with the filters, sort and paging of GET /api/v1/cves.",
    input: CveListQuery,
    output: CveListOut,
    run: async (query, _call, s) => presentCveList(await s.cves.list(query), query),
  }),
  tool({
    name: "get_cve",
    title: "Read one CVE",
    description: "One CVE with every merged field (as GET /api/v1/cves/{cve_id}); an alias (GHSA-…) resolves to its CVE.",
    input: CveParams,
    output: CveDetailOut,
    run: async (args, _call, s) => {
      const { cve, affected, referencedBy } = await s.cves.get(args.cve_id);
      return presentCveDetail(cve, affected, referencedBy);
    },
  }),
  tool({
    name: "list_cases",
    title: "List a project's cases",
    description: "The project's cases with the REST list's filters, sort and paging (as GET …/projects/{project_id}/cases).",
    input: ProjectIn.extend(CaseListQuery.shape),
    output: CaseListOut,
    project: true,
    run: async ({ project_id: _, ...query }, { project }, s) => presentCaseList(await s.cases.list(project, query), query),
  }),
  tool({
    name: "get_case",
    title: "Read one case with its history",
    description: "The project's case of a CVE with its history, oldest first (as GET …/projects/{project_id}/cases/{cve_id}).",
    input: CaseParams.omit({ org_id: true }),
    output: CaseDetailOut,
    project: true,
    run: async (args, { project }, s) => {
      const c = await s.cases.get(project, args.cve_id);
      return presentCaseDetail(c.row, c.tags, c.history);
    },
  }),
  // VEX: get_vex (kept in one block).
  tool({
    name: "get_vex",
    title: "A project's VEX document",
    description:
      "The project's alerted CVEs and what its cases say of them, as a VEX document (as GET …/projects/{project_id}/vex?format=…): CycloneDX 1.6 (default), CSAF 2.0 csaf_vex or OpenVEX 0.2. CSAF and OpenVEX need at least one alert (409 vex_vide otherwise).",
    input: ProjectIn.extend(VexExportQuery.shape),
    output: z.object({
      format: z.enum(VEX_FORMATS),
      content_type: z.string(),
      file_name: z.string(),
      document: z.record(z.string(), z.unknown()).describe("The VEX document, as the REST route sends it"),
    }),
    project: true,
    run: async ({ format }, { project }, s) => {
      const f = await s.vex.export(project, format);
      return { format, content_type: f.contentType, file_name: f.fileName, document: JSON.parse(f.body) as Record<string, unknown> };
    },
  }),
  tool({
    name: "list_stack_items",
    title: "List a stack's items",
    description:
      "A stack's items, paged, oldest first, filtered by value (q: contains), item_type and the SBOM they came from (as GET …/projects/{project_id}/stacks/{stack_id}/items): items, total, page, page_size.",
    input: ProjectIn.extend({ stack_id: z.uuid() }).extend(StackItemListQuery.shape),
    output: StackItemPage,
    project: true,
    run: async ({ project_id: _, stack_id, ...query }, { project }, s) =>
      presentItemPage(await s.stacks.listItems(project, stack_id, query), query),
  }),
  tool({
    name: "import_sbom",
    title: "Load an SBOM into a stack",
    description:
      "Loads an SBOM document (CycloneDX 1.4–1.6 JSON or XML, SPDX 2.3 JSON, given whole as text in `document`) into a stack, as POST …/stacks/{stack_id}/sbom: the first upload of a document adds its packages as purl and CPE items; a new upload of the same document (same serialNumber or documentNamespace) replaces them and answers the difference (added, removed, versions changed), raises the alerts of what was added or changed and marks (never deletes) the alerts of what went. Needs an API key with the stacks-write scope. An invalid document is refused with each fault and its place; the MCP request is limited to 1 MiB (use the REST route for larger documents, up to 50 MiB).",
    input: ProjectIn.extend({
      stack_id: z.uuid(),
      document: z.string().min(1).describe("The SBOM document's text"),
      media_type: z
        .enum(SBOM_MEDIA_TYPES)
        .optional()
        .describe("The document's media type (default: told by its content, as application/json or application/xml would be)"),
    }),
    output: SbomImport,
    project: true,
    scope: "stacks-write",
    run: async ({ stack_id, document, media_type }, { project }, s) =>
      presentImport(await s.sbom.importInto(project, stack_id, { input: document, mediaType: media_type })),
  }),
  tool({
    name: "list_csaf_providers",
    title: "List the organization's CSAF providers",
    description:
      "The CSAF providers the organization follows (as GET /api/v1/organizations/{org_id}/csaf/providers), in `items`: discovery, keys, sync state, documents kept and refused.",
    input: z.object({ org_id: z.uuid().describe("The API key's organization") }),
    output: CsafProviderListOut,
    org: "optional",
    run: async (_args, { org }, s) => ({ items: (await s.csaf.list(org!)).map(presentProvider) }),
  }),
  tool({
    name: "list_csaf_advisories",
    title: "List the vendors' CSAF advisories",
    description:
      "The vendors' advisories kept from the organization's CSAF providers, newest release first (as GET /api/v1/organizations/{org_id}/csaf/advisories): filter by provider_id, by cve (the vendor advisories of a CVE) or by words (q).",
    input: z.object({ org_id: z.uuid().describe("The API key's organization") }).extend(CsafAdvisoryListQuery.shape),
    output: CsafAdvisoryListOut,
    org: "optional",
    run: async ({ org_id: _, ...query }, { org }, s) => {
      const r = await s.csaf.advisories(org!, query);
      return { items: r.rows.map(presentAdvisory), total: r.total, page: query.page, page_size: query.page_size };
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

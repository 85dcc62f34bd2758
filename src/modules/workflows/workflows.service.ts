import { createHash } from "node:crypto";
import { checkGraph, defaultGraph, shortFormToGraph, type StoredGraph } from "../../engine/graph.js";
import { simulate, type Facts } from "../../engine/evaluate.js";
import { keyAllowsProject, type ApiKeyContext, type SessionContext } from "../../platform/auth/context.js";
import type { NotifiedCache } from "../../platform/db/cache-feed.js";
import type { Database, Db, Executor } from "../../platform/db/client.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { Conflict, NotFound, ValidationFailed } from "../../platform/errors.js";
import { valueError, type PydanticError } from "../../platform/http/pydantic.js";
import type { ProjectRow } from "../projects/projects.repository.js";
import { getProjectForKey, getProjectForMember, PROJECT_NOT_FOUND } from "../projects/projects.service.js";
import { workflowsRepository as repo, type RunRow, type WorkflowListRow, type WorkflowRow } from "./workflows.repository.js";
import type { WorkflowEcriture, WorkflowMiseAJour } from "./workflows.schemas.js";

export const WORKFLOW_NOT_FOUND = "Workflow introuvable";
const CREATE_ROUTE = "POST /api/v1/organizations/{org_id}/projects/{project_id}/workflows";
const CVE_ID = /^CVE-\d{4}-\d{4,}$/;

/** Where the dry run reads what Vigie knows of a CVE; null when it knows nothing. */
export type CveFactsLoader = (ex: Executor, cveId: string) => Promise<Facts | null>;

type Forms = Pick<WorkflowEcriture, "graph" | "trigger" | "actions"> & { create_case?: boolean };

/** A failure of the body as a whole, as a Pydantic model validator reports it. */
function modelError(message: string, input: unknown): ValidationFailed {
  return new ValidationFailed([valueError(["body"], message, input)]);
}

/**
 * The graph a write body describes: its graph form, or its short form turned into a graph;
 * undefined when it carries neither (allowed on update). 422 on a bad graph.
 */
function graphOf(body: Forms): StoredGraph | undefined {
  const short = body.trigger != null || body.actions != null;
  if (body.graph != null && short) throw modelError("fournir soit graph, soit trigger/actions/create_case, pas les deux", body);
  const errors: PydanticError[] = [];
  let graph: StoredGraph | undefined;
  if (body.graph != null) graph = checkGraph(body.graph, ["body", "graph"], errors);
  else if (short) {
    if (body.trigger == null) {
      errors.push(valueError(["body", "trigger"], "trigger est requis avec actions", null));
    } else {
      graph = shortFormToGraph(body.trigger, body.actions ?? [], body.create_case ?? true, ["body"], errors);
    }
  }
  if (errors.length) throw new ValidationFailed(errors);
  return graph;
}

/** Canonical JSON (sorted keys) of a value, for request fingerprints. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The CacheFeed topic of project workflow lists (payload 'workflows:<project id>', migration 0011). */
export const WORKFLOW_LISTS_TOPIC = "workflows";

/** A project's workflow list as cached: shared by every answer, never modified. */
export interface CachedWorkflowList {
  orgId: string;
  rows: readonly WorkflowListRow[];
}

/** Workflows of projects and organizations: the rules of the /api/v1 workflow surface. */
export class WorkflowsService {
  /**
   * `lists`: each project's workflow list, in memory, so the list answers without a round trip. Invalidation
   * rule (CacheFeed, platform/db/cache-feed.ts): every committed change to a project's workflows,
   * or the project's deletion, notifies 'workflows:<project id>' (trigger) and every process drops
   * that list; the writing process drops it itself right after its commit (reads its own writes).
   */
  constructor(
    private readonly database: Database,
    private readonly cveFacts: CveFactsLoader,
    private readonly lists: NotifiedCache<CachedWorkflowList>,
  ) {}

  private get db(): Db {
    return this.database.db;
  }

  /** The default workflow of a new project (called inside the project's creation transaction). */
  async createDefault(tx: Executor, project: ProjectRow): Promise<WorkflowRow> {
    return repo.insert(tx, {
      orgId: project.orgId,
      projectId: project.id,
      name: "Nouvelle correspondance → dossier",
      description: "Ouvre un dossier pour chaque nouvelle CVE qui touche la pile du projet.",
      family: "alerting",
      graph: defaultGraph(),
      isDefault: true,
    });
  }

  /** The project's workflows (the same array for every answer until the list changes). */
  async list(ctx: ApiKeyContext, orgId: string, projectId: string): Promise<readonly WorkflowListRow[]> {
    if (orgId !== ctx.orgId || !keyAllowsProject(ctx, projectId)) throw new NotFound(PROJECT_NOT_FOUND);
    const cached = this.lists.get(projectId);
    if (cached) {
      if (cached.orgId !== orgId) throw new NotFound(PROJECT_NOT_FOUND);
      return cached.rows;
    }
    // Miss: the tenant check and the list are one statement (see the repository).
    const ticket = this.lists.ticket();
    const rows = await repo.listForProject(this.database, orgId, projectId);
    if (!rows) throw new NotFound(PROJECT_NOT_FOUND);
    this.lists.set(projectId, { orgId, rows }, ticket);
    return rows;
  }

  /**
   * Creates a workflow under an idempotency key. Returns created=false for a replay of the same
   * request (the workflow as it is now); 409 when the key was used with another request.
   */
  async create(ctx: ApiKeyContext, orgId: string, projectId: string, idempotencyKey: string, body: WorkflowEcriture): Promise<{ workflow: WorkflowRow; created: boolean }> {
    const project = await getProjectForKey(this.db, ctx, orgId, projectId);
    const graph = graphOf(body);
    if (!graph) throw modelError("fournir graph, ou trigger et actions", body);
    const fingerprint = createHash("sha256").update(`${project.id}\n${canonical(body)}`).digest("hex");
    const key = { orgId, route: CREATE_ROUTE, key: idempotencyKey };
    try {
      const result = await this.db.transaction(async (tx) => {
        if (!(await repo.claimIdempotencyKey(tx, { ...key, fingerprint }))) {
          const existing = await repo.idempotencyKey(tx, orgId, CREATE_ROUTE, idempotencyKey);
          if (existing!.fingerprint !== fingerprint) {
            throw new Conflict("cle_idempotence_reutilisee", "Cette clé d'idempotence a déjà servi pour une autre requête");
          }
          const workflow = existing!.resourceId ? await repo.getInProject(tx, project.id, existing!.resourceId) : undefined;
          if (!workflow) throw new NotFound(WORKFLOW_NOT_FOUND);
          return { workflow, created: false };
        }
        const workflow = await repo.insert(tx, {
          orgId,
          projectId: project.id,
          name: body.name,
          description: body.description ?? null,
          family: body.family ?? "alerting",
          graph,
        });
        await repo.setIdempotencyResource(tx, orgId, CREATE_ROUTE, idempotencyKey, workflow.id);
        return { workflow, created: true };
      });
      if (result.created) this.lists.drop(project.id);
      return result;
    } catch (err) {
      throw this.nameConflict(err, body.name);
    }
  }

  async update(ctx: ApiKeyContext, orgId: string, projectId: string, id: string, body: WorkflowMiseAJour): Promise<WorkflowRow> {
    const project = await getProjectForKey(this.db, ctx, orgId, projectId);
    const graph = graphOf(body);
    const set: Parameters<typeof repo.updateIfVersion>[4] = {};
    if (body.name !== undefined) set.name = body.name;
    if (body.description !== undefined) set.description = body.description;
    if (body.family != null) set.family = body.family;
    if (graph) set.graph = graph;
    try {
      const row = await repo.updateIfVersion(this.db, project.id, id, body.version, set);
      if (row) {
        this.lists.drop(project.id);
        return row;
      }
    } catch (err) {
      throw this.nameConflict(err, body.name ?? "");
    }
    const current = await repo.getInProject(this.db, project.id, id);
    if (!current) throw new NotFound(WORKFLOW_NOT_FOUND);
    throw new Conflict("version_perimee", `La version ${body.version} est périmée : la version courante est ${current.version}`, { current_version: current.version });
  }

  async setEnabled(ctx: ApiKeyContext, orgId: string, projectId: string, id: string, enabled: boolean): Promise<WorkflowRow> {
    const project = await getProjectForKey(this.db, ctx, orgId, projectId);
    const row = await repo.setEnabled(this.db, project.id, id, enabled);
    if (!row) throw new NotFound(WORKFLOW_NOT_FOUND);
    this.lists.drop(project.id);
    return row;
  }

  /** Deletes a workflow, except the project's default one and its last one (409). */
  async delete(ctx: ApiKeyContext, orgId: string, projectId: string, id: string): Promise<void> {
    const project = await getProjectForKey(this.db, ctx, orgId, projectId);
    await this.db.transaction(async (tx) => {
      await repo.lockProject(tx, project.id);
      const row = await repo.getInProject(tx, project.id, id);
      if (!row) throw new NotFound(WORKFLOW_NOT_FOUND);
      if (row.isDefault) throw new Conflict("workflow_par_defaut", "Le workflow par défaut du projet ne peut pas être supprimé");
      if ((await repo.countInProject(tx, project.id)) <= 1) throw new Conflict("dernier_workflow", "Le dernier workflow du projet ne peut pas être supprimé");
      await repo.delete(tx, project.id, id);
    });
    this.lists.drop(project.id);
  }

  async runs(ctx: ApiKeyContext, orgId: string, projectId: string, id: string, limit: number): Promise<RunRow[]> {
    const project = await getProjectForKey(this.db, ctx, orgId, projectId);
    if (!(await repo.getInProject(this.db, project.id, id))) throw new NotFound(WORKFLOW_NOT_FOUND);
    return repo.runs(this.db, id, limit);
  }

  /**
   * Evaluates a workflow against a CVE as if it had just matched (cve.new_match), performing no
   * action, and records the run with status dry_run. An unknown CVE is evaluated with empty fields.
   */
  async dryRun(ctx: ApiKeyContext, orgId: string, projectId: string, id: string, cveIdInput: string) {
    const cveId = cveIdInput.trim().toUpperCase();
    if (!CVE_ID.test(cveId)) {
      const pattern = CVE_ID.source;
      throw new ValidationFailed([{ type: "string_pattern_mismatch", loc: ["body", "cve_id"], msg: `String should match pattern '${pattern}'`, input: cveIdInput, ctx: { pattern } }]);
    }
    const project = await getProjectForKey(this.db, ctx, orgId, projectId);
    const workflow = await repo.getInProject(this.db, project.id, id);
    if (!workflow) throw new NotFound(WORKFLOW_NOT_FOUND);
    const known = await this.cveFacts(this.db, cveId);
    const facts: Facts = { "cve.id": cveId, "project.name": project.name, ...(known ?? {}) };
    const noeuds = simulate(workflow.graph as StoredGraph, "cve.new_match", facts);
    const avertissement = known ? null : `Vigie ne détient aucune donnée sur ${cveId} : les champs de la CVE ont été évalués comme vides.`;
    const now = new Date();
    const run = await repo.insertRun(this.db, {
      workflowId: workflow.id,
      triggerEvent: "cve.new_match",
      cveId,
      status: "dry_run",
      startedAt: now,
      finishedAt: now,
      report: { cve_connue: known !== null, avertissement, noeuds },
    });
    return { run, cve_connue: known !== null, avertissement, noeuds };
  }

  /** A project workflow with its graph, for a member of the project's organization (session API). */
  async getForMember(session: SessionContext, projectId: string, id: string): Promise<WorkflowRow> {
    const project = await getProjectForMember(this.db, session, projectId);
    const row = await repo.getInProject(this.db, project.id, id);
    if (!row) throw new NotFound(WORKFLOW_NOT_FOUND);
    return row;
  }

  /** An organization workflow (applies to every project), for a member of the organization. */
  async getOrgWorkflowForMember(session: SessionContext, orgId: string, id: string): Promise<WorkflowRow> {
    if (!session.roles.has(orgId)) throw new NotFound("Organisation introuvable");
    const row = await repo.getInOrg(this.db, orgId, id);
    if (!row) throw new NotFound(WORKFLOW_NOT_FOUND);
    return row;
  }

  /** Creates a workflow of a project or of a whole organization (operators: `vigie workflow create`). */
  async createAsOperator(input: { orgId: string; projectId: string | null; name: string; description?: string | null; family?: string | null } & Forms): Promise<WorkflowRow> {
    const graph = graphOf(input);
    if (!graph) throw modelError("fournir graph, ou trigger et actions", input);
    try {
      const row = await repo.insert(this.db, {
        orgId: input.orgId,
        projectId: input.projectId,
        name: input.name,
        description: input.description ?? null,
        family: input.family ?? "alerting",
        graph,
      });
      if (input.projectId) this.lists.drop(input.projectId);
      return row;
    } catch (err) {
      throw this.nameConflict(err, input.name);
    }
  }

  /** Maps a name unique violation to 409 nom_deja_utilise; other errors pass through. */
  private nameConflict(err: unknown, name: string): unknown {
    if (isUniqueViolation(err, "workflows_project_name_uq") || isUniqueViolation(err, "workflows_org_name_uq")) {
      return new Conflict("nom_deja_utilise", `Un workflow nommé « ${name} » existe déjà`);
    }
    return err;
  }

  /** Maintenance: forgets idempotency keys past retention. */
  purgeIdempotencyKeys(): Promise<number> {
    return repo.purgeIdempotencyKeys(this.db);
  }
}

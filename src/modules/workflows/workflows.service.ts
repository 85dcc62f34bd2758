import { createHash } from "node:crypto";
import { checkGraph, defaultGraph, shortFormToGraph, type StoredGraph } from "../../engine/graph.js";
import { scrubIssues, type GraphSecrets } from "../../engine/secret-params.js";
import type { ProjectScope } from "../../platform/auth/context.js";
import type { NotifiedCache } from "../../platform/db/cache-feed.js";
import type { Database, Db, Executor } from "../../platform/db/client.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { Conflict, Invalid, invalid, NotFound, type Issue } from "../../platform/errors.js";
import { issueOf, type PydanticError } from "../../platform/pydantic/validate.js";
import { CONFLICT, INVALID, NOT_FOUND } from "../../platform/messages.js";
import { projectsRead } from "../projects/projects.read.js";
import { workflowsRepository as repo, type WorkflowListRow, type WorkflowRow } from "./workflows.repository.js";
import type { WorkflowEcritureIn, WorkflowMiseAJourIn } from "./workflows.schemas.js";

const CREATE_ROUTE = "POST /api/v1/organizations/{org_id}/projects/{project_id}/workflows";

type Forms = Pick<WorkflowEcritureIn, "graph" | "trigger" | "actions"> & { create_case?: boolean };

/** A failure of the body as a whole, as a model validator reports it. */
function modelError(message: string, input: unknown): Invalid {
  return invalid(["body"], message, input);
}

/**
 * The graph a write body describes: its graph form, or its short form turned into a graph;
 * undefined when it carries neither (allowed on update). 422 on a bad graph.
 */
function graphOf(body: Forms): StoredGraph | undefined {
  const short = body.trigger != null || body.actions != null;
  if (body.graph != null && short) throw modelError(INVALID.graphAndShortForm, body);
  const errors: PydanticError[] = [];
  const issues: Issue[] = [];
  let graph: StoredGraph | undefined;
  if (body.graph != null) graph = checkGraph(body.graph, ["body", "graph"], errors);
  else if (short) {
    if (body.trigger == null) {
      issues.push({ loc: ["body", "trigger"], message: INVALID.triggerWithActions, input: null });
    } else {
      graph = shortFormToGraph(body.trigger, body.actions ?? [], body.create_case ?? true, ["body"], errors);
    }
  }
  // The graph is checked with the shared (Pydantic-compatible) validator: its items become domain issues.
  if (errors.length || issues.length) throw new Invalid([...errors.map(issueOf), ...issues]);
  return graph;
}

/** Canonical JSON (sorted keys) of a value, for request fingerprints. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The hourly run limit of a project's default workflow (cve.new_match → create_case). */
export const DEFAULT_WORKFLOW_MAX_RUNS_PER_HOUR = 100_000;

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
    private readonly lists: NotifiedCache<readonly WorkflowListRow[]>,
    private readonly secrets: GraphSecrets,
  ) {}

  /**
   * The graph to store for a write body: masked secrets restored from `current` (the stored
   * graph), checked, then every secret encrypted. A 422 never echoes a restored secret.
   */
  private sealedGraph(body: Forms, current: StoredGraph | null): StoredGraph | undefined {
    const { body: clear, issues, restored, reuse } = this.secrets.unmask(body, current);
    try {
      if (issues.length) throw new Invalid(issues);
      const graph = graphOf(clear);
      return graph && this.secrets.seal(graph, reuse);
    } catch (err) {
      if (err instanceof Invalid) throw new Invalid(scrubIssues(err.issues, restored));
      throw err;
    }
  }

  /** A workflow as every answer shows it: its secrets masked. */
  private shown(row: WorkflowRow): WorkflowRow {
    return { ...row, graph: this.secrets.mask(row.graph as StoredGraph) };
  }

  private get db(): Db {
    return this.database.db;
  }

  /** The default workflow of a new project (called inside the project's creation transaction). */
  async createDefault(tx: Executor, project: ProjectScope): Promise<WorkflowRow> {
    return repo.insert(tx, {
      orgId: project.orgId,
      projectId: project.id,
      name: "Correspondance vérifiée P1/P2 → dossier",
      description:
        "Ouvre un dossier pour chaque nouvelle CVE qui touche la pile du projet avec une version vérifiée, en palier P1 ou P2 (exploitée, exploitation probable ou critique). Les autres alertes, dont les « non vérifiables », attendent dans la boîte de réception.",
      family: "alerting",
      graph: defaultGraph(),
      isDefault: true,
      // It only opens cases: an import raising thousands of alerts must open all of them (the
      // default limit of 500 runs an hour protects the receivers of notifications).
      maxRunsPerHour: DEFAULT_WORKFLOW_MAX_RUNS_PER_HOUR,
    });
  }

  /** The project's workflows (the same array for every answer until the list changes). */
  async list(project: ProjectScope): Promise<readonly WorkflowListRow[]> {
    const cached = this.lists.get(project.id);
    if (cached) return cached;
    const ticket = this.lists.ticket();
    const rows = await repo.listForProject(this.database, project.id);
    this.lists.set(project.id, rows, ticket);
    return rows;
  }

  /**
   * Creates a workflow under an idempotency key. Returns created=false for a replay of the same
   * request (the workflow as it is now); 409 when the key was used with another request.
   */
  async create(
    project: ProjectScope,
    idempotencyKey: string,
    body: WorkflowEcritureIn,
  ): Promise<{ workflow: WorkflowRow; created: boolean }> {
    const { orgId } = project;
    const graph = this.sealedGraph(body, null);
    if (!graph) throw modelError(INVALID.graphOrShortForm, body);
    const fingerprint = createHash("sha256")
      .update(`${project.id}\n${canonical(this.secrets.fingerprintForm(body))}`)
      .digest("hex");
    const key = { orgId, route: CREATE_ROUTE, key: idempotencyKey };
    try {
      const result = await this.db.transaction(async (tx) => {
        if (!(await repo.claimIdempotencyKey(tx, { ...key, fingerprint }))) {
          const existing = await repo.idempotencyKey(tx, orgId, CREATE_ROUTE, idempotencyKey);
          if (existing!.fingerprint !== fingerprint) {
            throw new Conflict(CONFLICT.idempotencyKeyReused.code, CONFLICT.idempotencyKeyReused.message);
          }
          const workflow = existing!.resourceId ? await repo.getInProject(tx, project.id, existing!.resourceId) : undefined;
          if (!workflow) throw new NotFound(NOT_FOUND.workflow);
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
      return { workflow: this.shown(result.workflow), created: result.created };
    } catch (err) {
      throw this.nameConflict(err, body.name);
    }
  }

  async update(project: ProjectScope, id: string, body: WorkflowMiseAJourIn): Promise<WorkflowRow> {
    // A client that read the workflow sends its secrets back masked: they stand for the stored ones.
    const stored = body.graph != null || body.actions != null ? await repo.getInProject(this.db, project.id, id) : undefined;
    const graph = this.sealedGraph(body, (stored?.graph as StoredGraph | undefined) ?? null);
    const set: Parameters<typeof repo.updateIfVersion>[4] = {};
    if (body.name !== undefined) set.name = body.name;
    if (body.description !== undefined) set.description = body.description;
    if (body.family != null) set.family = body.family;
    if (graph) set.graph = graph;
    try {
      const row = await repo.updateIfVersion(this.db, project.id, id, body.version, set);
      if (row) {
        this.lists.drop(project.id);
        return this.shown(row);
      }
    } catch (err) {
      throw this.nameConflict(err, body.name ?? "");
    }
    const current = await repo.getInProject(this.db, project.id, id);
    if (!current) throw new NotFound(NOT_FOUND.workflow);
    const { code, message } = CONFLICT.staleVersion;
    throw new Conflict(code, message(body.version, current.version), { current_version: current.version });
  }

  async setEnabled(project: ProjectScope, id: string, enabled: boolean): Promise<WorkflowRow> {
    const row = await repo.setEnabled(this.db, project.id, id, enabled);
    if (!row) throw new NotFound(NOT_FOUND.workflow);
    this.lists.drop(project.id);
    return this.shown(row);
  }

  /** Deletes a workflow, except the project's default one and its last one (409). */
  async delete(project: ProjectScope, id: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await projectsRead.lock(tx, project.id);
      const row = await repo.getInProject(tx, project.id, id);
      if (!row) throw new NotFound(NOT_FOUND.workflow);
      if (row.isDefault) throw new Conflict(CONFLICT.defaultWorkflow.code, CONFLICT.defaultWorkflow.message);
      if ((await repo.countInProject(tx, project.id)) <= 1) throw new Conflict(CONFLICT.lastWorkflow.code, CONFLICT.lastWorkflow.message);
      await repo.delete(tx, project.id, id);
    });
    this.lists.drop(project.id);
  }

  /**
   * Whose workflow `id` is as the project sees it: the project's own, or its organization's (it
   * runs for every project); 404 otherwise. The runs module lists runs by it.
   */
  async reach(project: ProjectScope, id: string): Promise<"project" | "organization"> {
    if (await repo.getInProject(this.db, project.id, id)) return "project";
    if (await repo.getInOrg(this.db, project.orgId, id)) return "organization";
    throw new NotFound(NOT_FOUND.workflow);
  }

  /** A project workflow with its graph. */
  async get(project: ProjectScope, id: string): Promise<WorkflowRow> {
    const row = await repo.getInProject(this.db, project.id, id);
    if (!row) throw new NotFound(NOT_FOUND.workflow);
    return this.shown(row);
  }

  /** An organization workflow (applies to every project). */
  async getOrgWorkflow(orgId: string, id: string): Promise<WorkflowRow> {
    const row = await repo.getInOrg(this.db, orgId, id);
    if (!row) throw new NotFound(NOT_FOUND.workflow);
    return this.shown(row);
  }

  /** Creates a workflow of a project or of a whole organization (operators: `vigie workflow create`). */
  async createAsOperator(
    input: { orgId: string; projectId: string | null; name: string; description?: string | null; family?: string | null } & Forms,
  ): Promise<WorkflowRow> {
    const graph = this.sealedGraph(input, null);
    if (!graph) throw modelError(INVALID.graphOrShortForm, input);
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
      return this.shown(row);
    } catch (err) {
      throw this.nameConflict(err, input.name);
    }
  }

  /**
   * Sets a workflow's hourly run limit (operators: `vigie workflow limit`); a setting of the
   * database and the CLI, not of the spec's workflow record. 404 outside the organization.
   */
  async setMaxRunsPerHour(orgId: string, id: string, max: number): Promise<{ id: string; name: string; max_runs_per_hour: number }> {
    const row = await repo.setMaxRunsPerHour(this.db, orgId, id, max);
    if (!row) throw new NotFound(NOT_FOUND.workflow);
    return { id: row.id, name: row.name, max_runs_per_hour: row.maxRunsPerHour };
  }

  /** Maps a name unique violation to 409 nom_deja_utilise; other errors pass through. */
  private nameConflict(err: unknown, name: string): unknown {
    if (isUniqueViolation(err, "workflows_project_name_uq") || isUniqueViolation(err, "workflows_org_name_uq")) {
      return new Conflict(CONFLICT.nameTaken.code, CONFLICT.nameTaken.message("Un workflow nommé", name, ""));
    }
    return err;
  }

  /**
   * Maintenance, at start-up: encrypts the secret parameters that workflows written before
   * secrets at rest still hold in clear. Returns how many workflows it sealed.
   */
  async sealStoredSecrets(): Promise<number> {
    let sealed = 0;
    for (const row of await repo.withClearSecrets(this.db)) {
      const graph = this.secrets.sealClear(row.graph as StoredGraph);
      // A concurrent write (version moved) stored a sealed graph already.
      if (await repo.replaceGraphAtVersion(this.db, row.id, row.version, graph)) sealed++;
    }
    return sealed;
  }

  /** Maintenance: forgets idempotency keys past retention. */
  purgeIdempotencyKeys(): Promise<number> {
    return repo.purgeIdempotencyKeys(this.db);
  }
}

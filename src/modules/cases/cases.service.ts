import type { Actor, ProjectScope } from "../../platform/auth/context.js";
import type { VexJustification } from "../../platform/db/schema/index.js";
import type { Db, Executor } from "../../platform/db/client.js";
import { bumpVersions, casesVersion, readVersion, VersionedCache } from "../../platform/db/versions.js";
import { Conflict, Invalid, invalid, NotFound, type Issue } from "../../platform/errors.js";
import { CONFLICT, INVALID, NOT_FOUND } from "../../platform/messages.js";
import { parisDate } from "../../platform/paris.js";
import type { TagRow, tagsRepository } from "../tags/tags.repository.js";
import { checkTagIds, getTag } from "../tags/tags.service.js";
import { caseKeyCount } from "./cases.filters.js";
import { casesRepository as repo, type CasePatch, type CaseRow, type HistoryEntry, type HistoryRow } from "./cases.repository.js";
import {
  MAX_BULK_CASES,
  type CaseBulkIn,
  type CaseExceptionIn,
  type CaseExportQuery,
  type CaseIn,
  type CaseListQuery,
  type CaseStatsOut,
} from "./cases.schemas.js";
import {
  CASE_STATUSES,
  canTransition,
  checkExceptionFrom,
  checkTransition,
  EXCEPTION_STATUSES,
  invalidTransition,
  OPEN_STATUSES,
  REOPENED,
  type CaseStatus,
} from "./cases.states.js";

/** A case with its tags (and, for the detail, its history). */
export interface CaseView {
  row: CaseRow;
  tags: TagRow[];
}

type CaseTags = Pick<typeof tagsRepository, "ofCases" | "attachToCase" | "detachFromCase">;

/** The exception of a row, as history details keep it. */
export function exceptionOf(row: CaseRow): Record<string, unknown> | null {
  if (!row.exception_nature) return null;
  return {
    nature: row.exception_nature,
    measure: row.exception_measure,
    justification: row.exception_justification,
    expires_on: row.exception_expires_on,
    set_at: row.exception_set_at instanceof Date ? row.exception_set_at.toISOString() : row.exception_set_at,
  };
}

/** The register entry of a row, as history details keep it. */
export function riskOf(row: CaseRow): Record<string, unknown> | null {
  return row.risk_id ? { id: row.risk_id, title: row.risk_title, expires_on: row.risk_expires_on } : null;
}

/**
 * What leaving an exception status does: the case's own exception is removed, or the case is
 * uncovered from its register entry. The history row says which, with its content.
 */
function leaveException(row: CaseRow, patch: CasePatch): Pick<HistoryEntry, "event" | "details"> | null {
  if (row.exception_nature) {
    patch.exception = null;
    return { event: "exception_removed", details: { exception: exceptionOf(row) } };
  }
  if (row.risk_id) {
    patch.risk_id = null;
    return { event: "risk_unlinked", details: { risk: riskOf(row) } };
  }
  return null;
}

/**
 * What a status change does to the VEX justification: entering non_concerne takes the one given,
 * leaving it drops the one held (the patch says so); the history details say which.
 */
function vexChange(row: CaseRow, to: CaseStatus, given: VexJustification | null, patch: CasePatch): Record<string, unknown> | null {
  if (to === "non_concerne") {
    patch.vex_justification = given;
    return given ? { justification_vex: given } : null;
  }
  patch.vex_justification = null;
  return row.vex_justification ? { justification_vex: null, previous_justification_vex: row.vex_justification } : null;
}

/**
 * The cases of a project: one per CVE, its status under the transition rules (cases.states.ts),
 * its exception, tags and a history row for every change, written in the change's transaction.
 */
export class CasesService {
  private readonly totals = new VersionedCache<number>(2000);
  constructor(
    private readonly db: Db,
    private readonly tags: CaseTags,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** One case with its tags and its history, oldest first; 404 when the project has none for the CVE. */
  async get(project: ProjectScope, rawCveId: string): Promise<CaseView & { history: HistoryRow[] }> {
    const cveId = rawCveId.toUpperCase();
    const row = await repo.get(this.db, project.id, cveId);
    if (!row) throw new NotFound(NOT_FOUND.case);
    const [tags, history] = await Promise.all([this.tags.ofCases(this.db, [row.id]), repo.history(this.db, row.id)]);
    return { row, tags: tags.get(row.id) ?? [], history };
  }

  /**
   * Creates the case (status `nouveau`, the CVE's severity) or updates it. A status change follows
   * the transitions (409 transition_invalide otherwise); each change writes its history row.
   */
  async put(project: ProjectScope, rawCveId: string, body: CaseIn, actor: Actor): Promise<CaseView & { created: boolean }> {
    const cveId = rawCveId.toUpperCase();
    const { created, row } = await this.db.transaction(async (tx) => this.putIn(tx, project, cveId, body, actor));
    return { row, tags: await this.tagsOf(row), created };
  }

  /**
   * The `create_case` workflow action: opens the case of a CVE (one per project and CVE) and, only
   * when it opened it, applies the action's severity and notes, all in one transaction — a retried
   * action finds the case and changes nothing. True when created.
   */
  async openForWorkflow(
    project: ProjectScope,
    rawCveId: string,
    actor: Actor,
    set: { severity?: CaseIn["severity"]; notes?: string },
  ): Promise<boolean> {
    const cveId = rawCveId.toUpperCase();
    return this.db.transaction(async (tx) => {
      if (!(await this.create(tx, project, cveId, actor))) return false;
      if (set.severity !== undefined || set.notes !== undefined) await this.putIn(tx, project, cveId, set, actor);
      return true;
    });
  }

  /**
   * `openForWorkflow` for several cases in one transaction (the engine's group commit of
   * `create_case`): the cases missing are inserted per project (in project order, each sorted:
   * concurrent batches lock rows in one order), their `created` history rows written per workflow,
   * the projects' case counters bumped once; the severity and notes applied to the cases each item
   * opened. Answers, in the items' order, whether that item opened its case (of two items naming one
   * case, the first). All or nothing: the caller redoes the items one by one if it fails.
   */
  async openManyForWorkflow(
    items: { project: ProjectScope; cveId: string; actor: Actor; set: { severity?: CaseIn["severity"]; notes?: string } }[],
  ): Promise<boolean[]> {
    const keyOf = (projectId: string, cveId: string) => `${projectId}:${cveId.toUpperCase()}`;
    return this.db.transaction(async (tx) => {
      const byProject = new Map<string, { project: ProjectScope; cveIds: Set<string> }>();
      for (const i of items) {
        const g = byProject.get(i.project.id) ?? { project: i.project, cveIds: new Set<string>() };
        g.cveIds.add(i.cveId.toUpperCase());
        byProject.set(i.project.id, g);
      }
      /** Case id by key, for the cases this batch created. */
      const created = new Map<string, string>();
      for (const id of [...byProject.keys()].sort()) {
        const g = byProject.get(id)!;
        const rows = await repo.insertMissing(
          tx,
          g.project.orgId,
          [...g.cveIds].map((cve_id) => ({ project_id: id, cve_id })),
        );
        for (const r of rows) created.set(keyOf(r.project_id, r.cve_id), r.id);
      }
      // The first item naming a created case opened it: its workflow is the history's actor.
      const claimed = new Set<string>();
      const opened = items.map((i) => {
        const key = keyOf(i.project.id, i.cveId);
        if (!created.has(key) || claimed.has(key)) return false;
        claimed.add(key);
        return true;
      });
      const byActor = new Map<string, { actor: Actor; entries: HistoryEntry[] }>();
      for (const [n, i] of items.entries()) {
        if (!opened[n]) continue;
        const k = `${i.actor.type}:${i.actor.id}:${i.actor.label}`;
        const g = byActor.get(k) ?? { actor: i.actor, entries: [] };
        const caseId = created.get(keyOf(i.project.id, i.cveId))!;
        g.entries.push({ caseId, event: "created", from: null, to: "nouveau", comment: null, details: null });
        byActor.set(k, g);
      }
      for (const g of byActor.values()) await repo.addHistory(tx, g.actor, g.entries);
      const bumped = items.filter((_, n) => opened[n]).map((i) => casesVersion(i.project.id));
      if (bumped.length) await bumpVersions(tx, bumped);
      for (const [n, i] of items.entries())
        if (opened[n] && (i.set.severity !== undefined || i.set.notes !== undefined))
          await this.putIn(tx, i.project, i.cveId.toUpperCase(), i.set, i.actor);
      return opened;
    });
  }

  /** PUT's body inside the caller's transaction. */
  private async putIn(tx: Executor, project: ProjectScope, cveId: string, body: CaseIn, actor: Actor) {
    const created = await this.create(tx, project, cveId, actor, body.status ? null : (body.comment ?? null));
    const current = (await repo.get(tx, project.id, cveId, true))!;
    const entries: HistoryEntry[] = [];
    const patch: CasePatch = {};
    const base = { caseId: current.id, from: current.status, to: current.status, comment: body.comment ?? null };
    const target = body.status ?? current.status;
    if (body.justification_vex != null && target !== "non_concerne")
      throw invalid(["body", "justification_vex"], INVALID.justificationNeedsNonConcerne(target), body.justification_vex);
    if (body.status !== undefined && body.status !== current.status) {
      checkTransition(current.status, body.status);
      patch.status = body.status;
      const left = EXCEPTION_STATUSES.includes(current.status) ? leaveException(current, patch) : null;
      const vex = vexChange(current, body.status, body.justification_vex ?? null, patch);
      const details = left || vex ? { ...left?.details, ...vex } : null;
      entries.push({ ...base, to: body.status, event: left?.event ?? "status", details });
    } else if (
      body.justification_vex !== undefined &&
      current.status === "non_concerne" &&
      body.justification_vex !== current.vex_justification
    ) {
      patch.vex_justification = body.justification_vex;
      entries.push({ ...base, event: "vex_justification", details: { from: current.vex_justification, to: body.justification_vex } });
    }
    const to = patch.status ?? current.status;
    // null: follow the CVE again (a change only when it was set by hand); a value: a change unless already set by hand to it.
    const severityChanges =
      body.severity === null ? current.severity_manual : body.severity !== current.severity || !current.severity_manual;
    if (body.severity !== undefined && severityChanges) {
      patch.severity = body.severity;
      patch.severity_manual = body.severity !== null;
      entries.push({
        ...base,
        from: to,
        to,
        event: "severity",
        details: { from: current.severity, to: body.severity, follows_cve: body.severity === null },
      });
    }
    if (body.notes !== undefined && body.notes !== current.notes) {
      patch.notes = body.notes;
      entries.push({ ...base, from: to, to, event: "notes", details: { notes: body.notes } });
    }
    if (!entries.length && body.comment && !created) entries.push({ ...base, event: "comment" });
    if (entries.length) {
      await this.write(tx, project, current.id, patch, actor, entries);
    }
    return { created, row: (await repo.get(tx, project.id, cveId))! };
  }

  /**
   * The case of a CVE in a project, created (status `nouveau`, a `created` history row) when it has
   * none, inside the caller's transaction: the `create_case` workflow action calls this. True when created.
   */
  async create(ex: Executor, project: ProjectScope, rawCveId: string, actor: Actor, comment: string | null = null): Promise<boolean> {
    return (await this.createMany(ex, project, [rawCveId.toUpperCase()], actor, comment)) > 0;
  }

  /**
   * An accepted VEX proposal (the vex module), inside the caller's transaction: the case of the CVE
   * (created when the project has only the alert) becomes non_concerne with the statement's
   * justification, or, already non_concerne, takes it; the history row carries `comment` (which
   * cites the source) and `source` in its details. 409 transition_invalide from a status that
   * cannot become non_concerne (corrige, attenue, risque_accepte).
   */
  async acceptVex(
    tx: Executor,
    project: ProjectScope,
    rawCveId: string,
    justification: VexJustification | null,
    actor: Actor,
    comment: string,
    source: Record<string, unknown>,
  ): Promise<void> {
    const cveId = rawCveId.toUpperCase();
    await this.createMany(tx, project, [cveId], actor, null);
    const current = (await repo.get(tx, project.id, cveId, true))!;
    const base = { caseId: current.id, from: current.status, to: "non_concerne" as const, comment };
    if (current.status === "non_concerne") {
      const details = { from: current.vex_justification, to: justification, vex: source };
      await this.write(tx, project, current.id, { vex_justification: justification }, actor, [
        { ...base, event: "vex_justification", details },
      ]);
      return;
    }
    checkTransition(current.status, "non_concerne");
    const patch: CasePatch = { status: "non_concerne", vex_justification: justification };
    await this.write(tx, project, current.id, patch, actor, [
      { ...base, event: "status", details: { justification_vex: justification, vex: source } },
    ]);
  }

  /**
   * Sets the case's own exception (MITIGATED → attenue, ACCEPTED_RISK → risque_accepte), replacing
   * the one in force or the register entry covering it; 422 for a past expiry (Paris) or a
   * MITIGATED without its measure; 409 from corrige or non_concerne.
   */
  async setException(project: ProjectScope, rawCveId: string, body: CaseExceptionIn, actor: Actor): Promise<CaseView> {
    const cveId = rawCveId.toUpperCase();
    const issues: Issue[] = [];
    const today = parisDate(this.now());
    if (body.expires_on < today) issues.push({ loc: ["body", "expires_on"], message: INVALID.pastExpiry(today), input: body.expires_on });
    if (body.nature === "MITIGATED" && !body.measure)
      issues.push({ loc: ["body", "measure"], message: INVALID.measureRequired, input: body.measure ?? null });
    if (issues.length) throw new Invalid(issues);
    const row = await this.db.transaction(async (tx) => {
      const current = await repo.get(tx, project.id, cveId, true);
      if (!current) throw new NotFound(NOT_FOUND.case);
      const to: CaseStatus = body.nature === "MITIGATED" ? "attenue" : "risque_accepte";
      checkExceptionFrom(current.status, to);
      const exception = {
        nature: body.nature,
        measure: body.measure ?? null,
        justification: body.justification,
        expires_on: body.expires_on,
      };
      const patch: CasePatch = { status: to, exception, risk_id: null };
      const details = { exception, previous: exceptionOf(current) ?? (current.risk_id ? { risk: riskOf(current) } : null) };
      const event = current.exception_nature ? "exception_changed" : "exception_set";
      await this.write(tx, project, current.id, patch, actor, [
        { caseId: current.id, event, from: current.status, to, comment: body.comment ?? null, details },
      ]);
      return (await repo.get(tx, project.id, cveId))!;
    });
    return { row, tags: await this.tagsOf(row) };
  }

  /** Removes the case's own exception: the case reopens (en_analyse). 404 when it has none (a register entry is withdrawn from the register). */
  async removeException(project: ProjectScope, rawCveId: string, comment: string | null, actor: Actor): Promise<CaseView> {
    const cveId = rawCveId.toUpperCase();
    const row = await this.db.transaction(async (tx) => {
      const current = await repo.get(tx, project.id, cveId, true);
      if (!current) throw new NotFound(NOT_FOUND.case);
      if (!current.exception_nature) throw new NotFound(NOT_FOUND.exception);
      const patch: CasePatch = { status: REOPENED, exception: null };
      const details = { exception: exceptionOf(current) };
      await this.write(tx, project, current.id, patch, actor, [
        { caseId: current.id, event: "exception_removed", from: current.status, to: REOPENED, comment, details },
      ]);
      return (await repo.get(tx, project.id, cveId))!;
    });
    return { row, tags: await this.tagsOf(row) };
  }

  /** Attaches or detaches a project tag (a history row when it changes something). */
  async tag(project: ProjectScope, rawCveId: string, tagId: string, attach: boolean, actor: Actor): Promise<void> {
    const cveId = rawCveId.toUpperCase();
    const current = await repo.get(this.db, project.id, cveId);
    if (!current) throw new NotFound(NOT_FOUND.case);
    const tag = await getTag(this.db, project.id, tagId);
    await this.db.transaction(async (tx) => {
      const changed = attach ? await this.tags.attachToCase(tx, current.id, tagId) : await this.tags.detachFromCase(tx, current.id, tagId);
      if (!changed) return;
      await this.write(tx, project, current.id, {}, actor, [
        {
          caseId: current.id,
          event: attach ? "tag_added" : "tag_removed",
          from: current.status,
          to: current.status,
          details: { tag: { id: tag.id, name: tag.name } },
        },
      ]);
    });
  }

  /**
   * One page of the list with its tags and total. The total is cached per (project, filters) while
   * the project's cases version holds: every transaction that changes a case of the project (or
   * renames or deletes one of its tags) bumps it, so counting 50,000 cases is done once per change.
   */
  async list(project: ProjectScope, q: CaseListQuery): Promise<{ rows: CaseRow[]; tags: Map<string, TagRow[]>; total: number }> {
    const { sort: _s, page: _p, page_size: _ps, ...filters } = q;
    const key = `${project.id} ${JSON.stringify(filters)}`;
    // The version is read before counting: a count newer than its version is only recounted once more.
    const [rows, version] = await Promise.all([repo.page(this.db, project.id, q), readVersion(this.db, casesVersion(project.id))]);
    const total = await this.totals.through(key, version, () => repo.count(this.db, project.id, filters));
    const tags = await this.tags.ofCases(
      this.db,
      rows.map((r) => r.id),
    );
    return { rows, tags, total };
  }

  /**
   * The filtered list in its sort order, a chunk of `chunk` cases (with their tag names) at a time:
   * each chunk is one query resuming after the previous one's last sort keys, so memory stays flat
   * whatever the number of cases. Not one snapshot: a case changed during the export may show in
   * its old or new place.
   */
  async *export(project: ProjectScope, q: CaseExportQuery, chunk = 1000): AsyncGenerator<(CaseRow & { tag_names: string })[]> {
    const { format: _f, ...filters } = q;
    let last: string[] | null = null;
    for (;;) {
      const rows = await repo.exportChunk(this.db, project.id, filters, last, chunk);
      if (rows.length) yield rows;
      if (rows.length < chunk) return;
      const end = rows.at(-1)!;
      last = Array.from({ length: caseKeyCount(q.sort) }, (_, i) => end[`k${i}`] as string);
    }
  }

  /**
   * Changes the status, severity or tags of many cases (these CVE ids, or the list's filters), all
   * or nothing, in one transaction of set-based statements: a history row per case and change.
   * 422 for unknown CVE ids, tags of another project or a filter over 50,000 cases; 409
   * transition_invalide (with the first 100 refused CVE ids) when a selected case cannot take the
   * status. Cases already as asked are left alone (no history row).
   */
  async bulk(project: ProjectScope, body: CaseBulkIn, actor: Actor): Promise<{ matched: number; created: number; updated: number }> {
    if ((body.cve_ids !== undefined) === (body.filter !== undefined)) throw invalid(["body"], INVALID.idsOrFilter, body);
    if (body.create_missing && !body.cve_ids) throw invalid(["body", "create_missing"], INVALID.createNeedsIds, body.create_missing);
    const set = body.set;
    if (
      set.status === undefined &&
      set.severity === undefined &&
      set.justification_vex === undefined &&
      !set.add_tags?.length &&
      !set.remove_tags?.length
    )
      throw invalid(["body", "set"], INVALID.nothingToSet, set);
    if (set.justification_vex != null && set.status !== undefined && set.status !== "non_concerne")
      throw invalid(["body", "set", "justification_vex"], INVALID.justificationNeedsNonConcerne(set.status), set.justification_vex);
    const cveIds = body.cve_ids ? [...new Set(body.cve_ids.map((id) => id.toUpperCase()))] : null;
    const comment = body.comment ?? null;
    return this.db.transaction(async (tx) => {
      if (set.add_tags?.length) await checkTagIds(tx, project.id, set.add_tags, ["body", "set", "add_tags"]);
      if (set.remove_tags?.length) await checkTagIds(tx, project.id, set.remove_tags, ["body", "set", "remove_tags"]);
      const created = body.create_missing && cveIds ? await this.createMany(tx, project, cveIds, actor, comment) : 0;
      const rows = cveIds
        ? await repo.lockForBulk(tx, project.id, { cveIds }, cveIds.length)
        : await repo.lockForBulk(tx, project.id, { filter: body.filter! }, MAX_BULK_CASES + 1);
      if (cveIds) {
        const found = new Set(rows.map((r) => r.cve_id));
        const missing = cveIds.filter((id) => !found.has(id));
        if (missing.length) throw invalid(["body", "cve_ids"], INVALID.unknownCases(missing), missing);
      } else if (rows.length > MAX_BULK_CASES) {
        throw invalid(["body", "filter"], INVALID.tooManyCases(MAX_BULK_CASES), body.filter);
      }
      if (set.status !== undefined) {
        const to = set.status;
        const refused = rows.filter((r) => !canTransition(r.status, to)).sort((a, b) => (a.cve_id < b.cve_id ? -1 : 1));
        if (refused.length) {
          const from = refused[0]!.status;
          const first = invalidTransition(from, to);
          throw new Conflict(first.code, CONFLICT.bulkTransition(refused.length, first.message), {
            from,
            to,
            cve_ids: refused.slice(0, 100).map((r) => r.cve_id),
          });
        }
      }
      if (set.justification_vex != null && set.status === undefined) {
        const others = rows.filter((r) => r.status !== "non_concerne").sort((a, b) => (a.cve_id < b.cve_id ? -1 : 1));
        if (others.length)
          throw invalid(
            ["body", "set", "justification_vex"],
            INVALID.justificationNeedsNonConcerneBulk(others.slice(0, 100).map((r) => r.cve_id)),
            set.justification_vex,
          );
      }
      const ids = rows.map((r) => r.id);
      const changed = new Set<string>();
      const add = (caseIds: string[]) => {
        for (const id of caseIds) changed.add(id);
      };
      if (ids.length) {
        if (set.status !== undefined) add(await repo.bulkStatus(tx, ids, set.status, actor, comment, set.justification_vex ?? null));
        // Cases already non_concerne take (or lose) the justification too.
        if (set.justification_vex !== undefined && (set.status === undefined || set.status === "non_concerne"))
          add(await repo.bulkJustification(tx, ids, set.justification_vex, actor, comment));
        if (set.severity !== undefined) add(await repo.bulkSeverity(tx, ids, set.severity, actor, comment));
        if (set.add_tags?.length) add(await repo.bulkTags(tx, ids, set.add_tags, true, actor, comment));
        if (set.remove_tags?.length) add(await repo.bulkTags(tx, ids, set.remove_tags, false, actor, comment));
      }
      if (changed.size) await bumpVersions(tx, [casesVersion(project.id)]);
      return { matched: rows.length, created, updated: changed.size };
    });
  }

  /** Creates the cases of these CVEs the project does not have (one statement, a `created` history row each); how many. */
  private async createMany(tx: Executor, project: ProjectScope, cveIds: string[], actor: Actor, comment: string | null): Promise<number> {
    const created = await repo.insertMissing(
      tx,
      project.orgId,
      cveIds.map((cve_id) => ({ project_id: project.id, cve_id })),
    );
    await repo.addHistory(
      tx,
      actor,
      created.map((c) => ({ caseId: c.id, event: "created", from: null, to: "nouveau", comment, details: null })),
    );
    if (created.length) await bumpVersions(tx, [casesVersion(project.id)]);
    return created.length;
  }

  /** CaseStatsOut, in one query: counts by status and severity, exceptions, register, expiring soon (Paris). */
  async stats(project: ProjectScope): Promise<CaseStatsOut> {
    const rows = await repo.stats(this.db, project.id, parisDate(this.now()));
    const byStatus = Object.fromEntries(CASE_STATUSES.map((s) => [s, 0])) as Record<CaseStatus, number>;
    const bySeverity: Record<string, number> = {};
    const out = { total: 0, with_exception: 0, covered_by_register: 0, expiring_soon: 0 };
    for (const r of rows) {
      byStatus[r.status] += r.n;
      bySeverity[r.severity] = (bySeverity[r.severity] ?? 0) + r.n;
      out.total += r.n;
      out.with_exception += r.own;
      out.covered_by_register += r.covered;
      out.expiring_soon += r.soon;
    }
    const open = OPEN_STATUSES.reduce((n, s) => n + byStatus[s], 0);
    return {
      total: out.total,
      by_status: byStatus,
      by_severity: bySeverity,
      open,
      closed: out.total - open,
      with_exception: out.with_exception,
      covered_by_register: out.covered_by_register,
      expiring_soon: out.expiring_soon,
    };
  }

  /** One change: the row, its history rows and the project's cases version, in the caller's transaction. */
  private async write(
    tx: Executor,
    project: ProjectScope,
    caseId: string,
    patch: CasePatch,
    actor: Actor,
    entries: HistoryEntry[],
  ): Promise<void> {
    await repo.update(tx, caseId, patch);
    await repo.addHistory(tx, actor, entries);
    await bumpVersions(tx, [casesVersion(project.id)]);
  }

  private async tagsOf(row: CaseRow): Promise<TagRow[]> {
    return (await this.tags.ofCases(this.db, [row.id])).get(row.id) ?? [];
  }
}

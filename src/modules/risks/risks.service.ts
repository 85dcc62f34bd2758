import type { Actor, OrgScope } from "../../platform/auth/context.js";
import type { Db, Executor } from "../../platform/db/client.js";
import { bumpVersions, casesVersion } from "../../platform/db/versions.js";
import { Conflict, Forbidden, Invalid, NotFound, type Issue } from "../../platform/errors.js";
import { AUTH, CONFLICT, INVALID, NOT_FOUND } from "../../platform/messages.js";
import { parisDate } from "../../platform/paris.js";
import type { CaseRow, casesRepository, HistoryEntry } from "../cases/cases.repository.js";
import { exceptionOf, riskOf } from "../cases/cases.service.js";
import { checkExceptionFrom, REOPENED } from "../cases/cases.states.js";
import type { projectsRepository } from "../projects/projects.repository.js";
import type { TagRow, tagsRepository } from "../tags/tags.repository.js";
import { risksRepository as repo, type RiskCaseRow, type RiskRow, type Visible } from "./risks.repository.js";
import type { RiskCaseRef, RiskIn, RiskListQuery, RiskUpdateIn } from "./risks.schemas.js";

type Cases = Pick<typeof casesRepository, "addHistory" | "get" | "insertMissing">;
type Projects = Pick<typeof projectsRepository, "list">;
type Tags = Pick<typeof tagsRepository, "ofCases">;

const visibleOf = (org: OrgScope): Visible => (org.projectIds === null ? null : [...org.projectIds]);

/** The entry as history details keep it. */
const riskRef = (r: RiskRow) => ({ id: r.id, title: r.title, expires_on: r.expires_on });

/**
 * The organization's risk register: accepted risks, each covering cases across its projects. A
 * covered case is `risque_accepte`, names its entry and has no exception of its own (one exception
 * in force per case). Every change of a case writes its history row and bumps its project's cases
 * version, in the transaction of the change.
 */
export class RisksService {
  constructor(
    private readonly db: Db,
    private readonly cases: Cases,
    private readonly projects: Projects,
    private readonly tags: Tags,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async list(org: OrgScope, q: RiskListQuery): Promise<{ rows: RiskRow[]; total: number }> {
    return repo.list(this.db, org.id, visibleOf(org), this.today(), q);
  }

  /** One entry with the covered cases the caller may see; 404 for an entry of another organization. */
  async get(org: OrgScope, riskId: string): Promise<{ risk: RiskRow; cases: RiskCaseRow[] }> {
    const risk = await this.find(this.db, org, riskId);
    return { risk, cases: await repo.casesOf(this.db, riskId, visibleOf(org)) };
  }

  /** Creates an entry, covering `body.cases` at once (all or nothing: nothing is written when one is refused). */
  async create(org: OrgScope, body: RiskIn, actor: Actor): Promise<{ risk: RiskRow; cases: RiskCaseRow[] }> {
    this.checkExpiry(body.expires_on);
    const id = await this.db.transaction(async (tx) => {
      const id = await repo.insert(tx, org.id, {
        title: body.title,
        owner: body.owner,
        justification: body.justification,
        review_on: body.review_on ?? null,
        expires_on: body.expires_on,
      });
      if (body.cases?.length) {
        const risk = (await repo.get(tx, org.id, id, null, this.today(), true))!;
        await this.coverIn(tx, org, risk, body.cases, body.comment ?? null, actor);
      }
      return id;
    });
    return this.get(org, id);
  }

  /** Changes an entry; an expired one is refused (409 risque_expire): it cannot be brought back to life. */
  async update(org: OrgScope, riskId: string, body: RiskUpdateIn): Promise<{ risk: RiskRow; cases: RiskCaseRow[] }> {
    if (body.expires_on !== undefined) this.checkExpiry(body.expires_on);
    await this.db.transaction(async (tx) => {
      const risk = await this.find(tx, org, riskId, true);
      this.checkActive(risk);
      const projects = await this.checkReach(tx, org, riskId);
      if (Object.values(body).every((v) => v === undefined)) return;
      await repo.update(tx, riskId, body);
      // The case lists show the entry's title and expiry, and may filter on them: their cached totals go.
      await bumpVersions(tx, projects.map(casesVersion));
    });
    return this.get(org, riskId);
  }

  /** Withdraws an entry: its cases reopen (en_analyse), each with a risk_unlinked history row. */
  async delete(org: OrgScope, riskId: string, comment: string | null, actor: Actor): Promise<void> {
    await this.db.transaction(async (tx) => {
      const risk = await this.find(tx, org, riskId, true);
      await this.checkReach(tx, org, riskId);
      await this.uncoverIn(tx, await repo.lockCovered(tx, riskId), risk, comment, actor);
      await repo.delete(tx, riskId);
    });
  }

  /** Covers cases by an entry (all or nothing); the entry with its visible cases. */
  async cover(
    org: OrgScope,
    riskId: string,
    refs: RiskCaseRef[],
    comment: string | null,
    actor: Actor,
  ): Promise<{ risk: RiskRow; cases: RiskCaseRow[] }> {
    await this.db.transaction(async (tx) => {
      const risk = await this.find(tx, org, riskId, true);
      await this.coverIn(tx, org, risk, refs, comment, actor);
    });
    return this.get(org, riskId);
  }

  /** Uncovers one case: it reopens (en_analyse). 404 unless the entry covers that case and the caller may see it. */
  async uncover(
    org: OrgScope,
    riskId: string,
    projectId: string,
    rawCveId: string,
    comment: string | null,
    actor: Actor,
  ): Promise<{ row: CaseRow; tags: TagRow[] }> {
    const one = { projectId: projectId.toLowerCase(), cveId: rawCveId.toUpperCase() };
    if (org.projectIds !== null && !org.projectIds.has(one.projectId)) throw new NotFound(NOT_FOUND.case);
    const row = await this.db.transaction(async (tx) => {
      const risk = await this.find(tx, org, riskId, true);
      const covered = await repo.lockCovered(tx, riskId, one);
      if (!covered.length) throw new NotFound(NOT_FOUND.case);
      await this.uncoverIn(tx, covered, risk, comment, actor);
      return (await this.cases.get(tx, one.projectId, one.cveId))!;
    });
    return { row, tags: (await this.tags.ofCases(this.db, [row.id])).get(row.id) ?? [] };
  }

  /**
   * The batch of a cover, in a few statements whatever its size: projects checked (the
   * organization's, within the key's restriction: 422 at the case's project_id), missing cases
   * created, the cases locked and checked (409 transition_invalide from corrige or non_concerne),
   * then covered, with their history rows in one insert.
   */
  private async coverIn(tx: Executor, org: OrgScope, risk: RiskRow, raw: RiskCaseRef[], comment: string | null, actor: Actor) {
    this.checkActive(risk);
    const refs = raw.map((r) => ({ project_id: r.project_id.toLowerCase(), cve_id: r.cve_id.toUpperCase() }));
    const wanted = [...new Set(refs.map((r) => r.project_id))].filter((p) => org.projectIds === null || org.projectIds.has(p));
    const owned = new Set((await this.projects.list(tx, org.id, wanted)).map((p) => p.id));
    const issues: Issue[] = refs.flatMap((r, i) =>
      owned.has(r.project_id)
        ? []
        : [{ loc: ["body", "cases", i, "project_id"], message: INVALID.foreignProjects([raw[i]!.project_id]), input: raw[i]!.project_id }],
    );
    if (issues.length) throw new Invalid(issues);
    const created = await this.cases.insertMissing(tx, org.id, refs);
    const rows = await repo.lockBatch(tx, refs);
    const changed = rows.filter((c) => c.risk_id !== risk.id);
    for (const c of changed) checkExceptionFrom(c.status, "risque_accepte");
    await repo.cover(
      tx,
      risk.id,
      changed.map((c) => c.id),
    );
    const entries: HistoryEntry[] = [
      ...created.map((c): HistoryEntry => ({ caseId: c.id, event: "created", from: null, to: "nouveau", comment, details: null })),
      ...changed.map(
        (c): HistoryEntry => ({
          caseId: c.id,
          event: "risk_linked",
          from: c.status,
          to: "risque_accepte",
          comment,
          details: { risk: riskRef(risk), previous: exceptionOf(c) ?? (c.risk_id ? { risk: riskOf(c) } : null) },
        }),
      ),
    ];
    await this.cases.addHistory(tx, actor, entries);
    await bumpVersions(tx, [...new Set(changed.map((c) => c.project_id))].map(casesVersion));
  }

  /** Reopens covered cases with their risk_unlinked history rows. */
  private async uncoverIn(tx: Executor, covered: CaseRow[], risk: RiskRow, comment: string | null, actor: Actor) {
    await repo.uncover(
      tx,
      covered.map((c) => c.id),
      REOPENED,
    );
    await this.cases.addHistory(
      tx,
      actor,
      covered.map((c) => ({
        caseId: c.id,
        event: "risk_unlinked",
        from: c.status,
        to: REOPENED,
        comment,
        details: { risk: riskRef(risk) },
      })),
    );
    await bumpVersions(tx, [...new Set(covered.map((c) => c.project_id))].map(casesVersion));
  }

  private async find(ex: Executor, org: OrgScope, riskId: string, forUpdate = false): Promise<RiskRow> {
    const risk = await repo.get(ex, org.id, riskId, visibleOf(org), this.today(), forUpdate);
    if (!risk) throw new NotFound(NOT_FOUND.risk);
    return risk;
  }

  /**
   * A key restricted to some projects changes an entry only when every case it covers is within
   * them: the entry's expiry is that of every case it covers. Returns the covered projects.
   */
  private async checkReach(ex: Executor, org: OrgScope, riskId: string): Promise<string[]> {
    const projects = await repo.coveredProjects(ex, riskId);
    if (org.projectIds !== null && projects.some((p) => !org.projectIds!.has(p))) throw new Forbidden(AUTH.riskBeyondRestriction);
    return projects;
  }

  private checkExpiry(expiresOn: string): void {
    const today = this.today();
    if (expiresOn < today) throw new Invalid([{ loc: ["body", "expires_on"], message: INVALID.pastExpiry(today), input: expiresOn }]);
  }

  private checkActive(risk: RiskRow): void {
    if (risk.status === "expiree") throw new Conflict(CONFLICT.riskExpired.code, CONFLICT.riskExpired.message(risk.expires_on));
  }

  private today(): string {
    return parisDate(this.now());
  }
}

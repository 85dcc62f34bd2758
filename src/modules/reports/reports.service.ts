import { stringify } from "csv-stringify/sync";
import { randomUUID } from "node:crypto";
import type { Actor, OrgScope, ProjectScope } from "../../platform/auth/context.js";
import type { Db, Executor } from "../../platform/db/client.js";
import type { ReportType } from "../../platform/db/schema/index.js";
import { alertsVersion, casesVersion } from "../../platform/db/versions.js";
import { Conflict, Forbidden, invalid, NotFound } from "../../platform/errors.js";
import { AUTH, CONFLICT, INVALID, NOT_FOUND } from "../../platform/messages.js";
import { addDays, parisDate } from "../../platform/paris.js";
import { neutralise } from "../cases/cases.export.js";
import { projectsRead } from "../projects/projects.read.js";
import { canonicalJson, instant, sha256Hex } from "./reports.canonical.js";
import { asOf, buildContent, tableOf, type Content, type Language } from "./reports.content.js";
import { reportsData } from "./reports.data.js";
import { pdfRenderer } from "./reports.renderer.js";
import { reportsRepository as repo, type NewVersion, type ReportRow, type ReportScope } from "./reports.repository.js";
import {
  TABLE_TYPES,
  type ReportFormat,
  type ReportIn,
  type ReportListQuery,
  type ReportSettingsIn,
  type SyncState,
} from "./reports.schemas.js";

/** The largest period of a project report, in days. */
const MAX_PERIOD_DAYS = 366;
/** The default period of a project report: the last 30 days, today included. */
const DEFAULT_PERIOD_DAYS = 30;
/** Reports the sync job compares per round of queries (it reads them all, a page at a time). */
const SYNC_BATCH = 500;

/** A report as the API shows it: the row and its presented synchronisation state. */
interface ReportView {
  row: ReportRow;
  state: SyncState;
}

/** A report's content computed now: what it stands on, its canonical bytes, fingerprint and parsed form. */
interface Computed {
  sources: Record<string, string | number>;
  contenu: string;
  empreinte: string;
  canonical: Content;
}

const JOB: Actor = { type: "job", id: null, label: "reports-sync" };

const TITLES: Record<ReportType, Record<Language, string>> = {
  rapport_projet: { fr: "Rapport de vulnérabilités", en: "Vulnerability report" },
  conformite_kev: { fr: "Conformité KEV (CISA)", en: "KEV compliance (CISA)" },
  exceptions: { fr: "Exceptions et registre des risques", en: "Exceptions and risk register" },
  inventaire: { fr: "Inventaire", en: "Inventory" },
};

/** Whose reports: a project (the project routes), or the organization itself (its own reports). */
export type ReportOwner = ProjectScope | OrgScope;

/**
 * Where an owner's reports live. The organization's own reports cover every project: a key
 * restricted to some projects may neither read nor write them (403), as it may not see the others' data.
 */
function scopeOf(owner: ReportOwner): ReportScope {
  if ("orgId" in owner) return { orgId: owner.orgId, projectId: owner.id };
  if (owner.projectIds !== null) throw new Forbidden(AUTH.orgReportRestricted);
  return { orgId: owner.id, projectId: null };
}

function titleOf(type: ReportType, language: Language, project: string, period: { from: string; to: string } | null): string {
  const base = `${TITLES[type][language]} — ${project}`;
  if (!period) return base;
  return language === "fr" ? `${base} — du ${period.from} au ${period.to}` : `${base} — ${period.from} to ${period.to}`;
}

/**
 * What a report's content stands on: the data versions of the sets it reads (alerts and cases of
 * its project, the CVE corpus), the Paris day when its figures depend on it, and for the inventory
 * a fingerprint of the stacks (they have no data version). A report whose stored sources differ is
 * `perimee`: the sync job regenerates it.
 */
async function sourcesOf(ex: Executor, reports: ReportRow[], today: string): Promise<Map<string, Record<string, string | number>>> {
  const orgs = await projectsRead.idsByOrg(
    ex,
    reports.filter((r) => r.project_id === null).map((r) => r.org_id),
  );
  const projectsOf = (r: ReportRow) => (r.project_id === null ? orgs.get(r.org_id)! : [r.project_id]);
  const names = reports.flatMap((r) => projectsOf(r).flatMap((p) => [alertsVersion(p), casesVersion(p)]));
  const versions = await repo.dataVersions(ex, [...names, "cves"]);
  const out = new Map<string, Record<string, string | number>>();
  for (const r of reports) {
    const s: Record<string, string | number> = { cves: versions.get("cves") ?? 0 };
    for (const p of projectsOf(r)) {
      s[alertsVersion(p)] = versions.get(alertsVersion(p)) ?? 0;
      s[casesVersion(p)] = versions.get(casesVersion(p)) ?? 0;
    }
    // The inventory's stacks have no data version: a fingerprint of them (and of the projects' names).
    if (r.report_type === "inventaire") s.piles = await reportsData.stackSignature(ex, projectsOf(r));
    s.jour = r.report_type === "rapport_projet" ? asOf(periodOf(r), today) : today;
    out.set(r.id, s);
  }
  return out;
}

function periodOf(r: ReportRow): { from: string; to: string } | null {
  return r.period_from && r.period_to ? { from: r.period_from, to: r.period_to } : null;
}

const same = (a: Record<string, unknown>, b: Record<string, unknown>) => canonicalJson(a) === canonicalJson(b);

/**
 * Evidence reports: generated now (POST), by the monthly schedule or by a workflow; each
 * generation whose fingerprint differs from the current one adds a version (content, PDF, CSV and
 * their hashes stored). Until frozen, a report follows its data (sync job); frozen, it never
 * changes again. Found again by a file's hash or a fingerprint within the organization.
 */
export class ReportsService {
  constructor(
    private readonly db: Db,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * Generates a report now (version 1) and returns it. The content is computed and the files
   * rendered before the transaction that stores them: rendering (CPU, ~0.3–0.8 s for the largest
   * report) never holds a connection — with PGlite, the only one.
   */
  async create(owner: ReportOwner, body: ReportIn, actor: Actor, deliveryId?: string): Promise<ReportView> {
    const scope = scopeOf(owner);
    const now = this.clock();
    const period = this.periodFor(body, parisDate(now));
    if (deliveryId) {
      const existing = await repo.byDelivery(this.db, deliveryId);
      if (existing) return this.view(this.db, existing, now);
    }
    const name =
      scope.projectId === null
        ? await reportsData.orgName(this.db, scope.orgId)
        : (await reportsData.projects(this.db, scope.orgId, scope.projectId))[0]!.name;
    const row: ReportRow = {
      id: randomUUID(),
      org_id: scope.orgId,
      project_id: scope.projectId,
      report_type: body.report_type,
      titre: titleOf(body.report_type, body.language, name, period),
      language: body.language,
      period_from: period?.from ?? null,
      period_to: period?.to ?? null,
      current_version: 0,
      synchro_figee: false,
      synchro_etat: "en_cours",
      synchro_erreur: null,
      sources: {},
      genere_le: null,
      derniere_synchro_le: null,
      fige_le: null,
      created_at: now,
      empreinte: "",
    };
    const computed = await this.compute(this.db, row, now);
    const files = await this.filesOf(row, computed, now);
    return this.db.transaction(async (tx) => {
      const inserted = await repo.insert(tx, {
        id: row.id,
        orgId: scope.orgId,
        projectId: scope.projectId,
        type: row.report_type,
        titre: row.titre,
        language: row.language,
        from: row.period_from,
        to: row.period_to,
        deliveryId,
      });
      // The same workflow delivery, generated meanwhile by a retry: its report.
      if (!inserted) return this.view(tx, (await repo.byDelivery(tx, deliveryId!))!, now);
      await repo.addHistory(tx, row.id, "created", null, actor);
      await this.store(tx, row, computed, files, now, actor);
      return this.view(tx, (await repo.get(tx, scope, row.id))!, now);
    });
  }

  private periodFor(body: Pick<ReportIn, "report_type" | "from" | "to">, today: string): { from: string; to: string } | null {
    if (body.report_type !== "rapport_projet") {
      if (body.from !== undefined || body.to !== undefined)
        throw invalid(["body", body.from !== undefined ? "from" : "to"], INVALID.reportPeriodUnused, body.from ?? body.to);
      return null;
    }
    const to = body.to ?? today;
    const from = body.from ?? addDays(to, -(DEFAULT_PERIOD_DAYS - 1));
    if (from > to) throw invalid(["body", "from"], INVALID.reportPeriodOrder, from);
    if (from < addDays(to, -(MAX_PERIOD_DAYS - 1))) throw invalid(["body", "from"], INVALID.reportPeriodLength(MAX_PERIOD_DAYS), from);
    return { from, to };
  }

  /**
   * The content of `row` now, its canonical bytes and fingerprint, and the sources it stands on —
   * read before the content: a change committed meanwhile leaves the report `perimee` for the next
   * run, never a_jour on stale figures.
   */
  private async compute(ex: Executor, row: ReportRow, now: Date): Promise<Computed> {
    const today = parisDate(now);
    const sources = (await sourcesOf(ex, [row], today)).get(row.id)!;
    const content = await buildContent(ex, {
      reportId: row.id,
      type: row.report_type,
      titre: row.titre,
      language: row.language,
      orgId: row.org_id,
      ...(await this.projectsOf(ex, row)),
      period: periodOf(row),
      today,
    });
    const contenu = canonicalJson(content);
    // Files are rendered from the canonical bytes (parsed back): each is a function of what was fingerprinted.
    return { sources, contenu, empreinte: sha256Hex(contenu), canonical: JSON.parse(contenu) as Content };
  }

  /** The next version's files (PDF, CSV for a table), or null when the fingerprint did not change. */
  private async filesOf(row: ReportRow, c: Computed, now: Date): Promise<NewVersion | null> {
    if (c.empreinte === row.empreinte) return null;
    const version = row.current_version + 1;
    const genereLe = instant(now)!;
    const pdf = await pdfRenderer.render(c.canonical, {
      type: row.report_type,
      language: row.language,
      empreinte: c.empreinte,
      genereLe,
      version,
    });
    const table = tableOf(row.report_type, c.canonical);
    // The first line names the report version (a comment line: csv-parse `comment: "#"`), so two
    // reports with the same rows still have different files.
    const csv = table
      ? `# rapport_id=${row.id}; version=${version}; empreinte=${c.empreinte}; genere_le=${genereLe}\n${stringify([table.columns, ...table.rows.map((r) => r.map(csvCell))])}`
      : null;
    return {
      version,
      empreinte: c.empreinte,
      genereLe: new Date(genereLe),
      contenu: c.contenu,
      pdf,
      pdfSha256: sha256Hex(pdf),
      csv,
      csvSha256: csv === null ? null : sha256Hex(csv),
    };
  }

  /** Stores a generation: a new version with its files, or (fingerprint unchanged) only the sync time and sources. */
  private async store(tx: Executor, row: ReportRow, c: Computed, files: NewVersion | null, now: Date, actor: Actor): Promise<boolean> {
    if (!files) {
      await repo.synced(tx, row.id, { version: row.current_version, genereLe: null, at: now, sources: c.sources });
      return false;
    }
    await repo.insertVersion(tx, row.id, files);
    await repo.synced(tx, row.id, { version: files.version, genereLe: files.genereLe, at: now, sources: c.sources });
    await repo.addHistory(tx, row.id, "version", files.version, actor, files.empreinte);
    return true;
  }

  /** The report's project (null for an organization report) and the projects it covers. */
  private async projectsOf(ex: Executor, row: ReportRow) {
    const projects = await reportsData.projects(ex, row.org_id, row.project_id);
    return { project: row.project_id === null ? null : projects[0]!, projects };
  }

  private async view(ex: Executor, row: ReportRow, now: Date): Promise<ReportView> {
    return (await this.views(ex, [row], now))[0]!;
  }

  private async views(ex: Executor, rows: ReportRow[], now: Date): Promise<ReportView[]> {
    const live = rows.filter((r) => !r.synchro_figee && r.synchro_etat === "a_jour");
    const sources = await sourcesOf(ex, live, parisDate(now));
    return rows.map((row) => {
      if (row.synchro_figee) return { row, state: "figee" };
      if (row.synchro_etat !== "a_jour") return { row, state: row.synchro_etat as SyncState };
      return { row, state: same(row.sources, sources.get(row.id)!) ? "a_jour" : "perimee" };
    });
  }

  async list(owner: ReportOwner, q: ReportListQuery): Promise<{ items: ReportView[]; total: number }> {
    const r = await repo.list(this.db, scopeOf(owner), q.report_type, q.page_size, (q.page - 1) * q.page_size);
    return { items: await this.views(this.db, r.rows, this.clock()), total: r.total };
  }

  private async require(ex: Executor, scope: ReportScope, id: string, lock = false): Promise<ReportRow> {
    const row = await repo.get(ex, scope, id, lock);
    if (!row) throw new NotFound(NOT_FOUND.report);
    return row;
  }

  async get(owner: ReportOwner, id: string) {
    const row = await this.require(this.db, scopeOf(owner), id);
    const view = await this.view(this.db, row, this.clock());
    return { ...view, versions: await repo.versions(this.db, id), history: await repo.history(this.db, id) };
  }

  /** One stored file of a version (default: the current one). CSV exists for the reports that are a table only (409). */
  async download(owner: ReportOwner, id: string, format: ReportFormat, version?: number) {
    const row = await this.require(this.db, scopeOf(owner), id);
    if (format === "csv" && !(TABLE_TYPES as readonly string[]).includes(row.report_type))
      throw new Conflict(CONFLICT.noCsv.code, CONFLICT.noCsv.message(row.report_type));
    const n = version ?? row.current_version;
    const file = await repo.file(this.db, id, n, format);
    if (!file) throw new NotFound(NOT_FOUND.reportVersion(n));
    return { ...file, version: n, row };
  }

  /** Freezes the report: its current version is final; the freeze is recorded with its actor (a second call changes nothing). */
  async freeze(owner: ReportOwner, id: string, actor: Actor): Promise<ReportView> {
    const scope = scopeOf(owner);
    const now = this.clock();
    return this.db.transaction(async (tx) => {
      const row = await this.require(tx, scope, id, true);
      if (await repo.freeze(tx, id, now)) await repo.addHistory(tx, id, "frozen", row.current_version, actor);
      return this.view(tx, (await repo.get(tx, scope, id))!, now);
    });
  }

  /** Deletes a report and its versions; a frozen report is evidence and cannot be deleted (409 rapport_fige). */
  async delete(owner: ReportOwner, id: string): Promise<void> {
    const scope = scopeOf(owner);
    await this.db.transaction(async (tx) => {
      const row = await this.require(tx, scope, id, true);
      if (row.synchro_figee) throw new Conflict(CONFLICT.reportFrozen.code, CONFLICT.reportFrozen.message);
      await repo.delete(tx, id);
    });
  }

  /**
   * Finds the report version a file or a fingerprint belongs to, within the organization and the
   * key's projects: the file's SHA-256 against every stored file hash (the JSON file's hash is the
   * fingerprint itself), or the fingerprint against the fingerprints.
   */
  async find(org: OrgScope, what: { file: Uint8Array } | { empreinte: string }) {
    const byFile = "file" in what;
    const hash = byFile ? sha256Hex(what.file) : what.empreinte.toLowerCase();
    const found = await repo.find(this.db, org.id, org.projectIds, hash, byFile);
    if (!found) throw new NotFound(NOT_FOUND.evidence);
    return { ...(await this.view(this.db, found, this.clock())), found };
  }

  /**
   * The sync job: every report that is not frozen and whose sources moved (or whose last attempt
   * failed or was cut short) is regenerated, each in its own transaction with its row locked and
   * its frozen flag read again under the lock. A version is added only when the fingerprint changes.
   */
  async sync(now: Date = this.clock()): Promise<{ checked: number; regenerated: number; versions: number; errors: number }> {
    let checked = 0;
    let regenerated = 0;
    let versions = 0;
    let errors = 0;
    // A page of reports at a time (keyset on id): their sources are compared in one round of queries.
    for (let after: string | null = null; ; ) {
      const rows = await repo.unfrozen(this.db, after, SYNC_BATCH);
      if (!rows.length) break;
      after = rows.at(-1)!.id;
      checked += rows.length;
      const r = await this.syncPage(rows, now);
      regenerated += r.regenerated;
      versions += r.versions;
      errors += r.errors;
    }
    return { checked, regenerated, versions, errors };
  }

  private async syncPage(rows: ReportRow[], now: Date): Promise<{ regenerated: number; versions: number; errors: number }> {
    const sources = await sourcesOf(this.db, rows, parisDate(now));
    let regenerated = 0;
    let versions = 0;
    let errors = 0;
    for (const r of rows) {
      if (r.synchro_etat === "a_jour" && same(r.sources, sources.get(r.id)!)) continue;
      await repo.setState(this.db, r.id, "en_cours");
      try {
        const computed = await this.compute(this.db, r, now);
        const files = await this.filesOf(r, computed, now);
        // Stored under the row's lock, its frozen flag read again; a version stored meanwhile by
        // another process leaves this one to the next run.
        const added = await this.db.transaction(async (tx) => {
          const row = await repo.get(tx, { orgId: r.org_id, projectId: r.project_id }, r.id, true);
          if (!row || row.synchro_figee || row.current_version !== r.current_version) return false;
          return this.store(tx, row, computed, files, now, JOB);
        });
        regenerated++;
        if (added) versions++;
      } catch (err) {
        errors++;
        const reason = err instanceof Error ? err.message : String(err);
        await repo.setState(this.db, r.id, "erreur", reason.slice(0, 500));
        await repo.addHistory(this.db, r.id, "error", null, JOB, reason.slice(0, 500));
      }
    }
    return { regenerated, versions, errors };
  }

  /**
   * The scheduled job: on or after each project's `day_of_month` (Paris day), the previous
   * calendar month's report, once per month (claimed in the generating transaction's stead by
   * marking the setting first: a second run finds nothing).
   */
  async runSchedule(now: Date = this.clock()): Promise<{ generated: number; period_from: string }> {
    const today = parisDate(now);
    const monthStart = `${today.slice(0, 8)}01`;
    const to = addDays(monthStart, -1);
    const from = `${to.slice(0, 8)}01`;
    const due = await repo.claimScheduled(this.db, Number(today.slice(8, 10)), from);
    const actor: Actor = { type: "job", id: null, label: "reports-schedule" };
    for (const s of due) {
      await this.create(
        { id: s.project_id, orgId: s.org_id },
        { report_type: s.report_type, language: s.language, ...(s.report_type === "rapport_projet" && { from, to }) },
        actor,
      );
    }
    return { generated: due.length, period_from: from };
  }

  async settings(project: ProjectScope) {
    return repo.settings(this.db, project.id);
  }

  async updateSettings(project: ProjectScope, body: ReportSettingsIn) {
    await repo.saveSettings(this.db, project, body);
    return repo.settings(this.db, project.id);
  }

  /**
   * The workflow action `generate_report`: a report of the run's project, generated once per
   * delivery id (a retried run returns the report it already made).
   */
  async generateForWorkflow(
    project: ProjectScope,
    params: { report_type: ReportType; language: Language; days: number },
    actor: Actor,
    deliveryId: string,
  ): Promise<ReportView> {
    const today = parisDate(this.clock());
    const period = params.report_type === "rapport_projet" ? { from: addDays(today, -(params.days - 1)), to: today } : {};
    return this.create(project, { report_type: params.report_type, language: params.language, ...period }, actor, deliveryId);
  }
}

function csvCell(v: string | number | boolean | null): string {
  if (v === null) return "";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") return String(v);
  return neutralise(v);
}

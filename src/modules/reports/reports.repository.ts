import { sql, type SQL } from "drizzle-orm";
import type { Actor } from "../../platform/auth/context.js";
import type { Executor } from "../../platform/db/client.js";
import type { ReportType } from "../../platform/db/schema/index.js";
import { pgArray, rowsOf } from "../../platform/db/sql.js";
import type { ReportFormat, ReportSettingsIn, ReportSettingsOut } from "./reports.schemas.js";

/** Where a report lives: a project of the organization, or the organization itself (projectId null). */
export interface ReportScope {
  orgId: string;
  projectId: string | null;
}

export interface ReportRow {
  id: string;
  org_id: string;
  /** null: an organization report. */
  project_id: string | null;
  report_type: ReportType;
  titre: string;
  language: "fr" | "en";
  period_from: string | null;
  period_to: string | null;
  current_version: number;
  synchro_figee: boolean;
  synchro_etat: string;
  synchro_erreur: string | null;
  sources: Record<string, string | number>;
  genere_le: Date | string | null;
  derniere_synchro_le: Date | string | null;
  fige_le: Date | string | null;
  created_at: Date | string;
  /** The current version's fingerprint ('' before the first version). */
  empreinte: string;
}

export interface VersionRow {
  version: number;
  empreinte: string;
  genere_le: Date | string;
  pdf_sha256: string;
  pdf_size: number;
  json_size: number;
  csv_sha256: string | null;
  csv_size: number | null;
}

export interface HistoryRow {
  event: string;
  version: number | null;
  actor_type: string;
  actor_id: string | null;
  actor_label: string | null;
  detail: string | null;
  created_at: Date | string;
}

export interface NewVersion {
  version: number;
  empreinte: string;
  genereLe: Date;
  contenu: string;
  pdf: Buffer;
  pdfSha256: string;
  csv: string | null;
  csvSha256: string | null;
}

export interface FoundRow extends ReportRow {
  found_version: number;
  found_empreinte: string;
  found_genere_le: Date | string;
  format: ReportFormat | null;
}

const COLUMNS = sql`r.id, r.org_id, r.project_id, r.report_type, r.titre, r.language, to_char(r.period_from, 'YYYY-MM-DD') as period_from,
  to_char(r.period_to, 'YYYY-MM-DD') as period_to, r.current_version, r.synchro_figee, r.synchro_etat, r.synchro_erreur, r.sources,
  r.genere_le, r.derniere_synchro_le, r.fige_le, r.created_at,
  coalesce((select v.empreinte from report_versions v where v.report_id = r.id and v.version = r.current_version), '') as empreinte`;

const inScope = (scope: ReportScope): SQL =>
  scope.projectId === null ? sql`r.org_id = ${scope.orgId} and r.project_id is null` : sql`r.project_id = ${scope.projectId}`;

const visible = (projectIds: ReadonlySet<string> | null): SQL =>
  projectIds === null ? sql`true` : sql`r.project_id = any(${pgArray([...projectIds])}::uuid[])`;

export const reportsRepository = {
  async insert(
    ex: Executor,
    r: {
      id: string;
      orgId: string;
      projectId: string | null;
      type: ReportType;
      titre: string;
      language: string;
      from: string | null;
      to: string | null;
      deliveryId?: string;
    },
  ): Promise<boolean> {
    const rows = await rowsOf<{ id: string }>(
      ex,
      sql`insert into reports (id, org_id, project_id, report_type, titre, language, period_from, period_to, delivery_id)
      values (${r.id}, ${r.orgId}, ${r.projectId}, ${r.type}, ${r.titre}, ${r.language}, ${r.from}::date, ${r.to}::date, ${r.deliveryId ?? null})
      on conflict (delivery_id) where delivery_id is not null do nothing returning id`,
    );
    return rows.length > 0;
  },

  async byDelivery(ex: Executor, deliveryId: string): Promise<ReportRow | null> {
    const [r] = await rowsOf<ReportRow>(ex, sql`select ${COLUMNS} from reports r where r.delivery_id = ${deliveryId}`);
    return r ?? null;
  },

  async get(ex: Executor, scope: ReportScope, id: string, lock = false): Promise<ReportRow | null> {
    if (lock) await ex.execute(sql`select 1 from reports r where r.id = ${id} and ${inScope(scope)} for update`);
    const [r] = await rowsOf<ReportRow>(ex, sql`select ${COLUMNS} from reports r where r.id = ${id} and ${inScope(scope)}`);
    return r ?? null;
  },

  async list(ex: Executor, scope: ReportScope, type: ReportType | undefined, limit: number, offset: number) {
    const where = sql`${inScope(scope)} ${type ? sql`and r.report_type = ${type}` : sql``}`;
    const rows = await rowsOf<ReportRow>(
      ex,
      sql`select ${COLUMNS} from reports r where ${where} order by r.created_at desc, r.id desc limit ${limit} offset ${offset}`,
    );
    const [n] = await rowsOf<{ n: number }>(ex, sql`select count(*)::int as n from reports r where ${where}`);
    return { rows, total: n!.n };
  },

  /** The reports that follow the data (not frozen), `limit` at a time by id after `after`. */
  async unfrozen(ex: Executor, after: string | null, limit: number): Promise<ReportRow[]> {
    return rowsOf(
      ex,
      sql`select ${COLUMNS} from reports r where not r.synchro_figee ${after === null ? sql`` : sql`and r.id > ${after}`}
      order by r.id limit ${limit}`,
    );
  },

  async versions(ex: Executor, id: string): Promise<VersionRow[]> {
    return rowsOf(
      ex,
      sql`select version, empreinte, genere_le, pdf_sha256, length(pdf)::int as pdf_size, octet_length(contenu)::int as json_size,
        csv_sha256, octet_length(csv)::int as csv_size
      from report_versions where report_id = ${id} order by version desc`,
    );
  },

  async history(ex: Executor, id: string): Promise<HistoryRow[]> {
    return rowsOf(
      ex,
      sql`select event, version, actor_type, actor_id, actor_label, detail, created_at from report_history where report_id = ${id} order by id`,
    );
  },

  async addHistory(
    ex: Executor,
    id: string,
    event: string,
    version: number | null,
    actor: Actor,
    detail: string | null = null,
  ): Promise<void> {
    await ex.execute(
      sql`insert into report_history (report_id, event, version, actor_type, actor_id, actor_label, detail)
      values (${id}, ${event}, ${version}, ${actor.type}, ${actor.id}, ${actor.label}, ${detail})`,
    );
  },

  /** The stored bytes of one file of a version (null: no such version, or no CSV). */
  async file(ex: Executor, id: string, version: number, format: ReportFormat): Promise<{ bytes: Buffer; empreinte: string } | null> {
    const col = format === "pdf" ? sql`pdf` : format === "csv" ? sql`convert_to(csv, 'UTF8')` : sql`convert_to(contenu, 'UTF8')`;
    const [r] = await rowsOf<{ bytes: Uint8Array | null; empreinte: string }>(
      ex,
      sql`select ${col} as bytes, empreinte from report_versions where report_id = ${id} and version = ${version}`,
    );
    if (!r || r.bytes === null) return null;
    return { bytes: Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength), empreinte: r.empreinte };
  },

  async contentOf(ex: Executor, id: string, version: number): Promise<string | null> {
    const [r] = await rowsOf<{ contenu: string }>(
      ex,
      sql`select contenu from report_versions where report_id = ${id} and version = ${version}`,
    );
    return r?.contenu ?? null;
  },

  async insertVersion(ex: Executor, id: string, v: NewVersion): Promise<void> {
    await ex.execute(
      sql`insert into report_versions (report_id, version, empreinte, genere_le, contenu, pdf, pdf_sha256, csv, csv_sha256)
      values (${id}, ${v.version}, ${v.empreinte}, ${v.genereLe.toISOString()}::timestamptz, ${v.contenu}, ${v.pdf}, ${v.pdfSha256}, ${v.csv}, ${v.csvSha256})`,
    );
  },

  /** After a generation: the current version, when it was checked, the data versions it stands on, a_jour. */
  async synced(
    ex: Executor,
    id: string,
    s: { version: number; genereLe: Date | null; at: Date; sources: Record<string, string | number> },
  ): Promise<void> {
    await ex.execute(
      sql`update reports set current_version = ${s.version}, genere_le = coalesce(${s.genereLe?.toISOString() ?? null}::timestamptz, genere_le),
        derniere_synchro_le = ${s.at.toISOString()}::timestamptz, sources = ${JSON.stringify(s.sources)}::jsonb,
        synchro_etat = 'a_jour', synchro_erreur = null
      where id = ${id} and not synchro_figee`,
    );
  },

  async setState(ex: Executor, id: string, state: "en_cours" | "erreur", error: string | null = null): Promise<void> {
    await ex.execute(sql`update reports set synchro_etat = ${state}, synchro_erreur = ${error} where id = ${id} and not synchro_figee`);
  },

  /** Freezes the report (once): true when this call froze it. */
  async freeze(ex: Executor, id: string, at: Date): Promise<boolean> {
    const rows = await rowsOf<{ id: string }>(
      ex,
      sql`update reports set synchro_figee = true, synchro_etat = 'figee', synchro_erreur = null, fige_le = ${at.toISOString()}::timestamptz
      where id = ${id} and not synchro_figee returning id`,
    );
    return rows.length > 0;
  },

  async delete(ex: Executor, id: string): Promise<void> {
    await ex.execute(sql`delete from reports where id = ${id}`);
  },

  /**
   * The report versions of the organization (within the key's projects) whose fingerprint, PDF
   * hash or CSV hash is `hash` — the latest version first. A fingerprint lookup (`byFile` false)
   * reads the fingerprint column alone.
   */
  async find(ex: Executor, orgId: string, projectIds: ReadonlySet<string> | null, hash: string, byFile: boolean): Promise<FoundRow | null> {
    const match = byFile ? sql`(v.empreinte = ${hash} or v.pdf_sha256 = ${hash} or v.csv_sha256 = ${hash})` : sql`v.empreinte = ${hash}`;
    const [r] = await rowsOf<FoundRow>(
      ex,
      sql`select ${COLUMNS}, v.version as found_version, v.empreinte as found_empreinte, v.genere_le as found_genere_le,
        case when not ${byFile} then null when v.pdf_sha256 = ${hash} then 'pdf' when v.csv_sha256 = ${hash} then 'csv' else 'json' end as format
      from report_versions v join reports r on r.id = v.report_id
      where ${match} and r.org_id = ${orgId} and ${visible(projectIds)}
      order by v.genere_le desc, v.version desc limit 1`,
    );
    return r ?? null;
  },

  /** The data versions (data_versions counters) of these names; a name never bumped is 0. */
  async dataVersions(ex: Executor, names: string[]): Promise<Map<string, number>> {
    if (!names.length) return new Map();
    const rows = await rowsOf<{ name: string; version: number }>(
      ex,
      sql`select name, version::int from data_versions where name = any(${pgArray([...new Set(names)])}::text[])`,
    );
    return new Map(rows.map((r) => [r.name, r.version]));
  },

  async settings(ex: Executor, projectId: string): Promise<ReportSettingsOut> {
    const [r] = await rowsOf<ReportSettingsOut>(
      ex,
      sql`select enabled, report_type, language, day_of_month, to_char(last_period_from, 'YYYY-MM-DD') as last_period_from
      from report_settings where project_id = ${projectId}`,
    );
    return r ?? { enabled: false, report_type: "rapport_projet", language: "fr", day_of_month: 1, last_period_from: null };
  },

  async saveSettings(ex: Executor, project: { id: string; orgId: string }, s: ReportSettingsIn): Promise<void> {
    const cur = await this.settings(ex, project.id);
    const next = { ...cur, ...Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined)) };
    await ex.execute(
      sql`insert into report_settings (project_id, org_id, enabled, report_type, language, day_of_month, updated_at)
      values (${project.id}, ${project.orgId}, ${next.enabled}, ${next.report_type}, ${next.language}, ${next.day_of_month}, now())
      on conflict (project_id) do update set enabled = excluded.enabled, report_type = excluded.report_type,
        language = excluded.language, day_of_month = excluded.day_of_month, updated_at = now()`,
    );
  },

  /**
   * Claims the scheduled reports due on `day` (the Paris day of the month) for the month starting
   * `periodFrom`: each project's setting is marked for that month in the claiming transaction, so a
   * second run (or process) finds nothing.
   */
  async claimScheduled(ex: Executor, day: number, periodFrom: string) {
    return rowsOf<{ project_id: string; org_id: string; report_type: ReportType; language: "fr" | "en" }>(
      ex,
      sql`update report_settings set last_period_from = ${periodFrom}::date
      where enabled and day_of_month <= ${day} and (last_period_from is null or last_period_from < ${periodFrom}::date)
      returning project_id, org_id, report_type, language`,
    );
  },
};

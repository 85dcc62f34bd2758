import type { FoundRow, HistoryRow, ReportRow, VersionRow } from "./reports.repository.js";
import { TABLE_TYPES, type EvidenceFoundOut, type ReportFormat, type ReportOut, type SyncState } from "./reports.schemas.js";

const iso = (d: Date | string) => new Date(d).toISOString();
const isoOrNull = (d: Date | string | null) => (d === null ? null : iso(d));

function formatsOf(type: string): ReportFormat[] {
  return (TABLE_TYPES as readonly string[]).includes(type) ? ["pdf", "json", "csv"] : ["pdf", "json"];
}

/** ReportOut: the PreuveRetrouvee fields of the current version, and the report's facts. */
export function presentReport(row: ReportRow, state: SyncState): ReportOut {
  return {
    id: row.id,
    titre: row.titre,
    report_type: row.report_type,
    empreinte: row.empreinte,
    genere_le: isoOrNull(row.genere_le),
    derniere_synchro_le: isoOrNull(row.derniere_synchro_le),
    synchro_figee: row.synchro_figee,
    synchro_etat: state,
    synchro_erreur: state === "erreur" ? row.synchro_erreur : null,
    project_id: row.project_id,
    language: row.language,
    from: row.period_from,
    to: row.period_to,
    version: row.current_version,
    versions_count: row.current_version,
    formats: formatsOf(row.report_type),
    fige_le: isoOrNull(row.fige_le),
    created_at: iso(row.created_at),
  };
}

/** ReportDetailOut: the record, its versions (newest first) with each file's hash and size, its history. */
export function presentReportDetail(row: ReportRow, state: SyncState, versions: VersionRow[], history: HistoryRow[]) {
  return {
    ...presentReport(row, state),
    versions: versions.map((v) => ({
      version: v.version,
      empreinte: v.empreinte,
      genere_le: iso(v.genere_le),
      files: [
        { format: "pdf" as const, sha256: v.pdf_sha256, size: v.pdf_size },
        { format: "json" as const, sha256: v.empreinte, size: v.json_size },
        ...(v.csv_sha256 === null ? [] : [{ format: "csv" as const, sha256: v.csv_sha256, size: v.csv_size ?? 0 }]),
      ],
    })),
    history: history.map((h) => ({
      event: h.event,
      version: h.version,
      actor: { type: h.actor_type, id: h.actor_id, label: h.actor_label },
      detail: h.detail,
      created_at: iso(h.created_at),
    })),
  };
}

/** EvidenceFoundOut: the matched version's fingerprint and generation time, with the report's current state. */
export function presentFound(found: FoundRow, state: SyncState): EvidenceFoundOut {
  return {
    id: found.id,
    titre: found.titre,
    report_type: found.report_type,
    empreinte: found.found_empreinte,
    genere_le: iso(found.found_genere_le),
    derniere_synchro_le: isoOrNull(found.derniere_synchro_le),
    synchro_figee: found.synchro_figee,
    synchro_etat: state,
    project_id: found.project_id,
    version: found.found_version,
    version_courante: found.found_version === found.current_version,
    current_version: found.current_version,
    current_empreinte: found.empreinte,
    format: found.format,
  };
}

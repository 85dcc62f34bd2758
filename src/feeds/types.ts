/**
 * What each importer's parser produces from one source record: plain, source-independent values
 * that the merge step combines into one CVE record. Parsers are pure functions (record → result),
 * so they are unit-tested on real records; reading files, batching, database writes and
 * provenance are shared by every source (records.ts, batch-writer.ts, cve-merge.ts).
 */
import type { AffectedEntry, Origin } from "../matching/affected.js";

export interface CvssMetric {
  version: "4.0" | "3.1" | "3.0" | "2.0";
  score: number;
  vector: string | null;
  /** Lower-case as given by the source (critical, high, medium, low, none), or null. */
  severity: string | null;
  origin: Origin;
  /** Who provided it: CNA short name, "CISA-ADP", "nvd@nist.gov"… */
  provider: string | null;
}

export interface KevFacts {
  date_added: string; // YYYY-MM-DD
  due_date: string | null;
  ransomware: string | null; // "Known" | "Unknown"
  required_action: string | null;
  name: string | null;
  vendor: string | null;
  product: string | null;
}

/** A CVE as one source describes it. */
export interface CveContribution {
  cve_id: string;
  state: "PUBLISHED" | "REJECTED" | "RESERVED";
  /** The record's own modification date (ISO 8601), used to keep the newest version. */
  modified: string | null;
  published: string | null;
  reserved?: string | null;
  /** English description (or the first one when none is in English). */
  description: string | null;
  cvss: CvssMetric[];
  /** "CWE-79"…, without NVD-CWE-Other / NVD-CWE-noinfo. */
  cwes: string[];
  affected: AffectedEntry[];
  references: string[];
  /** CISA ADP "kev" metric, when the record carries one. */
  kev?: { date_added: string; reference: string | null } | null;
  /** CISA ADP SSVC decision points, when present. */
  ssvc?: { exploitation: string | null; automatable: string | null; technical_impact: string | null } | null;
  assigner?: string | null;
  /** The record's own workarounds and solutions (CNA, then ADP containers), as interim measures. */
  mesures?: RecordMesure[];
}

/**
 * A CVE 5 `workarounds`/`solutions` entry in the shape of MesureProvisoire: `source` is the
 * container's provider (its short name), `reference` the CVE id, `attribution` the notice the CVE
 * Terms of Use ask to reproduce with the record's text.
 */
export interface RecordMesure {
  source: string;
  reference: string;
  categorie: "contournement" | "correctif";
  attribution: string;
  date: string | null;
  url: string;
  texte: string;
  lien_seulement: false;
  produits: string[];
}

/** A record a parser could not use: reported with its location, never aborting the batch. */
export class RecordError extends Error {
  override name = "RecordError";
}

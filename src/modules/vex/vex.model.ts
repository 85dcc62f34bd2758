import { createHash } from "node:crypto";
import { PackageURL } from "packageurl-js";
import type { CaseStatus, ExceptionNature, VexJustification } from "../../platform/db/schema/index.js";
import type { AlertVexFacts } from "../alerts/alerts.read.js";
import type { CaseVexFacts } from "../cases/cases.read.js";

/**
 * The one read model the three VEX serializers write from (vex.cyclonedx.ts, vex.csaf.ts,
 * vex.openvex.ts): each alerted CVE with every product of the project's stacks it is found in (the
 * alert keeps one item; the matcher names them all), what the case says of it, and what Vigie knows
 * of the CVE. Built from set-based reads (alerts, cases, the project's matches) joined here by CVE
 * id. Pure: no clock, no database.
 */

/** A product as the project's stack names it. */
export interface VexProduct {
  /** Stable within the project: derived from the item's type and value (CycloneDX bom-ref, CSAF product_id). */
  key: string;
  name: string;
  version: string | null;
  purl: string | null;
  cpe: string | null;
}

/** What the case says, in the terms every format shares (the mapping to each format's words is in its serializer). */
export type VexAnalysis =
  | { kind: "under_investigation"; reason: "no_case" | "nouveau" | "en_analyse" }
  | { kind: "affected" }
  | { kind: "fixed" }
  | { kind: "not_affected"; justification: VexJustification | null }
  | {
      kind: "exception";
      nature: ExceptionNature;
      measure: string | null;
      justification: string;
      expires_on: string;
      set_at: string | null;
      /** The risk-register entry covering the case (ACCEPTED_RISK from the register), else null. */
      register: string | null;
    };

export interface VexEntry {
  /** The record's id: a CVE id, or an advisory's own (GO-, GHSA-, PYSEC-, RUSTSEC-…) when no advisory names a CVE. */
  cve_id: string;
  /** The record's other ids, sorted, without its own. */
  aliases: string[];
  case_status: CaseStatus | null;
  /** The case's, for every product: a case is one per (project, CVE). */
  analysis: VexAnalysis;
  notes: string | null;
  /** Every stack item of the project the CVE matches, in key order (at least the alert's). */
  products: VexProduct[];
  description: string | null;
  severity: string | null;
  cvss_score: number | null;
  cvss_vector: string | null;
  cvss_version: string | null;
  cwes: number[];
  published: string | null;
  /** When the alert was raised. */
  first_seen: string;
  /** The newest of the alert and the case: when this statement was last true as written. */
  updated: string;
}

export interface VexModel {
  organization: { id: string; name: string };
  project: { id: string; name: string };
  entries: VexEntry[];
  /** The newest entry change (the document's timestamp: the same state writes the same document), or the export time when empty. */
  timestamp: string;
  /** A digest of the project and the entries: the documents' ids derive from it. */
  digest: string;
  /** Vigie's version (tool and generator). */
  tool: string;
  /** Vigie's public address (VIGIE_PUBLIC_URL, no trailing slash), when set: the documents' links. */
  publicUrl: string | null;
}

const iso = (d: Date | string) => new Date(d).toISOString();

function hash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The product an alert names: its stack item (purl or CPE parsed for name and version), else what the alert kept. */
export function productOf(
  a: Pick<AlertVexFacts, "item_type" | "item_value" | "match_type" | "match_value" | "vendor" | "product">,
): VexProduct {
  const type = a.item_type ?? a.match_type ?? (a.match_value ? "product" : "cve-product");
  const value = a.item_value ?? a.match_value ?? [a.vendor, a.product].filter(Boolean).join(" ") ?? "";
  const key = hash(`${type}\u0000${value}`).slice(0, 16);
  if (type === "purl") {
    try {
      const p = PackageURL.fromString(value);
      const name = p.namespace ? `${p.namespace}/${p.name}` : p.name;
      return { key, name, version: p.version ?? null, purl: value, cpe: null };
    } catch {
      return { key, name: value, version: null, purl: null, cpe: null };
    }
  }
  if (type === "cpe" && value.startsWith("cpe:2.3:")) {
    const parts = value.split(":");
    const version = parts[5] && parts[5] !== "*" && parts[5] !== "-" ? parts[5] : null;
    const name = [parts[3], parts[4]].filter((p) => p && p !== "*").join(" ") || value;
    return { key, name, version, purl: null, cpe: value };
  }
  return { key, name: value || "(produit inconnu)", version: null, purl: null, cpe: null };
}

/** What the case says, in shared terms; no case → under investigation. */
export function analysisOf(c: CaseVexFacts | undefined): VexAnalysis {
  if (!c) return { kind: "under_investigation", reason: "no_case" };
  switch (c.status) {
    case "nouveau":
    case "en_analyse":
      return { kind: "under_investigation", reason: c.status };
    case "en_remediation":
      return { kind: "affected" };
    case "corrige":
      return { kind: "fixed" };
    case "non_concerne":
      return { kind: "not_affected", justification: c.vex_justification };
    case "attenue":
    case "risque_accepte": {
      if (c.exception_nature) {
        return {
          kind: "exception",
          nature: c.exception_nature,
          measure: c.exception_measure,
          justification: c.exception_justification ?? "",
          expires_on: c.exception_expires_on ?? "",
          set_at: c.exception_set_at === null ? null : iso(c.exception_set_at),
          register: null,
        };
      }
      if (c.risk_title) {
        return {
          kind: "exception",
          nature: "ACCEPTED_RISK",
          measure: null,
          justification: c.risk_justification ?? "",
          expires_on: c.risk_expires_on ?? "",
          set_at: null,
          register: c.risk_title,
        };
      }
      // An exception status without its exception cannot be written (the check constraints and the
      // services keep them together); read as affected rather than invent one.
      return { kind: "affected" };
    }
  }
}

/** A stack item a CVE matches now (matcher.ts projectMatches). */
export interface VexMatch {
  cve_id: string;
  item_type: string;
  value: string;
}

/** The products of one alert: its own item and every other the CVE matches, one per key, in key order. */
function productsOfAlert(a: AlertVexFacts, matches: VexMatch[]): VexProduct[] {
  const byKey = new Map<string, VexProduct>();
  for (const p of [productOf(a), ...matches.map((m) => productOf({ ...a, item_type: m.item_type, item_value: m.value }))])
    byKey.set(p.key, p);
  return [...byKey.values()].sort((x, y) => (x.key < y.key ? -1 : 1));
}

/** The read model: alerts (in CVE order) joined to their cases and matches; deterministic for a given state. */
export function buildModel(input: {
  organization: { id: string; name: string };
  project: { id: string; name: string };
  alerts: AlertVexFacts[];
  cases: CaseVexFacts[];
  matches?: VexMatch[];
  tool: string;
  publicUrl?: string | null;
  now: Date;
}): VexModel {
  const cases = new Map(input.cases.map((c) => [c.cve_id, c]));
  const matches = new Map<string, VexMatch[]>();
  for (const m of input.matches ?? []) matches.set(m.cve_id, [...(matches.get(m.cve_id) ?? []), m]);
  const entries: VexEntry[] = input.alerts.map((a) => {
    const c = cases.get(a.cve_id);
    const firstSeen = iso(a.triggered_at);
    const updated = c && iso(c.updated_at) > firstSeen ? iso(c.updated_at) : firstSeen;
    return {
      cve_id: a.cve_id,
      aliases: [...new Set(a.aliases ?? [])].filter((x) => x !== a.cve_id).sort(),
      case_status: c?.status ?? null,
      analysis: analysisOf(c),
      notes: c?.notes ?? null,
      products: productsOfAlert(a, matches.get(a.cve_id) ?? []),
      description: a.description,
      severity: a.severity,
      cvss_score: a.cvss_score,
      cvss_vector: a.cvss_vector,
      cvss_version: a.cvss_version,
      cwes: (a.cwe_ids ?? []).map((w) => Number(/^CWE-(\d+)$/i.exec(w)?.[1])).filter((n) => Number.isInteger(n) && n > 0),
      published: a.date_published === null ? null : iso(a.date_published),
      first_seen: firstSeen,
      updated,
    };
  });
  const timestamp = entries.reduce<string | null>((t, e) => (t === null || e.updated > t ? e.updated : t), null) ?? input.now.toISOString();
  const digest = hash(JSON.stringify([input.organization, input.project, entries]));
  const publicUrl = input.publicUrl ? input.publicUrl.replace(/\/+$/, "") : null;
  return { organization: input.organization, project: input.project, entries, timestamp, digest, tool: input.tool, publicUrl };
}

/** A UUID (version 5 layout, from the digest): the CycloneDX serialNumber of a state. */
export function uuidOf(digest: string): string {
  const h = digest.slice(0, 32).split("");
  h[12] = "5";
  h[16] = ((Number.parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  const s = h.join("");
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20, 32)}`;
}

/** The distinct products of the entries, in key order. */
export function productsOf(model: VexModel): VexProduct[] {
  const byKey = new Map<string, VexProduct>();
  for (const e of model.entries) for (const p of e.products) byKey.set(p.key, p);
  return [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : 1));
}

/** The exception as one sentence (the formats with no field for it carry it as text). */
export function exceptionText(a: Extract<VexAnalysis, { kind: "exception" }>): string {
  const what =
    a.nature === "MITIGATED"
      ? `Mesure d'atténuation en place : ${a.measure ?? ""}`
      : a.register
        ? `Risque accepté (registre des risques : « ${a.register} »)`
        : "Risque accepté";
  return `${what}. Justification : ${a.justification}. Valable jusqu'au ${a.expires_on} inclus (heure de Paris).`;
}

/** The justification as a sentence, for the formats that carry only text beside the label. */
export const JUSTIFICATION_TEXT: Record<VexJustification, string> = {
  component_not_present: "Le composant vulnérable n'est pas présent dans le produit.",
  vulnerable_code_not_present: "Le code vulnérable n'est pas présent dans le produit.",
  vulnerable_code_not_in_execute_path: "Le code vulnérable n'est pas dans un chemin d'exécution du produit.",
  vulnerable_code_cannot_be_controlled_by_adversary: "Le code vulnérable ne peut pas être contrôlé par un attaquant.",
  inline_mitigations_already_exist: "Des mesures intégrées au produit empêchent l'exploitation.",
};

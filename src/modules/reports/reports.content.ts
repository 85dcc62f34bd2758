import type { Executor } from "../../platform/db/client.js";
import { CASE_STATUSES, type ReportType } from "../../platform/db/schema/index.js";
import { addDays, parisDate, parisMidnight } from "../../platform/paris.js";
import { PALIERS } from "../../matching/priority.js";
import { instant, round2 } from "./reports.canonical.js";
import { cyclesOfItems } from "../eol/eol.stack.js";
import { reportsData, type DelayStats, type Span } from "./reports.data.js";

/**
 * The canonical content of each report type: plain data (French keys, codes rather than labels),
 * the same for every output format. The JSON download is this content in canonical JSON, the PDF
 * and the CSV are rendered from it alone, and the fingerprint is taken of it (ADR 0015).
 *
 * Lists are capped so that a report stays a document (bench/reports.ts: 50,000 alerts): the
 * project report carries every figure computed over all the data, and lists the TOP_ALERTS most
 * pressing alerts and the first MAX_EXCEPTIONS exceptions (with their totals); the KEV report lists
 * every KEV CVE (at most the catalogue, ~1,500), the exceptions and inventory reports every row.
 */
const CONTENT_FORMAT = "vigie.preuve/1";
export const TOP_ALERTS = 20;
const MAX_EXCEPTIONS = 50;
export const SEVERITY_ORDER = ["critical", "high", "medium", "low", "none", "unknown"] as const;

export type Language = "fr" | "en";

export interface ContentInput {
  reportId: string;
  type: ReportType;
  titre: string;
  language: Language;
  orgId: string;
  /** The project of a project report; null for an organization report. */
  project: { id: string; name: string } | null;
  /** The projects the report covers: the project, or every project of the organization. */
  projects: { id: string; name: string }[];
  /** Paris calendar days, both included (the project report only). */
  period: { from: string; to: string } | null;
  /** The Paris day of the generation. */
  today: string;
}

type Json = string | number | boolean | null | Json[] | { [k: string]: Json };
export type Content = { [k: string]: Json };

/** The span of instants of a period of Paris days. */
function spanOf(period: { from: string; to: string }): Span {
  return { from: parisMidnight(period.from), to: parisMidnight(addDays(period.to, 1)) };
}

/** The day the project report's figures stand at: the period's last day, or today while the period runs. */
export function asOf(period: { from: string; to: string } | null, today: string): string {
  return period && period.to < today ? period.to : today;
}

function counts(keys: readonly string[], found: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of keys) out[k] = found[k] ?? 0;
  for (const [k, v] of Object.entries(found)) if (!(k in out)) out[k] = v;
  return out;
}

function delay(d: DelayStats): Content {
  return { nombre: d.n, moyenne: round2(d.mean), mediane: round2(d.median), p90: round2(d.p90) };
}

/** The project's name on each row of an organization report (absent from a project report's rows). */
function projectOf(input: ContentInput, name: string): Content {
  return input.project === null ? { projet: name } : {};
}

async function projectReport(ex: Executor, input: ContentInput): Promise<Content> {
  const span = spanOf(input.period!);
  const today = asOf(input.period, input.today);
  const p = input.projects.map((x) => x.id);
  const alerts = await reportsData.alertCounts(ex, p, span);
  const top = await reportsData.topAlerts(ex, p, span, TOP_ALERTS);
  const cases = await reportsData.caseCounts(ex, p, span);
  const exceptions = await reportsData.exceptions(ex, p, today, MAX_EXCEPTIONS);
  const delays = await reportsData.delays(ex, p, span);
  return {
    etat_au: today,
    alertes: {
      total: alerts.total,
      kev: alerts.kev,
      poc: alerts.poc,
      par_palier: counts(PALIERS, alerts.by_palier),
      par_severite: counts(SEVERITY_ORDER, alerts.by_severity),
      principales: top.map((a) => ({
        cve_id: a.cve_id,
        palier: a.palier,
        severite: a.severity,
        cvss: round2(a.cvss_score),
        kev: a.is_kev,
        poc: a.has_poc,
        produit: [a.vendor, a.product].filter(Boolean).join(" ") || null,
        declenchee_le: instant(a.triggered_at),
      })),
    },
    cas: {
      total: cases.total,
      par_statut: counts(CASE_STATUSES, cases.by_status),
      ouverts_sur_periode: cases.opened,
      clos_sur_periode: cases.closed,
    },
    exceptions: {
      en_vigueur: exceptions.total,
      expirant_sous_30_jours: exceptions.expiring,
      liste: exceptions.rows.map((e) => exceptionItem(input, e)),
    },
    delais: {
      unite: "jours",
      publication_alerte: delay(delays.publication_alert),
      alerte_cloture: delay(delays.alert_closed),
      publication_cloture: delay(delays.publication_closed),
    },
  };
}

function exceptionItem(input: ContentInput, e: Awaited<ReturnType<typeof reportsData.exceptions>>["rows"][number]): Content {
  return {
    ...projectOf(input, e.project),
    cve_id: e.cve_id,
    statut: e.status,
    severite: e.severity,
    nature: e.nature,
    mesure: e.measure,
    justification: e.justification,
    expire_le: e.expires_on,
    posee_le: instant(e.set_at),
    registre: e.risk_id ? { id: e.risk_id, titre: e.risk_title, responsable: e.risk_owner } : null,
  };
}

/** The verdict of one KEV CVE against CISA's due date (Paris days). */
export type KevVerdict = "dans_les_delais" | "en_retard" | "ouvert_en_retard" | "ouvert" | "sans_echeance";
export const KEV_VERDICTS: readonly KevVerdict[] = ["dans_les_delais", "en_retard", "ouvert_en_retard", "ouvert", "sans_echeance"];

export function kevVerdict(due: string | null, handledOn: string | null, today: string): KevVerdict {
  if (handledOn) return due === null ? "dans_les_delais" : handledOn <= due ? "dans_les_delais" : "en_retard";
  if (due === null) return "sans_echeance";
  return today > due ? "ouvert_en_retard" : "ouvert";
}

async function kevReport(ex: Executor, input: ContentInput): Promise<Content> {
  const rows = await reportsData.kev(
    ex,
    input.projects.map((x) => x.id),
  );
  const items = rows.map((r) => {
    const handledOn = r.handled_at ? parisDate(new Date(r.handled_at)) : null;
    return {
      ...projectOf(input, r.project),
      cve_id: r.cve_id,
      produit: [r.vendor, r.product].filter(Boolean).join(" ") || null,
      kev_ajoute_le: r.date_added,
      echeance: r.due_date,
      statut_cas: r.case_status,
      traite_le: handledOn,
      verdict: kevVerdict(r.due_date, handledOn, input.today),
    };
  });
  const byVerdict: Record<string, number> = {};
  for (const i of items) byVerdict[i.verdict] = (byVerdict[i.verdict] ?? 0) + 1;
  return { synthese: { total: items.length, ...counts(KEV_VERDICTS, byVerdict) }, cves: items };
}

async function exceptionsReport(ex: Executor, input: ContentInput): Promise<Content> {
  const ids = input.projects.map((x) => x.id);
  const exceptions = await reportsData.exceptions(ex, ids, input.today, null);
  const register = await reportsData.register(ex, ids, input.today);
  return {
    synthese: { en_vigueur: exceptions.total, expirant_sous_30_jours: exceptions.expiring, entrees_registre: register.length },
    exceptions: exceptions.rows.map((e) => exceptionItem(input, e)),
    registre: register.map((r) => ({
      id: r.id,
      titre: r.title,
      responsable: r.owner,
      justification: r.justification,
      revue_le: r.review_on,
      expire_le: r.expires_on,
      statut: r.status,
      cas_couverts: r.cases_count,
    })),
  };
}

/** Where a cycle stands on `today` (Paris): endoflife.date's `eol` is a date, or true (ended) / false (not). */
export function eolStatus(eol: string | boolean | null, today: string): "fin_de_vie" | "fin_sous_90_jours" | "supporte" | "inconnu" {
  if (eol === true) return "fin_de_vie";
  if (eol === false) return "supporte";
  if (eol === null) return "inconnu";
  if (eol <= today) return "fin_de_vie";
  return eol <= addDays(today, 90) ? "fin_sous_90_jours" : "supporte";
}

/** Where a certificate stands on `today` (Paris day of its expiry). */
export function certStatus(expires: Date | string | null, today: string): "expire" | "expire_sous_30_jours" | "valide" | null {
  if (expires === null) return null;
  const day = parisDate(new Date(expires));
  if (day < today) return "expire";
  return day <= addDays(today, 30) ? "expire_sous_30_jours" : "valide";
}

async function inventoryReport(ex: Executor, input: ContentInput): Promise<Content> {
  const ids = input.projects.map((x) => x.id);
  const rows = await reportsData.inventory(ex, ids);
  // The endoflife.date cycle each item's version falls in (src/modules/eol/eol.stack.ts).
  const cycles = await cyclesOfItems(
    ex,
    rows.map((r) => ({ id: r.id, itemType: r.item_type, value: r.value })),
  );
  const stacks = new Map<string, { head: Content; elements: Content[] }>();
  let ended = 0;
  for (const r of rows) {
    const key = `${r.project}\u0000${r.stack}`;
    const s = stacks.get(key) ?? { head: { ...projectOf(input, r.project), nom: r.stack }, elements: [] };
    const c = cycles.get(r.id);
    const status = c ? eolStatus(c.eol as string | boolean | null, input.today) : null;
    if (status === "fin_de_vie") ended++;
    s.elements.push({
      type: r.item_type,
      valeur: r.value,
      severite_min: r.min_severity,
      alertes: r.alerts,
      fin_de_vie: c
        ? {
            produit: c.product_id,
            cycle: c.cycle,
            eol: c.eol as string | boolean | null,
            support: c.support as string | boolean | null,
            statut: status,
          }
        : null,
    });
    stacks.set(key, s);
  }
  const urls = await reportsData.urls(ex, ids);
  const certs = urls.map((u) => certStatus(u.cert_expires_at, input.today));
  return {
    synthese: {
      piles: stacks.size,
      elements: rows.length,
      elements_en_fin_de_vie: ended,
      urls: urls.length,
      certificats_expires: certs.filter((c) => c === "expire").length,
      certificats_expirant_sous_30_jours: certs.filter((c) => c === "expire_sous_30_jours").length,
    },
    piles: [...stacks.values()].map((s) => ({ ...s.head, elements: s.elements })),
    urls: urls.map((u, i) => ({
      ...projectOf(input, u.project),
      url: u.url,
      libelle: u.label,
      active: u.is_enabled,
      statut: u.last_status,
      http: u.last_http_status,
      certificat:
        u.cert_expires_at === null && u.cert_issuer === null
          ? null
          : {
              expire_le: instant(u.cert_expires_at),
              emetteur: u.cert_issuer,
              statut: certs[i]!,
            },
    })),
  };
}

const BUILDERS: Record<ReportType, (ex: Executor, input: ContentInput) => Promise<Content>> = {
  rapport_projet: projectReport,
  conformite_kev: kevReport,
  exceptions: exceptionsReport,
  inventaire: inventoryReport,
};

/** The report's content: what it is (id, type, title, language, project, period), then its type's sections. */
export async function buildContent(ex: Executor, input: ContentInput): Promise<Content> {
  return {
    format: CONTENT_FORMAT,
    rapport: { id: input.reportId, type: input.type, titre: input.titre, langue: input.language },
    organisation_id: input.orgId,
    projet: input.project ? { id: input.project.id, nom: input.project.name } : null,
    ...(input.project === null && { projets: input.projects.map((p) => ({ id: p.id, nom: p.name })) }),
    periode: input.period ? { du: input.period.from, au: input.period.to } : null,
    ...(await BUILDERS[input.type](ex, input)),
  };
}

/** A report's table, for the CSV (the reports that are a table), built from the content alone. */
export interface Table {
  columns: string[];
  rows: (string | number | boolean | null)[][];
}

export function tableOf(type: ReportType, content: Content): Table | null {
  const list = <T>(k: string) => content[k] as unknown as T[];
  // An organization report's rows name their project (first column).
  const org = content.projet === null;
  const withProject = (columns: string[]) => (org ? ["projet", ...columns] : columns);
  switch (type) {
    case "conformite_kev": {
      const columns = withProject(["cve_id", "produit", "kev_ajoute_le", "echeance", "statut_cas", "traite_le", "verdict"]);
      return { columns, rows: list<Record<string, Json>>("cves").map((r) => columns.map((c) => r[c] as string | null)) };
    }
    case "exceptions": {
      const own = withProject(["cve_id", "statut", "severite", "nature", "mesure", "justification", "expire_le", "posee_le"]);
      return {
        columns: [...own, "registre_id", "registre_titre"],
        rows: list<Record<string, Json>>("exceptions").map((r) => {
          const reg = r.registre as { id: string; titre: string } | null;
          return [...own.map((c) => r[c] as string | null), reg?.id ?? null, reg?.titre ?? null];
        }),
      };
    }
    case "inventaire": {
      const columns = withProject(["pile", "type", "valeur", "severite_min", "alertes", "eol_produit", "eol_cycle", "eol", "statut_eol"]);
      const rows: Table["rows"] = [];
      for (const s of list<{ projet?: string; nom: string; elements: Record<string, Json>[] }>("piles"))
        for (const e of s.elements) {
          const f = e.fin_de_vie as { produit: string; cycle: string; eol: string | boolean | null; statut: string } | null;
          rows.push([
            ...(org ? [s.projet!] : []),
            s.nom,
            e.type as string,
            e.valeur as string,
            e.severite_min as string | null,
            e.alertes as number,
            f?.produit ?? null,
            f?.cycle ?? null,
            f ? (f.eol === null ? null : String(f.eol)) : null,
            f?.statut ?? null,
          ]);
        }
      return { columns, rows };
    }
    default:
      return null;
  }
}

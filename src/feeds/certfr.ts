/**
 * CERT-FR "avis" (security advisories, references CERTA-YYYY-AVI-NNN and CERTFR-YYYY-AVI-NNNN)
 * as served by `https://www.cert.ssi.gouv.fr/avis/<reference>/json/` → CertfrRecord.
 *
 * Licence: the CERT-FR site states (mentions légales) that, unless explicitly stated otherwise,
 * its content is under the Licence Ouverte / Open Licence 2.0 (Etalab). The data set's MANIFEST
 * notes this was not verified at collection time (the mirror repository has no LICENSE). LO 2.0
 * allows reuse, including commercial, provided the source is credited with the date of its last
 * update: that is what {@link attributionText} writes, and each reproduced text ({@link
 * MesureProvisoire}) carries it.
 *
 * Remediation extraction ("mesures") from the Markdown `content`:
 * - a section titled "Contournement provisoire" (also "Solution provisoire", "Solution
 *   temporaire"…) gives a `contournement` measure with the section's text, unless the section is
 *   empty, only says there is none ("Aucun contournement provisoire n'a été identifié."), or is a
 *   misplaced list of affected versions (seen in the data); when its text speaks only of patches
 *   (155 CERTFR avis of 2014–2015 put the standard "Se référer au bulletin … pour l'obtention
 *   des correctifs" under that heading) it is a `correctif` measure instead;
 * - the "Solution(s)" section gives a `correctif` measure with its text; its paragraphs that
 *   speak of a workaround ("mesures de contournement", "désactiver", "filtrer le port"…) also
 *   give a `contournement` measure (e.g. "Se référer au bulletin de sécurité de l'éditeur pour
 *   l'obtention des correctifs et des mesures de contournement (cf. section Documentation).");
 * - `lien_seulement` is true when the text gives no instruction of its own: every sentence only
 *   points elsewhere ("Se référer au bulletin…", "(cf. section Documentation)", a URL, "consulter…")
 *   or only states that a workaround exists ("Un contournement est possible…").
 * Every avis of 2025–2026 has only the standard "Se référer au bulletin de sécurité de l'éditeur
 * pour l'obtention des correctifs (cf. section Documentation)." (a link-only `correctif`); the
 * dedicated workaround sections are found in 709 older avis (mostly CERTA 2000–2007 and
 * CERTFR 2014–2015).
 */
import { decodeEntities } from "./rss.js";
import { RecordError } from "./types.js";

export interface MesureProvisoire {
  source: "CERT-FR";
  /** The avis reference, e.g. "CERTFR-2025-AVI-0006". */
  reference: string;
  /** "contournement" (workaround) or "correctif" (vendor patch / update). */
  categorie: "contournement" | "correctif";
  /** Credit line to reproduce with the text (Licence Ouverte 2.0). */
  attribution: string;
  /** First publication date of the avis (YYYY-MM-DD), or null. */
  date: string | null;
  /** The avis page. */
  url: string;
  /** Products the avis applies to (see CertfrRecord.produits). */
  produits: string[];
  /** The measure's text, line wraps of the source Markdown joined. */
  texte: string;
  /** True when the text only refers to another document (vendor bulletin, Documentation section). */
  lien_seulement: boolean;
  /** Date (YYYY-MM-DD) of the latest revision when the avis was revised after publication, else null. */
  republication: string | null;
  /** The avis' documentation links (vendor advisories first), which link-only texts refer to. */
  liens: string[];
}

export interface CertfrDocument {
  title: string | null;
  url: string;
  published_at: string | null;
}

export interface CertfrRecord {
  reference: string;
  title: string;
  url: string;
  /** Date of the first revision ("Version initiale"), YYYY-MM-DD. */
  published: string | null;
  /** Date of the latest revision, YYYY-MM-DD. */
  modified: string | null;
  summary: string | null;
  cve_ids: string[];
  /** "Vendor Product" for each affected system (vendor alone when the product is "N/A"), deduplicated. */
  produits: string[];
  /**
   * The affected systems as written ("LibreOffice versions antérieures à 24.8.4"): the
   * `affected_systems[].description`s, or, for the 4,382 avis (mostly before 2018) without
   * structured systems, the items of the HTML `affected_systems_content`.
   */
  systemes_affectes: string[];
  risks: string[];
  mesures: MesureProvisoire[];
  /** Vendor advisories then other links of the avis. */
  documentation: CertfrDocument[];
}

const REF_RE = /^CERT(?:A|FR)-\d{4}-AVI-\d{3,4}$/;
const CVE_RE = /^CVE-\d{4}-\d{4,19}$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | null {
  if (typeof v !== "string") return null;
  const t = v.replace(/\s+/g, " ").trim();
  return t === "" ? null : t;
}

/** Text with inline HTML removed (summaries and titles carry e.g. `<span class="textit">`). */
function plain(v: unknown): string | null {
  if (typeof v !== "string") return null;
  return str(decodeEntities(v.replace(/<\/?[A-Za-z][^>]*>/g, "")));
}

/** The items of an HTML fragment (list items, paragraphs, lines). */
function htmlItems(html: string): string[] {
  const out: string[] = [];
  for (const part of html.split(/<\/(?:li|p|div|tr)\s*>|<br\s*\/?>|<(?:ul|ol)\b[^>]*>/i)) {
    const t = plain(part);
    if (t && !out.includes(t)) out.push(t);
  }
  return out;
}

function objects(v: unknown): Record<string, unknown>[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

export function avisUrl(reference: string): string {
  return `https://www.cert.ssi.gouv.fr/avis/${reference}/`;
}

/** The credit line for text reproduced from an avis (Licence Ouverte 2.0: source + last update). */
export function attributionText(reference: string, modified: string | null): string {
  const update = modified ? `, mis à jour le ${modified}` : "";
  return `Source : CERT-FR (ANSSI), avis ${reference}${update}, ${avisUrl(reference)} — Licence Ouverte 2.0`;
}

/** "2025-01-08T00:00:00.000000" → "2025-01-08". */
function revisionDay(v: unknown): string | null {
  if (typeof v !== "string") return null;
  const m = /^(\d{4}-\d{2}-\d{2})/.exec(v.trim());
  return m ? m[1]! : null;
}

function isNA(s: string | null): boolean {
  return s === null || /^n\/?a$/i.test(s);
}

function productLabel(system: Record<string, unknown>): string | null {
  const product = isObject(system.product) ? system.product : {};
  const vendorObj = isObject(product.vendor) ? product.vendor : {};
  const vendor = str(vendorObj.name);
  const name = str(product.name);
  const v = isNA(vendor) ? null : vendor;
  const p = isNA(name) ? null : name;
  if (v && p) return p.toLowerCase().startsWith(v.toLowerCase()) ? p : `${v} ${p}`;
  return p ?? v;
}

interface Section {
  heading: string;
  body: string;
}

function sections(markdown: string): Section[] {
  const out: Section[] = [];
  let current: Section = { heading: "", body: "" };
  for (const line of markdown.split(/\r?\n/)) {
    const h = /^#{1,6}\s*(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      out.push(current);
      current = { heading: h[1]!, body: "" };
    } else {
      current.body += `${line}\n`;
    }
  }
  out.push(current);
  return out;
}

/** Inline HTML found in some avis (e.g. `<span class="mx_EventTile_body">` pasted from a chat client). */
const HTML_TAG = /<\/?(?:span|div|p|br|em|strong|b|i|u|s|a|sup|sub|font)(?:\s[^>]*)?\/?>/gi;

/** Joins the Markdown hard wraps of each paragraph; list items and code lines keep their line. */
export function normaliseText(markdown: string): string {
  const paragraphs: string[] = [];
  const text = markdown.replace(/\r\n?/g, "\n").replace(HTML_TAG, "");
  for (const para of text.split(/\n[ \t\u00a0]*\n/)) {
    const lines: string[] = [];
    for (const raw of para.split("\n")) {
      const trimmed = raw.replace(/\u00a0/g, " ").trim();
      if (trimmed === "") continue;
      const isBlock = /^([-*+]\s|\d+[.)]\s)/.test(trimmed) || /^( {4}|\t)/.test(raw);
      if (lines.length === 0 || isBlock) lines.push(trimmed);
      else lines[lines.length - 1] += ` ${trimmed}`;
    }
    if (lines.length > 0) paragraphs.push(lines.map((l) => l.replace(/ {2,}/g, " ")).join("\n"));
  }
  return paragraphs.join("\n\n").trim();
}

const WORKAROUND_HEADING = /contournement|solutions?\s+(?:provisoire|temporaire)|mesures?\s+provisoires?/i;
const SOLUTION_HEADING = /^(?:\d+(?:\.\d+)*\.?\s*)?solutions?\s*:?$/i;
const WORKAROUND_WORDS =
  /contournement|solutions?\s+(?:provisoire|temporaire)|palliati|d[ée]sactiv|\bbloquer\b|\bfiltrer\b|\brestreindre\b/i;
const PATCH_WORDS = /correctif|mises? à jour|mettre (?:\S+ ){0,3}à jour|nouvelle version|version corrig|\bpatch/i;
const NO_WORKAROUND = /^(?:aucun|il n['’](?:y a|existe) pas d[e']|pas d[e'])[^.]*(?:contournement|solution)[^.]*\.?$/i;
/** A sentence that starts by pointing elsewhere, possibly after a short conditional clause. */
const POINTER_START = new RegExp(
  "^(?:[-*+]\\s*)?(?:\\(?\\s*)?" +
    "(?:(?:s['’]il|si|lorsque|dans l['’]attente|en attendant|pour)\\b[^,:;]{0,160}[,:]\\s*)?" +
    "(?:se r[ée]f[ée]rer|se reporter|consulter|voir|cf\\b|<?https?:\\/\\/|ftp:\\/\\/)",
  "i",
);
/** A sentence that only says a remedy exists ("Un contournement est possible…"). */
const EXISTENCE = new RegExp(
  "(?:^il existe (?:un|une|des)\\b)|" +
    // "<remedy> [up to 6 words, not 'il'] est/sont/existe … possible/disponible/proposé/décrit…"
    "(?:contournements?|mesures? de contournement|correctifs?)\\s+(?:(?!il\\b)[\\p{L}'’-]+\\s+){0,6}?" +
    "(?:est|sont|existe|existent)\\b(?:\\s+\\p{L}+)?\\s*(?:possibles?|disponibles?|propos|recommand|d[ée]crit|fourni|$|[.,(])|" +
    // "L'éditeur propose des mesures de contournement [pour …|si …|(cf …)]"
    "\\bpropose(?:nt)?\\s+(?:un|une|des)\\s+(?:contournements?|mesures?(?:\\s+de\\s+contournement)?|correctifs?)" +
    "(?:\\s+(?:temporaire|provisoire)s?)?\\s*(?:$|[.(]|(?:si|pour|lorsque|dans)\\b)",
  "iu",
);

/** True when the text gives no instruction of its own (see the module comment). */
export function isLinkOnly(text: string): boolean {
  const sentences = text
    .replace(/\bcf\.\s*/gi, "cf ")
    .split(/(?<=[.;!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => /\p{L}/u.test(s));
  if (sentences.length === 0) return false;
  return sentences.every((s) => POINTER_START.test(s) || EXISTENCE.test(s));
}

function isMisplacedVersionList(text: string): boolean {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  return lines.length > 0 && lines.every((l) => /^[-*+]\s/.test(l.trim()) && /\bversions?\b/i.test(l));
}

interface RawMesure {
  categorie: "contournement" | "correctif";
  texte: string;
}

function extractMesures(content: string): RawMesure[] {
  const out: RawMesure[] = [];
  const workaroundTexts: string[] = [];
  for (const { heading, body } of sections(content)) {
    const text = normaliseText(body);
    if (text === "") continue;
    if (WORKAROUND_HEADING.test(heading)) {
      if (NO_WORKAROUND.test(text) || isMisplacedVersionList(text)) continue;
      // Mislabelled sections (155 CERTFR avis of 2014–2015 hold the standard patch sentence
      // under "Contournement provisoire"): a text about patches only is a correctif.
      if (!WORKAROUND_WORDS.test(text) && PATCH_WORDS.test(text)) {
        out.push({ categorie: "correctif", texte: text });
        continue;
      }
      workaroundTexts.push(text);
    } else if (SOLUTION_HEADING.test(heading.trim())) {
      out.push({ categorie: "correctif", texte: text });
      const paras = text.split("\n\n").filter((p) => WORKAROUND_WORDS.test(p) && !NO_WORKAROUND.test(p));
      if (paras.length > 0) workaroundTexts.push(paras.join("\n\n"));
    }
  }
  for (const t of workaroundTexts) out.push({ categorie: "contournement", texte: t });
  return out.filter((m, k) => out.findIndex((o) => o.categorie === m.categorie && o.texte === m.texte) === k);
}

/** One avis JSON document (already parsed). Throws RecordError when it has no valid reference. */
export function parseCertfrAvis(v: unknown): CertfrRecord {
  if (!isObject(v)) throw new RecordError("CERT-FR avis is not an object");
  const reference = str(v.reference);
  if (reference === null) throw new RecordError("CERT-FR avis without reference");
  if (!REF_RE.test(reference)) throw new RecordError(`unexpected reference ${JSON.stringify(reference)}`);
  const url = avisUrl(reference);

  const days = objects(v.revisions)
    .map((r) => revisionDay(r.revision_date))
    .filter((d): d is string => d !== null)
    .sort();
  // Revisions are usually in chronological order, but not always (CERTFR-2025-AVI-0004).
  const published = days[0] ?? null;
  const modified = days[days.length - 1] ?? null;

  const cve_ids: string[] = [];
  for (const c of objects(v.cves)) {
    const id = str(c.name)?.toUpperCase();
    if (id && CVE_RE.test(id) && !cve_ids.includes(id)) cve_ids.push(id);
  }

  const produits: string[] = [];
  const systemes_affectes: string[] = [];
  for (const s of objects(v.affected_systems)) {
    const label = productLabel(s);
    if (label && !produits.includes(label)) produits.push(label);
    const d = plain(s.description);
    if (d && !systemes_affectes.includes(d)) systemes_affectes.push(d);
  }
  if (systemes_affectes.length === 0 && typeof v.affected_systems_content === "string") {
    systemes_affectes.push(...htmlItems(v.affected_systems_content));
  }

  const risks: string[] = [];
  for (const r of objects(v.risks)) {
    const d = str(r.description);
    if (d && !risks.includes(d)) risks.push(d);
  }

  const documentation: CertfrDocument[] = [];
  for (const d of [...objects(v.vendor_advisories), ...objects(v.links)]) {
    const u = str(d.url);
    if (u && !documentation.some((x) => x.url === u)) {
      documentation.push({ title: str(d.title), url: u, published_at: str(d.published_at) });
    }
  }
  const liens = documentation.map((d) => d.url);

  const attribution = attributionText(reference, modified);
  const republication = days.length > 1 && modified !== published ? modified : null;
  const content = typeof v.content === "string" ? v.content : "";
  const mesures: MesureProvisoire[] = extractMesures(content).map((m) => ({
    source: "CERT-FR",
    reference,
    categorie: m.categorie,
    attribution,
    date: published,
    url,
    produits,
    texte: m.texte,
    lien_seulement: isLinkOnly(m.texte),
    republication,
    liens,
  }));

  return {
    reference,
    title: plain(v.title) ?? reference,
    url,
    published,
    modified,
    summary: plain(v.summary),
    cve_ids,
    produits,
    systemes_affectes,
    risks,
    mesures,
    documentation,
  };
}

/** True when the avis gives (or points to) a workaround. */
export function contournement_disponible(record: CertfrRecord): boolean {
  return record.mesures.some((m) => m.categorie === "contournement");
}

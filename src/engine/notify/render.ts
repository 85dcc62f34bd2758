import type { NotificationMessage } from "../actions.js";
import type { EventName } from "../vocabulary.js";

/**
 * What every notification says, whatever carries it (webhook, e-mail, Slack, Teams): the title,
 * what happened, the CVE's facts (id, severity, CVSS, EPSS, KEV, PoC, affected product and
 * version), the project and its palier, and the link — in French, or in English when the
 * message's language is "en". Facts Vigie does not know are left out rather than shown empty.
 */

export type Lang = NotificationMessage["lang"];

export interface Fact {
  key: "cve" | "severity" | "cvss" | "epss" | "kev" | "poc" | "product" | "version" | "project" | "palier";
  label: string;
  value: string;
}

export interface Rendered {
  lang: Lang;
  title: string;
  /** What happened, one line ("Ajoutée au catalogue KEV…"). */
  headline: string;
  description: string | null;
  facts: Fact[];
  link: string;
  /** The link when it is absolute (http/https), the only kind a chat button accepts. */
  absoluteLink: string | null;
  linkLabel: string;
  /** "Vigie · workflow « name »". */
  footer: string;
}

const HEADLINES: Partial<Record<EventName, Record<Lang, string>>> = {
  "cve.new_match": { fr: "Nouvelle vulnérabilité touchant le projet", en: "New vulnerability affecting the project" },
  "cve.updated": { fr: "Vulnérabilité mise à jour", en: "Vulnerability updated" },
  "cve.kev_added": {
    fr: "Ajoutée au catalogue KEV de la CISA : exploitation active constatée",
    en: "Added to CISA's KEV catalog: known to be exploited",
  },
  "cve.poc_published": { fr: "Preuve de concept (PoC) publiée", en: "Proof of concept (PoC) published" },
  "cve.epss_spike": { fr: "Forte hausse du score EPSS", en: "EPSS score spike" },
  "cve.severity_raised": { fr: "Sévérité relevée", en: "Severity raised" },
  "eol.approaching": { fr: "Fin de vie proche", en: "End of life approaching" },
  "eol.reached": { fr: "Fin de vie atteinte", en: "End of life reached" },
  "url.cert_expiring": { fr: "Certificat bientôt expiré", en: "Certificate expiring soon" },
  "url.down": { fr: "URL surveillée en panne", en: "Monitored URL down" },
  "url.recovered": { fr: "URL surveillée rétablie", en: "Monitored URL recovered" },
  "case.exception_expired": { fr: "Exception de dossier expirée", en: "Case exception expired" },
  "case.exception_expiring": { fr: "Exception de dossier bientôt expirée", en: "Case exception expiring soon" },
};

const SEVERITY: Record<string, Record<Lang, string>> = {
  critical: { fr: "critique", en: "critical" },
  high: { fr: "élevée", en: "high" },
  medium: { fr: "moyenne", en: "medium" },
  low: { fr: "faible", en: "low" },
  none: { fr: "aucune", en: "none" },
  unknown: { fr: "inconnue", en: "unknown" },
};

const LABELS: Record<Fact["key"], Record<Lang, string>> = {
  cve: { fr: "CVE", en: "CVE" },
  severity: { fr: "Sévérité", en: "Severity" },
  cvss: { fr: "Score CVSS", en: "CVSS score" },
  epss: { fr: "EPSS (probabilité d'exploitation à 30 jours)", en: "EPSS (exploitation probability, 30 days)" },
  kev: { fr: "Catalogue KEV (exploitée)", en: "KEV catalog (exploited)" },
  poc: { fr: "Preuve de concept publique", en: "Public proof of concept" },
  product: { fr: "Produit concerné", en: "Affected product" },
  version: { fr: "Version", en: "Version" },
  project: { fr: "Projet", en: "Project" },
  palier: { fr: "Palier", en: "Tier (palier)" },
};

const YES_NO: Record<Lang, [string, string]> = { fr: ["oui", "non"], en: ["yes", "no"] };
const LOCALE: Record<Lang, string> = { fr: "fr-FR", en: "en-US" };

/** The severity in the message's language ("critique", "high"…). */
export function severityLabel(severity: string, lang: Lang): string {
  return SEVERITY[severity]?.[lang] ?? severity;
}

function number(value: number, lang: Lang, digits: number): string {
  return new Intl.NumberFormat(LOCALE[lang], { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);
}

/** EPSS as a percentage, truncated (0.99999 reads 99,99 %, never a rounded-up 100 %). */
function percent(value: number, lang: Lang): string {
  const truncated = Math.floor(value * 10_000) / 10_000;
  return new Intl.NumberFormat(LOCALE[lang], { style: "percent", minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(truncated);
}

/** Renders a message's content once, for every carrier. */
export function render(message: NotificationMessage, workflowName?: string): Rendered {
  const lang = message.lang === "en" ? "en" : "fr";
  const { cve } = message;
  const facts: Fact[] = [];
  const add = (key: Fact["key"], value: string | null) => {
    if (value !== null && value !== "") facts.push({ key, label: LABELS[key][lang], value });
  };
  const [yes, no] = YES_NO[lang];
  add("cve", cve.id);
  add("severity", cve.severity === null ? null : severityLabel(cve.severity, lang));
  add("cvss", cve.cvss_score === null ? null : number(cve.cvss_score, lang, 1));
  add("epss", cve.epss_score === null ? null : percent(cve.epss_score, lang));
  add("kev", cve.is_kev === null ? null : cve.is_kev ? yes : no);
  add("poc", cve.has_poc === null ? null : cve.has_poc ? yes : no);
  add("product", [cve.vendor, cve.product].filter(Boolean).join(" ") || null);
  add("version", message.version);
  add("project", message.project.name);
  add("palier", message.palier);
  const absoluteLink = /^https?:\/\//i.test(message.link) ? message.link : null;
  return {
    lang,
    title: message.title,
    headline: HEADLINES[message.event]?.[lang] ?? message.event,
    description: cve.description,
    facts,
    link: message.link,
    absoluteLink,
    linkLabel: lang === "fr" ? "Voir dans Vigie" : "Open in Vigie",
    footer: workflowName ? `Vigie · workflow « ${workflowName} »` : "Vigie",
  };
}

/** "Label : value" in French (a space before the colon), "Label: value" in English. */
export function factLine(f: Fact, lang: Lang): string {
  return `${f.label}${lang === "fr" ? " :" : ":"} ${f.value}`;
}

/** The plain-text body. */
export function renderText(r: Rendered): string {
  const lines = [r.title, r.headline, "", ...r.facts.map((f) => factLine(f, r.lang))];
  if (r.description) lines.push("", r.description);
  lines.push("", `${r.linkLabel}${r.lang === "fr" ? " :" : ":"} ${r.link}`, "", "-- ", r.footer);
  return `${lines.join("\n")}\n`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** The HTML body: every text escaped; the link an anchor only when absolute http(s). */
export function renderHtml(r: Rendered): string {
  const e = escapeHtml;
  const rows = r.facts
    .map(
      (f) =>
        `<tr><th style="text-align:left;padding:4px 12px 4px 0;color:#555;font-weight:normal">${e(f.label)}</th><td style="padding:4px 0"><strong>${e(f.value)}</strong></td></tr>`,
    )
    .join("");
  const link = r.absoluteLink
    ? `<a href="${e(r.absoluteLink)}">${e(r.linkLabel)}</a>`
    : `${e(r.linkLabel)}${r.lang === "fr" ? " :" : ":"} ${e(r.link)}`;
  return [
    `<!DOCTYPE html><html lang="${r.lang}"><head><meta charset="utf-8"><title>${e(r.title)}</title></head>`,
    `<body style="font-family:Arial,Helvetica,sans-serif;color:#222">`,
    `<h1 style="font-size:18px">${e(r.title)}</h1>`,
    `<p>${e(r.headline)}</p>`,
    `<table style="border-collapse:collapse">${rows}</table>`,
    r.description ? `<p style="white-space:pre-line">${e(r.description)}</p>` : "",
    `<p>${link}</p>`,
    `<p style="color:#888;font-size:12px">${e(r.footer)}</p>`,
    "</body></html>",
  ].join("\n");
}

import type { Lang } from "./messages";

// The application's own words for what the server says in French by design (README, « Langue des
// écrans »): the server's texts are the contract's (French), the screens show their own words for
// the server's codes — a feed source's name, the default workflow's name. A code this module does
// not know keeps the server's words.

/** How each feed source follows its publisher (the server's `protocol`, src/feeds/publishers/), by source code. */
const PROTOCOLS: Record<Lang, Record<string, string>> = {
  fr: {
    cve5: "releases GitHub de CVEProject/cvelistV5 : la baseline du jour une fois, puis le delta le plus récent de chaque jour",
    nvd: "API CVE 2.0 du NVD : fenêtres de dates de modification de 120 jours au plus, page par page",
    kev: "un fichier, requête conditionnelle (ETag, Last-Modified)",
    epss: "un fichier, requête conditionnelle (ETag, Last-Modified)",
    rss: "un fichier, requête conditionnelle (ETag, Last-Modified)",
    osv: "par écosystème : l'archive complète une fois, puis les avis modifiés depuis le dernier appliqué",
    poc: "dépôt GitHub nomi-sec/PoC-in-GitHub : l'archive la première fois, puis les fichiers modifiés",
    certfr: "flux RSS des avis du CERT-FR, puis le document JSON de chaque avis nouveau ou révisé",
    eol: "API v1 d'endoflife.date : les produits des piles et abonnements d'abord, le reste une fois par jour",
  },
  en: {
    cve5: "CVEProject/cvelistV5 GitHub releases: the day's baseline once, then each day's latest delta",
    nvd: "NVD CVE API 2.0: modification-date windows of at most 120 days, page by page",
    kev: "one file, conditional request (ETag, Last-Modified)",
    epss: "one file, conditional request (ETag, Last-Modified)",
    rss: "one file, conditional request (ETag, Last-Modified)",
    osv: "per ecosystem: the whole archive once, then the advisories modified since the last one applied",
    poc: "GitHub repository nomi-sec/PoC-in-GitHub: the archive the first time, then the files changed",
    certfr: "CERT-FR's advisory RSS feed, then the JSON document of each new or revised advisory",
    eol: "endoflife.date API v1: the products of stacks and subscriptions first, the others once a day",
  },
};

/** A feed source's way of following its publisher, in `lang` (the server's words for an unknown source). */
export function sourceProtocol(source: string, serverWords: string, lang: Lang): string {
  return PROTOCOLS[lang][source] ?? serverWords;
}

/**
 * The names the server gives each project's default workflow (src/modules/workflows/workflows.service.ts):
 * today's, and the one projects made before issue 34 still carry.
 */
const DEFAULT_WORKFLOW_NAMES: Record<string, Record<Lang, string>> = {
  "Correspondance vérifiée P1/P2 → dossier": { fr: "Correspondance vérifiée P1/P2 → dossier", en: "Verified P1/P2 match → case" },
  "Nouvelle correspondance → dossier": { fr: "Nouvelle correspondance → dossier", en: "New match → case" },
};

/** A workflow's name on screen: the default one, still under the server's name, in `lang`; any other as named. */
export function workflowName(wf: { name: string; is_default: boolean }, lang: Lang): string {
  return (wf.is_default && DEFAULT_WORKFLOW_NAMES[wf.name]?.[lang]) || wf.name;
}

import type { Words } from "../../i18n/i18n";

/** How the feeds stand: sources synced automatically, behind their publisher, never synced. */
export interface FeedsSummary {
  enabled: number;
  stale: number;
  never: number;
  /** Of those never synced, the ones whose data came from the bundled snapshot. */
  snapshot?: number;
}

const fr = {
  today: "Aujourd'hui",
  toTriage: "À trier",
  unread: "alertes non lues",
  unreadP1: "non lues en palier P1, version vérifiée (agir maintenant)",
  unreadUnverified: "non lues « non vérifiables » (le KEV nomme le produit sans versions) : à vérifier",
  kev: "alertes sur des CVE exploitées (KEV)",
  openInbox: "Trier les P1 non lues",
  expiring: "Exceptions à échéance sous 14 jours",
  noneExpiring: "Aucune exception n'arrive à échéance.",
  expiresOn: (day: string) => `expire le ${day}`,
  openCases: "Ouvrir les dossiers",
  eol: "Fins de vie",
  noNotice: "Aucun avis de fin de vie.",
  eolNotice: (product: string, cycle: string, kind: "eol" | "support", day: string) =>
    `${product} ${cycle} : ${kind === "eol" ? "fin de vie" : "fin du support"} le ${day}`,
  feeds: "Sources de données",
  feedsState: (f: FeedsSummary) =>
    f.stale > 0
      ? `${f.stale} source(s) en retard sur leur éditeur.`
      : f.enabled === 0
        ? "Synchronisation automatique désactivée sur ce serveur."
        : f.never > 0 && f.snapshot === f.never
          ? `Données de l'instantané fourni : ${f.never} source(s) pas encore synchronisée(s).`
          : f.never > 0
            ? `${f.never} source(s) encore jamais synchronisée(s).`
            : "Toutes les sources sont à jour.",
  openFeeds: "Voir les flux",
};

export const words: Words<typeof fr> = {
  fr,
  en: {
    today: "Today",
    toTriage: "To triage",
    unread: "unread alerts",
    unreadP1: "unread at tier P1, version verified (act now)",
    unreadUnverified: "unread “not verifiable” (KEV names the product without versions): to check",
    kev: "alerts on exploited CVEs (KEV)",
    openInbox: "Triage the unread P1",
    expiring: "Exceptions expiring within 14 days",
    noneExpiring: "No exception is about to expire.",
    expiresOn: (day) => `expires on ${day}`,
    openCases: "Open the cases",
    eol: "End of life",
    noNotice: "No end-of-life notice.",
    eolNotice: (product, cycle, kind, day) => `${product} ${cycle}: ${kind === "eol" ? "end of life" : "end of support"} on ${day}`,
    feeds: "Data sources",
    feedsState: (f) =>
      f.stale > 0
        ? `${f.stale} source(s) behind their publisher.`
        : f.enabled === 0
          ? "Automatic sync is off on this server."
          : f.never > 0 && f.snapshot === f.never
            ? `Data from the bundled snapshot: ${f.never} source(s) not synced yet.`
            : f.never > 0
              ? `${f.never} source(s) never synced yet.`
              : "Every source is up to date.",
    openFeeds: "See the feeds",
  },
};

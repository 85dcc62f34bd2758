import type { Words } from "../i18n/i18n";

const fr = {
  project: "Projet",
  organization: "Organisation et corpus",
  alerts: "Alertes",
  home: "Accueil",
  stacks: "Piles",
  workflows: "Workflows",
  cases: "Dossiers",
  urls: "URL surveillées",
  eol: "Fin de vie",
  reports: "Rapports de preuve",
  risks: "Registre des risques",
  cves: "CVE",
  stats: "Statistiques",
  feeds: "Flux",
  settings: "Paramètres",
};

/** The navigation's words (one small module: the shell's chunk does not carry the screens' words). */
export const navWords: Words<typeof fr> = {
  fr,
  en: {
    project: "Project",
    organization: "Organization and corpus",
    alerts: "Alerts",
    home: "Home",
    stacks: "Stacks",
    workflows: "Workflows",
    cases: "Cases",
    urls: "Monitored URLs",
    eol: "End of life",
    reports: "Evidence reports",
    risks: "Risk register",
    cves: "CVEs",
    stats: "Statistics",
    feeds: "Feeds",
    settings: "Settings",
  },
};

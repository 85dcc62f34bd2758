import type { Words } from "../i18n/i18n";

const fr = {
  project: "Projet",
  organization: "Organisation et corpus",
  home: "Accueil",
  stacks: "Piles",
  workflows: "Workflows",
  cases: "Dossiers",
  urls: "URL surveillées",
  eol: "Fin de vie",
  reports: "Rapports de preuve",
  risks: "Registre des risques",
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
    home: "Home",
    stacks: "Stacks",
    workflows: "Workflows",
    cases: "Cases",
    urls: "Monitored URLs",
    eol: "End of life",
    reports: "Evidence reports",
    risks: "Risk register",
    stats: "Statistics",
    feeds: "Feeds",
    settings: "Settings",
  },
};

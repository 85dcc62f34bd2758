import { useLocation } from "@tanstack/react-router";
import { type Words, useWords } from "../i18n/i18n";

/**
 * The documentation's pages (docs/ in Vigie's repository), in the order of its index. The address
 * they are read at is set when the application is built: `VITE_VIGIE_DOCS_URL` (the folder, ending
 * with `/`, such as a repository's `…/blob/main/docs/`). Without it the menu names the folder
 * instead of linking nowhere. The API reference (`/docs`, Swagger UI) is served by Vigie itself.
 */
export const DOC_PAGES = [
  "getting-started",
  "web",
  "api",
  "workflows",
  "mcp",
  "feeds",
  "stacks",
  "sbom",
  "eol-and-urls",
  "cases",
  "reports",
  "statistics",
  "operations",
  "security",
] as const;
export type DocPage = (typeof DOC_PAGES)[number];

/** The page about the screen at `pathname`, if there is one. */
export function pageFor(pathname: string): DocPage | null {
  const rules: [RegExp, DocPage][] = [
    [/^\/p\/[^/]+\/(alerts|stacks)/, "stacks"],
    [/^\/p\/[^/]+\/cases/, "cases"],
    [/^\/p\/[^/]+\/workflows/, "workflows"],
    [/^\/p\/[^/]+\/(urls|eol)/, "eol-and-urls"],
    [/^\/p\/[^/]+\/reports/, "reports"],
    [/^\/risks/, "cases"],
    [/^\/(cves|feeds)/, "feeds"],
    [/^\/stats/, "statistics"],
    [/^\/settings/, "api"],
  ];
  return rules.find(([re]) => re.test(pathname))?.[1] ?? null;
}

const fr = {
  help: "Aide",
  thisScreen: (page: string) => `Sur cet écran : ${page}`,
  guides: "Guides",
  apiReference: "Référence de l'API (OpenAPI)",
  noBase: "Les guides sont les pages du dossier docs/ du dépôt de Vigie.",
  pages: {
    "getting-started": "Démarrer",
    web: "L'application web",
    api: "L'API : clés, limites, erreurs",
    workflows: "Workflows et notifications",
    mcp: "Serveur MCP",
    feeds: "Flux et synchronisation",
    stacks: "Piles, correspondances et alertes",
    sbom: "SBOM",
    "eol-and-urls": "Fin de vie et URL surveillées",
    cases: "Dossiers, exceptions, risques et VEX",
    reports: "Rapports de preuve",
    statistics: "Statistiques",
    operations: "Exploitation : configuration, sauvegarde",
    security: "Sécurité",
  } satisfies Record<DocPage, string>,
};

export const helpWords: Words<typeof fr> = {
  fr,
  en: {
    help: "Help",
    thisScreen: (page: string) => `About this screen: ${page}`,
    guides: "Guides",
    apiReference: "API reference (OpenAPI)",
    noBase: "The guides are the pages of the docs/ folder of Vigie's repository.",
    pages: {
      "getting-started": "Getting started",
      web: "The web application",
      api: "The API: keys, limits, errors",
      workflows: "Workflows and notifications",
      mcp: "MCP server",
      feeds: "Feeds and sync",
      stacks: "Stacks, matching and alerts",
      sbom: "SBOM",
      "eol-and-urls": "End of life and monitored URLs",
      cases: "Cases, exceptions, risks and VEX",
      reports: "Evidence reports",
      statistics: "Statistics",
      operations: "Operations: configuration, backup",
      security: "Security",
    },
  },
};

/** The header's help menu: the page about the current screen, every guide, the API reference. */
export function HelpMenu({ base = import.meta.env.VITE_VIGIE_DOCS_URL ?? "" }: { base?: string }) {
  const w = useWords(helpWords);
  const { pathname } = useLocation();
  const here = pageFor(pathname);
  const href = (page: DocPage) => `${base}${page}.md`;
  return (
    <details className="help-menu">
      <summary>{w.help}</summary>
      <div className="help-menu-panel">
        {base && here && (
          <p>
            <a href={href(here)} target="_blank" rel="noreferrer">
              {w.thisScreen(w.pages[here])}
            </a>
          </p>
        )}
        <h2 className="nav-group">{w.guides}</h2>
        {base ? (
          <ul>
            {DOC_PAGES.map((p) => (
              <li key={p}>
                <a href={href(p)} target="_blank" rel="noreferrer">
                  {w.pages[p]}
                </a>
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">{w.noBase}</p>
        )}
        <p>
          <a href="/docs" target="_blank" rel="noreferrer">
            {w.apiReference}
          </a>
        </p>
      </div>
    </details>
  );
}

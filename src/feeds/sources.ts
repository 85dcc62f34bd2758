/** The feed sources Vigie imports, and where each is downloaded from (kept free of heavy imports: config reads it). */
export const SOURCES = ["cve5", "nvd", "epss", "kev", "poc", "osv", "certfr", "rss"] as const;
export type Source = (typeof SOURCES)[number];

/**
 * Official download addresses, used when `VIGIE_FEED_URLS_<SOURCE>` does not say otherwise.
 * The CVE List (cve5) and OSV publish zip archives, NVD a paged API, CERT-FR one JSON document per
 * avis: none of them is a single file the importers read, so they have no default here and are
 * synced only from addresses configured for them (a mirror serving JSON, JSONL or CSV, plain or .gz).
 */
export const DEFAULT_FEED_URLS: Partial<Record<Source, string[]>> = {
  kev: ["https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json"],
  epss: ["https://epss.empiricalsecurity.com/epss_scores-current.csv.gz"],
  rss: [
    "https://www.cert.ssi.gouv.fr/feed/",
    "https://www.bleepingcomputer.com/feed/",
    "https://www.cisa.gov/cybersecurity-advisories/all.xml",
  ],
};

/** The configured addresses of each source: `VIGIE_FEED_URLS_<SOURCE>` (comma-separated; empty disables) or the default. */
export function feedUrls(env: NodeJS.ProcessEnv): Partial<Record<Source, string[]>> {
  const out: Partial<Record<Source, string[]>> = {};
  for (const source of SOURCES) {
    const set = env[`VIGIE_FEED_URLS_${source.toUpperCase()}`];
    const urls = set === undefined ? DEFAULT_FEED_URLS[source] ?? [] : set.split(",").map((u) => u.trim()).filter(Boolean);
    if (urls.length) out[source] = urls;
  }
  return out;
}

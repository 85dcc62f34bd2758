import { palier } from "../../matching/priority.js";
import type { PublicVulnWithSignals } from "./vulnerabilities.repository.js";
import type { PublicVulnOut } from "./vulnerabilities.schemas.js";

/** An advisory: its packages or products as `correspondances`, the linked CVEs' signals. */
export function presentPublicVuln(v: PublicVulnWithSignals): PublicVulnOut {
  const data = v.data as { packages?: Record<string, unknown>[]; produits?: string[] };
  const signaux = [v.kev ? "kev" : null, v.poc ? "poc" : null, v.epss !== null ? "epss" : null].filter((s): s is string => s !== null);
  return {
    id: v.id,
    source: v.source,
    url: v.url,
    aliases: v.aliases,
    correspondances: data.packages ?? (data.produits ?? []).map((produit) => ({ produit })),
    cvss_score: v.cvssScore,
    fusion_de: [],
    palier: palier({ severity: v.severity, epss: v.epss, isKev: v.kev, hasPoc: v.poc }),
    severity: v.severity,
    signaux,
    summary: v.summary,
  };
}

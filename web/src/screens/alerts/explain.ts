import type { Lang } from "../../i18n/messages";

/** An alert's `correspondance` (src/matching/matcher.ts: the MatchReason and the item it matched). */
export interface Correspondance {
  rule?: string;
  item_type?: string;
  value?: string;
  version?: string | null;
  range?: string | null;
  origin?: string | null;
  vendor?: string | null;
  product?: string | null;
  /** A vendor's CSAF advisory (rule vendor_advisory): who says it, in which advisory. */
  avis_editeur?: { editeur?: string; tracking_id?: string; version_avis?: string };
}

const ORIGINS: Record<Lang, Record<string, string>> = {
  fr: { cna: "l'éditeur (CNA)", adp: "CISA (ADP)", nvd: "la NVD", kev: "le catalogue KEV de la CISA", osv: "OSV" },
  en: { cna: "the vendor (CNA)", adp: "CISA (ADP)", nvd: "the NVD", kev: "CISA's KEV catalog", osv: "OSV" },
};

/** "of the item" in French (du produit, de l'éditeur…); English says "of product …". */
const OF_ITEMS: Record<Lang, Record<string, string>> = {
  fr: { product: "du produit", cpe: "du CPE", purl: "du paquet", vendor: "de l'éditeur", keyword: "des mots-clés", cve: "de la CVE" },
  en: { product: "of product", cpe: "of CPE", purl: "of package", vendor: "of vendor", keyword: "of keywords", cve: "of CVE" },
};

const ITEMS: Record<Lang, Record<string, string>> = {
  fr: { product: "le produit", cpe: "le CPE", purl: "le paquet", vendor: "l'éditeur", keyword: "les mots-clés", cve: "la CVE" },
  en: { product: "product", cpe: "CPE", purl: "package", vendor: "vendor", keyword: "keywords", cve: "CVE" },
};

/** Which source states a range, in words (an advisory id such as GHSA-… stays as it is). */
export function originName(origin: string | null | undefined, lang: Lang): string {
  if (!origin) return lang === "fr" ? "une source" : "a source";
  return ORIGINS[lang][origin] ?? origin;
}

/**
 * Why an alert matched, in one plain sentence (the words of src/matching/decide.ts's rules): the
 * stack item, the rule, the version compared, the range and the source that states it.
 */
export function explain(m: Correspondance, lang: Lang): string {
  const item = `${ITEMS[lang][m.item_type ?? ""] ?? m.item_type ?? ""} ${m.value ?? ""}`.trim();
  const ofItem = `${OF_ITEMS[lang][m.item_type ?? ""] ?? m.item_type ?? ""} ${m.value ?? ""}`.trim();
  const by = originName(m.origin, lang);
  const fr = lang === "fr";
  switch (m.rule) {
    case "version_range":
      return fr
        ? `La version ${m.version} ${ofItem} est dans la plage affectée ${m.range}, selon ${by}.`
        : `Version ${m.version} ${ofItem} is within the affected range ${m.range}, according to ${by}.`;
    case "all_versions":
      return fr
        ? `Toutes les versions ${ofItem} sont touchées${m.range ? ` (${m.range})` : ""}, selon ${by}.`
        : `Every version ${ofItem} is affected${m.range ? ` (${m.range})` : ""}, according to ${by}.`;
    case "unversioned":
      return fr
        ? `Non vérifiable : ${by} nomme ${item} sans dire quelles versions sont touchées, et aucune source ne donne de plage où chercher la version ${m.version ?? "suivie"}.`
        : `Not verifiable: ${by} names ${item} without saying which versions are affected, and no source gives a range to check version ${m.version ?? "watched"} against.`;
    case "default_status":
      return fr
        ? `La version ${m.version} ${ofItem} n'est dans aucune plage listée, et ${by} déclare le produit touché par défaut.`
        : `Version ${m.version} ${ofItem} is in no listed range, and ${by} states the product affected by default.`;
    case "osv_range":
      return m.version
        ? fr
          ? `La version ${m.version} ${ofItem} est dans ${m.range ?? "les versions listées"}, selon l'avis ${by}.`
          : `Version ${m.version} ${ofItem} is within ${m.range ?? "the listed versions"}, according to advisory ${by}.`
        : fr
          ? `${item.charAt(0).toUpperCase()}${item.slice(1)} est concerné, selon l'avis ${by}.`
          : `${item.charAt(0).toUpperCase()}${item.slice(1)} is concerned, according to advisory ${by}.`;
    case "vendor":
      return fr
        ? `Le produit ${m.vendor ?? ""}/${m.product ?? ""} ${ofItem} est touché, selon ${by}.`
        : `Product ${m.vendor ?? ""}/${m.product ?? ""} ${ofItem} is affected, according to ${by}.`;
    case "vendor_advisory": {
      const a = m.avis_editeur ?? {};
      const what = m.version
        ? fr
          ? `La version ${m.version} ${ofItem}`
          : `Version ${m.version} ${ofItem}`
        : item.charAt(0).toUpperCase() + item.slice(1);
      return fr
        ? `${what} est concerné${m.version ? "e" : ""}, selon l'avis de l'éditeur ${a.editeur ?? ""} (${a.tracking_id ?? ""} version ${a.version_avis ?? ""}).`
        : `${what} is affected, according to the vendor ${a.editeur ?? ""} (${a.tracking_id ?? ""} version ${a.version_avis ?? ""}).`;
    }
    case "keyword":
      return fr ? `Les mots « ${m.value} » figurent dans la CVE.` : `The words “${m.value}” appear in the CVE.`;
    case "cve":
      return fr ? `La CVE ${m.value} est surveillée par son identifiant.` : `CVE ${m.value} is watched by its id.`;
    default:
      return fr ? `Correspondance avec ${item}.` : `Matched ${item}.`;
  }
}

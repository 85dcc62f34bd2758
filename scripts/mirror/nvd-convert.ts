/**
 * NVD JSON 1.1 feed items (`CVE_Items[]`) converted to NVD API 2.0 `cve` objects, for the local
 * NVD publisher (scripts/mirror/nvd.ts): ../shared/data holds the 1.1 yearly feeds and only two
 * API 2.0 objects, so the API's records are DERIVED. The shape follows the two byte-exact API 2.0
 * objects of ../shared/data/nvd/api-2.0-sample (key order included). Mapping:
 * - id ← cve.CVE_data_meta.ID; sourceIdentifier ← cve.CVE_data_meta.ASSIGNER.
 * - published / lastModified ← publishedDate / lastModifiedDate ("2025-05-19T02:15Z" →
 *   "2025-05-19T02:15:00.000": API 2.0 writes UTC without an offset, to the millisecond).
 * - vulnStatus ← "Rejected" when the description starts with "** REJECT **", else "Analyzed" when
 *   the item has CPE configurations, else "Awaiting Analysis" (1.1 has no status). cveTags: [].
 * - descriptions ← cve.description.description_data ({lang, value}).
 * - metrics: impact.baseMetricV3 → cvssMetricV31 (or cvssMetricV30 when cvssV3.version is 3.0),
 *   impact.baseMetricV2 → cvssMetricV2 (severity, acInsufInfo, obtain*Privilege and
 *   userInteractionRequired beside cvssData, as in 2.0); source "nvd@nist.gov", type "Primary"
 *   (the 1.1 feeds carried NVD's own scores only).
 * - weaknesses ← cve.problemtype.problemtype_data, as one "Primary" entry of source nvd@nist.gov.
 * - configurations: each top-level 1.1 node becomes one configuration: a node with children
 *   (1.1's AND of OR nodes) → {operator, nodes: children}; a plain node → {nodes: [node]}.
 *   cpe_match → cpeMatch with cpe23Uri → criteria, the version bounds kept, and a matchCriteriaId
 *   derived from the match (1.1 has none: an uppercase UUID-shaped SHA-1 prefix of the match).
 * - references ← reference_data → {url, source: the assigner (1.1 names no per-reference source),
 *   tags when any}.
 * - No cisaExploitAdd & co (the 1.1 feeds had no KEV fields).
 */
import { createHash } from "node:crypto";

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** "2025-05-19T02:15Z" (1.1) → "2025-05-19T02:15:00.000" (2.0). */
export function nvd20Time(v: unknown): string | undefined {
  if (typeof v !== "string") return undefined;
  const d = new Date(v.endsWith("Z") || /[+-]\d\d:\d\d$/.test(v) ? v : `${v}Z`);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString().slice(0, 23);
}

function matchId(m: Obj): string {
  const h = createHash("sha1").update(JSON.stringify(m)).digest("hex").toUpperCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

function node20(n: Obj): Obj {
  const cpeMatch = arr(n.cpe_match)
    .filter(isObj)
    .map((m) => {
      const out: Obj = { vulnerable: m.vulnerable === true, criteria: m.cpe23Uri };
      for (const k of ["versionStartIncluding", "versionStartExcluding", "versionEndIncluding", "versionEndExcluding"])
        if (m[k] !== undefined) out[k] = m[k];
      out.matchCriteriaId = matchId(m);
      return out;
    });
  return { operator: n.operator ?? "OR", negate: n.negate === true, cpeMatch };
}

function descendants(n: Obj, depth = 0): Obj[] {
  if (depth > 16) return [];
  return arr(n.children)
    .filter(isObj)
    .flatMap((c) => [c, ...descendants(c, depth + 1)]);
}

function metric(cvssData: Obj, extra: Obj): Obj {
  return { source: "nvd@nist.gov", type: "Primary", cvssData, ...extra };
}

/** One NVD 1.1 item as an API 2.0 `cve` object (see the mapping above). */
export function nvd11To20(item: Obj): Obj {
  const cve = isObj(item.cve) ? item.cve : {};
  const meta = isObj(cve.CVE_data_meta) ? cve.CVE_data_meta : {};
  const assigner = meta.ASSIGNER;
  const descriptions = arr(isObj(cve.description) ? cve.description.description_data : [])
    .filter(isObj)
    .map((d) => ({ lang: d.lang, value: d.value }));
  const english = descriptions.find((d) => d.lang === "en")?.value;
  const nodes = arr(isObj(item.configurations) ? item.configurations.nodes : []).filter(isObj);
  const rejected = typeof english === "string" && english.startsWith("** REJECT **");

  const metrics: Obj = {};
  const impact = isObj(item.impact) ? item.impact : {};
  const m3 = impact.baseMetricV3;
  if (isObj(m3) && isObj(m3.cvssV3)) {
    const key = m3.cvssV3.version === "3.0" ? "cvssMetricV30" : "cvssMetricV31";
    metrics[key] = [metric(m3.cvssV3, { exploitabilityScore: m3.exploitabilityScore, impactScore: m3.impactScore })];
  }
  const m2 = impact.baseMetricV2;
  if (isObj(m2) && isObj(m2.cvssV2)) {
    const extra: Obj = { baseSeverity: m2.severity, exploitabilityScore: m2.exploitabilityScore, impactScore: m2.impactScore };
    for (const k of ["acInsufInfo", "obtainAllPrivilege", "obtainUserPrivilege", "obtainOtherPrivilege", "userInteractionRequired"])
      if (m2[k] !== undefined) extra[k] = m2[k];
    metrics.cvssMetricV2 = [metric(m2.cvssV2, extra)];
  }

  const cwes = arr(isObj(cve.problemtype) ? cve.problemtype.problemtype_data : [])
    .filter(isObj)
    .flatMap((g) => arr(g.description).filter(isObj))
    .map((d) => ({ lang: d.lang, value: d.value }));

  const out: Obj = {
    id: meta.ID,
    sourceIdentifier: assigner,
    published: nvd20Time(item.publishedDate),
    lastModified: nvd20Time(item.lastModifiedDate),
    vulnStatus: rejected ? "Rejected" : nodes.length ? "Analyzed" : "Awaiting Analysis",
    cveTags: [],
    descriptions,
    metrics,
  };
  if (cwes.length) out.weaknesses = [{ source: "nvd@nist.gov", type: "Primary", description: cwes }];
  if (nodes.length)
    out.configurations = nodes.map((n) => {
      if (!arr(n.children).length) return { nodes: [node20(n)] };
      // API 2.0 nests one level only: deeper 1.1 children (rare) are brought up beside their parents.
      const inner = descendants(n).map(node20);
      return { operator: n.operator ?? "AND", nodes: arr(n.cpe_match).length ? [node20({ ...n, operator: "OR" }), ...inner] : inner };
    });
  out.references = arr(isObj(cve.references) ? cve.references.reference_data : [])
    .filter(isObj)
    .map((r) => {
      const tags = arr(r.tags);
      return tags.length ? { url: r.url, source: assigner, tags } : { url: r.url, source: assigner };
    });
  return out;
}

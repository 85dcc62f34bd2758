/**
 * NVD parsers: legacy JSON 1.1 feed items (`CVE_Items[]` elements) and API 2.0 `cve` objects.
 * Origin is "nvd" everywhere. Pure, single pass, no cloning.
 *
 * Decisions:
 * - CVSS 1.1: `impact.baseMetricV3.cvssV3` (version "3.1" when its `version` — or the vector
 *   prefix — says 3.1, else "3.0") and `impact.baseMetricV2.cvssV2` (severity from
 *   `baseMetricV2.severity`); provider "nvd@nist.gov" (the 1.1 feeds only carry NVD's scores).
 * - CVSS 2.0: every metric of `metrics.cvssMetricV40 / V31 / V30 / V2`, in that order, and within
 *   each list the `type: "Primary"` ones first; provider = the metric's `source`.
 * - CWEs from `problemtype` / `weaknesses`, "CWE-nnn" only (drops NVD-CWE-Other / NVD-CWE-noinfo),
 *   deduplicated.
 * - Affected: configurations flattened (children recursively, any operator) into one row per CPE
 *   match; see `matchRow`. The AND/OR structure is not kept: rows with `vulnerable: false` are the
 *   platform conditions ("running on …") and carry version_status "unaffected". Exact duplicate
 *   rows (same match repeated in several configurations) are dropped. `negate` is ignored.
 * - REJECTED: 1.1 description starting with "** REJECT **"; 2.0 `vulnStatus` "Rejected".
 * - KEV (2.0 only): `cisaExploitAdd` → `{ date_added, reference: null }`, else null. The 1.1
 *   format has no KEV fields, so `kev` is left undefined there ("source says nothing").
 * - `parseNvd20` also accepts the API response's `vulnerabilities[]` element (`{ cve: {...} }`).
 */
import { parseCpe23Head } from "../matching/cpe.js";
import { addReferences, arr, cweOrNull, isCveId, isObj, normalizeTimestamp, num, pickEnglish, str } from "./cve5.js";
import type { AffectedEntry } from "../matching/affected.js";
import { RecordError, type CveContribution, type CvssMetric } from "./types.js";

type Obj = Record<string, unknown>;

const NVD_PROVIDER = "nvd@nist.gov";
const REJECT_PREFIX = "** REJECT **";

function lower(v: unknown): string | null {
  const s = str(v);
  return s === null ? null : s.toLowerCase();
}

/**
 * One CPE match → one row.
 * - vendor / product: CPE attributes 3 and 4, unescaped (`archive\:\:tar` → `archive::tar`).
 * - bounds: versionStart{In,Ex}cluding / versionEnd{In,Ex}cluding; when none is given and the
 *   CPE's version is concrete (not `*` / `-`), from = to = that version, inclusive (the CPE's
 *   `update` etc. stay in `cpe`); otherwise both bounds are null (any version).
 * - version_status "affected" when `vulnerable` is true, else "unaffected"; `vulnerable` is set.
 */
function matchRow(m: Obj, cpeKey: "cpe23Uri" | "criteria"): AffectedEntry {
  const cpe = str(m[cpeKey]);
  const parsed = cpe === null ? null : parseCpe23Head(cpe);
  const si = str(m.versionStartIncluding);
  const se = si === null ? str(m.versionStartExcluding) : null;
  const ei = str(m.versionEndIncluding);
  const ee = ei === null ? str(m.versionEndExcluding) : null;
  let from: string | null = si ?? se;
  let to: string | null = ei ?? ee;
  let fromInclusive = si !== null;
  let toInclusive = ei !== null;
  if (from === null && to === null && parsed !== null) {
    const v = parsed.version;
    if (v !== "*" && v !== "-" && v !== "") {
      from = v;
      to = v;
      fromInclusive = true;
      toInclusive = true;
    }
  }
  const vulnerable = m.vulnerable === true;
  return {
    origin: "nvd",
    vendor: parsed === null ? null : parsed.vendor,
    product: parsed === null ? null : parsed.product,
    cpe,
    version_from: from,
    version_from_inclusive: fromInclusive,
    version_to: to,
    version_to_inclusive: toInclusive,
    version_status: vulnerable ? "affected" : "unaffected",
    version_type: null,
    default_status: null,
    vulnerable,
  };
}

function walkNode(
  node: unknown,
  matchKey: "cpe_match" | "cpeMatch",
  cpeKey: "cpe23Uri" | "criteria",
  out: AffectedEntry[],
  depth: number,
): void {
  if (!isObj(node) || depth > 16) return;
  for (const m of arr(node[matchKey])) {
    if (isObj(m)) out.push(matchRow(m, cpeKey));
  }
  for (const child of arr(node.children)) walkNode(child, matchKey, cpeKey, out, depth + 1);
}

function sameRow(a: AffectedEntry, b: AffectedEntry): boolean {
  return (
    a.vulnerable === b.vulnerable &&
    a.version_from === b.version_from &&
    a.version_from_inclusive === b.version_from_inclusive &&
    a.version_to === b.version_to &&
    a.version_to_inclusive === b.version_to_inclusive
  );
}

/**
 * Drop exact duplicate rows (same CPE, bounds and `vulnerable`), keeping the first. Rows are
 * bucketed by their CPE string (already allocated) and compared field by field, so no key
 * strings are built; no work at all when there is at most one row.
 */
function dedupeRows(rows: AffectedEntry[]): AffectedEntry[] {
  if (rows.length < 2) return rows;
  const byCpe = new Map<string | null, AffectedEntry | AffectedEntry[]>();
  let out: AffectedEntry[] | null = null;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    const bucket = byCpe.get(r.cpe);
    let dup = false;
    if (bucket === undefined) byCpe.set(r.cpe, r);
    else if (Array.isArray(bucket)) {
      for (const b of bucket)
        if (sameRow(b, r)) {
          dup = true;
          break;
        }
      if (!dup) bucket.push(r);
    } else if (sameRow(bucket, r)) dup = true;
    else byCpe.set(r.cpe, [bucket, r]);
    if (dup) out ??= rows.slice(0, i);
    else if (out !== null) out.push(r);
  }
  return out ?? rows;
}

/** NVD `problemtype_data[].description[]` / `weaknesses[].description[]` values → CWE set. */
function addCwes(groups: unknown, into: Set<string>): void {
  for (const g of arr(groups)) {
    if (!isObj(g)) continue;
    for (const d of arr(g.description)) {
      if (!isObj(d)) continue;
      const v = str(d.value);
      if (v === null) continue;
      const cwe = cweOrNull(v);
      if (cwe !== null) into.add(cwe);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// JSON 1.1 feed item

function fail11(msg: string): never {
  throw new RecordError("not an NVD JSON 1.1 CVE item: " + msg);
}

/** Parse one element of an NVD JSON 1.1 feed's `CVE_Items`. Throws `RecordError` otherwise. */
export function parseNvd11Item(item: unknown): CveContribution {
  if (!isObj(item)) fail11("not a JSON object");
  if (Array.isArray(item.CVE_Items)) fail11("this is a whole feed; pass each CVE_Items[] element");
  const cve = item.cve;
  if (!isObj(cve)) fail11("missing cve");
  const meta = cve.CVE_data_meta;
  const id = isObj(meta) ? str(meta.ID) : null;
  if (id === null) fail11("missing cve.CVE_data_meta.ID");
  if (!isCveId(id)) fail11(`bad ID "${id}"`);

  const descData = isObj(cve.description) ? cve.description.description_data : undefined;
  const description = pickEnglish(descData);

  const cvss: CvssMetric[] = [];
  const impact = item.impact;
  if (isObj(impact)) {
    const m3 = impact.baseMetricV3;
    if (isObj(m3) && isObj(m3.cvssV3)) {
      const c = m3.cvssV3;
      const score = num(c.baseScore);
      if (score !== null) {
        const vector = str(c.vectorString);
        const is31 = c.version === "3.1" || (c.version === undefined && vector !== null && vector.startsWith("CVSS:3.1/"));
        cvss.push({ version: is31 ? "3.1" : "3.0", score, vector, severity: lower(c.baseSeverity), origin: "nvd", provider: NVD_PROVIDER });
      }
    }
    const m2 = impact.baseMetricV2;
    if (isObj(m2) && isObj(m2.cvssV2)) {
      const c = m2.cvssV2;
      const score = num(c.baseScore);
      if (score !== null) {
        cvss.push({
          version: "2.0",
          score,
          vector: str(c.vectorString),
          severity: lower(m2.severity),
          origin: "nvd",
          provider: NVD_PROVIDER,
        });
      }
    }
  }

  const cwes = new Set<string>();
  if (isObj(cve.problemtype)) addCwes(cve.problemtype.problemtype_data, cwes);

  const references = new Set<string>();
  if (isObj(cve.references)) addReferences(cve.references.reference_data, references);

  const rows: AffectedEntry[] = [];
  if (isObj(item.configurations)) {
    for (const node of arr(item.configurations.nodes)) walkNode(node, "cpe_match", "cpe23Uri", rows, 0);
  }

  return {
    cve_id: id,
    state: description?.startsWith(REJECT_PREFIX) ? "REJECTED" : "PUBLISHED",
    modified: normalizeTimestamp(item.lastModifiedDate),
    published: normalizeTimestamp(item.publishedDate),
    description,
    cvss,
    cwes: [...cwes],
    affected: dedupeRows(rows),
    references: [...references],
    assigner: isObj(meta) ? str(meta.ASSIGNER) : null,
  };
}

// ---------------------------------------------------------------------------------------------
// API 2.0 object

function fail20(msg: string): never {
  throw new RecordError("not an NVD API 2.0 CVE object: " + msg);
}

const V20_METRICS = [
  ["cvssMetricV40", "4.0"],
  ["cvssMetricV31", "3.1"],
  ["cvssMetricV30", "3.0"],
  ["cvssMetricV2", "2.0"],
] as const;

function pushV20Metric(m: Obj, version: CvssMetric["version"], out: CvssMetric[]): void {
  const data = m.cvssData;
  if (!isObj(data)) return;
  const score = num(data.baseScore);
  if (score === null) return;
  out.push({
    version,
    score,
    vector: str(data.vectorString),
    // V3.x / V4.0: cvssData.baseSeverity; V2: baseSeverity on the metric itself
    severity: lower(data.baseSeverity) ?? lower(m.baseSeverity),
    origin: "nvd",
    provider: str(m.source),
  });
}

/** Parse one NVD API 2.0 `cve` object (or a `{ cve }` wrapper). Throws `RecordError` otherwise. */
export function parseNvd20(record: unknown): CveContribution {
  let r = record;
  if (isObj(r) && r.id === undefined && isObj(r.cve)) r = r.cve;
  if (!isObj(r)) fail20("not a JSON object");
  if (Array.isArray(r.vulnerabilities)) fail20("this is an API response; pass each vulnerabilities[].cve");
  const id = str(r.id);
  if (id === null) fail20("missing id");
  if (!isCveId(id)) fail20(`bad id "${id}"`);
  if (!Array.isArray(r.descriptions)) fail20(`${id}: missing descriptions`);

  const cvss: CvssMetric[] = [];
  const metrics = r.metrics;
  if (isObj(metrics)) {
    for (const [key, version] of V20_METRICS) {
      const list = arr(metrics[key]);
      if (list.length === 0) continue;
      // "Primary" (the NVD's own analysis) first, then the others, each in source order
      for (const m of list) if (isObj(m) && m.type === "Primary") pushV20Metric(m, version, cvss);
      for (const m of list) if (isObj(m) && m.type !== "Primary") pushV20Metric(m, version, cvss);
    }
  }

  const cwes = new Set<string>();
  addCwes(r.weaknesses, cwes);

  const references = new Set<string>();
  addReferences(r.references, references);

  const rows: AffectedEntry[] = [];
  for (const conf of arr(r.configurations)) {
    if (!isObj(conf)) continue;
    for (const node of arr(conf.nodes)) walkNode(node, "cpeMatch", "criteria", rows, 0);
  }

  const kevDate = str(r.cisaExploitAdd);

  return {
    cve_id: id,
    state: r.vulnStatus === "Rejected" ? "REJECTED" : "PUBLISHED",
    modified: normalizeTimestamp(r.lastModified),
    published: normalizeTimestamp(r.published),
    description: pickEnglish(r.descriptions),
    cvss,
    cwes: [...cwes],
    affected: dedupeRows(rows),
    references: [...references],
    kev: kevDate === null ? null : { date_added: kevDate.slice(0, 10), reference: null },
    assigner: str(r.sourceIdentifier),
  };
}

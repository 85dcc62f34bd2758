/**
 * CVE JSON 5 parser (CVE Record Format 5.0 / 5.1 / 5.2, and the CNA submission form whose
 * `cveMetadata` holds only `cveId`): one record → one `CveContribution` (or `{ reserved }`).
 *
 * Pure and allocation-light: it walks the parsed JSON once, never clones it, and only uses a few
 * precompiled regular expressions on short strings (CVE id, CWE id).
 *
 * Decisions (see also the field comments in ./types.ts):
 * - State: PUBLISHED / REJECTED kept; RESERVED → `{ reserved: cveId }`; a missing state (the
 *   submission form) is PUBLISHED; anything else is a RecordError.
 * - Description: the CNA's `en` one, else `en-*` (en-US…), else the first; when the CNA has none
 *   (REJECTED records) the same choice among `rejectedReasons`.
 * - Dates are normalised to ISO 8601 UTC with milliseconds (`2024-04-12T07:20:00.707Z`); CVE 5
 *   timestamps without a zone (older MITRE records) are UTC by the schema.
 * - CVSS: `cvssV4_0`, `cvssV3_1`, `cvssV3_0`, `cvssV2_0` of the CNA (origin "cna", provider = CNA
 *   short name) and of every ADP (origin "adp", provider = that ADP's short name); metrics without
 *   a numeric `baseScore` are skipped; severity is `baseSeverity` lower-cased (null for CVSS 2.0,
 *   which has none in CVE 5).
 * - CWEs: `problemTypes[].descriptions[].cweId` of CNA and ADPs, else a leading "CWE-nnn" in the
 *   `description` text; deduplicated, CNA first. "CWE-noinfo"-like values are dropped.
 * - SSVC / KEV: the first `metrics[].other` of type "ssvc" / "kev", looking at the ADPs first then
 *   the CNA. SSVC values are lower-cased ("Active" → "active"). `kev.date_added` is YYYY-MM-DD.
 *   Both are `null` when the record carries none.
 * - Affected rows: see `collectAffected`.
 */
import { cpe22UriTo23, parseCpe } from "../matching/cpe.js";
import type { AffectedEntry, Origin } from "../matching/affected.js";
import { compareVersions } from "../matching/version.js";
import { RecordError, type CveContribution, type CvssMetric, type RecordMesure } from "./types.js";

type Obj = Record<string, unknown>;

const EMPTY: readonly unknown[] = Object.freeze([]);
const CVE_ID_RE = /^CVE-\d{4}-\d{4,}$/;
const CWE_ID_RE = /^CWE-\d+$/;
const CWE_PREFIX_RE = /^CWE-(\d+)/i;

/** @internal shared with ./nvd.ts */
export function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** @internal shared with ./nvd.ts */
export function arr(v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : EMPTY;
}

/** A trimmed non-empty string, or null. @internal shared with ./nvd.ts */
export function str(v: unknown): string | null {
  if (typeof v !== "string") return null;
  const t = v.trim();
  return t === "" ? null : t;
}

/** A finite number (JSON number or numeric string), or null. @internal */
export function num(v: unknown): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v === "string" && v.trim() !== "") {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

/** @internal */
export function isCveId(id: string): boolean {
  return CVE_ID_RE.test(id);
}

/**
 * ISO 8601 UTC timestamp with milliseconds (`2024-04-12T07:20:00.707Z`), or null when absent or
 * unparseable. Timestamps without a zone designator (CVE 5 `2024-05-02T21:17:22.890858`, NVD 2.0
 * `2024-04-12T08:15:06.230`) are taken as UTC, which is what both sources mean; NVD 1.1's
 * `2018-04-19T20:29Z` gains seconds. Already-canonical values are returned as they are.
 */
export function normalizeTimestamp(v: unknown): string | null {
  const s = str(v);
  if (s === null) return null;
  // Fast paths for the shapes the feeds use (no Date allocation): "YYYY-MM-DDTHH:MM" followed by
  //   ".sss" + "Z" (CVE 5) · ":SS.sss" (NVD 2.0) · "Z" (NVD 1.1) · ":SS" / ":SSZ".
  if (s.length >= 17 && isDateTimeMinutes(s)) {
    switch (s.length) {
      case 24:
        if (s.charCodeAt(23) === 90 /* Z */ && isSecondsMillis(s)) return s;
        break;
      case 23:
        if (isSecondsMillis(s)) return s + "Z";
        break;
      case 17:
        if (s.charCodeAt(16) === 90 /* Z */) return s.slice(0, 16) + ":00.000Z";
        break;
      case 19:
        if (isSeconds(s)) return s + ".000Z";
        break;
      case 20:
        if (isSeconds(s) && s.charCodeAt(19) === 90 /* Z */) return s.slice(0, 19) + ".000Z";
        break;
    }
  }
  let input = s;
  const t = s.indexOf("T");
  if (t > 0) {
    const last = s.charCodeAt(s.length - 1);
    const hasZone =
      last === 90 /* Z */ ||
      last === 122 /* z */ ||
      // +hh:mm / -hh:mm / +hhmm after the time part
      /[+-]\d{2}:?\d{2}$/.test(s.slice(t));
    if (!hasZone) input = s + "Z";
  }
  const ms = Date.parse(input);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

function isDigit(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c >= 48 && c <= 57;
}

/** "YYYY-MM-DDTHH:MM" at the start of s. */
function isDateTimeMinutes(s: string): boolean {
  return (
    isDigit(s, 0) &&
    isDigit(s, 1) &&
    isDigit(s, 2) &&
    isDigit(s, 3) &&
    s.charCodeAt(4) === 45 &&
    isDigit(s, 5) &&
    isDigit(s, 6) &&
    s.charCodeAt(7) === 45 &&
    isDigit(s, 8) &&
    isDigit(s, 9) &&
    s.charCodeAt(10) === 84 &&
    isDigit(s, 11) &&
    isDigit(s, 12) &&
    s.charCodeAt(13) === 58 &&
    isDigit(s, 14) &&
    isDigit(s, 15)
  );
}

/** ":SS" at 16..18. */
function isSeconds(s: string): boolean {
  return s.charCodeAt(16) === 58 && isDigit(s, 17) && isDigit(s, 18);
}

/** ":SS.sss" at 16..22. */
function isSecondsMillis(s: string): boolean {
  return isSeconds(s) && s.charCodeAt(19) === 46 && isDigit(s, 20) && isDigit(s, 21) && isDigit(s, 22);
}

/** CVE 5 / NVD `[{lang, value}]`: the `en` value, else the first `en-*`, else the first. @internal */
export function pickEnglish(list: unknown): string | null {
  let enVariant: string | null = null;
  let first: string | null = null;
  for (const d of arr(list)) {
    if (!isObj(d)) continue;
    const value = str(d.value);
    if (value === null) continue;
    const lang = typeof d.lang === "string" ? d.lang : "";
    if (lang.length === 2) {
      if (lang === "en" || lang.toLowerCase() === "en") return value;
    } else if (
      enVariant === null &&
      lang.length > 3 &&
      (lang.charCodeAt(2) === 45 /* - */ || lang.charCodeAt(2) === 95) /* _ */ &&
      lang.slice(0, 2).toLowerCase() === "en"
    ) {
      enVariant = value;
    }
    if (first === null) first = value;
  }
  return enVariant ?? first;
}

/** Add a URL list (`[{url}]`) to a set. @internal */
export function addReferences(list: unknown, into: Set<string>): void {
  for (const r of arr(list)) {
    if (!isObj(r)) continue;
    const url = str(r.url);
    if (url !== null) into.add(url);
  }
}

/** "CWE-79" (or "cwe-79") → "CWE-79"; anything else → null. @internal */
export function cweOrNull(v: string): string | null {
  if (CWE_ID_RE.test(v)) return v;
  const m = CWE_PREFIX_RE.exec(v);
  return m !== null && m[0].length === v.length ? "CWE-" + m[1] : null;
}

const CVSS_KEYS = [
  ["cvssV4_0", "4.0"],
  ["cvssV3_1", "3.1"],
  ["cvssV3_0", "3.0"],
  ["cvssV2_0", "2.0"],
] as const;

function collectCvss(metrics: unknown, origin: Origin, provider: string | null, out: CvssMetric[]): void {
  for (const m of arr(metrics)) {
    if (!isObj(m)) continue;
    for (const [key, version] of CVSS_KEYS) {
      const c = m[key];
      if (!isObj(c)) continue;
      const score = num(c.baseScore);
      if (score === null) continue;
      const sev = str(c.baseSeverity);
      out.push({
        version,
        score,
        vector: str(c.vectorString),
        severity: sev === null ? null : sev.toLowerCase(),
        origin,
        provider,
      });
    }
  }
}

function collectCwes(problemTypes: unknown, into: Set<string>): void {
  for (const pt of arr(problemTypes)) {
    if (!isObj(pt)) continue;
    for (const d of arr(pt.descriptions)) {
      if (!isObj(d)) continue;
      const id = str(d.cweId);
      if (id !== null) {
        const cwe = cweOrNull(id);
        if (cwe !== null) into.add(cwe);
        continue;
      }
      const text = str(d.description);
      if (text === null) continue;
      const m = CWE_PREFIX_RE.exec(text);
      if (m !== null) into.add("CWE-" + m[1]);
    }
  }
}

/** Find the first `metrics[].other` of the given type in a container; returns its `content`. */
function findOther(metrics: unknown, type: string): Obj | null {
  for (const m of arr(metrics)) {
    if (!isObj(m)) continue;
    const o = m.other;
    if (isObj(o) && o.type === type && isObj(o.content)) return o.content;
  }
  return null;
}

function parseSsvc(content: Obj): NonNullable<CveContribution["ssvc"]> {
  let exploitation: string | null = null;
  let automatable: string | null = null;
  let technical_impact: string | null = null;
  for (const opt of arr(content.options)) {
    if (!isObj(opt)) continue;
    for (const k in opt) {
      const v = str(opt[k]);
      if (v === null) continue;
      const key = k.toLowerCase();
      if (key === "exploitation") exploitation = v.toLowerCase();
      else if (key === "automatable") automatable = v.toLowerCase();
      else if (key === "technical impact" || key === "technical_impact" || key === "technicalimpact") technical_impact = v.toLowerCase();
    }
  }
  return { exploitation, automatable, technical_impact };
}

// ---------------------------------------------------------------------------------------------
// Affected

const NO_CPE: readonly (string | null)[] = Object.freeze([null]);

/** A CPE as found in `cpes[]` → CPE 2.3 formatted string (2.2 URIs are converted), or null. */
function toCpe23(v: unknown): string | null {
  const s = str(v);
  if (s === null) return null;
  if (s.startsWith("cpe:2.3:")) return s;
  if (s.startsWith("cpe:/")) return cpe22UriTo23(s);
  return null;
}

/**
 * The CPEs of one product entry, one per distinct product identity (vendor:product; the part a/o/h is
 * ignored, Red Hat gives the same product as "o" and "a"): the
 * first CPE of each identity, in source order. `[null]` when the entry has none.
 */
function entryCpes(cpes: unknown): readonly (string | null)[] {
  const list = arr(cpes);
  if (list.length === 0) return NO_CPE;
  if (list.length === 1) {
    const c = toCpe23(list[0]);
    return c === null ? NO_CPE : [c];
  }
  const out: string[] = [];
  const identities = new Set<string>();
  for (const raw of list) {
    const c = toCpe23(raw);
    if (c === null) continue;
    const p = parseCpe(c);
    const identity = p === null ? c : p.vendor + ":" + p.product;
    if (identities.has(identity)) continue;
    identities.add(identity);
    out.push(c);
  }
  return out.length === 0 ? NO_CPE : out;
}

/**
 * Version strings that carry no lower bound (compared lower-cased): "0", "*", "-", "n/a",
 * "unspecified", "unknown", "?", and the free-text "all (versions|releases)", "any (version)",
 * "various", "multiple versions", "earlier (version(s))", "previous versions", "early versions",
 * "vers:all/*" seen in real records; also an absent/empty version. With an upper bound they mean
 * "from the beginning"; alone they mean "no version constraint" (both bounds null).
 * Other free text ("See references", "FortiOS 6.0.2, 5.6.7 and before…") is kept as written.
 */
const OPEN_LOWER = new Set([
  "0",
  "*",
  "-",
  "n/a",
  "na",
  "unspecified",
  "unknown",
  "?",
  "all",
  "all versions",
  "all releases",
  "any",
  "any version",
  "various",
  "multiple versions",
  "earlier",
  "earlier version",
  "earlier versions",
  "previous versions",
  "early versions",
  "vers:all/*",
]);

function isOpenLower(v: string | null): boolean {
  if (v === null) return true;
  const c0 = v.charCodeAt(0);
  if (c0 >= 49 && c0 <= 57) return false; // starts with 1-9: a real version (fast path)
  if (OPEN_LOWER.has(v)) return true;
  return v.length <= 17 && OPEN_LOWER.has(v.toLowerCase());
}

/**
 * A wildcard version ("2.x", "6.1.*", "5.4.*"): its fixed prefix ("2", "6.1", "5.4") and the first
 * version after the series ("3", "6.2", "5.5"), or null when the string is no such pattern.
 */
function wildcard(v: string): { prefix: string; next: string } | null {
  const m = /^v?(\d+(?:\.\d+)*)(?:\.[x*])+$/i.exec(v);
  if (m === null) return null;
  const parts = m[1]!.split(".");
  const last = parts.length - 1;
  parts[last] = String(Number(parts[last]) + 1);
  return { prefix: m[1]!, next: parts.join(".") };
}

/**
 * An upper bound: trimmed, a stray leading "<" / "<=" operator removed ("< 4.3.1" → "4.3.1"). A
 * wildcard bound closes a release series: `lessThan: "2.426.*"` (Jenkins: unaffected from 2.426.3
 * to the end of the 2.426 line) and `lessThanOrEqual: "5.4.*"` (Linux) both end before 2.427 /
 * 5.5, exclusive. Returns the bound and whether it is inclusive.
 */
function upperBound(v: unknown, inclusive: boolean): { to: string; inclusive: boolean } | null {
  let s = str(v);
  if (s !== null && s.charCodeAt(0) === 60 /* < */) s = str(s.slice(s.charCodeAt(1) === 61 /* = */ ? 2 : 1));
  if (s === null) return null;
  s = esxiPatch(s) ?? s;
  const w = wildcard(s);
  return w === null ? { to: s, inclusive } : { to: w.next, inclusive: false };
}

/** VMware ESXi image names ("ESXi80U2sb-23305545"): release digits, update, patch letter ("s" first: security-only image). */
const ESXI_PATCH = /^esxi(\d)(\d)(?:u(\d+)(?:s?([a-z]))?)?-\d+$/i;

/**
 * The update an ESXi image name designates, written as VMware's other bounds are: "ESXi80U2sb-23305545"
 * → "8.0 U2b" (the security-only image of 8.0 Update 2b), "ESXi70U3p-23307199" → "7.0 U3p",
 * "ESXi80U3-24022510" → "8.0 U3". Null for anything else. As written, the name compares below
 * every "8.0 U…" version (it starts with letters): no ESXi update was ever in its range.
 */
export function esxiPatch(v: string): string | null {
  const m = ESXI_PATCH.exec(v);
  if (m === null) return null;
  return `${m[1]}.${m[2]}${m[3] === undefined ? "" : ` U${m[3]}${(m[4] ?? "").toLowerCase()}`}`;
}

/** "8.0 U2d", "8.0U2", "7.0 Update 3q", "6.5_u3r": the release, the update number and its patch letters. */
const UPDATE_STYLE = /^(\d+(?:\.\d+)*)[\s_-]*(?:u|update)[\s_]*(\d+)([a-z]*)$/i;

/**
 * VMware bounds each update line of a release from the release itself: vCenter 8.0 is affected in
 * [8.0, 8.0 U1e[ and in [8.0, 8.0 U2d[, i.e. before U1e in the U1 line and before U2d in the U2
 * line — read literally, the second range holds 8.0 U1e, which the first says is fixed. When several
 * ranges of one entry start at the same release and end at patches of different updates of it,
 * each but the lowest update starts at its own line ([8.0 U2, 8.0 U2d[). Returns, by index in
 * `versions`, the lower bound to use instead.
 */
function updateLines(versions: readonly unknown[]): Map<number, string> {
  const out = new Map<number, string>();
  const groups = new Map<string, { i: number; base: string; update: number; letters: string }[]>();
  versions.forEach((v, i) => {
    if (!isObj(v)) return;
    const from = str(v.version);
    const upper = upperBound(v.lessThan, false) ?? upperBound(v.lessThanOrEqual, true);
    const m = upper === null || from === null ? null : UPDATE_STYLE.exec(upper.to);
    if (m === null || compareVersions(m[1]!, from!) !== 0) return;
    const key = from!.toLowerCase();
    groups.set(key, [...(groups.get(key) ?? []), { i, base: m[1]!, update: Number(m[2]), letters: m[3]! }]);
  });
  for (const lines of groups.values()) {
    const lowest = Math.min(...lines.map((l) => l.update));
    for (const l of lines) if (l.update > lowest && l.letters !== "") out.set(l.i, `${l.base} U${l.update}`);
  }
  return out;
}

/** A part of a version range with one status. */
interface Segment {
  from: string | null;
  fromInclusive: boolean;
  to: string | null;
  toInclusive: boolean;
  status: string;
}

/** A version `changes[].at` can be placed at: it starts with a digit (or v + digit). */
const PLACEABLE = /^[vV]?\d/;

/**
 * CVE 5 `changes` within a range, as the schema defines them: the range has its `status` from its
 * start, and the status becomes each change's at its `at` version, in version order (the schema
 * tells readers to sort them), until the end of the range. F5 writes [15.1.0, 15.2[ affected with
 * a change to unaffected at 15.1.10: [15.1.0, 15.1.10[ affected, [15.1.10, 15.2[ unaffected (for a
 * run of changes to one status, see `backports`). A change outside the range (Patchstack repeats the fix after `lessThanOrEqual`, PAN-OS at
 * `lessThan`) or at a version that is not one ("+security-01", a commit) changes nothing.
 */
export function splitByChanges(range: Segment, changes: unknown): Segment[] {
  const steps: { at: string; status: string }[] = [];
  for (const c of arr(changes)) {
    if (!isObj(c)) continue;
    const at = str(c.at);
    const status = str(c.status);
    if (at === null || status === null || !PLACEABLE.test(at)) continue;
    if (range.from !== null && compareVersions(at, range.from) < 0) continue;
    if (range.to !== null) {
      const end = compareVersions(at, range.to);
      if (end > 0 || (end === 0 && !range.toInclusive)) continue;
    }
    steps.push({ at, status });
  }
  if (steps.length === 0) return [range];
  steps.sort((a, b) => compareVersions(a.at, b.at));
  const events = backports(steps, range.status).filter((e) => {
    if (range.to === null) return true;
    const end = compareVersions(e.at, range.to);
    return end < 0 || (end === 0 && range.toInclusive);
  });
  const out: Segment[] = [];
  let from = range.from;
  let fromInclusive = range.fromInclusive;
  let status = range.status;
  for (const step of events) {
    if (step.status === status) continue;
    if (from === null || compareVersions(from, step.at) !== 0) out.push({ from, fromInclusive, to: step.at, toInclusive: false, status });
    from = step.at;
    fromInclusive = true;
    status = step.status;
  }
  out.push({ from, fromInclusive, to: range.to, toInclusive: range.toInclusive, status });
  return out;
}

/** The first version after the release line of a version with three parts or more (1.14.13 → 1.15), else null. */
function lineEnd(v: string): string | null {
  const m = /^v?(\d+)\.(\d+)\.\d/i.exec(v);
  return m === null ? null : `${m[1]}.${Number(m[2]) + 1}`;
}

/**
 * Changes (sorted) → status events. A run of changes to one status (HashiCorp: unaffected at
 * 1.14.13 and at 1.15.9 in [0.11.0, 1.16.2[) read one after the other says nothing past its first
 * change; vendors write them for fixes backported to each release line. So each change of such a
 * run holds until the end of its line (1.14.13 → 1.15), where the status before the run resumes.
 */
function backports(steps: { at: string; status: string }[], initial: string): { at: string; status: string }[] {
  const events: { at: string; status: string }[] = [];
  let current = initial;
  for (let i = 0; i < steps.length; ) {
    let j = i;
    while (j + 1 < steps.length && steps[j + 1]!.status === steps[i]!.status) j++;
    if (j === i) events.push(steps[i]!);
    else
      for (let k = i; k <= j; k++) {
        events.push(steps[k]!);
        const end = lineEnd(steps[k]!.at);
        const next = steps[k + 1]?.at ?? null;
        if (end !== null && (next === null || compareVersions(end, next) < 0)) events.push({ at: end, status: current });
      }
    current = events.at(-1)!.status;
    i = j + 1;
  }
  return events;
}

/** A range read from a `version` string that states one. Bounds null = unbounded. */
export interface VersionExpr {
  from: string | null;
  fromInclusive: boolean;
  to: string | null;
  toInclusive: boolean;
}

/** A version token in an expression: starts with a digit, or v/V then a digit (Siemens "V4.5 HF1"). */
const VTOKEN = String.raw`[vV]?\d[^\s,;&<>=]*(?:\s+(?:HF|SP|Update|Patch|Build|UC)\s*\d+)*`;
const OP_RE = new RegExp(String.raw`(<=|=<|>=|=>|<|>|=)\s*(${VTOKEN})`, "g");
/** "5.5.58 and prior", "7.2.26 and earlier (versions)", "2.8.3 or earlier", "4.0 and below". */
const AND_EARLIER = new RegExp(String.raw`^(${VTOKEN})\s+(?:and|or)\s+(?:prior|earlier|below|lower)(?:\s+versions?)?$`, "i");
/** "prior to 5.0.32", "before 7.0", "before version 7.0", "through 8.1.0", "up to 3.2", "prior to and including 2.1". */
const BEFORE = new RegExp(
  String.raw`^(prior\s+to\s+and\s+including|prior\s+to|before|through|up\s+to)\s+(?:versions?\s+|ver\.?\s*)?(${VTOKEN})$`,
  "i",
);
/** A version and nothing else: no operator, no space, no trailing wildcard. */
const PLAIN_VERSION = /^[vV]?\d[\w.+~:-]*(?<![.][xX*])$/;
/** "1.0 through 2.3" (both included). */
const THROUGH = new RegExp(String.raw`^(${VTOKEN})\s+(?:through|to)\s+(${VTOKEN})$`, "i");
/** Words before the expression that say nothing more: "All versions", "Versions", "firmware ver.". */
const LEAD = /^(?:all\s+)?(?:firmware\s+)?(?:versions?\b|ver\.?)?\s*/i;
/** "5.0.0 <= version < 5.15.7". */
const BETWEEN = new RegExp(String.raw`^(${VTOKEN})\s*(<=|<)\s*versions?\s*(<=|<)\s*(${VTOKEN})$`, "i");

/**
 * The range a CVE 5 `version` string states when a CNA wrote an expression instead of a version
 * (no `lessThan`): "< 1.4.2", "<= 3.0", ">= 2.0, < 2.5", ">=10.4, < 10.6.2", "> 0.11.0, < 2.9.17",
 * ">= 7.20.2", "= 2.39.0", "2.x", "6.1.*", "All versions < V01.01.01" (Siemens), "5.5.58 and prior",
 * "prior to 5.0.32", "before 7.0", "through 8.1.0", "5.0.0 <= version < 5.15.7". Null for a plain
 * version, and for anything else: an expression with a label ("stable < 3.0.5", "Tuleap Community
 * Edition < 14.10") or a commit ("< c40665f…") is kept as written (it then matches nothing).
 */
export function versionExpression(raw: string): VersionExpr | null {
  const t = raw.trim();
  // Fast path: a plain version (most of them: "5.4.189", "10.2.9-h1") states no range.
  if (PLAIN_VERSION.test(t)) return null;
  const s = t.replace(LEAD, "") || t;
  const w = wildcard(s);
  if (w !== null) return { from: w.prefix, fromInclusive: true, to: w.next, toInclusive: false };
  let m = AND_EARLIER.exec(s);
  if (m !== null) return { from: null, fromInclusive: false, to: m[1]!, toInclusive: true };
  m = BEFORE.exec(s);
  if (m !== null) {
    const inclusive = /^(through|up|prior\s+to\s+and)/i.test(m[1]!);
    return { from: null, fromInclusive: false, to: m[2]!, toInclusive: inclusive };
  }
  m = THROUGH.exec(s);
  if (m !== null) return { from: m[1]!, fromInclusive: true, to: m[2]!, toInclusive: true };
  m = BETWEEN.exec(s);
  if (m !== null) return { from: m[1]!, fromInclusive: m[2] === "<=", to: m[4]!, toInclusive: m[3] === "<=" };
  if (!/[<>=]/.test(s)) return null;
  const body = s;
  const out: VersionExpr = { from: null, fromInclusive: false, to: null, toInclusive: false };
  let rest = body;
  let any = false;
  for (const op of body.matchAll(OP_RE)) {
    any = true;
    rest = rest.replace(op[0], "");
    const v = op[2]!;
    switch (op[1]) {
      case "<":
        out.to = v;
        out.toInclusive = false;
        break;
      case "<=":
      case "=<":
        out.to = v;
        out.toInclusive = true;
        break;
      case ">":
        out.from = v;
        out.fromInclusive = false;
        break;
      case ">=":
      case "=>":
        out.from = v;
        out.fromInclusive = true;
        break;
      case "=":
        out.from = v;
        out.to = v;
        out.fromInclusive = out.toInclusive = true;
        break;
    }
  }
  // Only separators may remain: anything else is a label or a second product we cannot place.
  if (!any || !/^[\s,;&|]*$/.test(rest)) return null;
  return out;
}

function rowKey(r: AffectedEntry): string {
  return (
    r.origin +
    "\u0000" +
    r.vendor +
    "\u0000" +
    r.product +
    "\u0000" +
    r.cpe +
    "\u0000" +
    r.version_from +
    "\u0000" +
    (r.version_from_inclusive ? 1 : 0) +
    "\u0000" +
    r.version_to +
    "\u0000" +
    (r.version_to_inclusive ? 1 : 0) +
    "\u0000" +
    r.version_status +
    "\u0000" +
    r.version_type +
    "\u0000" +
    r.default_status
  );
}

/**
 * `affected[]` of one container → rows, one per `versions[]` item × distinct CPE product identity (vendor:product)
 * (see `entryCpes`; entries without CPEs give `cpe: null`):
 * - `version` + `lessThan` → [version, lessThan)  ·  `version` + `lessThanOrEqual` → [version, lte];
 *   `lessThan` wins when both are given; an upper bound of "*" means unbounded (null).
 * - a lower `version` of "0", "*", "-", "n/a", "unspecified" (see `isOpenLower`) with an upper
 *   bound → unbounded lower bound (null); alone → no version constraint (both bounds null).
 * - a lone concrete `version` → from = to = version, both inclusive.
 * - an entry without `versions` → one row with null bounds and status = defaultStatus ?? "unknown".
 * - `changes[]` split a range where its status changes (see `splitByChanges`; not for git
 *   commits); null bounds have `*_inclusive: false`.
 * - an ESXi image name as a bound reads as its update (`esxiPatch`); ranges of one release's
 *   update lines start at their own line (`updateLines`).
 * - product = `product`, else `packageName` (e.g. the OpenSSH entry of CVE-2024-6387).
 * Exact duplicate rows (Red Hat lists some products twice) are dropped.
 */
function collectAffected(list: unknown, origin: Origin, out: AffectedEntry[], seen: Set<string>): void {
  for (const a of arr(list)) {
    if (!isObj(a)) continue;
    const vendor = str(a.vendor);
    const product = str(a.product) ?? str(a.packageName);
    const defaultStatus = str(a.defaultStatus);
    const cpes = entryCpes(a.cpes);
    const versions = arr(a.versions);
    if (versions.length === 0) {
      for (const cpe of cpes) {
        push(out, seen, {
          origin,
          vendor,
          product,
          cpe,
          version_from: null,
          version_from_inclusive: false,
          version_to: null,
          version_to_inclusive: false,
          version_status: defaultStatus ?? "unknown",
          version_type: null,
          default_status: defaultStatus,
        });
      }
      continue;
    }
    // Oracle writes one "5.5.58 and prior" per supported series: with several such open-ended
    // expressions in one entry, each starts at its own series (5.5.58 → [5.5, 5.5.58]).
    let openEnded = 0;
    if (versions.length > 1)
      for (const v of versions) {
        const e = isObj(v) && v.lessThan === undefined && v.lessThanOrEqual === undefined ? versionExpression(str(v.version) ?? "") : null;
        if (e !== null && e.from === null && e.to !== null) openEnded++;
      }
    const lines = versions.length > 1 ? updateLines(versions) : null;
    for (const [index, v] of versions.entries()) {
      if (!isObj(v)) continue;
      const version = lines?.get(index) ?? str(v.version);
      const upper = upperBound(v.lessThan, false) ?? upperBound(v.lessThanOrEqual, true);
      let from: string | null;
      let fromInclusive: boolean;
      let to: string | null;
      let toInclusive: boolean;
      const expr = upper === null && version !== null ? versionExpression(version) : null;
      if (upper !== null) {
        from = isOpenLower(version) ? null : version;
        // A wildcard start ("4.3.*" < 4.3.6) is the series' first version.
        if (from !== null) from = wildcard(from)?.prefix ?? esxiPatch(from) ?? from;
        fromInclusive = from !== null;
        to = upper.to === "*" ? null : upper.to;
        toInclusive = to !== null && upper.inclusive;
      } else if (expr !== null) {
        ({ from, fromInclusive, to, toInclusive } = expr);
        const series = openEnded > 1 && from === null && to !== null ? /^(\d+\.\d+)\.\d/.exec(to) : null;
        if (series !== null) {
          from = series[1]!;
          fromInclusive = true;
        }
      } else if (isOpenLower(version)) {
        from = null;
        fromInclusive = false;
        to = null;
        toInclusive = false;
      } else {
        from = version;
        fromInclusive = true;
        to = version;
        toInclusive = true;
      }
      const status = str(v.status) ?? "unknown";
      const versionType = str(v.versionType);
      const range: Segment = { from, fromInclusive, to, toInclusive, status };
      const segments = upper !== null && v.changes !== undefined && versionType !== "git" ? splitByChanges(range, v.changes) : [range];
      for (const cpe of cpes) {
        for (const seg of segments) {
          push(out, seen, {
            origin,
            vendor,
            product,
            cpe,
            version_from: seg.from,
            version_from_inclusive: seg.fromInclusive,
            version_to: seg.to,
            version_to_inclusive: seg.toInclusive,
            version_status: seg.status,
            version_type: versionType,
            default_status: defaultStatus,
          });
        }
      }
    }
  }
}

function push(out: AffectedEntry[], seen: Set<string>, row: AffectedEntry): void {
  const key = rowKey(row);
  if (seen.has(key)) return;
  seen.add(key);
  out.push(row);
}

// ---------------------------------------------------------------------------------------------

/**
 * True for the `{ reserved: cveId }` result of a RESERVED record. Do not test with
 * `"reserved" in result`: a `CveContribution` has a `reserved` field too (its dateReserved).
 */
export function isReserved(r: CveContribution | { reserved: string }): r is { reserved: string } {
  return !("cve_id" in r);
}

function fail(msg: string): never {
  throw new RecordError("not a CVE JSON 5 record: " + msg);
}

/**
 * Parse one CVE JSON 5 record. Returns `{ reserved: cveId }` for a RESERVED record.
 * Throws `RecordError` when the value is not a CVE JSON 5 record.
 */
export function parseCve5(record: unknown): CveContribution | { reserved: string } {
  if (!isObj(record)) fail("not a JSON object");
  const meta = record.cveMetadata;
  if (!isObj(meta)) fail("missing cveMetadata");
  const cveId = str(meta.cveId);
  if (cveId === null) fail("missing cveMetadata.cveId");
  if (!CVE_ID_RE.test(cveId)) fail(`bad cveId "${cveId}"`);
  if (record.dataType !== undefined && record.dataType !== "CVE_RECORD") fail(`dataType "${String(record.dataType)}"`);
  const dataVersion = record.dataVersion;
  if (dataVersion !== undefined && !(typeof dataVersion === "string" && dataVersion.startsWith("5."))) {
    fail(`${cveId}: unsupported dataVersion "${String(dataVersion)}"`);
  }

  const rawState = meta.state;
  let state: "PUBLISHED" | "REJECTED";
  if (rawState === undefined)
    state = "PUBLISHED"; // submission form: cveMetadata = { cveId }
  else if (rawState === "PUBLISHED" || rawState === "REJECTED") state = rawState;
  else if (rawState === "RESERVED") return { reserved: cveId };
  else fail(`${cveId}: unknown state "${String(rawState)}"`);

  const containers = record.containers;
  if (!isObj(containers)) fail(`${cveId}: missing containers`);
  const cna = containers.cna;
  if (!isObj(cna)) fail(`${cveId}: missing containers.cna`);
  const adps = arr(containers.adp);

  const cnaMeta = isObj(cna.providerMetadata) ? cna.providerMetadata : null;
  const assigner = str(meta.assignerShortName);
  const cnaProvider = (cnaMeta !== null ? str(cnaMeta.shortName) : null) ?? assigner;

  const cvss: CvssMetric[] = [];
  const cwes = new Set<string>();
  const references = new Set<string>();
  const affected: AffectedEntry[] = [];
  const seen = new Set<string>();

  collectCvss(cna.metrics, "cna", cnaProvider, cvss);
  collectCwes(cna.problemTypes, cwes);
  addReferences(cna.references, references);
  collectAffected(cna.affected, "cna", affected, seen);
  const mesures: RecordMesure[] = [];
  collectMesures(cna, cnaProvider ?? "CNA", cveId, mesures);

  let kevContent: Obj | null = null;
  let ssvcContent: Obj | null = null;
  for (const adp of adps) {
    if (!isObj(adp)) continue;
    const pm = adp.providerMetadata;
    const provider = isObj(pm) ? str(pm.shortName) : null;
    collectCvss(adp.metrics, "adp", provider, cvss);
    collectCwes(adp.problemTypes, cwes);
    addReferences(adp.references, references);
    collectAffected(adp.affected, "adp", affected, seen);
    collectMesures(adp, provider ?? "ADP", cveId, mesures);
    kevContent ??= findOther(adp.metrics, "kev");
    ssvcContent ??= findOther(adp.metrics, "ssvc");
  }
  kevContent ??= findOther(cna.metrics, "kev");
  ssvcContent ??= findOther(cna.metrics, "ssvc");

  let kev: CveContribution["kev"] = null;
  if (kevContent !== null) {
    const dateAdded = str(kevContent.dateAdded);
    if (dateAdded !== null) kev = { date_added: dateAdded.slice(0, 10), reference: str(kevContent.reference) };
  }

  return {
    cve_id: cveId,
    state,
    modified: normalizeTimestamp(meta.dateUpdated) ?? (cnaMeta !== null ? normalizeTimestamp(cnaMeta.dateUpdated) : null),
    published: normalizeTimestamp(meta.datePublished),
    reserved: normalizeTimestamp(meta.dateReserved),
    description: pickEnglish(cna.descriptions) ?? pickEnglish(cna.rejectedReasons),
    cvss,
    cwes: [...cwes],
    affected,
    references: [...references],
    kev,
    ssvc: ssvcContent === null ? null : parseSsvc(ssvcContent),
    assigner: assigner ?? cnaProvider,
    ...(mesures.length ? { mesures } : {}),
  };
}

/** The notice the CVE Terms of Use ask to reproduce with CVE content (https://www.cve.org/Legal/TermsOfUse). */
export const CVE_ATTRIBUTION =
  "CVE® content © The MITRE Corporation, reproduced under the CVE Program Terms of Use; CVE is a registered trademark of The MITRE Corporation.";

/**
 * A container's `workarounds` (contournement) and `solutions` (correctif), each entry's English
 * text (else its first), credited to the container's provider: those a vendor publishes in its own
 * record (CVE-2024-3400: the Threat Prevention IDs) are interim measures beside CERT-FR's.
 */
function collectMesures(container: Obj, provider: string, cveId: string, into: RecordMesure[]): void {
  const pm = isObj(container.providerMetadata) ? container.providerMetadata : null;
  const date = pm !== null ? normalizeTimestamp(pm.dateUpdated) : null;
  for (const [field, categorie] of [
    ["workarounds", "contournement"],
    ["solutions", "correctif"],
  ] as const) {
    const list = arr(container[field]).filter(isObj);
    const english = list.filter((e) => typeof e.lang === "string" && e.lang.toLowerCase().startsWith("en"));
    for (const e of english.length ? english : list.slice(0, 1)) {
      const texte = str(e.value);
      if (!texte) continue;
      into.push({
        source: provider,
        reference: cveId,
        categorie,
        attribution: CVE_ATTRIBUTION,
        date: date ? date.slice(0, 10) : null,
        url: `https://www.cve.org/CVERecord?id=${cveId}`,
        texte,
        lien_seulement: false,
        produits: [],
      });
    }
  }
}

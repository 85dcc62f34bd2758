/**
 * CPE helpers shared by the feed parsers and the matcher.
 *
 * - `parseCpe23`: CPE 2.3 *formatted string* binding (NISTIR 7695 §6.2), e.g.
 *   `cpe:2.3:o:cisco:ios_xe:15.6\(2\)sp:*:*:*:*:*:*:*`.
 * - `parseCpe22Uri` / `cpe22UriTo23`: CPE 2.2 *URI* binding (NISTIR 7695 §6.1), e.g.
 *   `cpe:/o:redhat:enterprise_linux:9::baseos`, as some CVE 5 CNAs (Red Hat) still write them.
 * - `formatCpe23`: bind parsed attributes back to a formatted string.
 * - `normalizeName`: CPE-style form of a vendor/product display name.
 *
 * Attribute values returned by the parsers are *unescaped* (`15.6\(2\)sp` → `15.6(2)sp`,
 * `archive\:\:tar` → `archive::tar`). The logical values keep their one-character forms:
 * `"*"` = ANY, `"-"` = NA. Unquoted `*` / `?` inside a value (wildcards, not used by NVD
 * dictionary names) are kept as they are. Known limitation: a *quoted* single `\*` or `\-`
 * value is indistinguishable from ANY/NA after unescaping (never seen in NVD data).
 */

export interface Cpe23 {
  /** "a" (application), "o" (operating system), "h" (hardware), or "*" / "-". */
  part: string;
  vendor: string;
  product: string;
  version: string;
  update: string;
  edition: string;
  language: string;
  sw_edition: string;
  target_sw: string;
  target_hw: string;
  other: string;
}

const CPE23_PREFIX = "cpe:2.3:";
const BACKSLASH = 92; // "\"
const COLON = 58; // ":"

/** Unescape the FS value s[start, end) which is known to contain at least one backslash. */
function unescapeRange(s: string, start: number, end: number): string {
  let out = "";
  let i = start;
  let chunk = start;
  while (i < end) {
    if (s.charCodeAt(i) === BACKSLASH) {
      out += s.slice(chunk, i);
      // the escaped character is kept literally
      out += s[i + 1] ?? "";
      i += 2;
      chunk = i;
    } else {
      i++;
    }
  }
  return out + s.slice(chunk, end);
}

function isValidPart(p: string): boolean {
  return p === "a" || p === "o" || p === "h" || p === "*" || p === "-";
}

/**
 * Parse a CPE 2.3 formatted string (`cpe:2.3:part:vendor:product:version:update:edition:
 * language:sw_edition:target_sw:target_hw:other`). `\` escapes the next character (so `\:` does
 * not split). Returns null when the string is not a well-formed formatted string: wrong prefix,
 * not exactly 11 attributes, an empty attribute, a dangling `\`, or a part other than a/o/h/*\/-.
 * Single pass over the string; substrings are only rebuilt for values that contain escapes.
 */
export function parseCpe23(cpe: string): Cpe23 | null {
  if (typeof cpe !== "string" || !cpe.startsWith(CPE23_PREFIX)) return null;
  const len = cpe.length;
  const values: string[] = [];
  let start = CPE23_PREFIX.length;
  let escaped = false;
  let i = start;
  while (i <= len) {
    const c = i < len ? cpe.charCodeAt(i) : COLON; // virtual ":" at the end
    if (c === BACKSLASH) {
      if (i + 1 >= len) return null; // dangling escape
      escaped = true;
      i += 2;
      continue;
    }
    if (c === COLON) {
      if (i === start) return null; // empty attribute
      if (values.length === 11) return null; // too many attributes
      values.push(escaped ? unescapeRange(cpe, start, i) : cpe.slice(start, i));
      escaped = false;
      start = i + 1;
    }
    i++;
  }
  if (values.length !== 11) return null;
  const [part, vendor, product, version, update, edition, language, sw_edition, target_sw, target_hw, other] = values as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (!isValidPart(part)) return null;
  return { part, vendor, product, version, update, edition, language, sw_edition, target_sw, target_hw, other };
}

/**
 * Just vendor, product and version of a CPE 2.3 formatted string (unescaped), or null when
 * `parseCpe23` would reject the string. For hot loops (the NVD parser meets ~1.5M CPE matches
 * per import): strings without escapes are sliced with `indexOf`, without building the 11
 * attributes.
 */
export function parseCpe23Head(cpe: string): { vendor: string; product: string; version: string } | null {
  if (typeof cpe !== "string" || !cpe.startsWith(CPE23_PREFIX) || cpe.indexOf("\\") !== -1) {
    const p = parseCpe23(cpe);
    return p === null ? null : { vendor: p.vendor, product: p.product, version: p.version };
  }
  // no escapes: every ":" separates attributes; exactly 10 more after the prefix
  const a = cpe.indexOf(":", 8); // end of part
  const b = a === -1 ? -1 : cpe.indexOf(":", a + 1); // end of vendor
  const c = b === -1 ? -1 : cpe.indexOf(":", b + 1); // end of product
  const d = c === -1 ? -1 : cpe.indexOf(":", c + 1); // end of version
  if (d === -1 || !isValidPart(cpe.slice(8, a)) || b === a + 1 || c === b + 1 || d === c + 1) return null;
  // the remaining 6 attributes: count separators, reject empty attributes
  let prev = d;
  let count = 0;
  for (let i = d + 1; i <= cpe.length; i++) {
    if (i === cpe.length || cpe.charCodeAt(i) === COLON) {
      if (i === prev + 1) return null;
      prev = i;
      count++;
    }
  }
  if (count !== 7) return null;
  return { vendor: cpe.slice(a + 1, b), product: cpe.slice(b + 1, c), version: cpe.slice(c + 1, d) };
}

/** Decode one CPE 2.2 URI component (§6.1.3.2 `decode`): percent-decoding, lower case, "" → ANY. */
function decodeUriComponentCpe(s: string | undefined): string | null {
  if (s === undefined || s === "") return "*";
  if (s === "-") return "-";
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === "%") {
      const hex = s.slice(i + 1, i + 3);
      if (hex.length !== 2 || !/^[0-9a-fA-F]{2}$/.test(hex)) return null;
      const code = parseInt(hex, 16);
      if (code === 1)
        out += "?"; // %01: single-character wildcard
      else if (code === 2)
        out += "*"; // %02: multi-character wildcard
      else out += String.fromCharCode(code);
      i += 2;
    } else {
      out += ch;
    }
  }
  return out.toLowerCase();
}

/**
 * Parse a CPE 2.2 URI (`cpe:/part:vendor:product:version:update:edition:language`), including
 * the packed edition form `~edition~sw_edition~target_sw~target_hw~other`. Missing or empty
 * components are ANY ("*"). Values are unescaped/decoded like `parseCpe23`'s. Null when malformed.
 */
export function parseCpe22Uri(uri: string): Cpe23 | null {
  if (typeof uri !== "string" || !uri.toLowerCase().startsWith("cpe:/")) return null;
  const comps = uri.slice(5).split(":");
  if (comps.length > 7 || comps.length === 0) return null;
  const part = decodeUriComponentCpe(comps[0]);
  if (part === null || !isValidPart(part)) return null;
  const vendor = decodeUriComponentCpe(comps[1]);
  const product = decodeUriComponentCpe(comps[2]);
  const version = decodeUriComponentCpe(comps[3]);
  const update = decodeUriComponentCpe(comps[4]);
  const language = decodeUriComponentCpe(comps[6]);
  if (vendor === null || product === null || version === null || update === null || language === null) return null;
  const rawEdition = comps[5];
  let edition: string | null;
  let sw_edition: string | null = "*";
  let target_sw: string | null = "*";
  let target_hw: string | null = "*";
  let other: string | null = "*";
  if (rawEdition?.startsWith("~")) {
    const packed = rawEdition.split("~"); // ["", edition, sw_edition, target_sw, target_hw, other]
    if (packed.length !== 6) return null;
    edition = decodeUriComponentCpe(packed[1]);
    sw_edition = decodeUriComponentCpe(packed[2]);
    target_sw = decodeUriComponentCpe(packed[3]);
    target_hw = decodeUriComponentCpe(packed[4]);
    other = decodeUriComponentCpe(packed[5]);
  } else {
    edition = decodeUriComponentCpe(rawEdition);
  }
  if (edition === null || sw_edition === null || target_sw === null || target_hw === null || other === null) return null;
  return { part, vendor, product, version, update, edition, language, sw_edition, target_sw, target_hw, other };
}

/** Characters that stay unescaped in a formatted-string value (§6.2.2.2 process_quoted_chars). */
function isPlainFsChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) || // 0-9
    (code >= 65 && code <= 90) || // A-Z
    (code >= 97 && code <= 122) || // a-z
    code === 95 || // _
    code === 46 || // .
    code === 45 || // -
    code === 42 || // * (wildcard)
    code === 63 // ? (wildcard)
  );
}

function bindFsValue(v: string): string {
  if (v === "" || v === "*") return "*";
  if (v === "-") return "-";
  let plain = true;
  for (let i = 0; i < v.length; i++) {
    if (!isPlainFsChar(v.charCodeAt(i))) {
      plain = false;
      break;
    }
  }
  if (plain) return v;
  let out = "";
  for (let i = 0; i < v.length; i++) {
    const ch = v[i]!;
    out += isPlainFsChar(v.charCodeAt(i)) ? ch : "\\" + ch;
  }
  return out;
}

/** Bind (unescaped) CPE attributes to a CPE 2.3 formatted string, escaping as NISTIR 7695 requires. */
export function formatCpe23(c: Cpe23): string {
  return (
    CPE23_PREFIX +
    bindFsValue(c.part) +
    ":" +
    bindFsValue(c.vendor) +
    ":" +
    bindFsValue(c.product) +
    ":" +
    bindFsValue(c.version) +
    ":" +
    bindFsValue(c.update) +
    ":" +
    bindFsValue(c.edition) +
    ":" +
    bindFsValue(c.language) +
    ":" +
    bindFsValue(c.sw_edition) +
    ":" +
    bindFsValue(c.target_sw) +
    ":" +
    bindFsValue(c.target_hw) +
    ":" +
    bindFsValue(c.other)
  );
}

/**
 * Convert a CPE 2.2 URI to a CPE 2.3 formatted string, e.g.
 * `cpe:/o:redhat:enterprise_linux:9::baseos` → `cpe:2.3:o:redhat:enterprise_linux:9:*:baseos:*:*:*:*:*`.
 * Null when the URI is malformed.
 */
export function cpe22UriTo23(uri: string): string | null {
  const parsed = parseCpe22Uri(uri);
  return parsed === null ? null : formatCpe23(parsed);
}

/**
 * Any CPE binding (2.3 formatted string or 2.2 URI) → parsed attributes, or null.
 */
export function parseCpe(cpe: string): Cpe23 | null {
  if (cpe.startsWith(CPE23_PREFIX)) return parseCpe23(cpe);
  return parseCpe22Uri(cpe);
}

/**
 * CPE-style normalised form of a vendor or product display name, for comparing a CVE 5
 * `vendor`/`product` (or an inventory name) with CPE vendor/product attributes.
 *
 * Rule: trim; lower-case (locale-independent); every run of whitespace becomes one "_";
 * runs of "_" collapse to one; leading/trailing "_" are removed. Every other character
 * (".", "-", "+", "/", "(", …) is kept as it is — CPE names keep them (escaped in the binding).
 *
 *   "Palo Alto Networks" → "palo_alto_networks"   "PAN-OS" → "pan-os"
 *   "  Red  Hat " → "red_hat"                      "node.js" → "node.js"
 */
export function normalizeName(display: string): string {
  let out = "";
  let pendingUnderscore = false;
  const s = display.toLowerCase();
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    const code = s.charCodeAt(i);
    // whitespace: space, tab, LF, VT, FF, CR, NBSP and the other Unicode spaces handled by trim()
    const isSpace = code === 32 || (code >= 9 && code <= 13) || code === 160 || (code > 127 && ch.trim() === "");
    if (isSpace || code === 95) {
      pendingUnderscore = out.length > 0; // drop leading separators
      continue;
    }
    if (pendingUnderscore) {
      out += "_";
      pendingUnderscore = false;
    }
    out += ch;
  }
  return out;
}

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Wappalyzer-format fingerprints (enthec/webappanalyzer layout: `technologies/*.json`,
 * `categories.json`), compiled once into indexes by what a scan sees: header and meta names,
 * cookie names, script URLs, the HTML, the URL and the certificate's issuer. Patterns are
 * Wappalyzer's: `regex\;version:\1\;confidence:50`, matched case-insensitively, with unbounded
 * repetitions bounded to 250 as Wappalyzer does (a fingerprint cannot make a 2 MB page take
 * seconds). Fields that need a browser (js, dom, xhr, css) are not read.
 */

/** The bundled set (assets/wappalyzer, GPL-3.0): the same relative path from src/ and from dist/. */
export const DEFAULT_FINGERPRINTS_DIR = fileURLToPath(new URL("../../../assets/wappalyzer", import.meta.url));

/** One pattern: its regex, the version template (`\1`, `\1?a:b`) and its confidence (100 unless said). */
export interface Pattern {
  regex: RegExp;
  version: string;
  confidence: number;
  /**
   * Lower-case texts of which every match contains one (null when none can be told): the scan
   * looks for them with `includes` before running the regex, which on a 500 KB page takes ~0.1 ms
   * against up to 80 ms for a `<[^>]{0,250}…` regex.
   */
  literals: string[] | null;
}

export interface Technology {
  name: string;
  categories: string[];
  cpe: string | null;
  website: string | null;
  implies: { name: string; confidence: number }[];
  excludes: string[];
  requires: string[];
  requiresCategory: string[];
}

/** A technology's patterns for one thing a scan sees. */
export interface Rule {
  tech: Technology;
  patterns: Pattern[];
}

export interface Fingerprints {
  technologies: Map<string, Technology>;
  /** By lower-case header name. */
  headers: Map<string, Rule[]>;
  /** By lower-case meta name (name or property attribute). */
  meta: Map<string, Rule[]>;
  /** By cookie name; names with `*` are in `cookiePatterns`. */
  cookies: Map<string, Rule[]>;
  cookiePatterns: { name: RegExp; rule: Rule }[];
  scriptSrc: Rule[];
  html: Rule[];
  url: Rule[];
  certIssuer: Rule[];
  /** Patterns that JavaScript's RegExp could not compile (left out). */
  skipped: number;
}

type Raw = string | string[] | Record<string, string | string[]>;
const list = (v: unknown): string[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v.map(String) : [String(v)]);

/**
 * `+` and `*` outside character classes become `{1,250}` and `{0,250}` (Wappalyzer's guard against
 * catastrophic backtracking on long pages); escaped ones and those inside `[...]` stay.
 */
export function boundRepetition(source: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === "\\") {
      out += c + (source[i + 1] ?? "");
      i++;
    } else if (inClass) {
      if (c === "]") inClass = false;
      out += c;
    } else if (c === "[") {
      inClass = true;
      out += c;
    } else if (c === "+" || c === "*") {
      // `(+` or `|*` is not a quantifier: leave it for RegExp to judge.
      const prev = out.at(-1);
      out += prev === undefined || prev === "(" || prev === "|" ? c : c === "+" ? "{1,250}" : "{0,250}";
    } else out += c;
  }
  return out;
}

/** Parses `regex\;version:\1\;confidence:50`; null when the regex does not compile. */
export function parsePattern(text: string): Pattern | null {
  const [source, ...attrs] = text.split("\\;");
  let version = "";
  let confidence = 100;
  for (const a of attrs) {
    const at = a.indexOf(":");
    const key = at < 0 ? a : a.slice(0, at);
    const value = at < 0 ? "" : a.slice(at + 1);
    if (key === "version") version = value;
    else if (key === "confidence") confidence = Number.parseInt(value, 10) || 0;
  }
  try {
    return { regex: new RegExp(boundRepetition(source ?? ""), "i"), version, confidence, literals: requiredLiterals(source ?? "") };
  } catch {
    return null;
  }
}

const SPECIAL = new Set([..."\\^$.|?*+()[]{}"]);
/** Escapes that stand for one literal character (`\.`, `\/`…), not a class (`\d`, `\s`, `\b`…) or a backreference. */
const LITERAL_ESCAPE = /[^A-Za-z0-9]/;

/** Index of the `]` closing the class opened at `i`. */
function classEnd(source: string, i: number): number {
  let j = i + 1;
  if (source[j] === "^") j++;
  if (source[j] === "]") j++;
  while (j < source.length && source[j] !== "]") j += source[j] === "\\" ? 2 : 1;
  return j;
}

/** Index of the `)` closing the group opened at `i`. */
function groupEnd(source: string, i: number): number {
  let depth = 0;
  for (let j = i; j < source.length; j++) {
    const c = source[j];
    if (c === "\\") j++;
    else if (c === "[") j = classEnd(source, j);
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return j;
  }
  return source.length;
}

/** The top-level alternatives of a pattern (split at `|` outside groups and classes). */
function branches(source: string): string[] {
  const out: string[] = [];
  let from = 0;
  for (let j = 0; j < source.length; j++) {
    const c = source[j];
    if (c === "\\") j++;
    else if (c === "[") j = classEnd(source, j);
    else if (c === "(") j = groupEnd(source, j);
    else if (c === "|") {
      out.push(source.slice(from, j));
      from = j + 1;
    }
  }
  out.push(source.slice(from));
  return out;
}

const quality = (set: string[]) => Math.min(...set.map((l) => l.length));

/**
 * Lower-case texts of which every match of `source` contains at least one (null when none can be
 * told): for a sequence, its best literal run (ASCII, outside classes; a character made optional
 * by `?`, `*` or `{0,…}` left out) or the texts of one of its non-optional groups; for
 * alternatives, the texts of every alternative. Each text is 3 characters or more.
 */
export function requiredLiterals(source: string): string[] | null {
  const alts = branches(source);
  if (alts.length > 1) {
    const sets = alts.map(requiredLiterals);
    return sets.every((x) => x !== null) ? [...new Set(sets.flat() as string[])] : null;
  }
  let best: string[] | null = null;
  const consider = (set: string[] | null) => {
    if (set?.length && quality(set) >= 3 && (!best || quality(set) > quality(best))) best = set;
  };
  let run = "";
  const end = () => {
    consider(run ? [run.toLowerCase()] : null);
    run = "";
  };
  const optionalAt = (k: number) => source[k] === "?" || source[k] === "*" || (source[k] === "{" && source[k + 1] === "0");
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === "[") {
      i = classEnd(source, i);
      end();
      continue;
    }
    if (c === "(") {
      const close = groupEnd(source, i);
      let inner = source.slice(i + 1, close);
      const lookaround = /^\?(?:<?[=!])/.test(inner);
      inner = inner.replace(/^\?(?::|<[A-Za-z_]\w*>)/, "");
      end();
      if (!lookaround && !optionalAt(close + 1)) consider(requiredLiterals(inner));
      i = close;
      continue;
    }
    let literal: string | null = null;
    if (c === "\\") {
      const next = source[++i] ?? "";
      if (LITERAL_ESCAPE.test(next) && next.charCodeAt(0) < 128) literal = next;
    } else if (!SPECIAL.has(c) && c.charCodeAt(0) < 128) literal = c;
    const q = source[i + 1];
    if (literal === null || optionalAt(i + 1)) end();
    else {
      run += literal;
      if (q === "+" || q === "{") end();
    }
  }
  end();
  return best;
}

/** Reads and compiles a fingerprint directory (throws with the path when it cannot be read). */
export function loadFingerprints(dir: string = DEFAULT_FINGERPRINTS_DIR): Fingerprints {
  const techDir = join(dir, "technologies");
  let files: string[];
  let categories: Record<string, { name: string }>;
  try {
    files = readdirSync(techDir)
      .filter((f) => f.endsWith(".json"))
      .sort();
    categories = JSON.parse(readFileSync(join(dir, "categories.json"), "utf8"));
  } catch (err) {
    throw new Error(`empreintes illisibles dans ${dir} (technologies/*.json et categories.json attendus) : ${(err as Error).message}`);
  }
  const fp: Fingerprints = {
    technologies: new Map(),
    headers: new Map(),
    meta: new Map(),
    cookies: new Map(),
    cookiePatterns: [],
    scriptSrc: [],
    html: [],
    url: [],
    certIssuer: [],
    skipped: 0,
  };
  const compile = (texts: string[]): Pattern[] => {
    const out: Pattern[] = [];
    for (const t of texts) {
      const p = parsePattern(t);
      if (p) out.push(p);
      else fp.skipped++;
    }
    return out;
  };
  const keyed = (index: Map<string, Rule[]>, tech: Technology, raw: Raw | undefined) => {
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) return;
    for (const [name, value] of Object.entries(raw)) {
      const patterns = compile(list(value));
      if (!patterns.length) continue;
      const key = name.toLowerCase();
      index.set(key, [...(index.get(key) ?? []), { tech, patterns }]);
    }
  };
  const plain = (rules: Rule[], tech: Technology, raw: Raw | undefined) => {
    const patterns = compile(list(raw));
    if (patterns.length) rules.push({ tech, patterns });
  };
  for (const file of files) {
    const entries = JSON.parse(readFileSync(join(techDir, file), "utf8")) as Record<string, Record<string, unknown>>;
    for (const [name, def] of Object.entries(entries)) {
      const tech: Technology = {
        name,
        categories: list(def.cats)
          .map((id) => categories[id]?.name)
          .filter((c): c is string => !!c),
        cpe: typeof def.cpe === "string" ? def.cpe : null,
        website: typeof def.website === "string" ? def.website : null,
        implies: list(def.implies).map((i) => {
          const [n, ...attrs] = i.split("\\;");
          const c = attrs.find((a) => a.startsWith("confidence:"));
          return { name: n!, confidence: c ? Number.parseInt(c.slice(11), 10) || 0 : 100 };
        }),
        excludes: list(def.excludes),
        requires: list(def.requires),
        requiresCategory: list(def.requiresCategory)
          .map((id) => categories[id]?.name)
          .filter((c): c is string => !!c),
      };
      fp.technologies.set(name, tech);
      keyed(fp.headers, tech, def.headers as Raw);
      keyed(fp.meta, tech, def.meta as Raw);
      if (def.cookies && typeof def.cookies === "object") {
        for (const [cookie, value] of Object.entries(def.cookies as Record<string, string>)) {
          const patterns = compile(list(value));
          if (!patterns.length) continue;
          const rule = { tech, patterns };
          const name = cookieName(cookie);
          if (typeof name === "string") fp.cookies.set(name, [...(fp.cookies.get(name) ?? []), rule]);
          else if (name) fp.cookiePatterns.push({ name, rule });
          else fp.skipped++;
        }
      }
      plain(fp.scriptSrc, tech, def.scriptSrc as Raw);
      plain(fp.html, tech, def.html as Raw);
      plain(fp.url, tech, def.url as Raw);
      plain(fp.certIssuer, tech, def.certIssuer as Raw);
    }
  }
  return fp;
}

/**
 * A cookie key: a plain name (looked up lower-cased), a glob (`_ga_*`) or, as some fingerprints
 * write them, a regex (`connect\\.sid`, `SESS[a-f0-9]{32}`), matched whole; null when it does not compile.
 */
function cookieName(key: string): string | RegExp | null {
  if (/^[\w-]+$/.test(key)) return key.toLowerCase();
  const source = /^[\w.-]*\*[\w.*-]*$/.test(key) ? key.replace(/\./g, "\\.").replace(/\*/g, ".*") : key;
  try {
    return new RegExp(`^(?:${source})$`, "i");
  } catch {
    return null;
  }
}

import { Parser } from "htmlparser2";
import type { Fingerprints, Pattern, Rule, Technology } from "./urls.fingerprints.js";

/** What a scan saw of a page. */
export interface Page {
  /** The URL that answered (after redirects). */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body as read (up to the scan's cap). */
  html: string;
  /** The certificate issuer's organization, HTTPS only. */
  certIssuer: string | null;
}

/** A technology found on a page (an item of MonitoredUrlDetailOut.technologies). */
export interface Detected {
  name: string;
  version: string | null;
  /** 0–100: the sum of the matched patterns' confidences (100 each unless the fingerprint says less), at most 100. */
  confidence: number;
  categories: string[];
  /** The fingerprint's CPE 2.3 (version `*`); null when it has none. */
  cpe: string | null;
  website: string | null;
}

/** What the page's HTML names: meta tags (name or property → content) and script URLs. */
export interface HtmlFacts {
  meta: Map<string, string[]>;
  scripts: string[];
}

/** The opening tags detection reads; everything between them is skipped without being tokenized. */
const TAGS = /<(?:meta|script)\b[^>]*>/gi;

/**
 * Meta tags and script URLs of a page. The `<meta …>` and `<script …>` opening tags are picked
 * out first (one native regex pass) and only they go through htmlparser2 (attributes, quoting,
 * entities): tokenizing a whole 400 KB page took 30 ms, five times the rest of the detection.
 */
export function readHtml(html: string): HtmlFacts {
  const meta = new Map<string, string[]>();
  const scripts: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === "script" && attrs.src) scripts.push(attrs.src);
        else if (name === "meta" && attrs.content !== undefined) {
          const key = (attrs.name ?? attrs.property ?? attrs.itemprop)?.toLowerCase();
          if (key) meta.set(key, [...(meta.get(key) ?? []), attrs.content]);
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  // A script's content is raw text to htmlparser2: each opening tag is closed at once, so the next tag is read as a tag.
  for (const m of html.matchAll(TAGS)) parser.write(m[0].length > 7 && (m[0][1] === "s" || m[0][1] === "S") ? `${m[0]}</script>` : m[0]);
  parser.end();
  return { meta, scripts };
}

/**
 * Wappalyzer's version template: `\1` is the first group, `\1?yes:no` a choice on whether it
 * matched. A version longer than 30 characters is taken for noise and dropped.
 */
export function resolveVersion(template: string, match: RegExpExecArray): string | null {
  let v = template;
  for (let i = match.length - 1; i >= 0; i--) {
    const group = match[i] ?? "";
    const ternary = new RegExp(`\\\\${i}\\?([^:]*):(.*)$`).exec(v);
    if (ternary) v = v.replace(ternary[0], group ? ternary[1]! : ternary[2]!);
    v = v.split(`\\${i}`).join(group);
  }
  v = v.trim();
  return v && v.length <= 30 ? v : null;
}

/**
 * Which 3-character ASCII sequences the page holds, one byte per sequence (128³ = 2 MiB, reused:
 * detection is synchronous). A literal one of whose trigrams is absent is absent: most of the
 * fingerprints' 450 HTML texts are ruled out this way in one pass over the page, where one
 * `includes` each took 40–100 ms on a 400 KB page.
 */
const GRAMS = new Uint8Array(1 << 21);

function indexTrigrams(lower: string): void {
  GRAMS.fill(0);
  let a = -1;
  let b = -1;
  for (let i = 0; i < lower.length; i++) {
    const c = lower.charCodeAt(i);
    if (c >= 128) {
      a = b = -1;
      continue;
    }
    if (a >= 0) GRAMS[(a << 14) | (b << 7) | c] = 1;
    a = b;
    b = c;
  }
}

/** False when `literal` (lower-case ASCII) cannot be in the indexed page. */
function mayContain(literal: string): boolean {
  for (let i = 0; i + 2 < literal.length; i++) {
    if (!GRAMS[(literal.charCodeAt(i) << 14) | (literal.charCodeAt(i + 1) << 7) | literal.charCodeAt(i + 2)]) return false;
  }
  return true;
}

interface Hit {
  tech: Technology;
  confidence: number;
  versions: string[];
}

/** Parses set-cookie headers into cookie names and values. */
function cookiesOf(headers: Page["headers"]): Map<string, string> {
  const out = new Map<string, string>();
  const raw = headers["set-cookie"];
  for (const line of Array.isArray(raw) ? raw : raw ? [raw] : []) {
    const first = line.split(";", 1)[0]!;
    const eq = first.indexOf("=");
    if (eq > 0) out.set(first.slice(0, eq).trim(), first.slice(eq + 1).trim());
  }
  return out;
}

/**
 * The technologies of a page: every fingerprint pattern the page's headers, cookies, meta tags,
 * script URLs, HTML, URL and certificate issuer match, then what they imply (`implies`, with its
 * confidence), less what they exclude and those whose `requires` are absent. Sorted by name.
 */
export function detect(fp: Fingerprints, page: Page, facts: HtmlFacts = readHtml(page.html)): Detected[] {
  const hits = new Map<string, Hit>();
  const hit = (tech: Technology, p: Pattern, m: RegExpExecArray) => {
    let h = hits.get(tech.name);
    if (!h) {
      h = { tech, confidence: 0, versions: [] };
      hits.set(tech.name, h);
    }
    h.confidence = Math.min(100, h.confidence + p.confidence);
    const v = p.version ? resolveVersion(p.version, m) : null;
    if (v) h.versions.push(v);
  };
  /** `lower`: the value lower-cased, when the caller has it; `indexed`: its trigrams are in GRAMS (the page). */
  const apply = (rule: Rule, value: string, lower?: string, indexed = false) => {
    for (const p of rule.patterns) {
      if (p.literals) {
        const text = lower ?? value.toLowerCase();
        if (!p.literals.some((l) => (!indexed || mayContain(l)) && text.includes(l))) continue;
      }
      const m = p.regex.exec(value);
      if (m) hit(rule.tech, p, m);
    }
  };
  for (const [name, value] of Object.entries(page.headers)) {
    const rules = fp.headers.get(name.toLowerCase());
    if (!rules || value === undefined) continue;
    const text = Array.isArray(value) ? value.join(", ") : value;
    for (const r of rules) apply(r, text);
  }
  for (const [name, value] of cookiesOf(page.headers)) {
    for (const r of fp.cookies.get(name.toLowerCase()) ?? []) apply(r, value);
    for (const c of fp.cookiePatterns) if (c.name.test(name)) apply(c.rule, value);
  }
  for (const [name, values] of facts.meta) {
    const rules = fp.meta.get(name);
    if (rules) for (const r of rules) for (const v of values) apply(r, v);
  }
  for (const src of facts.scripts) {
    const lower = src.toLowerCase();
    for (const r of fp.scriptSrc) apply(r, src, lower);
  }
  const lowerHtml = page.html.toLowerCase();
  indexTrigrams(lowerHtml);
  for (const r of fp.html) apply(r, page.html, lowerHtml, true);
  for (const r of fp.url) apply(r, page.url);
  if (page.certIssuer) for (const r of fp.certIssuer) apply(r, page.certIssuer);
  return settle(fp, hits);
}

/** Adds what the hits imply, removes what they exclude or what lacks its requirements. */
function settle(fp: Fingerprints, hits: Map<string, Hit>): Detected[] {
  const queue = [...hits.values()];
  while (queue.length) {
    const h = queue.shift()!;
    for (const imp of h.tech.implies) {
      const tech = fp.technologies.get(imp.name);
      if (!tech || hits.has(tech.name)) continue;
      const implied = { tech, confidence: Math.round((h.confidence * imp.confidence) / 100), versions: [] };
      hits.set(tech.name, implied);
      queue.push(implied);
    }
  }
  for (const h of [...hits.values()]) for (const ex of h.tech.excludes) hits.delete(ex);
  const categories = new Set([...hits.values()].flatMap((h) => h.tech.categories));
  for (const [name, h] of hits) {
    if (h.tech.requires.some((r) => !hits.has(r))) hits.delete(name);
    else if (h.tech.requiresCategory.length && !h.tech.requiresCategory.some((c) => categories.has(c))) hits.delete(name);
  }
  return [...hits.values()]
    .map((h) => ({
      name: h.tech.name,
      // The most precise version found (the longest: 2.4.58 over 2.4).
      version: h.versions.sort((a, b) => b.length - a.length)[0] ?? null,
      confidence: h.confidence,
      categories: h.tech.categories,
      cpe: h.tech.cpe,
      website: h.tech.website,
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

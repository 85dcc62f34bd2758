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

/** Meta tags and script URLs of a page, read with htmlparser2 (streaming: no DOM is built). */
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
  parser.write(html);
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
    if (!h) hits.set(tech.name, (h = { tech, confidence: 0, versions: [] }));
    h.confidence = Math.min(100, h.confidence + p.confidence);
    const v = p.version ? resolveVersion(p.version, m) : null;
    if (v) h.versions.push(v);
  };
  /** `lower`: the value lower-cased, when the caller has it (the page, read by hundreds of patterns). */
  const apply = (rule: Rule, value: string, lower?: string) => {
    for (const p of rule.patterns) {
      if (p.literal && !(lower ?? value.toLowerCase()).includes(p.literal)) continue;
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
  for (const r of fp.html) apply(r, page.html, lowerHtml);
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

/**
 * News/advisory feeds: RSS 2.0 (and RSS 0.9x / 1.0 RDF), Atom 1.0 and JSON Feed 1.x →
 * `{ title, items: ArticleRecord[] }` with {@link parseFeed}.
 *
 * XML is tokenized by htmlparser2 (xmlMode) and entities decoded by `entities` (fb55's, MIT, under
 * cheerio; Node >= 20.19). Chosen against fast-xml-parser 5.12.1 and the feed parsers built on it
 * (feedsmith 3.0.1, @rowanmanning/feed-parser 2.1.5, @extractus/feed-extractor 8.0.3) on the 31
 * captured feeds of shared/data/rss (3.1 MB, one pass): htmlparser2 22 ms to a DOM (its events
 * alone, as used here, less), fast-xml-parser 38 ms with HTML entities, feedsmith 38 ms,
 * @rowanmanning 75 ms, @extractus 356 ms. It is also the most tolerant: after an unmatched end tag
 * in a description (`a</p>b`) fast-xml-parser and both parsers on it lose the rest of the text.
 * The feed parsers' items drop what this module maps (xml:base, Atom xhtml content, undeclared
 * `media:` prefixes), so the mapping stays here: the libraries only tokenize and decode.
 */
import { decodeHTMLStrict } from "entities";
import { Parser } from "htmlparser2";
import { RecordError } from "./types.js";

export interface ArticleRecord {
  /** RSS `guid`, Atom `id`, JSON Feed `id`; null when absent. */
  guid: string | null;
  /** The article's link (absolute). */
  url: string;
  title: string;
  /** Plain text (tags stripped, entities decoded, white space collapsed), at most 2,000 characters. */
  description: string | null;
  /** ISO 8601 (UTC). */
  published_at: string | null;
  author: string | null;
  /** Enclosure, media:content / media:thumbnail, or first `<img>` of the content (absolute URL). */
  image_url: string | null;
  /** The feed's title. */
  source: string | null;
  /** Every CVE id in the title, description and content: upper-case, deduplicated, in order of appearance. */
  cve_ids: string[];
}

export interface ParsedFeed {
  title: string | null;
  items: ArticleRecord[];
}

export const DESCRIPTION_MAX = 2000;

/** Decodes HTML entities (`&amp;`, `&nbsp;`, `&#8217;`, `&#146;` read as Windows-1252); unknown names and references without their `;` are kept. */
export function decodeEntities(s: string): string {
  return s.includes("&") ? decodeHTMLStrict(s) : s;
}

// ---------------------------------------------------------------------------------------------
// XML

interface XmlElement {
  /** Qualified name as written (`content:encoded`). */
  name: string;
  /** Local name (`encoded`). */
  local: string;
  /** Namespace URI, or null (no namespace / undeclared prefix). */
  ns: string | null;
  /** Prefix as written, or null. */
  prefix: string | null;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** Text (CDATA included) and child elements, in document order. */
  content: (string | XmlElement)[];
  /** `xml:base` in effect for this element, or null. */
  base: string | null;
}

const XML_NS = new Map([["xml", "http://www.w3.org/XML/1998/namespace"]]);

/**
 * The root element of an XML text, namespaces and `xml:base` resolved, built from htmlparser2's
 * events: going through its DOM first made parseFeed ~8% slower on the captured feeds. Entities
 * are decoded here with the HTML set, since feeds use `&nbsp;` & co. without declaring them;
 * CDATA is kept as is. Throws RecordError when there is no root element at all.
 */
function parseXml(text: string): XmlElement {
  const doc: XmlElement = {
    name: "#document",
    local: "#document",
    ns: null,
    prefix: null,
    attrs: {},
    children: [],
    content: [],
    base: null,
  };
  const stack: { el: XmlElement; nsMap: Map<string, string> }[] = [{ el: doc, nsMap: XML_NS }];
  let inCdata = false;
  const parser = new Parser(
    {
      onopentag(name, rawAttrs) {
        const parent = stack[stack.length - 1]!;
        let nsMap = parent.nsMap;
        const attrs: Record<string, string> = {};
        for (const k in rawAttrs) {
          const v = decodeEntities(rawAttrs[k]!);
          if (k === "xmlns" || k.startsWith("xmlns:")) {
            if (nsMap === parent.nsMap) nsMap = new Map(nsMap);
            nsMap.set(k === "xmlns" ? "" : k.slice(6), v);
          }
          attrs[k] = v;
        }
        const colon = name.indexOf(":");
        const prefix = colon > 0 ? name.slice(0, colon) : null;
        const xmlBase = attrs["xml:base"];
        const base = xmlBase ? (resolveUrl(xmlBase, parent.el.base) ?? xmlBase) : parent.el.base;
        const el: XmlElement = {
          name,
          local: colon > 0 ? name.slice(colon + 1) : name,
          ns: nsMap.get(prefix ?? "") ?? null,
          prefix,
          attrs,
          children: [],
          content: [],
          base,
        };
        parent.el.children.push(el);
        parent.el.content.push(el);
        stack.push({ el, nsMap });
      },
      onclosetag() {
        if (stack.length > 1) stack.pop();
      },
      ontext(data) {
        const content = stack[stack.length - 1]!.el.content;
        const t = inCdata ? data : decodeEntities(data);
        const last = content.length - 1;
        if (typeof content[last] === "string") content[last] += t;
        else content.push(t);
      },
      oncdatastart() {
        inCdata = true;
      },
      oncdataend() {
        inCdata = false;
      },
    },
    { xmlMode: true, decodeEntities: false },
  );
  parser.end(text);
  const root = doc.children[0];
  if (!root) throw new RecordError("no XML root element");
  return root;
}

// ---------------------------------------------------------------------------------------------
// Helpers

const NS = {
  atom: "http://www.w3.org/2005/Atom",
  content: "http://purl.org/rss/1.0/modules/content/",
  dc: "http://purl.org/dc/elements/1.1/",
  media: "http://search.yahoo.com/mrss/",
  rdf: "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
  rss1: "http://purl.org/rss/1.0/",
};
/** Usual prefixes, for feeds that use a prefix without declaring it. */
const USUAL_PREFIX: Record<string, string> = {
  [NS.atom]: "atom",
  [NS.content]: "content",
  [NS.dc]: "dc",
  [NS.media]: "media",
  [NS.rdf]: "rdf",
};

/** Whether `el` is `local` in namespace `ns` (null: no namespace, or RSS 1.0 / Atom default as the caller wants). */
function is(el: XmlElement, local: string, ns: string | null): boolean {
  if (el.local !== local) return false;
  if (ns === null) return el.prefix === null;
  if (el.ns === ns) return true;
  return el.ns === null && el.prefix !== null && USUAL_PREFIX[ns] === el.prefix;
}

function children(el: XmlElement, local: string, ns: string | null): XmlElement[] {
  return el.children.filter((c) => is(c, local, ns));
}

function child(el: XmlElement, local: string, ns: string | null): XmlElement | undefined {
  return el.children.find((c) => is(c, local, ns));
}

/** All text inside an element (its own text and its descendants'), for mixed content. */
function deepText(el: XmlElement): string {
  let out = "";
  for (const c of el.content) out += typeof c === "string" ? c : deepText(c);
  return out;
}

function textOf(el: XmlElement | undefined): string | null {
  if (!el) return null;
  const t = deepText(el).trim();
  return t === "" ? null : t;
}

function collapse(s: string): string {
  return s.replace(/[\s\u00a0]+/g, " ").trim();
}

/** Absolute URL of `href` against `base` (null when neither gives an absolute http(s) URL). */
function resolveUrl(href: string | null | undefined, base: string | null | undefined): string | null {
  if (!href) return null;
  const h = href.trim();
  if (h === "") return null;
  try {
    return new URL(h).href;
  } catch {
    // relative
  }
  if (!base) return null;
  try {
    return new URL(h, base).href;
  } catch {
    return null;
  }
}

const BLOCK_TAGS =
  /^(?:p|div|br|hr|li|ul|ol|h[1-6]|tr|td|th|table|thead|tbody|blockquote|pre|section|article|header|footer|figure|figcaption|dd|dt|dl)$/i;

/** HTML → plain text: drops script/style/svg content, tags, comments; decodes entities; collapses white space. */
export function htmlToText(html: string): string {
  let s = html.replace(/<!--[\s\S]*?-->/g, " ");
  s = s.replace(/<(script|style|svg|noscript|template|button)\b[\s\S]*?<\/\1\s*>/gi, " ");
  s = s.replace(/<\/?([A-Za-z][A-Za-z0-9:-]*)\b(?:[^>"']|"[^"]*"|'[^']*')*>/g, (_m, tag: string) => (BLOCK_TAGS.test(tag) ? " " : ""));
  return collapse(decodeEntities(s));
}

function truncate(s: string, max: number): string {
  if (s.length <= max) return s;
  let cut = s.slice(0, max - 1);
  // Do not split a surrogate pair; prefer a word boundary when one is near.
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  const space = cut.lastIndexOf(" ");
  if (space > max - 200) cut = cut.slice(0, space);
  return `${cut.trimEnd()}…`;
}

const CVE_IN_TEXT = /(?<![A-Za-z0-9])CVE[-\u2010\u2011\u2012\u2013_ ](\d{4})[-\u2010\u2011\u2012\u2013_](\d{4,7})(?!\d)/gi;

/** Every CVE id in the texts, upper-case with ASCII hyphens, deduplicated in order of appearance. */
export function extractCveIds(...texts: (string | null | undefined)[]): string[] {
  const out: string[] = [];
  for (const t of texts) {
    if (!t) continue;
    for (const m of t.matchAll(CVE_IN_TEXT)) {
      const id = `CVE-${m[1]}-${m[2]}`;
      if (!out.includes(id)) out.push(id);
    }
  }
  return out;
}

function firstImgSrc(html: string | null, base: string | null): string | null {
  if (!html) return null;
  const re = /<img\b(?:[^>"']|"[^"]*"|'[^']*')*>/gi;
  for (const m of html.matchAll(re)) {
    const tag = m[0];
    const src = /\ssrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(tag);
    const value = src ? decodeEntities(src[1] ?? src[2] ?? src[3] ?? "") : "";
    if (isTrackingPixel(tag, value)) continue;
    if (value && !value.startsWith("data:")) {
      const url = resolveUrl(value, base);
      if (url) return url;
    }
  }
  return null;
}

/** 0×0 / 1×1 images and analytics beacons (e.g. the Matomo `piwik.php` pixel in WordPress feeds). */
function isTrackingPixel(tag: string, src: string): boolean {
  if (/\s(?:width|height)\s*=\s*["']?[01](?:px)?["'\s/>]/i.test(tag)) return true;
  if (/(?:^|[\s;"'])(?:width|height)\s*:\s*[01](?:px)?\s*(?:[;"']|$)/i.test(tag)) return true;
  return /(?:piwik|matomo)\.php|\/pixel(?:\.gif)?(?:[?/]|$)|feeds\.feedburner\.com\/~r\/|stats\.wp\.com\/|\/b\.gif\?|doubleclick\.net|\/beacon/i.test(
    src,
  );
}

const IMAGE_EXT = /\.(?:jpe?g|png|gif|webp|avif|svg|bmp)(?:[?#]|$)/i;

function isImage(type: string | undefined, url: string, medium?: string): boolean {
  if (medium) return medium.toLowerCase() === "image";
  if (type) return type.toLowerCase().startsWith("image/");
  return IMAGE_EXT.test(url);
}

// ---------------------------------------------------------------------------------------------
// Dates

const MONTHS: Record<string, number> = {
  jan: 0,
  feb: 1,
  mar: 2,
  apr: 3,
  may: 4,
  jun: 5,
  jul: 6,
  aug: 7,
  sep: 8,
  oct: 9,
  nov: 10,
  dec: 11,
};
const ZONES: Record<string, number> = {
  UT: 0,
  UTC: 0,
  GMT: 0,
  Z: 0,
  EST: -300,
  EDT: -240,
  CST: -360,
  CDT: -300,
  MST: -420,
  MDT: -360,
  PST: -480,
  PDT: -420,
  CET: 60,
  CEST: 120,
  BST: 60,
  IST: 330,
  JST: 540,
  AEST: 600,
  AEDT: 660,
};

function zoneOffset(zone: string | undefined): number | null {
  if (!zone) return 0; // no zone given: taken as UTC
  const z = zone.trim();
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(z);
  if (m) return (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
  return ZONES[z.toUpperCase()] ?? null;
}

function fromParts(y: number, mo: number, d: number, h: number, mi: number, s: number, offset: number | null): string | null {
  if (offset === null) return null;
  if (y < 100) y += y < 50 ? 2000 : 1900;
  if (mo < 0 || mo > 11 || d < 1 || d > 31 || h > 24 || mi > 59 || s > 60) return null;
  const t = Date.UTC(y, mo, d, h, mi, Math.min(s, 59)) - offset * 60_000;
  const date = new Date(t);
  return Number.isNaN(t) || date.getUTCFullYear() < 1970 ? null : date.toISOString();
}

/**
 * RFC 822/1123 (`Thu, 24 Jul 2025 17:34:13 -0400`, `… EDT`, 2-digit years, no weekday, no
 * seconds, no zone = UTC), ISO 8601 / RFC 3339, and the variant `Jul 24, 2025 05:47:25+0000`
 * seen in a real feed → ISO 8601 UTC; null when unparsable.
 */
export function parseFeedDate(input: string | null | undefined): string | null {
  if (!input) return null;
  const s = collapse(input);
  if (s === "") return null;
  // RFC 822: [Day,] DD Mon YYYY [HH:MM[:SS]] [zone]
  let m =
    /^(?:[A-Za-z]{3,9},?\s+)?(\d{1,2})\s+([A-Za-z]{3})[a-z]*\.?\s+(\d{2,4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?\s*([A-Za-z]{1,5}|[+-]\d{2}:?\d{2})?$/.exec(
      s,
    );
  if (m) {
    const mo = MONTHS[m[2]!.toLowerCase()];
    if (mo === undefined) return null;
    return fromParts(Number(m[3]), mo, Number(m[1]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0), zoneOffset(m[7]));
  }
  // "Mon DD, YYYY HH:MM:SS+0000"
  m =
    /^(?:[A-Za-z]{3,9},?\s+)?([A-Za-z]{3})[a-z]*\.?\s+(\d{1,2}),?\s+(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?\s*([A-Za-z]{1,5}|[+-]\d{2}:?\d{2})?$/.exec(
      s,
    );
  if (m) {
    const mo = MONTHS[m[1]!.toLowerCase()];
    if (mo === undefined) return null;
    return fromParts(Number(m[3]), mo, Number(m[2]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0), zoneOffset(m[7]));
  }
  // ISO 8601: YYYY-MM-DD[(T| )HH:MM[:SS[.fff]]][zone]
  m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?\s*(Z|[+-]\d{2}:?\d{2}|[A-Za-z]{2,4})?)?$/.exec(s);
  if (m) {
    const frac = /:\d{2}[.,](\d+)/.exec(s);
    const iso = fromParts(
      Number(m[1]),
      Number(m[2]) - 1,
      Number(m[3]),
      Number(m[4] ?? 0),
      Number(m[5] ?? 0),
      Number(m[6] ?? 0),
      zoneOffset(m[7]),
    );
    if (iso && frac) {
      const ms = Math.floor(Number(`0.${frac[1]}`) * 1000);
      return new Date(Date.parse(iso) + ms).toISOString();
    }
    return iso;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Items

interface RawItem {
  guid: string | null;
  link: string | null;
  title: string | null;
  /** HTML (or text) of the summary/description. */
  summaryHtml: string | null;
  /** HTML of the full content, when distinct. */
  contentHtml: string | null;
  date: string | null;
  author: string | null;
  image: string | null;
}

function finish(raw: RawItem, source: string | null, base: string | null): ArticleRecord | null {
  const url = resolveUrl(raw.link, base) ?? (raw.guid && /^https?:\/\//i.test(raw.guid) ? raw.guid : null);
  if (url === null) return null; // an item without any link cannot be shown
  const summaryText = raw.summaryHtml !== null ? htmlToText(raw.summaryHtml) : "";
  const contentText = raw.contentHtml !== null ? htmlToText(raw.contentHtml) : "";
  const fullDescription = summaryText || contentText;
  const description = fullDescription === "" ? null : truncate(fullDescription, DESCRIPTION_MAX);
  const title = raw.title !== null && raw.title !== "" ? raw.title : truncate(fullDescription, 120) || url;
  const image = raw.image ?? firstImgSrc(raw.contentHtml, url) ?? firstImgSrc(raw.summaryHtml, url);
  return {
    guid: raw.guid,
    url,
    title,
    description,
    published_at: parseFeedDate(raw.date),
    author: raw.author,
    image_url: image,
    source,
    cve_ids: extractCveIds(raw.title, raw.summaryHtml, raw.contentHtml),
  };
}

/** RSS titles are text, but often carry (double-)encoded entities: decode once more. */
function rssTitle(el: XmlElement | undefined): string | null {
  const t = textOf(el);
  return t === null ? null : collapse(decodeEntities(t)) || null;
}

function rssItem(item: XmlElement, channelBase: string | null): RawItem {
  const guidEl = child(item, "guid", null);
  const guid = textOf(guidEl);
  let link = textOf(child(item, "link", null)) ?? textOf(child(item, "link", NS.rss1));
  if (link === null) {
    const atomLink = children(item, "link", NS.atom).find((l) => !l.attrs.rel || l.attrs.rel === "alternate");
    link = atomLink?.attrs.href ?? null;
  }
  if (link === null && guid !== null && guidEl?.attrs.isPermaLink !== "false") link = guid;
  const description = textOf(child(item, "description", null)) ?? textOf(child(item, "description", NS.rss1));
  const encoded = textOf(child(item, "encoded", NS.content));
  const author = textOf(child(item, "creator", NS.dc)) ?? textOf(child(item, "author", null)) ?? null;
  const date =
    textOf(child(item, "pubDate", null)) ??
    textOf(child(item, "date", NS.dc)) ??
    textOf(child(item, "published", NS.atom)) ??
    textOf(child(item, "updated", NS.atom));
  const base = item.base ?? channelBase;
  return {
    guid,
    link: link !== null ? (resolveUrl(link, base) ?? link) : null,
    title: rssTitle(child(item, "title", null) ?? child(item, "title", NS.rss1)),
    summaryHtml: description,
    contentHtml: encoded,
    date,
    author: author !== null ? collapse(author) : null,
    image: mediaImage(item, base),
  };
}

/** Image from enclosure / media:content / media:thumbnail / media:group. */
function mediaImage(item: XmlElement, base: string | null): string | null {
  for (const enc of children(item, "enclosure", null)) {
    const url = resolveUrl(enc.attrs.url, base);
    if (url && isImage(enc.attrs.type, url)) return url;
  }
  const candidates = [item, ...children(item, "group", NS.media)];
  for (const holder of candidates) {
    for (const mc of children(holder, "content", NS.media)) {
      const url = resolveUrl(mc.attrs.url, base);
      if (url && isImage(mc.attrs.type, url, mc.attrs.medium)) return url;
    }
    for (const th of children(holder, "thumbnail", NS.media)) {
      const url = resolveUrl(th.attrs.url, base);
      if (url) return url;
    }
    for (const mc of children(holder, "content", NS.media)) {
      const th = child(mc, "thumbnail", NS.media);
      const url = resolveUrl(th?.attrs.url, base);
      if (url) return url;
    }
  }
  return null;
}

/** Atom text construct (`type` text / html / xhtml) → HTML string (text is escaped so it stays text). */
function atomHtml(el: XmlElement | undefined): string | null {
  if (!el) return null;
  const type = (el.attrs.type ?? "text").toLowerCase();
  if (type === "xhtml") {
    const s = serialize(el).trim();
    return s === "" ? null : s;
  }
  const t = textOf(el);
  if (t === null) return null;
  if (type === "html" || type === "text/html") return t;
  return t.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function escapeXml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Inner markup of an element (for Atom xhtml content). */
function serialize(el: XmlElement): string {
  let out = "";
  for (const c of el.content) {
    if (typeof c === "string") {
      out += escapeXml(c);
      continue;
    }
    const attrs = Object.entries(c.attrs)
      .map(([k, v]) => ` ${k}="${escapeXml(v).replace(/"/g, "&quot;")}"`)
      .join("");
    out += `<${c.local}${attrs}>${serialize(c)}</${c.local}>`;
  }
  return out;
}

function atomTitle(el: XmlElement | undefined): string | null {
  const html = atomHtml(el);
  if (html === null) return null;
  return htmlToText(html) || null;
}

function atomEntry(entry: XmlElement, feedBase: string | null): RawItem {
  const A = NS.atom;
  const base = entry.base ?? feedBase;
  const links = children(entry, "link", A);
  const alternate =
    links.find((l) => (l.attrs.rel ?? "alternate") === "alternate" && (l.attrs.type ?? "text/html").includes("html")) ??
    links.find((l) => (l.attrs.rel ?? "alternate") === "alternate") ??
    null;
  let image: string | null = null;
  for (const l of links) {
    if (l.attrs.rel === "enclosure") {
      const u = resolveUrl(l.attrs.href, base);
      if (u && isImage(l.attrs.type, u)) {
        image = u;
        break;
      }
    }
  }
  image ??= mediaImage(entry, base);
  const authorEl = child(entry, "author", A);
  const author = textOf(authorEl ? child(authorEl, "name", A) : undefined) ?? textOf(child(entry, "creator", NS.dc));
  const summary = atomHtml(child(entry, "summary", A));
  const content = atomHtml(child(entry, "content", A));
  return {
    guid: textOf(child(entry, "id", A)),
    link: alternate ? (resolveUrl(alternate.attrs.href, base) ?? alternate.attrs.href ?? null) : null,
    title: atomTitle(child(entry, "title", A)),
    summaryHtml: summary,
    contentHtml: content,
    date: textOf(child(entry, "published", A)) ?? textOf(child(entry, "updated", A)) ?? textOf(child(entry, "date", NS.dc)),
    author: author !== null ? collapse(author) : null,
    image,
  };
}

function jsonString(v: unknown): string | null {
  if (typeof v === "string") {
    const t = v.trim();
    return t === "" ? null : t;
  }
  if (typeof v === "number") return String(v);
  return null;
}

function parseJsonFeed(doc: Record<string, unknown>, feedUrl: string | null): ParsedFeed {
  const title = jsonString(doc.title);
  const base = jsonString(doc.home_page_url) ?? jsonString(doc.feed_url) ?? feedUrl;
  const feedAuthor = authorName(doc.authors) ?? authorName(doc.author);
  if (!Array.isArray(doc.items)) throw new RecordError("JSON Feed without items array");
  const items: ArticleRecord[] = [];
  for (const it of doc.items) {
    if (typeof it !== "object" || it === null) continue;
    const o = it as Record<string, unknown>;
    const contentHtml = jsonString(o.content_html) ?? (jsonString(o.content_text) !== null ? escapeXml(jsonString(o.content_text)!) : null);
    const summary = jsonString(o.summary);
    const rawImage = jsonString(o.image) ?? jsonString(o.banner_image);
    let image = rawImage !== null ? resolveUrl(rawImage, base) : null;
    if (image === null && Array.isArray(o.attachments)) {
      for (const a of o.attachments) {
        if (typeof a !== "object" || a === null) continue;
        const att = a as Record<string, unknown>;
        const u = resolveUrl(jsonString(att.url), base);
        if (u && isImage(jsonString(att.mime_type) ?? undefined, u)) {
          image = u;
          break;
        }
      }
    }
    const raw: RawItem = {
      guid: jsonString(o.id),
      link: resolveUrl(jsonString(o.url) ?? jsonString(o.external_url), base),
      title: jsonString(o.title) !== null ? collapse(jsonString(o.title)!) : null,
      summaryHtml: summary !== null ? escapeXml(summary) : null,
      contentHtml,
      date: jsonString(o.date_published) ?? jsonString(o.date_modified),
      author: authorName(o.authors) ?? authorName(o.author) ?? feedAuthor,
      image,
    };
    const rec = finish(raw, title, base);
    if (rec) items.push(rec);
  }
  return { title, items };
}

function authorName(v: unknown): string | null {
  if (Array.isArray(v)) {
    for (const a of v) {
      const n = authorName(a);
      if (n) return n;
    }
    return null;
  }
  if (typeof v === "object" && v !== null) return jsonString((v as Record<string, unknown>).name);
  return null;
}

/**
 * Parses an RSS 2.0 / RSS 1.0 (RDF) / Atom 1.0 document or a JSON Feed 1.x into the feed title
 * and its articles. `feedUrl` (where the feed was fetched) resolves relative links when the feed
 * has no `xml:base`/home page. Items without any link are skipped.
 *
 * Throws RecordError when the text is none of these formats (HTML page, OPML, other JSON…).
 */
export function parseFeed(text: string, feedUrl: string | null): ParsedFeed {
  const trimmed = text.replace(/^\ufeff/, "").trimStart();
  if (trimmed.startsWith("{")) {
    let doc: unknown;
    try {
      doc = JSON.parse(trimmed);
    } catch {
      throw new RecordError("invalid JSON");
    }
    const version = typeof doc === "object" && doc !== null ? (doc as Record<string, unknown>).version : undefined;
    if (typeof version !== "string" || !/^https?:\/\/jsonfeed\.org\/version\/1(?:\.\d+)?\/?$/.test(version)) {
      throw new RecordError("JSON document is not a JSON Feed");
    }
    return parseJsonFeed(doc as Record<string, unknown>, feedUrl);
  }
  if (!trimmed.startsWith("<")) throw new RecordError("not an XML or JSON feed");
  const root = parseXml(trimmed);
  const base = root.base ?? feedUrl;

  if (root.local === "rss" && root.prefix === null) {
    const channel = child(root, "channel", null);
    if (!channel) throw new RecordError("RSS without channel");
    const title = rssTitle(child(channel, "title", null));
    const channelBase = channel.base ?? base;
    const items: ArticleRecord[] = [];
    // Some RSS 0.9x feeds put items next to the channel instead of inside it.
    for (const item of [...children(channel, "item", null), ...children(root, "item", null)]) {
      const rec = finish(rssItem(item, channelBase), title, channelBase);
      if (rec) items.push(rec);
    }
    return { title, items };
  }

  if (root.local === "feed" && (root.ns === NS.atom || root.ns === null)) {
    const title = atomTitle(child(root, "title", root.ns === null ? null : NS.atom) ?? child(root, "title", NS.atom));
    const items: ArticleRecord[] = [];
    const entries = root.ns === null ? children(root, "entry", null) : children(root, "entry", NS.atom);
    for (const entry of entries) {
      const rec = finish(root.ns === null ? atomEntry(withNs(entry, NS.atom), base) : atomEntry(entry, base), title, base);
      if (rec) items.push(rec);
    }
    return { title, items };
  }

  if (root.local === "RDF" && (root.ns === NS.rdf || root.prefix === "rdf")) {
    const channel = child(root, "channel", NS.rss1) ?? child(root, "channel", null);
    const title = rssTitle(channel ? (child(channel, "title", NS.rss1) ?? child(channel, "title", null)) : undefined);
    const items: ArticleRecord[] = [];
    // RSS 1.0 items are in its namespace, which is usually the default one: match each once.
    for (const item of root.children.filter((c) => is(c, "item", NS.rss1) || is(c, "item", null))) {
      const rec = finish(rssItem(item, base), title, base);
      if (rec) items.push(rec);
    }
    return { title, items };
  }

  throw new RecordError(`not a feed: root element <${root.name}>`);
}

/** An Atom document without its namespace declaration: treat its elements as Atom. */
function withNs(el: XmlElement, ns: string): XmlElement {
  const content = el.content.map((c) => (typeof c === "string" ? c : withNs(c, ns)));
  return {
    ...el,
    ns: el.prefix === null ? ns : el.ns,
    content,
    children: content.filter((c): c is XmlElement => typeof c !== "string"),
  };
}

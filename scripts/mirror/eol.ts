import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import type { Mirror } from "./mirror.js";

/**
 * endoflife.date's API v1 served from the front matters of its product pages
 * (`eol/products-frontmatter.json` of ../shared/data, or a test's subset): `GET <prefix>/products`
 * (the list) and `GET <prefix>/products/<name>` (one product), each with an ETag (a digest of the
 * body) and a Last-Modified, answering 304 to a request whose validators still hold.
 *
 * The documents are DERIVED, as endoflife.date's generator builds them from the same pages
 * (_plugins/generate-api-v1.rb over _plugins/product-data-enricher.rb):
 * - answer: `{schema_version: "1.0.0", generated_at, last_modified, result}`; generated_at is the
 *   mirror's start, so a published change changes only its product's document (the real site
 *   rebuilds every document at each deploy: there every ETag changes each day);
 * - last_modified (the page's last git change upstream, absent from the shared data): the newest
 *   date the page names (release or latest release), or the instant a change was published here;
 * - product: name = the id, label = title, aliases = alternate_urls without "/", category,
 *   tags = the tags plus the category (sorted), versionCommand, identifiers [{type, id}],
 *   labels {eoas, discontinued, eol, eoes} (the column's label when it is on), links {icon, html,
 *   releasePolicy};
 * - release: name = releaseCycle, codename, label = releaseCycle, releaseDate; each field that is
 *   a date or a flag (lts, eoas, eol, discontinued, eoes) split into `isX` (the flag, or "the date
 *   has passed") and `xFrom` (the date, or null); isEoas/eoasFrom, isEoes/eoesFrom and
 *   isDiscontinued/discontinuedFrom only for a product with that column (set, or used by a
 *   release); isMaintained (some date to come or flag still on); latest {name, date, link}
 *   (null when latestColumn is false), link from the release's `link` or the changelogTemplate
 *   (__RELEASE_CYCLE__, __CODENAME__, __LATEST__, __LATEST_RELEASE_DATE__; null when Liquid remains).
 */
export interface EolMirrorOptions {
  /** ../shared/data (its eol/products-frontmatter.json), an eol directory, or the JSON export itself. */
  data: string;
  /** Only these products (default: all of the file). */
  only?: string[];
  /** Path prefix of the API (default /eol/api/v1): the address is `<origin><prefix>`. */
  prefix?: string;
  /** Statuses to answer first, in order, per path after the prefix (`/products`, `/products/nginx`), with Retry-After: 0. */
  faults?: Record<string, number[]>;
  /** Products whose document is served cut in half (a broken document). */
  corrupt?: string[];
  /** The day the isX flags are computed for (default: now). */
  now?: () => Date;
}

export interface EolMirror extends Mirror {
  /** Publishes a change of a product's front matter (a new product when unknown): its document changes, last_modified is now. */
  publish(name: string, change: (fm: FrontMatter) => void): void;
  /** Withdraws a product: its document answers 404, and the list no longer names it (unless `listed`). */
  remove(name: string, opts?: { listed?: boolean }): void;
  /** Answers 503 to every product document after `n` more have been served (null: serve again). */
  failAfter(n: number | null): void;
  /** Statuses still to answer first, per path (tests add faults after start). */
  readonly faults: Record<string, number[]>;
  readonly corrupt: Set<string>;
}

export type FrontMatter = Record<string, unknown> & { title: string; releases: Record<string, unknown>[] };

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;
const isDay = (v: unknown): v is string => typeof v === "string" && ISO_DAY.test(v);

function exportFile(data: string): string {
  if (statSync(data).isFile()) return data;
  for (const f of [join(data, "eol", "products-frontmatter.json"), join(data, "products-frontmatter.json")]) if (existsSync(f)) return f;
  throw new Error(`${data} : products-frontmatter.json introuvable`);
}

/** Fills a template as endoflife.date does (a placeholder the release lacks becomes empty); null when Liquid remains. */
function render(template: string, r: Record<string, unknown>): string | null {
  const out = template
    .trim()
    .replaceAll("__RELEASE_CYCLE__", String(r.releaseCycle ?? ""))
    .replaceAll("__CODENAME__", String(r.codename ?? ""))
    .replaceAll("__LATEST__", String(r.latest ?? ""))
    .replaceAll("__LATEST_RELEASE_DATE__", String(r.latestReleaseDate ?? ""));
  return out.includes("{{") || out.includes("{%") ? null : out;
}

/** The API v1 product (`result` of /products/<name>) derived from a page's front matter (see the file's comment). */
export function apiProductOf(id: string, fm: FrontMatter, today: string): Record<string, unknown> {
  const tags = typeof fm.tags === "string" ? fm.tags.split(/\s+/).filter(Boolean) : Array.isArray(fm.tags) ? [...fm.tags] : [];
  if (typeof fm.category === "string") tags.push(fm.category);
  const has = (field: string, column: string) => !!fm[column] || (fm[column] === undefined && fm.releases.some((r) => field in r));
  const columns = {
    eoas: has("eoas", "eoasColumn"),
    discontinued: has("discontinued", "discontinuedColumn"),
    eoes: has("eoes", "eoesColumn"),
  };
  const label = (column: string, fallback: string) =>
    typeof fm[column] === "string" ? (fm[column] as string) : fm[column] ? fallback : null;
  const split = (r: Record<string, unknown>, field: string, is: string, from: string, absent: boolean | null) => {
    const v = field in r ? r[field] : absent;
    return isDay(v) ? { [is]: today > v, [from]: v } : { [is]: typeof v === "boolean" ? v : null, [from]: null };
  };
  const releases = fm.releases.map((r) => {
    const template =
      "link" in r ? (typeof r.link === "string" ? r.link : null) : typeof fm.changelogTemplate === "string" ? fm.changelogTemplate : null;
    const dates = ["eoas", "eol", "discontinued", "eoes"].map((f) => r[f]).filter((v) => v !== undefined);
    return {
      name: String(r.releaseCycle),
      codename: r.codename ?? null,
      label: String(r.releaseCycle),
      releaseDate: r.releaseDate ?? null,
      ...split(r, "lts", "isLts", "ltsFrom", false),
      ...(columns.eoas ? split(r, "eoas", "isEoas", "eoasFrom", null) : {}),
      ...split(r, "eol", "isEol", "eolFrom", null),
      ...(columns.discontinued ? split(r, "discontinued", "isDiscontinued", "discontinuedFrom", null) : {}),
      ...(columns.eoes ? split(r, "eoes", "isEoes", "eoesFrom", null) : {}),
      isMaintained: dates.some((v) => (isDay(v) ? v >= today : v === false)),
      latest:
        fm.latestColumn === false
          ? null
          : { name: r.latest ?? null, date: r.latestReleaseDate ?? null, link: template ? render(template, r) : null },
    };
  });
  const aliases = (fm.alternate_urls ?? fm.alternative_urls) as unknown;
  return {
    name: id,
    aliases: Array.isArray(aliases) ? aliases.map((a) => String(a).replace(/^\//, "")) : [],
    label: fm.title,
    category: fm.category ?? null,
    tags: tags.sort(),
    versionCommand: fm.versionCommand ?? null,
    identifiers: (Array.isArray(fm.identifiers) ? fm.identifiers : []).flatMap((i: Record<string, unknown>) =>
      Object.entries(i).map(([type, v]) => ({ type, id: v })),
    ),
    labels: {
      eoas: label("eoasColumn", "Active Support"),
      discontinued: label("discontinuedColumn", "Discontinued"),
      eol: label("eolColumn", "Security Support") ?? "Security Support",
      eoes: label("eoesColumn", "Extended Support"),
    },
    links: {
      icon: typeof fm.iconSlug === "string" ? `https://cdn.jsdelivr.net/npm/simple-icons/icons/${fm.iconSlug}.svg` : null,
      html: `https://endoflife.date/${id}`,
      releasePolicy: fm.releasePolicyLink ?? null,
    },
    releases,
  };
}

/** The newest date a page names: the stand-in for its last git change (the shared data has none). */
function newestDate(fm: FrontMatter): string {
  let max = "1970-01-01";
  for (const r of fm.releases) for (const v of [r.releaseDate, r.latestReleaseDate]) if (isDay(v) && v > max) max = v;
  return `${max}T00:00:00Z`;
}

/** endoflife.date's API v1 derived from the front matters (see the file's comment). */
export function eolMirror(options: EolMirrorOptions): EolMirror {
  const prefix = (options.prefix ?? "/eol/api/v1").replace(/\/+$/, "");
  const now = options.now ?? (() => new Date());
  const started = now().toISOString();
  // The export is read once (2.1 MB for all 464 products); documents are built per request.
  const all = JSON.parse(readFileSync(exportFile(options.data), "utf8")) as Record<string, FrontMatter>;
  const pages = new Map<string, FrontMatter>();
  for (const id of (options.only ?? Object.keys(all)).sort()) if (all[id]) pages.set(id, all[id]);
  const modified = new Map<string, string>();
  const faults: Record<string, number[]> = { ...options.faults };
  const corrupt = new Set(options.corrupt ?? []);
  const gone = new Set<string>();
  let servedBeforeFailure: number | null = null;

  const send = (req: IncomingMessage, res: ServerResponse, body: string, lastModified: string) => {
    const etag = `"${createHash("sha1").update(body).digest("base64url")}"`;
    const lm = new Date(lastModified).toUTCString();
    const inm = req.headers["if-none-match"];
    const ims = req.headers["if-modified-since"];
    // If-None-Match decides when present (RFC 9110 13.2.2); else If-Modified-Since.
    const same = inm !== undefined ? inm === etag : ims !== undefined && Date.parse(ims) >= Date.parse(lm);
    if (same) return void res.writeHead(304, { etag, "last-modified": lm }).end();
    res.writeHead(200, { "content-type": "application/json", etag, "last-modified": lm }).end(body);
  };

  const productDoc = (id: string, fm: FrontMatter) => {
    const last = modified.get(id) ?? newestDate(fm);
    const doc = {
      schema_version: "1.0.0",
      generated_at: started,
      last_modified: last,
      result: apiProductOf(id, fm, now().toISOString().slice(0, 10)),
    };
    return { body: JSON.stringify(doc), last };
  };

  return {
    source: "eol",
    faults,
    corrupt,
    addresses: (origin) => [`${origin}${prefix}`],
    publish(name, change) {
      const fm = structuredClone(pages.get(name) ?? ({ title: name, category: "app", releases: [] } as FrontMatter));
      change(fm);
      pages.set(name, fm);
      modified.set(name, now().toISOString());
    },
    remove(name, opts) {
      if (opts?.listed) gone.add(name);
      else pages.delete(name);
    },
    failAfter(n) {
      servedBeforeFailure = n;
    },
    handle(req, res) {
      const path = new URL(req.url ?? "/", "http://mirror").pathname;
      if (req.method !== "GET" || !path.startsWith(`${prefix}/`)) return false;
      const rest = path.slice(prefix.length).replace(/\/+$/, "");
      const queued = faults[rest];
      if (queued?.length) {
        res.writeHead(queued.shift()!, { "retry-after": "0" }).end();
        return true;
      }
      if (rest === "/products") {
        const result = [...pages.entries()].map(([id, fm]) => {
          const p = apiProductOf(id, fm, "0000-00-00");
          return {
            name: id,
            aliases: p.aliases,
            label: p.label,
            category: p.category,
            tags: p.tags,
            uri: `https://endoflife.date/api/v1/products/${id}`,
          };
        });
        const body = JSON.stringify({ schema_version: "1.0.0", generated_at: started, total: result.length, result });
        const last =
          [...pages.values()]
            .map((fm) => newestDate(fm))
            .concat([...modified.values()])
            .sort()
            .pop() ?? started;
        send(req, res, body, last);
        return true;
      }
      const m = /^\/products\/([^/]+)$/.exec(rest);
      const id = m ? decodeURIComponent(m[1]!) : null;
      const fm = id ? pages.get(id) : undefined;
      if (!id || !fm || gone.has(id)) return false;
      if (servedBeforeFailure !== null && servedBeforeFailure-- <= 0) {
        servedBeforeFailure = 0;
        res.writeHead(503, { "retry-after": "0" }).end();
        return true;
      }
      const { body, last } = productDoc(id, fm);
      if (corrupt.has(id)) res.writeHead(200, { "content-type": "application/json" }).end(body.slice(0, body.length >> 1));
      else send(req, res, body, last);
      return true;
    },
  };
}

/**
 * endoflife.date data (https://github.com/endoflife-date/endoflife.date, MIT), in two forms:
 * the site's sources and its API v1 (productOfApi below). A product page
 * `products/<id>.md` is Markdown with a YAML front matter — `title`, `category`, `identifiers`
 * (`purl`, `cpe`, `repology`) and `releases`, one per release cycle (`releaseCycle`,
 * `releaseDate`, `eol`, `lts`, `support` / `eoas`, `extendedSupport` / `eoes`, `latest`,
 * `latestReleaseDate`, `link`). `eol`, `lts`, `support` and `extendedSupport` are a date or a
 * boolean upstream, and stay so here. The front matter is read with the `yaml` library (YAML 1.2
 * core schema: dates stay strings, as upstream writes them).
 */
import { parse as parseYaml } from "yaml";
import { normalizeName, parseCpe } from "../matching/cpe.js";
import { BadItem, packageName } from "../matching/items.js";
import { type Purl, parsePurl } from "../matching/purl.js";
import { compareVersions, isConcreteVersion } from "../matching/version.js";
import { RecordError } from "./types.js";

/** A date string (YYYY-MM-DD as upstream writes it), a boolean, or nothing. */
export type DateOrBool = string | boolean | null;

export interface EolCycle {
  cycle: string;
  /** Place on the page (0 first). */
  position: number;
  release_date: string | null;
  eol: DateOrBool;
  lts: DateOrBool;
  support: DateOrBool;
  extended_support: DateOrBool;
  latest: string | null;
  latest_release_date: string | null;
  link: string | null;
}

export type EolIdentifier = { purl: string } | { cpe: string } | { repology: string };

export interface EolProduct {
  id: string;
  name: string;
  category: string | null;
  description: string | null;
  identifiers: EolIdentifier[];
  /** Lookup keys of the CPE and purl identifiers (eolKeyOfCpe, eolKeyOfPurl). */
  keys: string[];
  cycles: EolCycle[];
}

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;
const FRONT_MATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** The day of an ISO date string, else null (the value as a date column). */
export function isoDay(v: unknown): string | null {
  return typeof v === "string" && ISO_DAY.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) ? v : null;
}

function day(v: unknown): string | null {
  if (v === null || v === undefined || v === "") return null;
  return isoDay(String(v));
}

function dateOrBool(v: unknown): DateOrBool {
  if (typeof v === "boolean") return v;
  if (v === null || v === undefined || v === "") return null;
  return String(v);
}

function text(v: unknown): string | null {
  if (v === null || v === undefined || typeof v === "object") return null;
  const s = String(v).trim();
  return s ? s : null;
}

/**
 * The lookup key of a CPE identifier (2.3 string or 2.2 URI): `cpe:<vendor>:<product>` in their
 * CPE-style form, whatever the part (a CPE stack item and a `vendor:product` item find the same
 * product). Null when vendor or product is not named.
 */
export function eolKeyOfCpe(cpe: string): string | null {
  let v = cpe.trim();
  // endoflife.date writes CPE 2.3 prefixes (cpe:2.3:a:f5:nginx): the other attributes are ANY.
  if (v.startsWith("cpe:2.3:")) {
    const parts = v.split(/(?<!\\):/).length;
    if (parts < 13) v += ":*".repeat(13 - parts);
  }
  const c = parseCpe(v);
  if (!c || !isConcreteVersion(c.vendor) || !isConcreteVersion(c.product)) return null;
  return `cpe:${normalizeName(c.vendor)}:${normalizeName(c.product)}`;
}

/**
 * A purl's lookup key and version: `pkg:<type>/<namespace>/<name>` lower case, percent-decoded,
 * without version, qualifiers or subpath (PyPI names in their PEP 503 form), as parsePurl reads
 * it. Null when malformed.
 */
export function parsePurlKey(purl: string): { key: string; version: string | null } | null {
  let p: Purl;
  try {
    p = parsePurl(purl);
  } catch (err) {
    if (err instanceof BadItem) return null;
    throw err;
  }
  const path = p.namespace ? `${p.namespace}/${p.name}` : p.name;
  return { key: `pkg:${p.type}/${packageName(p.type, path)}`, version: p.version };
}

/** The lookup key of a purl identifier (see parsePurlKey). */
export function eolKeyOfPurl(purl: string): string | null {
  return parsePurlKey(purl)?.key ?? null;
}

/**
 * The release cycle a version belongs to: the version equals the cycle (compared as versions:
 * 1.22 = 1.22.0) or starts with the cycle and a dot (1.22.1 is in 1.22); a leading `v` is ignored.
 * The longest such cycle wins (3.1.2 is in 3.1 rather than 3). Null when none.
 */
export function cycleOfVersion<C extends { cycle: string }>(version: string, cycles: readonly C[]): C | null {
  const v = version.trim().replace(/^v(?=\d)/i, "");
  if (!isConcreteVersion(v)) return null;
  let best: C | null = null;
  for (const c of cycles) {
    const cy = c.cycle.trim().replace(/^v(?=\d)/i, "");
    if (!cy) continue;
    const inCycle = v.toLowerCase().startsWith(`${cy.toLowerCase()}.`) || compareVersions(v, cy) === 0;
    if (inCycle && (!best || cy.length > best.cycle.length)) best = c;
  }
  return best;
}

/**
 * A cycle's link as endoflife.date shows it: its own `link` (null: none), else the page's
 * `changelogTemplate`, with `__RELEASE_CYCLE__`, `__LATEST__`, `__CODENAME__` and
 * `__LATEST_RELEASE_DATE__` filled in. A template still holding Liquid (`{{…}}`) or a placeholder
 * the cycle lacks gives no link.
 */
function linkOf(template: unknown, r: Record<string, unknown>): string | null {
  const t = text(template);
  if (!t) return null;
  const values: Record<string, unknown> = {
    __RELEASE_CYCLE__: r.releaseCycle,
    __LATEST__: r.latest,
    __CODENAME__: r.codename,
    __LATEST_RELEASE_DATE__: r.latestReleaseDate,
  };
  let missing = false;
  const out = t.replace(/__[A-Z_]+?__/g, (ph) => {
    const v = text(values[ph]);
    if (v === null) missing = true;
    return v ?? ph;
  });
  return missing || out.includes("{{") || out.includes("{%") ? null : out;
}

/** The first paragraph of the page's leading quote (`> [NGINX](…) is …`), links as their text. */
function descriptionOf(body: string): string | null {
  const lines: string[] = [];
  for (const line of body.split(/\r?\n/)) {
    if (/^\s*>/.test(line)) {
      const t = line.replace(/^\s*>\s?/, "");
      if (!t.trim() && lines.length) break;
      if (t.trim()) lines.push(t.trim());
    } else if (lines.length) break;
    else if (line.trim()) return null; // the page starts with something else than a quote
  }
  if (!lines.length) return null;
  const out = lines
    .join(" ")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\s+/g, " ")
    .trim();
  return out || null;
}

/** A product from its id and front matter (a page's, or an entry of a JSON bundle) and its description. */
const IDENTIFIER_KINDS = ["purl", "cpe", "repology"] as const;

/** Identifiers given as (kind, value) pairs, with the lookup keys of the CPE and purl ones; unknown kinds are left. */
function identifiersOf(pairs: Iterable<[unknown, unknown]>): { identifiers: EolIdentifier[]; keys: string[] } {
  const identifiers: EolIdentifier[] = [];
  const keys = new Set<string>();
  for (const [kind, value] of pairs) {
    if (!IDENTIFIER_KINDS.includes(kind as never) || typeof value !== "string") continue;
    identifiers.push({ [kind as string]: value } as EolIdentifier);
    const key = kind === "cpe" ? eolKeyOfCpe(value) : kind === "purl" ? eolKeyOfPurl(value) : null;
    if (key) keys.add(key);
  }
  return { identifiers, keys: [...keys].sort() };
}

export function productOf(id: string, fm: unknown, description: string | null): EolProduct {
  if (!fm || typeof fm !== "object" || Array.isArray(fm)) throw new RecordError("front matter absente ou qui n'est pas un objet");
  const f = fm as Record<string, unknown>;
  const name = text(f.title);
  if (!name) throw new RecordError("title absent");
  if (!Array.isArray(f.releases)) throw new RecordError("releases absent ou qui n'est pas une liste");
  const { identifiers, keys } = identifiersOf(
    (Array.isArray(f.identifiers) ? f.identifiers : []).flatMap((raw): [unknown, unknown][] => {
      if (!raw || typeof raw !== "object") return [];
      const r = raw as Record<string, unknown>;
      const kind = IDENTIFIER_KINDS.find((k) => typeof r[k] === "string");
      return kind ? [[kind, r[kind]]] : [];
    }),
  );
  const seen = new Set<string>();
  const cycles: EolCycle[] = [];
  for (const [i, raw] of f.releases.entries()) {
    if (!raw || typeof raw !== "object") throw new RecordError(`releases[${i}] n'est pas un objet`);
    const r = raw as Record<string, unknown>;
    const cycle = text(r.releaseCycle);
    if (!cycle) throw new RecordError(`releases[${i}] : releaseCycle absent`);
    // A cycle named twice on a page: the first (upstream lists newest first) is kept.
    if (seen.has(cycle)) continue;
    seen.add(cycle);
    cycles.push({
      cycle,
      position: cycles.length,
      release_date: day(r.releaseDate),
      eol: dateOrBool(r.eol),
      lts: dateOrBool(r.lts),
      support: dateOrBool(r.support ?? r.eoas),
      extended_support: dateOrBool(r.extendedSupport ?? r.eoes),
      latest: text(r.latest),
      latest_release_date: day(r.latestReleaseDate),
      link: linkOf("link" in r ? r.link : f.changelogTemplate, r),
    });
  }
  return { id, name, category: text(f.category), description, identifiers, keys, cycles };
}

/** An API v1 date-or-flag pair as the front matter writes it: the date when there is one, else the flag, else null. */
function fromPair(date: unknown, flag: unknown): DateOrBool {
  return isoDay(date) ?? (typeof flag === "boolean" ? flag : null);
}

/**
 * A product of endoflife.date's API v1 (`result` of `GET /api/v1/products/<name>`, or an entry of
 * `/api/v1/products/full`): `name` (the id), `label`, `category`, `identifiers` ([{type, id}]),
 * `releases` ([{name, releaseDate, isLts/ltsFrom, isEoas/eoasFrom, isEol/eolFrom, isEoes/eoesFrom,
 * latest {name, date, link}}], newest first). The API splits each front-matter field that is a
 * date or a flag into a flag (`isEol`, true once the date has passed) and a date (`eolFrom`, null
 * when the field was a flag): the date is kept when there is one, else the flag — the front
 * matter's own value, so both forms give the same cycle rows. `eoas`/`eoes` are absent for a
 * product without those columns (null here); `latest` is null for one without a release column.
 * The API carries no description: null, and the import keeps the one a page gave.
 */
export function productOfApi(result: unknown): EolProduct {
  if (!result || typeof result !== "object" || Array.isArray(result)) throw new RecordError("result absent ou qui n'est pas un objet");
  const r = result as Record<string, unknown>;
  const id = text(r.name);
  if (!id) throw new RecordError("name absent");
  const name = text(r.label);
  if (!name) throw new RecordError(`${id} : label absent`);
  if (!Array.isArray(r.releases)) throw new RecordError(`${id} : releases absent ou qui n'est pas une liste`);
  const { identifiers, keys } = identifiersOf(
    (Array.isArray(r.identifiers) ? r.identifiers : []).map((i): [unknown, unknown] =>
      i && typeof i === "object" ? [(i as Record<string, unknown>).type, (i as Record<string, unknown>).id] : [null, null],
    ),
  );
  const seen = new Set<string>();
  const cycles: EolCycle[] = [];
  for (const [i, raw] of r.releases.entries()) {
    if (!raw || typeof raw !== "object") throw new RecordError(`${id} : releases[${i}] n'est pas un objet`);
    const c = raw as Record<string, unknown>;
    const cycle = text(c.name);
    if (!cycle) throw new RecordError(`${id} : releases[${i}] : name absent`);
    if (seen.has(cycle)) continue;
    seen.add(cycle);
    const latest = c.latest && typeof c.latest === "object" ? (c.latest as Record<string, unknown>) : {};
    cycles.push({
      cycle,
      position: cycles.length,
      release_date: day(c.releaseDate),
      eol: fromPair(c.eolFrom, c.isEol),
      lts: fromPair(c.ltsFrom, c.isLts),
      support: fromPair(c.eoasFrom, c.isEoas),
      extended_support: fromPair(c.eoesFrom, c.isEoes),
      latest: text(latest.name),
      latest_release_date: day(latest.date),
      link: text(latest.link),
    });
  }
  return { id, name, category: text(r.category), description: null, identifiers, keys, cycles };
}

/** An API v1 answer: `{schema_version, generated_at, last_modified?, result}` (RecordError when it is not one). */
export function eolApiAnswer(doc: unknown): { result: unknown; lastModified: string | null } {
  if (!doc || typeof doc !== "object" || Array.isArray(doc) || !("result" in doc) || !("schema_version" in doc))
    throw new RecordError("réponse de l'API v1 attendue ({schema_version, result})");
  const d = doc as Record<string, unknown>;
  const lm = typeof d.last_modified === "string" && !Number.isNaN(Date.parse(d.last_modified)) ? d.last_modified : null;
  return { result: d.result, lastModified: lm };
}

/** The product names of the API v1 list (`GET /api/v1/products`: result [{name, label, category, uri…}]). */
export function eolApiNames(doc: unknown): string[] {
  const { result } = eolApiAnswer(doc);
  if (!Array.isArray(result)) throw new RecordError("liste de produits attendue (result doit être une liste)");
  const names = new Set<string>();
  for (const e of result) {
    const n = e && typeof e === "object" ? text((e as Record<string, unknown>).name) : null;
    // A name is a path segment of the API: anything else is not requested.
    if (n && /^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(n)) names.add(n);
  }
  return [...names];
}

/** A product page (`products/<id>.md`): its front matter, and the first quote of its text as description. */
export function parseEolPage(id: string, page: string): EolProduct {
  const m = FRONT_MATTER.exec(page);
  if (!m) throw new RecordError("front matter YAML absente (la page doit commencer par ---)");
  let fm: unknown;
  try {
    fm = parseYaml(m[1]!);
  } catch (err) {
    throw new RecordError(`front matter YAML invalide : ${(err as Error).message.split("\n")[0]}`);
  }
  return productOf(id, fm, descriptionOf(page.slice(m[0].length)));
}

/**
 * The product id of a page from its file name (`products-md/nginx.md` → `nginx`; a download keeps
 * its remote name, src/feeds/sync/fetch.ts).
 */
export function pageId(file: string): string {
  return file
    .split(/[\\/]/)
    .pop()!
    .replace(/\.md(\.gz)?$/, "");
}

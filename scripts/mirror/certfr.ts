import { createHash } from "node:crypto";
import { createReadStream, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createGunzip } from "node:zlib";
import type { Mirror } from "./mirror.js";

/**
 * CERT-FR's site as the avis sync reads it: the avis feed (`<base>/avis/feed/`) and each avis's
 * official JSON document (`<base>/avis/<reference>/json/`), built from real documents:
 * `certfr/certfr-all-json.jsonl.gz` of shared/data (16,538 avis, 2000 → 2026-02-20; each line is one
 * document as the site serves it, unpacked once to a cache directory) or a test's document files
 * (served byte-exact).
 *
 * DERIVED: the feed's XML. No real capture of CERT-FR's RSS is in the corpus (shared/data/MANIFEST.md,
 * "Not obtained"). It is written from the documents in the shape third-party captures of the real
 * feed show (RSS 2.0, channel "CERT-FR" with atom:link, generator, language fr-FR, lastBuildDate;
 * each item: `<title>` "Title (18 juin 2026)", `<link>` and `<guid isPermaLink="true">` the avis page,
 * `<description>` the summary, `<pubDate>` the first publication at 00:00 +0000) and their order:
 * the `count` avis of the latest revisions, oldest first, so that a revised avis comes back at the
 * end of the list with its guid and pubDate unchanged (`pubDate: "revision"` dates it by its latest
 * revision instead, as a feed that re-dates revised items would).
 */
export interface CertfrMirrorOptions {
  /** shared/data's path: the documents of `certfr/certfr-all-json.jsonl.gz`. */
  data?: string;
  /** Or these document files (one avis each, served as they are). */
  files?: string[];
  /** Avis listed by the feed (default 40, about what the site lists). */
  count?: number;
  /** Path prefix of the site's base (default "/certfr"). */
  prefix?: string;
  /** The items' pubDate: the first publication (default, as the site) or the latest revision. */
  pubDate?: "first" | "revision";
  /** Where the whole data's documents are unpacked (default: a directory under the system's temp). */
  cacheDir?: string;
  /** Answers given before the normal one: to the feed, or to a document by reference. */
  faults?: { feed?: Answer[]; documents?: Record<string, Answer[]> };
}

/** A status (503, 429 with Retry-After 0, 404…), a truncated document, or a JSON document that is no avis. */
export type Answer = number | "corrupt" | "invalid";

export interface CertfrMirror extends Mirror {
  /** Resolves once the whole data is read (at once for document files). */
  ready(): Promise<void>;
  /** The references the feed lists now, in its order. */
  listed(): string[];
  /** Publishes a revision of an avis (a new `revisions` entry, CVEs added): it comes back at the end of the feed. */
  revise(ref: string, change?: { date?: string; description?: string; cves?: string[] }): void;
  /** Publishes a new avis (a document). */
  publish(doc: Record<string, unknown>): void;
  /** Queues answers given before the normal one (`"feed"` or a reference). */
  fail(target: string, ...answers: Answer[]): void;
}

interface Entry {
  ref: string;
  first: string;
  last: string;
  /** Order of publication at the mirror among avis of one day (revisions published after start come last). */
  seq: number;
  title: string;
  summary: string;
  /** The document as served (read on demand), or its text when published at the mirror. */
  file?: string;
  text?: string;
  /** Revisions and CVEs published at the mirror since start. */
  revisions?: { description: string; revision_date: string }[];
  cves?: string[];
}

const MONTHS = ["janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"];

function xml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function plain(s: unknown): string {
  return typeof s === "string"
    ? s
        .replace(/<[^>]*>/g, "")
        .replace(/\s+/g, " ")
        .trim()
    : "";
}

/** "2026-06-18T00:00:00.000000" → "2026-06-18". */
function day(v: unknown): string | null {
  const m = typeof v === "string" ? /^(\d{4}-\d{2}-\d{2})/.exec(v) : null;
  return m ? m[1]! : null;
}

function entryOf(doc: Record<string, unknown>, seq: number): Omit<Entry, "file" | "text"> | null {
  const ref = typeof doc.reference === "string" ? doc.reference : null;
  if (!ref) return null;
  const days = (Array.isArray(doc.revisions) ? doc.revisions : [])
    .map((r) => day((r as { revision_date?: unknown })?.revision_date))
    .filter((d): d is string => d !== null)
    .sort();
  if (!days.length) return null;
  const summary = plain(doc.summary);
  return {
    ref,
    first: days[0]!,
    last: days[days.length - 1]!,
    seq,
    title: plain(doc.title) || ref,
    // The site's descriptions stop at about 300 characters with "...".
    summary: summary.length > 300 ? `${summary.slice(0, 297)}...` : summary,
  };
}

function rfc822(d: string): string {
  return new Date(`${d}T00:00:00Z`).toUTCString().replace("GMT", "+0000");
}

/** Reads the whole data's documents, unpacking each line to `<cache>/<reference>.json` once. */
async function loadData(data: string, cache: string, entries: Map<string, Entry>): Promise<void> {
  const source = join(data, "certfr", "certfr-all-json.jsonl.gz");
  const stamp = createHash("sha1").update(readFileSync(source)).digest("hex").slice(0, 12);
  const dir = join(cache, stamp);
  const ready = existsSync(join(dir, ".complete"));
  mkdirSync(dir, { recursive: true });
  const lines = createInterface({ input: createReadStream(source).pipe(createGunzip()), crlfDelay: Number.POSITIVE_INFINITY });
  let seq = 0;
  for await (const line of lines) {
    if (!line.trim()) continue;
    const e = entryOf(JSON.parse(line) as Record<string, unknown>, seq++);
    if (!e) continue;
    const file = join(dir, `${e.ref}.json`);
    if (!ready) writeFileSync(file, line);
    entries.set(e.ref, { ...e, file });
  }
  writeFileSync(join(dir, ".complete"), "");
}

/**
 * A CERT-FR site serving real avis (see the module comment). Document files are read at once; the
 * whole data is read in the background (~1 s once unpacked, ~10 s the first time), each request
 * waiting for it (`ready()`).
 */
export function certfrMirror(options: CertfrMirrorOptions = {}): CertfrMirror {
  const prefix = options.prefix ?? "/certfr";
  const count = options.count ?? 40;
  const entries = new Map<string, Entry>();
  let seq = 0;
  for (const file of options.files ?? []) {
    const e = entryOf(JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>, seq++);
    if (e) entries.set(e.ref, { ...e, file });
  }
  seq = entries.size;
  const loading = options.data
    ? loadData(options.data, options.cacheDir ?? join(tmpdir(), "vigie-mirror-certfr"), entries).then(() => {
        seq = entries.size;
      })
    : Promise.resolve();
  // Awaited by each request: a failure shows there, not as an unhandled rejection.
  loading.catch(() => undefined);
  const faults = new Map<string, Answer[]>(Object.entries(options.faults?.documents ?? {}));
  if (options.faults?.feed) faults.set("feed", [...options.faults.feed]);
  let changedAt: Date | null = null;
  let feed: { refs: string[]; body: string; etag: string; lastModified: string } | null = null;

  const order = (a: Entry, b: Entry) => (a.last < b.last ? -1 : a.last > b.last ? 1 : a.seq - b.seq);
  const build = () => {
    if (feed) return feed;
    // The `count` latest by revision (sorting the whole data's 16,538 entries takes ~10 ms; kept until a change).
    const top = [...entries.values()].sort(order).slice(-count);
    const newest = top.length ? top[top.length - 1]!.last : "2000-01-01";
    const built = changedAt ?? new Date(`${newest}T00:00:00Z`);
    const items = top.map((e) => {
      const d = options.pubDate === "revision" ? e.last : e.first;
      const [y, m, dd] = e.first.split("-").map(Number) as [number, number, number];
      const page = `https://www.cert.ssi.gouv.fr/avis/${e.ref}/`;
      return (
        `<item><title>${xml(`${e.title} (${dd.toString().padStart(2, "0")} ${MONTHS[m - 1]} ${y})`)}</title>` +
        `<link>${page}</link><description>${xml(e.summary)}</description>` +
        `<guid isPermaLink="true">${page}</guid><pubDate>${rfc822(d)}</pubDate></item>`
      );
    });
    const body =
      `<?xml version='1.0' encoding='UTF-8'?>\n<rss xmlns:atom="http://www.w3.org/2005/Atom" xmlns:content="http://purl.org/rss/1.0/modules/content/" version="2.0">` +
      `<channel><title>CERT-FR</title><link>https://www.cert.ssi.gouv.fr/avis/feed/</link>` +
      `<description>Centre gouvernemental de veille, d'alerte et de réponse aux attaques informatiques.</description>` +
      `<atom:link href="https://www.cert.ssi.gouv.fr/avis/feed/" rel="self"/><docs>http://www.rssboard.org/rss-specification</docs>` +
      `<generator>CERT-FR</generator><language>fr-FR</language><lastBuildDate>${built.toUTCString().replace("GMT", "+0000")}</lastBuildDate>` +
      `${items.join("")}</channel></rss>`;
    feed = {
      refs: top.map((e) => e.ref),
      body,
      etag: `"${createHash("sha1").update(body).digest("hex").slice(0, 20)}"`,
      lastModified: built.toUTCString(),
    };
    return feed;
  };
  const changed = () => {
    feed = null;
    changedAt = new Date(Math.floor(Date.now() / 1000) * 1000);
  };

  const documentOf = (e: Entry): string => {
    const text = e.text ?? readFileSync(e.file!, "utf8");
    if (!e.revisions && !e.cves) return text;
    const doc = JSON.parse(text) as Record<string, unknown> & { revisions?: unknown[]; cves?: { name: string; url: string }[] };
    doc.revisions = [...(doc.revisions ?? []), ...(e.revisions ?? [])];
    const cves = doc.cves ?? [];
    for (const id of e.cves ?? [])
      if (!cves.some((c) => c.name === id)) cves.push({ name: id, url: `https://www.cve.org/CVERecord?id=${id}` });
    doc.cves = cves;
    return JSON.stringify(doc, null, 2);
  };

  const send = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "text/plain; charset=utf-8", ...headers }).end(body);
  };
  /** A queued fault, answered in place of the normal answer (true), or none. */
  const fault = (res: ServerResponse, target: string, ref: string): boolean => {
    const queue = faults.get(target);
    const answer = queue?.shift();
    if (answer === undefined) return false;
    if (answer === "corrupt") {
      const text = documentOf(entries.get(ref)!);
      send(res, 200, text.slice(0, Math.floor(text.length / 2)), { "content-type": "application/json" });
    } else if (answer === "invalid") {
      send(res, 200, JSON.stringify({ $ref: "https://www.cert.ssi.gouv.fr/openapi.json", title: "sans référence" }), {
        "content-type": "application/json",
      });
    } else send(res, answer, `HTTP ${answer}`, answer === 429 || answer === 503 ? { "retry-after": "0" } : {});
    return true;
  };

  return {
    source: "certfr",
    addresses: (origin) => [`${origin}${prefix}`],
    ready: () => loading,
    async handle(req: IncomingMessage, res: ServerResponse) {
      await loading;
      const path = (req.url ?? "").split("?")[0]!;
      if (!path.startsWith(`${prefix}/`)) return false;
      const rest = path.slice(prefix.length);
      if (/^\/avis\/feed\/?$/.test(rest)) {
        if (fault(res, "feed", "")) return true;
        const f = build();
        const inm = req.headers["if-none-match"];
        const ims = req.headers["if-modified-since"];
        const fresh = inm ? inm === f.etag : ims ? Date.parse(ims) >= Date.parse(f.lastModified) : false;
        const headers = { etag: f.etag, "last-modified": f.lastModified };
        if (fresh) res.writeHead(304, headers).end();
        else send(res, 200, f.body, { ...headers, "content-type": "application/rss+xml; charset=utf-8" });
        return true;
      }
      const m = /^\/avis\/([A-Z0-9-]+)\/json\/?$/i.exec(rest);
      if (!m) return false;
      const e = entries.get(m[1]!);
      if (!e) {
        send(res, 404, "avis inconnu");
        return true;
      }
      if (fault(res, e.ref, e.ref)) return true;
      send(res, 200, documentOf(e), { "content-type": "application/json" });
      return true;
    },
    listed: () => build().refs,
    revise(ref, change = {}) {
      const e = entries.get(ref);
      if (!e) throw new Error(`${ref} : avis inconnu du miroir`);
      const date = change.date ?? new Date().toISOString().slice(0, 10);
      e.revisions = [
        ...(e.revisions ?? []),
        { description: change.description ?? "Mise à jour", revision_date: `${date}T00:00:00.000000` },
      ];
      if (change.cves) e.cves = [...(e.cves ?? []), ...change.cves];
      if (date > e.last) e.last = date;
      e.seq = ++seq;
      changed();
    },
    publish(doc) {
      const e = entryOf(doc, ++seq);
      if (!e) throw new Error("document sans référence ni révision");
      entries.set(e.ref, { ...e, text: JSON.stringify(doc, null, 2) });
      changed();
    },
    fail(target, ...answers) {
      faults.set(target, [...(faults.get(target) ?? []), ...answers]);
    },
  };
}

import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { Logger } from "pino";
import type { FeedSettings } from "../../config.js";
import { FetchError, getWithRetries } from "../../feeds/sync/fetch.js";
import { forbiddenAddress } from "../../platform/net/address.js";

/**
 * The provider's side of CSAF 2.0 §7 as Vigie reads it: discovery of the provider-metadata.json
 * (§7.3.1: the `.well-known/csaf/` path, then security.txt's `CSAF:` fields, then the
 * `csaf.data.security.<domain>` host), and its distributions' listings — ROLIE feeds
 * (§7.1.16, entries with self, hash and signature links) and directories (`changes.csv`, §7.1.13,
 * else `index.txt`, §7.1.12). Every request goes through the feeds' getWithRetries (timeout,
 * retries with backoff, the sync's abort), with the feeds' settings.
 */

/** Documents larger than this are refused unread (a provider serving 20 MB of JSON is not serving an advisory). */
export const MAX_DOCUMENT_BYTES = 15 * 1024 * 1024;
/** Listings (feeds, changes.csv, metadata) larger than this stop the provider's sync. */
const MAX_LISTING_BYTES = 64 * 1024 * 1024;

export interface Validators {
  etag?: string;
  lastModified?: string;
}

export interface Got {
  status: number;
  headers: Headers;
  /** The body (absent for a 304 or an error status). */
  bytes?: Uint8Array;
}

export class TooLarge extends Error {}

/** The HTTP side: GET with the feeds' retries, the body read whole up to a limit. */
export class CsafHttp {
  /** Credentials' headers, sent only to this origin (the provider-metadata's): never to a host a listing names elsewhere. */
  private auth: { origin: string; headers: Record<string, string> } | null = null;

  constructor(
    private readonly settings: FeedSettings,
    private readonly log: Logger,
    private readonly signal: AbortSignal,
    /** VIGIE_ALLOW_PRIVATE_TARGETS: a provider may lead to private, loopback and link-local addresses. */
    private readonly allowPrivate = false,
  ) {}

  /** Sends these headers (credentials) with every request to `origin`, and to no other. */
  authorize(origin: string, headers: Record<string, string>): void {
    this.auth = { origin, headers };
  }

  async get(url: string, opts: { conditional?: Validators | null; limit?: number } = {}): Promise<Got> {
    if (!this.allowPrivate) await refusePrivate(url);
    const headers: Record<string, string> = this.auth && new URL(url).origin === this.auth.origin ? { ...this.auth.headers } : {};
    if (opts.conditional?.etag) headers["if-none-match"] = opts.conditional.etag;
    if (opts.conditional?.lastModified) headers["if-modified-since"] = opts.conditional.lastModified;
    const res = await getWithRetries(
      { settings: this.settings, signal: this.signal, log: this.log, dir: "", endings: [], defaultEnding: "" },
      url,
      headers,
    );
    if (res.status < 200 || res.status > 299 || !res.body) {
      await res.body?.cancel();
      return { status: res.status, headers: res.headers };
    }
    const limit = opts.limit ?? MAX_LISTING_BYTES;
    const declared = Number(res.headers.get("content-length") ?? Number.NaN);
    if (declared > limit) {
      await res.body.cancel();
      throw new TooLarge(`${declared} octets annoncés, au-delà de la limite de ${limit}`);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > limit) throw new TooLarge(`plus de ${limit} octets`);
      chunks.push(chunk);
    }
    return { status: res.status, headers: res.headers, bytes: Buffer.concat(chunks) };
  }

  /** GET a text; a non-2xx status throws. */
  async text(url: string): Promise<string> {
    const got = await this.get(url);
    if (!got.bytes) throw new FetchError(`${url} : HTTP ${got.status}`, got.status);
    return Buffer.from(got.bytes).toString("utf8");
  }
}

/**
 * The outbound address guard for a provider's addresses (users type them): every address the host
 * resolves to must be public, as for webhooks and URL scans. A host that does not resolve is left to
 * the request, which says so.
 */
async function refusePrivate(url: string): Promise<void> {
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, "$1");
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true })).map((a) => a.address);
    } catch {
      return;
    }
  }
  for (const a of addresses) {
    const kind = forbiddenAddress(a);
    if (kind)
      throw new FetchError(`${host} mène à une adresse ${kind} (${a}) : refusé (VIGIE_ALLOW_PRIVATE_TARGETS=true pour l'autoriser)`, null);
  }
}

export const validatorsOf = (h: Headers): Validators => {
  const etag = h.get("etag");
  const lastModified = h.get("last-modified");
  return { ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) };
};

/** What the organization gave: a domain (`example.com`, `host:port`) or the provider-metadata's URL. */
export function candidatesOf(requested: string, scheme: "https" | "http"): { url: string; via: string }[] {
  if (/^https?:\/\//i.test(requested)) return [{ url: requested, via: "url" }];
  const host = requested.replace(/\/+$/, "");
  const bare = host.replace(/:\d+$/, "");
  return [
    { url: `${scheme}://${host}/.well-known/csaf/provider-metadata.json`, via: "well-known" },
    { url: `${scheme}://${host}/.well-known/security.txt`, via: "security.txt" },
    { url: `${scheme}://${host}/security.txt`, via: "security.txt" },
    // §7.1.10 requirement 10: the DNS path, a host of its own.
    ...(/^[0-9.]+$/.test(bare) ? [] : [{ url: `${scheme}://csaf.data.security.${host}`, via: "dns" }]),
  ];
}

/** The `CSAF:` fields of a security.txt (RFC 9116 §2.5; CSAF 2.0 §7.1.8), in order. */
export function csafFieldsOf(securityTxt: string): string[] {
  return securityTxt
    .split(/\r?\n/)
    .map((l) => /^CSAF:\s*(\S+)/i.exec(l.trim())?.[1])
    .filter((x): x is string => !!x);
}

/** The parts of a provider-metadata.json Vigie uses, checked (a fault is the reason, thrown). */
export interface ProviderMetadata {
  canonical_url: string;
  role: string;
  publisher: { name: string; namespace: string };
  keys: { fingerprint: string; url: string }[];
  rolie: { url: string; tlp: string }[];
  directories: string[];
}

const ROLES = new Set(["csaf_publisher", "csaf_provider", "csaf_trusted_provider"]);

export function readMetadata(doc: unknown): ProviderMetadata {
  const m = (doc ?? {}) as Record<string, unknown>;
  if (m.metadata_version !== "2.0") throw new Error("provider-metadata.json : metadata_version 2.0 attendu");
  const role = String(m.role ?? "");
  if (!ROLES.has(role)) throw new Error(`provider-metadata.json : rôle « ${role} » inconnu`);
  const publisher = (m.publisher ?? {}) as Record<string, unknown>;
  const rolie: ProviderMetadata["rolie"] = [];
  const directories: string[] = [];
  for (const d of Array.isArray(m.distributions) ? (m.distributions as Record<string, unknown>[]) : []) {
    if (typeof d.directory_url === "string") directories.push(d.directory_url);
    const feeds = ((d.rolie ?? {}) as Record<string, unknown>).feeds;
    for (const f of Array.isArray(feeds) ? (feeds as Record<string, unknown>[]) : [])
      if (typeof f.url === "string") rolie.push({ url: f.url, tlp: String(f.tlp_label ?? "").toUpperCase() });
  }
  const keys = (Array.isArray(m.public_openpgp_keys) ? (m.public_openpgp_keys as Record<string, unknown>[]) : [])
    .filter((k) => typeof k.url === "string" && typeof k.fingerprint === "string")
    .map((k) => ({ url: k.url as string, fingerprint: k.fingerprint as string }));
  // A provider (csaf_provider, csaf_trusted_provider) signs its documents (§7.1.19, requirement 19):
  // a metadata claiming that role without a key lies about it.
  if (role !== "csaf_publisher" && !keys.length)
    throw new Error(`provider-metadata.json : le rôle ${role} exige des clés OpenPGP publiques (public_openpgp_keys vide)`);
  // A provider offers a distribution (§7.2.2); a publisher may leave it to aggregators.
  if (role !== "csaf_publisher" && !rolie.length && !directories.length)
    throw new Error(`provider-metadata.json : le rôle ${role} exige au moins une distribution (ROLIE ou répertoire)`);
  return {
    canonical_url: String(m.canonical_url ?? ""),
    role,
    publisher: { name: String(publisher.name ?? ""), namespace: String(publisher.namespace ?? "") },
    keys,
    rolie,
    directories,
  };
}

/** A document a listing names, with where its hash and signature are. */
export interface Listed {
  url: string;
  /** The listing's time for it (ROLIE entry updated, changes.csv time). */
  updated: string | null;
  hashes: string[];
  signature: string;
  /** The TLP label of the feed listing it (ROLIE), null for a directory. */
  tlp: string | null;
}

/** A ROLIE feed's entries (§7.1.16). */
export function rolieEntries(feed: unknown, tlp: string): Listed[] {
  const entries = (((feed ?? {}) as Record<string, unknown>).feed as Record<string, unknown> | undefined)?.entry;
  const out: Listed[] = [];
  for (const e of Array.isArray(entries) ? (entries as Record<string, unknown>[]) : []) {
    const links = Array.isArray(e.link) ? (e.link as Record<string, unknown>[]) : [];
    const href = (rel: string) => links.filter((l) => l.rel === rel && typeof l.href === "string").map((l) => l.href as string);
    const self = href("self")[0] ?? ((e.content ?? {}) as Record<string, unknown>).src;
    if (typeof self !== "string") continue;
    out.push({
      url: self,
      updated: typeof e.updated === "string" ? e.updated : null,
      hashes: href("hash"),
      signature: href("signature")[0] ?? `${self}.asc`,
      tlp,
    });
  }
  return out;
}

/** changes.csv (§7.1.13): `"path","time"` lines, newest first; each path relative to the directory. */
export function changesEntries(csv: string, directory: string): Listed[] {
  const base = directory.endsWith("/") ? directory : `${directory}/`;
  const out: Listed[] = [];
  for (const line of csv.split(/\r?\n/)) {
    const m = /^"?([^",]+)"?\s*,\s*"?([^",]+)"?\s*$/.exec(line.trim());
    if (!m) continue;
    const url = new URL(m[1]!, base).toString();
    out.push({ url, updated: m[2]!, hashes: [`${url}.sha512`, `${url}.sha256`], signature: `${url}.asc`, tlp: null });
  }
  return out;
}

/** index.txt (§7.1.12): one path a line. */
export function indexEntries(txt: string, directory: string): Listed[] {
  const base = directory.endsWith("/") ? directory : `${directory}/`;
  return txt
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.endsWith(".json"))
    .map((p) => {
      const url = new URL(p, base).toString();
      return { url, updated: null, hashes: [`${url}.sha512`, `${url}.sha256`], signature: `${url}.asc`, tlp: null };
    });
}

/** Where an aggregator.json is (CSAF 2.0 §7.1.21 and §7.3.2): its address, or `/.well-known/csaf-aggregator/` of a domain. */
export function aggregatorCandidate(requested: string, scheme: "https" | "http"): string {
  if (/^https?:\/\//i.test(requested)) return requested;
  return `${scheme}://${requested.replace(/\/+$/, "")}/.well-known/csaf-aggregator/aggregator.json`;
}

/** A provider or publisher an aggregator lists (§7.1.21: csaf_providers[], csaf_publishers[]). */
export interface AggregatedProvider {
  kind: "csaf_provider" | "csaf_publisher";
  metadata_url: string;
  publisher: { name: string; namespace: string; category: string };
  role: string | null;
  last_updated: string | null;
  mirrors: string[];
}

export interface AggregatorList {
  name: string;
  namespace: string;
  category: string;
  last_updated: string | null;
  providers: AggregatedProvider[];
}

/** The parts of an aggregator.json Vigie shows (the aggregator JSON schema of CSAF 2.0); a fault is the reason, thrown. */
export function readAggregator(doc: unknown): AggregatorList {
  const m = (doc ?? {}) as Record<string, unknown>;
  if (m.aggregator_version !== "2.0") throw new Error("aggregator.json : aggregator_version 2.0 attendu");
  const agg = (m.aggregator ?? {}) as Record<string, unknown>;
  const category = String(agg.category ?? "");
  if (category !== "aggregator" && category !== "lister") throw new Error(`aggregator.json : catégorie « ${category} » inconnue`);
  const str = (v: unknown) => (typeof v === "string" ? v : null);
  const entries = (list: unknown, kind: AggregatedProvider["kind"]): AggregatedProvider[] =>
    (Array.isArray(list) ? (list as Record<string, unknown>[]) : []).flatMap((e) => {
      const md = (e.metadata ?? {}) as Record<string, unknown>;
      const url = str(md.url);
      if (!url || !/^https?:\/\//i.test(url)) return [];
      const p = (md.publisher ?? {}) as Record<string, unknown>;
      return [
        {
          kind,
          metadata_url: url,
          publisher: { name: String(p.name ?? ""), namespace: String(p.namespace ?? ""), category: String(p.category ?? "") },
          role: str(md.role),
          last_updated: str(md.last_updated),
          mirrors: (Array.isArray(e.mirrors) ? e.mirrors : []).filter((x): x is string => typeof x === "string"),
        },
      ];
    });
  const providers = [...entries(m.csaf_providers, "csaf_provider"), ...entries(m.csaf_publishers, "csaf_publisher")];
  if (!Array.isArray(m.csaf_providers)) throw new Error("aggregator.json : csaf_providers absent");
  return {
    name: String(agg.name ?? ""),
    namespace: String(agg.namespace ?? ""),
    category,
    last_updated: str(m.last_updated),
    providers,
  };
}

import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Logger } from "pino";
import type { FeedSettings } from "../../config.js";
import type { Db } from "../../platform/db/client.js";
import { csafSchemaErrors } from "../vex/vex.import.js";
import type { SecretBox } from "../../platform/secrets.js";
import type { CsafCredentialsIn } from "./csaf.schemas.js";
import { CREDENTIALED_TLP, compareTrackingVersions, PUBLIC_TLP, readCsafAdvisory, revisionChanges } from "./csaf.document.js";
import {
  CsafHttp,
  type Got,
  type ProviderMetadata,
  candidatesOf,
  changesEntries,
  csafFieldsOf,
  indexEntries,
  type Listed,
  MAX_DOCUMENT_BYTES,
  readMetadata,
  rolieEntries,
  TooLarge,
  type Validators,
  validatorsOf,
} from "./csaf.fetch.js";
import { FetchError } from "../../feeds/sync/fetch.js";
import { matchAdvisories, type ProposalWriter } from "./csaf.matching.js";
import { csafRepository as repo, type ProviderRow } from "./csaf.repository.js";
import { checkKey, digestOf, hashFileDigest, KEY_FAULTS, type ProviderKey, readKeys, signatureFault } from "./csaf.trust.js";

/** A provider's lease: a killed holder stalls its provider at most this long. */
const LEASE_SECONDS = 300;
/** The checkpoint is saved after this many documents (and at the end). */
const SAVE_EVERY = 50;
/** Advisories matched per read (their trees in memory at once). */
const MATCH_BATCH = 200;
/**
 * The provider-metadata (asked with its validators) and its keys are read again once this old — or
 * sooner, once in a sync, when a listing fails or a signature does not verify with the stored keys
 * (docs/csaf-providers.md). Between two, a sync with nothing changed asks only its listings (304).
 */
export const METADATA_REFRESH_MS = 24 * 3600 * 1000;

/** What was applied last of a provider: the metadata as last read, each listing's validators and what it listed. */
export interface CsafCheckpoint {
  /** The provider-metadata's validators, when it was read, and the parts Vigie uses of it. */
  metadata?: Validators & { read_at?: string; read?: ProviderMetadata };
  /** Per ROLIE feed or directory listing: its validators, and per document the listing's time applied. */
  listings: Record<string, Validators & { seen: Record<string, string> }>;
}

const pick = (v: Validators): Validators => ({
  ...(v.etag ? { etag: v.etag } : {}),
  ...(v.lastModified ? { lastModified: v.lastModified } : {}),
});

export function csafCheckpoint(raw: unknown): CsafCheckpoint {
  const c = (raw ?? {}) as Partial<CsafCheckpoint>;
  return {
    ...(c.metadata ? { metadata: c.metadata } : {}),
    listings: c.listings && typeof c.listings === "object" ? { ...c.listings } : {},
  };
}

export interface CsafSyncOutcome {
  provider_id: string;
  status: "synced" | "failed" | "busy";
  appliquees: number;
  inchangees: number;
  refusees: { url: string; raison: string }[];
  alertes: number;
  propositions: number;
  error?: string;
}

/** What a sync trusts: the metadata's distributions and the provider's keys (parsed once), and whether they were read in this sync. */
interface Trust {
  metadataUrl: string;
  metadata: ProviderMetadata;
  keys: ProviderKey[];
  parsed: Awaited<ReturnType<typeof readKeys>>;
  fresh: boolean;
}

/** The trust of the sync under way, and the one refresh a sync may make of it. */
interface TrustHolder {
  current: Trust;
  /** Reads the metadata and keys again unless done in this sync; false when already fresh. */
  refresh(): Promise<boolean>;
}

/**
 * One provider's sync (CSAF 2.0 §7, docs/csaf-providers.md): discovery when the metadata's address
 * is not known yet; the metadata (conditional) and its keys, checked against their fingerprints,
 * read again when a day old (METADATA_REFRESH_MS), else taken as stored; then each ROLIE feed of
 * TLP:WHITE/CLEAR and each directory read (conditional: a listing unchanged since the last sync costs
 * one request, a 304 — so a provider with nothing new costs one request per listing) and each
 * document listed since the checkpoint fetched, its hash and signature checked, its schema and TLP
 * checked, its version compared with the stored one — refused with the reason, or kept. A listing
 * that fails, or a signature that does not verify with the stored keys, makes the sync read the
 * metadata and keys again (once) before giving up: the provider may have moved a directory or
 * rotated its key. The advisories kept are matched to the organization's stack items at the end
 * (csaf.matching.ts). A document refused never stops the others; only an unreadable metadata or
 * listing fails the provider's sync.
 */
export class CsafSync {
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

  constructor(
    private readonly db: Db,
    private readonly settings: FeedSettings,
    private readonly log: Logger,
    /** https, or http for a local provider (VIGIE_CSAF_ALLOW_HTTP, tests and mirrors). */
    private readonly scheme: "https" | "http",
    /** The supplier-VEX proposals' writer (the vex module's repository, wired in app.ts). */
    private readonly proposals: ProposalWriter,
    /** VIGIE_ALLOW_PRIVATE_TARGETS: providers may lead to private addresses (a local mirror, the tests). */
    private readonly allowPrivate: boolean,
    /** Decrypts the credentials an organization gave a provider (platform/secrets.ts). */
    private readonly secrets: Pick<SecretBox, "decrypt">,
  ) {}

  /** The headers of the provider's credentials (decrypted here only, never logged), or null. */
  private credentialHeaders(provider: ProviderRow): Record<string, string> | null {
    if (!provider.credentials) return null;
    const c = JSON.parse(this.secrets.decrypt(provider.credentials)) as CsafCredentialsIn;
    if (c.type === "basic") return { authorization: `Basic ${Buffer.from(`${c.utilisateur}:${c.mot_de_passe}`).toString("base64")}` };
    return { [c.nom.toLowerCase()]: c.valeur };
  }

  async run(provider: ProviderRow, signal: AbortSignal = new AbortController().signal): Promise<CsafSyncOutcome> {
    const out: CsafSyncOutcome = {
      provider_id: provider.id,
      status: "synced",
      appliquees: 0,
      inchangees: 0,
      refusees: [],
      alertes: 0,
      propositions: 0,
    };
    if (!(await repo.acquire(this.db, provider.id, this.owner, LEASE_SECONDS))) return { ...out, status: "busy" };
    const at = new Date();
    const http = new CsafHttp(this.settings, this.log.child({ csaf_provider: provider.id }), signal, this.allowPrivate);
    const applied: string[] = [];
    try {
      const cp = csafCheckpoint(provider.checkpoint);
      const credentials = this.credentialHeaders(provider);
      const tlps = credentials ? CREDENTIALED_TLP : PUBLIC_TLP;
      const trust: TrustHolder = {
        current: await this.trust(http, provider, cp, false),
        refresh: async () => {
          if (trust.current.fresh) return false;
          trust.current = await this.trust(http, { ...provider, metadata_url: trust.current.metadataUrl }, cp, true);
          return true;
        },
      };
      // The credentials go to the provider-metadata's origin only (its feeds, directories, documents).
      if (credentials) http.authorize(new URL(trust.current.metadataUrl).origin, credentials);
      let listing: Awaited<ReturnType<CsafSync["listAll"]>>;
      try {
        listing = await this.listAll(http, cp, trust.current.metadata, tlps);
      } catch (err) {
        // A directory or feed moved: the metadata read again may say where.
        if (!(await trust.refresh())) throw err;
        listing = await this.listAll(http, cp, trust.current.metadata, tlps);
      }
      const { listed, validators } = listing;
      let sinceSave = 0;
      for (const doc of listed) {
        signal.throwIfAborted();
        const r = await this.document(http, provider, doc, trust, tlps);
        if (r.kind === "applied") {
          out.appliquees++;
          applied.push(r.id);
        } else if (r.kind === "unchanged") out.inchangees++;
        else out.refusees.push({ url: doc.url, raison: r.raison });
        cp.listings[doc.listing]!.seen[doc.url] = doc.updated ?? "";
        if (++sinceSave >= SAVE_EVERY) {
          await repo.saveCheckpoint(this.db, provider.id, cp);
          sinceSave = 0;
        }
      }
      for (const [url, v] of Object.entries(validators)) Object.assign(cp.listings[url]!, { etag: v.etag, lastModified: v.lastModified });
      await repo.saveCheckpoint(this.db, provider.id, cp);
      // Every advisory of the provider, not only those just kept: stack items added since the last
      // sync meet them too (alerts and proposals already made are left as they are). Those just kept
      // first: a revision's alerts change within the first batch, not after the whole provider's.
      const kept = new Set(applied);
      const ids = [...applied, ...(await repo.advisoryIdsOfProvider(this.db, provider.id)).filter((id) => !kept.has(id))];
      for (let i = 0; i < ids.length; i += MATCH_BATCH) {
        const m = await matchAdvisories(this.db, this.proposals, provider.org_id, ids.slice(i, i + MATCH_BATCH));
        out.alertes += m.alerts;
        out.propositions += m.proposals;
      }
      this.log.info({ provider: provider.id, metadataUrl: trust.current.metadataUrl, ...out, refusees: out.refusees.length }, "csaf-sync");
    } catch (err) {
      out.status = "failed";
      out.error = signal.aborted ? "interrompu" : (err as Error).message;
    } finally {
      await repo.finish(this.db, provider.id, this.owner, { ok: out.status === "synced", error: out.error ?? null, at });
    }
    return out;
  }

  /**
   * Every listing of the metadata's distributions (ROLIE feeds of TLP:WHITE/CLEAR, directories),
   * read into a copy of the checkpoint's listings that replaces them only when all were read (a
   * failed pass leaves them as they were, so that a second pass reads them again); the listings the
   * metadata no longer names are forgotten. The listings' new validators are returned, to be saved
   * once their documents are done.
   */
  private async listAll(
    http: CsafHttp,
    cp: CsafCheckpoint,
    metadata: ProviderMetadata,
    tlps: Set<string>,
  ): Promise<{ listed: (Listed & { listing: string })[]; validators: Record<string, Validators> }> {
    const next: CsafCheckpoint["listings"] = {};
    const validators: Record<string, Validators> = {};
    const listing = (url: string, parse: (text: string) => Listed[], optional = false) =>
      this.listing(http, cp.listings, next, validators, url, parse, optional);
    const listed: (Listed & { listing: string })[] = [];
    for (const feed of metadata.rolie) {
      // TLP:WHITE/CLEAR, and GREEN/AMBER when the organization gave the provider credentials.
      if (!tlps.has(feed.tlp)) continue;
      listed.push(...((await listing(feed.url, (text) => rolieEntries(JSON.parse(text), feed.tlp))) ?? []));
    }
    for (const dir of metadata.directories) {
      const base = dir.endsWith("/") ? dir : `${dir}/`;
      const changes = await listing(`${base}changes.csv`, (text) => changesEntries(text, base), true);
      if (changes !== null) listed.push(...changes);
      else listed.push(...((await listing(`${base}index.txt`, (text) => indexEntries(text, base))) ?? []));
    }
    cp.listings = next;
    return { listed, validators };
  }

  /**
   * The provider-metadata and its keys: as stored while younger than METADATA_REFRESH_MS (no
   * request), else (or `force`) read again — discovered the first time, then asked with its stored
   * validators (a 304 keeps the stored reading) — and each key fetched again and checked against its
   * fingerprint.
   */
  private async trust(http: CsafHttp, provider: ProviderRow, cp: CsafCheckpoint, force: boolean): Promise<Trust> {
    const stored = cp.metadata;
    const age = Date.now() - Date.parse(stored?.read_at ?? "");
    if (!force && provider.metadata_url && stored?.read && provider.keys.length && age < METADATA_REFRESH_MS)
      return {
        metadataUrl: provider.metadata_url,
        metadata: stored.read,
        keys: provider.keys,
        parsed: await readKeys(provider.keys),
        fresh: false,
      };
    const { metadataUrl, via, metadata, validators } = await this.metadata(http, provider, stored);
    const keys: ProviderKey[] = [];
    const keyFaults: string[] = [];
    for (const k of metadata.keys) {
      try {
        const armored = await http.text(new URL(k.url, metadataUrl).toString());
        const check = await checkKey(armored, k.fingerprint);
        if (check.ok) keys.push({ fingerprint: k.fingerprint.replace(/\s+/g, "").toUpperCase(), url: k.url, armored });
        else keyFaults.push(`${k.url} : ${check.reason}`);
      } catch (err) {
        keyFaults.push(`${k.url} : ${(err as Error).message}`);
      }
    }
    if (!keys.length) throw new Error(`aucune clé OpenPGP utilisable${keyFaults.length ? ` (${keyFaults.join(" ; ")})` : ""}`);
    await repo.discovered(this.db, provider.id, {
      metadata_url: metadataUrl,
      via,
      publisher: metadata.publisher,
      role: metadata.role,
      keys,
    });
    cp.metadata = { ...validators, read_at: new Date().toISOString(), read: metadata };
    return { metadataUrl, metadata, keys, parsed: await readKeys(keys), fresh: true };
  }

  /**
   * The provider-metadata read: at its known address, conditionally when a reading is stored (a 304
   * keeps it); discovered (§7.3.1) the first time, or again when the known address of a provider
   * followed by its domain is gone (404, 410).
   */
  private async metadata(
    http: CsafHttp,
    provider: ProviderRow,
    stored: CsafCheckpoint["metadata"],
  ): Promise<{ metadataUrl: string; via: string; metadata: ProviderMetadata; validators: Validators }> {
    let metadataUrl = provider.metadata_url;
    let via = provider.discovered_via ?? "url";
    let got: Got | null = null;
    if (metadataUrl) {
      got = await http.get(metadataUrl, { conditional: stored?.read ? stored : null });
      if (got.status === 304 && stored?.read)
        return { metadataUrl, via, metadata: stored.read, validators: { ...pick(stored), ...validatorsOf(got.headers) } };
      if (!got.bytes) {
        if (!((got.status === 404 || got.status === 410) && via !== "url"))
          throw new FetchError(`${metadataUrl} : HTTP ${got.status}`, got.status);
        got = null;
      }
    }
    if (!got) {
      const found = await this.discover(http, provider.requested);
      ({ metadataUrl, via, got } = found);
    }
    let metadata: ProviderMetadata;
    try {
      metadata = readMetadata(JSON.parse(Buffer.from(got.bytes!).toString("utf8")));
    } catch (err) {
      throw new Error(err instanceof SyntaxError ? "provider-metadata.json : JSON illisible" : (err as Error).message);
    }
    return { metadataUrl: metadataUrl!, via, metadata, validators: validatorsOf(got.headers) };
  }

  /** Discovery (CSAF 2.0 §7.3.1): the well-known path, security.txt's `CSAF:` field, the DNS host — the first that answers. */
  private async discover(http: CsafHttp, requested: string): Promise<{ metadataUrl: string; via: string; got: Got }> {
    const tried: string[] = [];
    for (const c of candidatesOf(requested, this.scheme)) {
      const got = await http.get(c.url);
      if (!got.bytes) {
        tried.push(`${c.url} : HTTP ${got.status}`);
        continue;
      }
      if (c.via !== "security.txt") return { metadataUrl: c.url, via: c.via, got };
      const field = csafFieldsOf(Buffer.from(got.bytes).toString("utf8"))[0];
      if (!field) {
        tried.push(`${c.url} : aucun champ CSAF:`);
        continue;
      }
      const m = await http.get(field);
      if (!m.bytes) {
        tried.push(`${field} : HTTP ${m.status}`);
        continue;
      }
      return { metadataUrl: field, via: c.via, got: m };
    }
    throw new Error(`provider-metadata.json introuvable (${tried.join(" ; ")})`);
  }

  /**
   * A listing read with its validators (a 304: nothing listed), its documents not seen at their
   * listed time; its state goes into `next`, and its new validators into `validators` (applied once
   * its documents are done: a sync stopped half-way asks the listing again). `optional`: a 404
   * answers null (a directory without changes.csv).
   */
  private async listing(
    http: CsafHttp,
    previous: CsafCheckpoint["listings"],
    next: CsafCheckpoint["listings"],
    validators: Record<string, Validators>,
    url: string,
    parse: (text: string) => Listed[],
    optional = false,
  ): Promise<(Listed & { listing: string })[] | null> {
    const state = { seen: {}, ...previous[url] };
    const got = await http.get(url, { conditional: state });
    if (got.status === 304) {
      next[url] = state;
      return [];
    }
    if (!got.bytes) {
      if (optional && got.status === 404) return null;
      throw new Error(`${url} : HTTP ${got.status}`);
    }
    let entries: Listed[];
    try {
      entries = parse(Buffer.from(got.bytes).toString("utf8"));
    } catch (err) {
      throw new Error(`${url} : liste illisible (${(err as Error).message})`);
    }
    next[url] = state;
    validators[url] = validatorsOf(got.headers);
    return entries.filter((e) => !(e.url in state.seen) || state.seen[e.url] !== (e.updated ?? "")).map((e) => ({ ...e, listing: url }));
  }

  /** One document: fetched, checked, kept or refused (the refusal recorded with its reason). */
  private async document(
    http: CsafHttp,
    provider: ProviderRow,
    doc: Listed,
    trust: TrustHolder,
    tlps: Set<string>,
  ): Promise<{ kind: "applied"; id: string } | { kind: "unchanged" } | { kind: "refused"; raison: string }> {
    const refuse = async (raison: string) => {
      await repo.refuse(this.db, provider.id, doc.url, raison);
      return { kind: "refused" as const, raison };
    };
    let got: Got;
    try {
      got = await http.get(doc.url, { limit: MAX_DOCUMENT_BYTES });
    } catch (err) {
      if (err instanceof TooLarge) return refuse(`document trop volumineux (${err.message})`);
      throw err;
    }
    if (!got.bytes) return refuse(`document listé mais absent : HTTP ${got.status}`);
    const bytes = got.bytes;
    // The hash: SHA-512 first, else SHA-256 (§7.1.18); one is required.
    let hashChecked = false;
    for (const url of doc.hashes.length ? doc.hashes : [`${doc.url}.sha512`, `${doc.url}.sha256`]) {
      const algorithm = url.endsWith(".sha256") ? "sha256" : "sha512";
      const h = await http.get(url);
      if (!h.bytes) continue;
      const expected = hashFileDigest(Buffer.from(h.bytes).toString("utf8"), algorithm);
      if (!expected) return refuse(`fichier d'empreinte ${algorithm.toUpperCase()} illisible (${url})`);
      if (expected !== digestOf(bytes, algorithm))
        return refuse(`empreinte ${algorithm.toUpperCase()} différente du document servi (${url})`);
      hashChecked = true;
      break;
    }
    if (!hashChecked) return refuse("aucun fichier d'empreinte (.sha512 ou .sha256)");
    const sig = await http.get(doc.signature);
    if (!sig.bytes) return refuse(`signature absente : HTTP ${sig.status} (${doc.signature})`);
    const armored = Buffer.from(sig.bytes).toString("utf8");
    let fault = await signatureFault(bytes, armored, trust.current.parsed);
    // Keys read before this sync: the provider may have rotated its key since; read them again (once a sync).
    if (fault && KEY_FAULTS.some((f) => fault!.startsWith(f)) && (await trust.refresh()))
      fault = await signatureFault(bytes, armored, trust.current.parsed);
    if (fault) return refuse(fault);
    let json: unknown;
    try {
      json = JSON.parse(Buffer.from(bytes).toString("utf8"));
    } catch {
      return refuse("JSON illisible");
    }
    const schema = csafSchemaErrors(json);
    if (schema.length) return refuse(`non conforme au schéma CSAF 2.0 : ${schema.join(" ; ")}`);
    const a = readCsafAdvisory(json as Record<string, unknown>);
    const tlp = a.tlp ?? doc.tlp;
    if (!tlp || !tlps.has(tlp.toUpperCase()))
      return refuse(
        tlps === PUBLIC_TLP
          ? `TLP:${tlp ?? "(absent)"} : seuls TLP:WHITE et TLP:CLEAR sont lus sans identifiants`
          : `TLP:${tlp ?? "(absent)"} : seuls TLP:WHITE, CLEAR, GREEN et AMBER sont lus avec identifiants`,
      );
    const sha256 = digestOf(bytes, "sha256");
    return this.db.transaction(async (tx) => {
      const stored = await repo.currentVersion(tx, provider.id, a.tracking_id);
      if (stored) {
        const c = compareTrackingVersions(a.version, stored.version);
        if (c < 0) {
          const raison = `version ${a.version} inférieure à la version ${stored.version} déjà lue : refusée`;
          await repo.refuse(tx, provider.id, doc.url, raison);
          return { kind: "refused" as const, raison };
        }
        if (c === 0 && stored.sha256 === sha256) {
          await repo.clearRefusal(tx, provider.id, doc.url);
          return { kind: "unchanged" as const };
        }
      }
      const history = stored
        ? [
            ...stored.history,
            {
              version: stored.version,
              current_release_date: new Date(stored.current_release_date).toISOString(),
              sha256: stored.sha256,
              replaced_at: new Date().toISOString(),
              par_version: a.version,
              changements: revisionChanges(stored, a),
            },
          ]
        : [];
      const id = await repo.writeAdvisory(tx, provider.org_id, provider.id, a, doc.url, sha256, history);
      await repo.clearRefusal(tx, provider.id, doc.url);
      return { kind: "applied" as const, id };
    });
  }
}

import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Logger } from "pino";
import type { FeedSettings } from "../../config.js";
import type { Db } from "../../platform/db/client.js";
import { csafSchemaErrors } from "../vex/vex.import.js";
import { compareTrackingVersions, PUBLIC_TLP, readCsafAdvisory, revisionChanges } from "./csaf.document.js";
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
import { matchAdvisories, type ProposalWriter } from "./csaf.matching.js";
import { csafRepository as repo, type ProviderRow } from "./csaf.repository.js";
import { checkKey, digestOf, hashFileDigest, type ProviderKey, signatureFault } from "./csaf.trust.js";

/** A provider's lease: a killed holder stalls its provider at most this long. */
const LEASE_SECONDS = 300;
/** The checkpoint is saved after this many documents (and at the end). */
const SAVE_EVERY = 50;
/** Advisories matched per read (their trees in memory at once). */
const MATCH_BATCH = 200;

/** What was applied last of a provider: the metadata's validators, each listing's validators and what it listed. */
export interface CsafCheckpoint {
  metadata?: Validators;
  /** Per ROLIE feed or directory listing: its validators, and per document the listing's time applied. */
  listings: Record<string, Validators & { seen: Record<string, string> }>;
}

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

/**
 * One provider's sync (CSAF 2.0 §7, docs/csaf-providers.md): discovery when the metadata's address
 * is not known yet, the metadata read again (conditional), its keys fetched and checked against
 * their fingerprints, then each ROLIE feed of TLP:WHITE/CLEAR and each directory read (conditional:
 * a listing unchanged since the last sync costs one request, a 304) and each document listed since
 * the checkpoint fetched, its hash and signature checked, its schema and TLP checked, its version
 * compared with the stored one — refused with the reason, or kept. The advisories kept are matched
 * to the organization's stack items at the end (csaf.matching.ts). A document refused never stops
 * the others; only an unreadable metadata or listing fails the provider's sync.
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
    private readonly allowPrivate = false,
  ) {}

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
      const { metadataUrl, metadata, keys } = await this.discover(http, provider);
      const listed: (Listed & { listing: string })[] = [];
      for (const feed of metadata.rolie) {
        // TLP:WHITE/CLEAR only: the other feeds need credentials Vigie does not hold.
        if (!PUBLIC_TLP.has(feed.tlp)) continue;
        listed.push(...((await this.listing(http, cp, feed.url, (text) => rolieEntries(JSON.parse(text), feed.tlp))) ?? []));
      }
      for (const dir of metadata.directories) {
        const base = dir.endsWith("/") ? dir : `${dir}/`;
        const changes = await this.listing(http, cp, `${base}changes.csv`, (text) => changesEntries(text, base), true);
        if (changes !== null) listed.push(...changes);
        else listed.push(...((await this.listing(http, cp, `${base}index.txt`, (text) => indexEntries(text, base))) ?? []));
      }
      let sinceSave = 0;
      for (const doc of listed) {
        signal.throwIfAborted();
        const r = await this.document(http, provider, doc, keys);
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
      await repo.saveCheckpoint(this.db, provider.id, cp);
      // Every advisory of the provider, not only those just kept: stack items added since the last
      // sync meet them too (alerts and proposals already made are left as they are).
      const ids = await repo.advisoryIdsOfProvider(this.db, provider.id);
      for (let i = 0; i < ids.length; i += MATCH_BATCH) {
        const m = await matchAdvisories(this.db, this.proposals, provider.org_id, ids.slice(i, i + MATCH_BATCH));
        out.alertes += m.alerts;
        out.propositions += m.proposals;
      }
      this.log.info({ provider: provider.id, metadataUrl, ...out, refusees: out.refusees.length }, "csaf-sync");
    } catch (err) {
      out.status = "failed";
      out.error = signal.aborted ? "interrompu" : (err as Error).message;
    } finally {
      await repo.finish(this.db, provider.id, this.owner, { ok: out.status === "synced", error: out.error ?? null, at });
    }
    return out;
  }

  /** The provider-metadata (discovered the first time), and its keys checked against their fingerprints. */
  private async discover(http: CsafHttp, provider: ProviderRow) {
    let metadataUrl = provider.metadata_url;
    let via = provider.discovered_via ?? "url";
    let text: string | null = null;
    const tried: string[] = [];
    if (!metadataUrl) {
      for (const c of candidatesOf(provider.requested, this.scheme)) {
        const got = await http.get(c.url);
        if (!got.bytes) {
          tried.push(`${c.url} : HTTP ${got.status}`);
          continue;
        }
        const body = Buffer.from(got.bytes).toString("utf8");
        if (c.via === "security.txt") {
          const field = csafFieldsOf(body)[0];
          if (!field) {
            tried.push(`${c.url} : aucun champ CSAF:`);
            continue;
          }
          const m = await http.get(field);
          if (!m.bytes) {
            tried.push(`${field} : HTTP ${m.status}`);
            continue;
          }
          metadataUrl = field;
          text = Buffer.from(m.bytes).toString("utf8");
        } else {
          metadataUrl = c.url;
          text = body;
        }
        via = c.via;
        break;
      }
      if (!metadataUrl || text === null) throw new Error(`provider-metadata.json introuvable (${tried.join(" ; ")})`);
    } else {
      text = await http.text(metadataUrl);
    }
    let metadata: ProviderMetadata;
    try {
      metadata = readMetadata(JSON.parse(text));
    } catch (err) {
      throw new Error(err instanceof SyntaxError ? "provider-metadata.json : JSON illisible" : (err as Error).message);
    }
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
    return { metadataUrl, metadata, keys };
  }

  /**
   * A listing read with its validators (a 304: nothing listed), its documents not seen at their
   * listed time. `optional`: a 404 answers null (a directory without changes.csv).
   */
  private async listing(
    http: CsafHttp,
    cp: CsafCheckpoint,
    url: string,
    parse: (text: string) => Listed[],
    optional = false,
  ): Promise<(Listed & { listing: string })[] | null> {
    cp.listings[url] ??= { seen: {} };
    const state = cp.listings[url];
    const got = await http.get(url, { conditional: state });
    if (got.status === 304) return [];
    if (!got.bytes) {
      if (optional && got.status === 404) {
        delete cp.listings[url];
        return null;
      }
      throw new Error(`${url} : HTTP ${got.status}`);
    }
    let entries: Listed[];
    try {
      entries = parse(Buffer.from(got.bytes).toString("utf8"));
    } catch (err) {
      throw new Error(`${url} : liste illisible (${(err as Error).message})`);
    }
    const v = validatorsOf(got.headers);
    state.etag = v.etag;
    state.lastModified = v.lastModified;
    return entries.filter((e) => !(e.url in state.seen) || state.seen[e.url] !== (e.updated ?? "")).map((e) => ({ ...e, listing: url }));
  }

  /** One document: fetched, checked, kept or refused (the refusal recorded with its reason). */
  private async document(
    http: CsafHttp,
    provider: ProviderRow,
    doc: Listed,
    keys: ProviderKey[],
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
    const fault = await signatureFault(bytes, Buffer.from(sig.bytes).toString("utf8"), keys);
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
    if (!tlp || !PUBLIC_TLP.has(tlp.toUpperCase())) return refuse(`TLP:${tlp ?? "(absent)"} : seuls TLP:WHITE et TLP:CLEAR sont lus`);
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

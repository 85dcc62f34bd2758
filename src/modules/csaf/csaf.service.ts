import type { Logger } from "pino";
import type { FeedSettings } from "../../config.js";
import type { OrgScope } from "../../platform/auth/context.js";
import type { Db } from "../../platform/db/client.js";
import { Conflict, Forbidden, invalid, NotFound } from "../../platform/errors.js";
import { AUTH, CONFLICT, NOT_FOUND } from "../../platform/messages.js";
import { createLogger } from "../../platform/log.js";
import { csafRepository as repo, type AdvisoryRow, type ProviderListRow } from "./csaf.repository.js";
import type { SecretBox } from "../../platform/secrets.js";
import { type CsafAdvisoryListQuery, type CsafCredentialsIn, RESERVED_HEADERS } from "./csaf.schemas.js";
import type { ProposalWriter } from "./csaf.matching.js";
import { aggregatorCandidate, type AggregatorList, CsafHttp, readAggregator } from "./csaf.fetch.js";
import { CsafSync, type CsafSyncOutcome } from "./csaf.sync.js";

/** A key restricted to projects changes nothing organization-wide (403). */
function unrestricted(org: OrgScope): void {
  if (org.projectIds !== null) throw new Forbidden(AUTH.csafRestricted);
}

/** The most refusals a provider's detail lists. */
const REFUSALS_LISTED = 100;
/** The refusals GET /feeds lists per provider (the provider's detail lists more). */
const FEED_REFUSALS = 20;

/**
 * The CSAF providers an organization follows (issue 36, docs/csaf-providers.md): subscribe by
 * domain or provider-metadata address, sync (discovery, listings, hash and signature, storage,
 * matching: csaf.sync.ts), read the providers' state and the advisories kept.
 */
export class CsafService {
  private readonly sync: CsafSync;
  /** The first sync, inside the request that adds a provider: no retries (a wrong domain answers at once; the job retries). */
  private readonly firstSync: CsafSync;

  constructor(
    private readonly db: Db,
    private readonly settings: FeedSettings,
    proposals: ProposalWriter,
    private readonly logger: Logger = createLogger("silent"),
    private readonly allowHttp: boolean,
    private readonly allowPrivate: boolean,
    /** Encrypts the credentials given for TLP:GREEN/AMBER (the webhook secrets' box, wired in app.ts). */
    private readonly secrets: Pick<SecretBox, "encrypt" | "decrypt">,
  ) {
    this.sync = new CsafSync(db, settings, logger, allowHttp ? "http" : "https", proposals, allowPrivate, secrets);
    this.firstSync = new CsafSync(db, { ...settings, retries: 0 }, logger, allowHttp ? "http" : "https", proposals, allowPrivate, secrets);
  }

  /**
   * Gives the provider credentials for its TLP:GREEN/AMBER documents (or, with null, takes them
   * back): stored encrypted, sent only to the provider-metadata's origin, never returned.
   */
  async setCredentials(org: OrgScope, id: string, c: CsafCredentialsIn | null): Promise<void> {
    unrestricted(org);
    if (c?.type === "entete" && RESERVED_HEADERS.has(c.nom.toLowerCase()))
      throw invalid(["body", "entete", "nom"], "en-tête réservé : ni Host, Content-Length, Transfer-Encoding, Connection, Cookie", c.nom);
    const stored = c ? { kind: c.type, stored: this.secrets.encrypt(JSON.stringify(c)) } : null;
    if (!(await repo.setCredentials(this.db, org.id, id, stored))) throw new NotFound(NOT_FOUND.csafProvider);
  }

  /** Subscribes the organization and syncs the provider at once; 409 when it already follows it. */
  async add(org: OrgScope, requested: string): Promise<{ provider: ProviderListRow; outcome: CsafSyncOutcome }> {
    unrestricted(org);
    const normalized = /^https?:\/\//i.test(requested) ? requested : requested.toLowerCase();
    const row = await repo.insertProvider(this.db, org.id, normalized);
    if (!row) throw new Conflict(CONFLICT.csafProviderTaken.code, CONFLICT.csafProviderTaken.message(normalized));
    const outcome = await this.firstSync.run(row);
    return { provider: await this.listed(org, row.id), outcome };
  }

  /**
   * The providers and publishers an aggregator lists (its aggregator.json, at the address given or
   * at a domain's /.well-known/csaf-aggregator/), each with the organization's provider when it
   * follows it already — to pick one and follow it by its metadata address (add). Read once, no
   * retries, through the outbound address guard; an unreadable list is a 422 saying why.
   */
  async aggregator(org: OrgScope, requested: string): Promise<{ url: string; list: AggregatorList; followed: Map<string, string> }> {
    unrestricted(org);
    const url = aggregatorCandidate(requested, this.allowHttp ? "http" : "https");
    const http = new CsafHttp({ ...this.settings, retries: 0 }, this.logger, new AbortController().signal, this.allowPrivate);
    let list: AggregatorList;
    try {
      const text = await http.text(url);
      try {
        list = readAggregator(JSON.parse(text));
      } catch (err) {
        throw new Error(err instanceof SyntaxError ? "aggregator.json : JSON illisible" : (err as Error).message);
      }
    } catch (err) {
      throw invalid(["query", "agregateur"], `Agrégateur CSAF illisible : ${(err as Error).message}`, requested);
    }
    const followed = new Map<string, string>();
    for (const p of await repo.providers(this.db, org.id)) {
      if (p.metadata_url) followed.set(p.metadata_url, p.id);
      followed.set(p.requested, p.id);
    }
    return { url, list, followed };
  }

  async list(org: OrgScope): Promise<ProviderListRow[]> {
    return repo.providers(this.db, org.id);
  }

  async get(
    org: OrgScope,
    id: string,
  ): Promise<{ provider: ProviderListRow; refusals: { url: string; raison: string; at: Date | string }[] }> {
    const provider = await this.listed(org, id);
    return { provider, refusals: await repo.refusals(this.db, id, REFUSALS_LISTED) };
  }

  /**
   * GET /feeds: the providers of the caller's organizations (an API key's one, a user's every
   * membership), each with its `limit` latest refusals.
   */
  async forFeeds(
    orgIds: string[],
    limit = FEED_REFUSALS,
  ): Promise<{ provider: ProviderListRow; refusals: { url: string; raison: string; at: Date | string }[] }[]> {
    const providers = await repo.providersOfOrgs(this.db, orgIds);
    const refusals = await repo.latestRefusals(
      this.db,
      providers.filter((p) => p.refusals > 0).map((p) => p.id),
      limit,
    );
    return providers.map((provider) => ({ provider, refusals: refusals.get(provider.id) ?? [] }));
  }

  async remove(org: OrgScope, id: string): Promise<void> {
    unrestricted(org);
    if (!(await repo.deleteProvider(this.db, org.id, id))) throw new NotFound(NOT_FOUND.csafProvider);
  }

  /** Syncs one provider of the organization now. */
  async syncNow(org: OrgScope, id: string): Promise<CsafSyncOutcome> {
    unrestricted(org);
    const row = await repo.provider(this.db, org.id, id);
    if (!row) throw new NotFound(NOT_FOUND.csafProvider);
    return this.sync.run(row);
  }

  /** Syncs every provider of every organization (the scheduled job), one after the other. */
  async syncAll(signal?: AbortSignal): Promise<CsafSyncOutcome[]> {
    const out: CsafSyncOutcome[] = [];
    for (const { id, org_id } of await repo.allProviderIds(this.db)) {
      if (signal?.aborted) break;
      const row = await repo.provider(this.db, org_id, id);
      if (row) out.push(await this.sync.run(row, signal));
    }
    return out;
  }

  async advisories(org: OrgScope, q: CsafAdvisoryListQuery): Promise<{ rows: AdvisoryRow[]; total: number }> {
    return repo.page(this.db, org.id, q);
  }

  async advisory(org: OrgScope, id: string): Promise<AdvisoryRow> {
    const row = await repo.advisory(this.db, org.id, id);
    if (!row) throw new NotFound(NOT_FOUND.csafAdvisory);
    return row;
  }

  private async listed(org: OrgScope, id: string): Promise<ProviderListRow> {
    const row = (await repo.providers(this.db, org.id)).find((p) => p.id === id);
    if (!row) throw new NotFound(NOT_FOUND.csafProvider);
    return row;
  }
}

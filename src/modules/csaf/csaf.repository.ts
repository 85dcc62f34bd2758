import { sql } from "drizzle-orm";
import type { Executor } from "../../platform/db/client.js";
import { pgArray, rowsOf } from "../../platform/db/sql.js";
import type { AlertHit } from "../../matching/raise.js";
import type { CsafAdvisory, CsafChanges } from "./csaf.document.js";
import type { CsafItem } from "./csaf.match.js";
import type { ProviderKey } from "./csaf.trust.js";

/** What an alert copies of its CVE when it is raised (the shared insert's AlertHit fields). */
type CveScores = Pick<AlertHit, "cve_id" | "severity" | "cvss_score" | "is_kev" | "has_poc" | "epss">;

/** A provider as stored. */
export interface ProviderRow {
  id: string;
  org_id: string;
  requested: string;
  metadata_url: string | null;
  discovered_via: string | null;
  publisher_name: string | null;
  publisher_namespace: string | null;
  role: string | null;
  keys: ProviderKey[];
  /** basic, entete, or null: the kind of credentials given for TLP:GREEN/AMBER. */
  credentials_kind: string | null;
  /** The credentials, encrypted (enc:v1); decrypted by the sync only. */
  credentials: string | null;
  checkpoint: Record<string, unknown>;
  status: string;
  last_attempt_at: Date | string | null;
  last_success_at: Date | string | null;
  last_error: string | null;
  last_document_at: Date | string | null;
  created_at: Date | string;
}

export interface ProviderListRow extends ProviderRow {
  documents: number;
  refusals: number;
}

/** An advisory as stored (its flattened tree and vulnerabilities in jsonb). */
export interface AdvisoryRow {
  id: string;
  provider_id: string;
  tracking_id: string;
  version: string;
  tracking_status: string;
  category: string;
  title: string;
  publisher: string;
  tlp: string | null;
  lang: string | null;
  initial_release_date: Date | string | null;
  current_release_date: Date | string;
  url: string;
  sha256: string;
  cves: string[];
  revision_history: CsafAdvisory["revision_history"];
  products: CsafAdvisory["products"];
  vulnerabilities: CsafAdvisory["vulnerabilities"];
  /** The versions replaced; `par_version` and `changements` (what the next version changed) since the revisions are compared. */
  history: {
    version: string;
    current_release_date: string;
    sha256: string;
    replaced_at: string;
    par_version?: string;
    changements?: CsafChanges;
  }[];
  fetched_at: Date | string;
}

/** One alert the vendor's word raises (raised through src/matching/raise.ts, the matcher's insert). */
export type CsafHit = AlertHit & { match: Record<string, unknown> };

const PROVIDER_COLS = sql`p.id, p.org_id, p.requested, p.metadata_url, p.discovered_via, p.publisher_name, p.publisher_namespace, p.role,
  p.keys, p.credentials_kind, p.credentials, p.checkpoint, p.status, p.last_attempt_at, p.last_success_at, p.last_error, p.last_document_at, p.created_at`;

/** SQL of csaf_providers, csaf_advisories and csaf_refusals; every read takes the organization it works within. */
export const csafRepository = {
  async insertProvider(ex: Executor, orgId: string, requested: string): Promise<ProviderRow | undefined> {
    const [row] = await rowsOf<ProviderRow>(
      ex,
      sql`insert into csaf_providers as p (org_id, requested) values (${orgId}, ${requested})
        on conflict (org_id, requested) do nothing returning ${PROVIDER_COLS}`,
    );
    return row;
  },

  async provider(ex: Executor, orgId: string, id: string): Promise<ProviderRow | undefined> {
    const [row] = await rowsOf<ProviderRow>(
      ex,
      sql`select ${PROVIDER_COLS} from csaf_providers p where p.org_id = ${orgId} and p.id = ${id}`,
    );
    return row;
  },

  async providers(ex: Executor, orgId: string): Promise<ProviderListRow[]> {
    return rowsOf<ProviderListRow>(
      ex,
      sql`select ${PROVIDER_COLS},
          (select count(*)::int from csaf_advisories a where a.provider_id = p.id) as documents,
          (select count(*)::int from csaf_refusals r where r.provider_id = p.id) as refusals
        from csaf_providers p where p.org_id = ${orgId} order by p.created_at, p.id`,
    );
  },

  /** The providers of these organizations (GET /feeds: those of the caller's organizations). */
  async providersOfOrgs(ex: Executor, orgIds: string[]): Promise<ProviderListRow[]> {
    if (!orgIds.length) return [];
    return rowsOf<ProviderListRow>(
      ex,
      sql`select ${PROVIDER_COLS},
          (select count(*)::int from csaf_advisories a where a.provider_id = p.id) as documents,
          (select count(*)::int from csaf_refusals r where r.provider_id = p.id) as refusals
        from csaf_providers p where p.org_id = any(${pgArray(orgIds)}::uuid[]) order by p.org_id, p.created_at, p.id`,
    );
  },

  /** The `limit` latest refusals of each of these providers. */
  async latestRefusals(
    ex: Executor,
    providerIds: string[],
    limit: number,
  ): Promise<Map<string, { url: string; raison: string; at: Date | string }[]>> {
    const out = new Map<string, { url: string; raison: string; at: Date | string }[]>();
    if (!providerIds.length) return out;
    const rows = await rowsOf<{ provider_id: string; url: string; raison: string; at: Date | string }>(
      ex,
      sql`select r.provider_id, r.url, r.raison, r.at from unnest(${pgArray(providerIds)}::uuid[]) as p(id)
        cross join lateral (select provider_id, url, raison, at from csaf_refusals where provider_id = p.id order by at desc, url limit ${limit}) r
        order by r.provider_id, r.at desc, r.url`,
    );
    for (const { provider_id, ...r } of rows) out.set(provider_id, [...(out.get(provider_id) ?? []), r]);
    return out;
  },

  /** Every provider of every organization (the scheduled sync). */
  async allProviderIds(ex: Executor): Promise<{ id: string; org_id: string }[]> {
    return rowsOf(ex, sql`select id, org_id from csaf_providers order by created_at, id`);
  },

  /**
   * Sets (or, with null, removes) the provider's credentials and forgets its listings' checkpoint
   * (what the credentials open is read at the next sync); false when the organization has no such provider.
   */
  async setCredentials(ex: Executor, orgId: string, id: string, c: { kind: string; stored: string } | null): Promise<boolean> {
    const rows = await rowsOf(
      ex,
      // The listings forgotten: documents refused for their TLP, and feeds skipped, are read again.
      sql`update csaf_providers set credentials_kind = ${c?.kind ?? null}, credentials = ${c?.stored ?? null},
          checkpoint = checkpoint - 'listings'
        where org_id = ${orgId} and id = ${id} returning id`,
    );
    return rows.length > 0;
  },

  async deleteProvider(ex: Executor, orgId: string, id: string): Promise<boolean> {
    return (await rowsOf(ex, sql`delete from csaf_providers where org_id = ${orgId} and id = ${id} returning id`)).length > 0;
  },

  /** Takes the provider's lease unless another holder's is current (one statement: two processes asking at once, one wins). */
  async acquire(ex: Executor, id: string, owner: string, seconds: number): Promise<boolean> {
    const rows = await rowsOf(
      ex,
      sql`update csaf_providers set lease_owner = ${owner}, lease_until = now() + make_interval(secs => ${seconds})
        where id = ${id} and (lease_until is null or lease_until < now() or lease_owner = ${owner}) returning id`,
    );
    return rows.length === 1;
  },

  async discovered(
    ex: Executor,
    id: string,
    d: { metadata_url: string; via: string; publisher: { name: string; namespace: string }; role: string; keys: ProviderKey[] },
  ): Promise<void> {
    await ex.execute(sql`update csaf_providers set metadata_url = ${d.metadata_url}, discovered_via = ${d.via},
      publisher_name = ${d.publisher.name}, publisher_namespace = ${d.publisher.namespace}, role = ${d.role},
      keys = ${JSON.stringify(d.keys)}::jsonb where id = ${id}`);
  },

  async saveCheckpoint(ex: Executor, id: string, checkpoint: unknown): Promise<void> {
    await ex.execute(sql`update csaf_providers set checkpoint = ${JSON.stringify(checkpoint)}::jsonb where id = ${id}`);
  },

  /** Ends a sync: releases the lease and records its outcome. */
  async finish(ex: Executor, id: string, owner: string, o: { ok: boolean; error: string | null; at: Date }): Promise<void> {
    await ex.execute(sql`update csaf_providers set lease_owner = null, lease_until = null, last_attempt_at = ${o.at.toISOString()}::timestamptz,
      status = ${o.ok ? "a_jour" : "en_echec"}, last_error = ${o.error},
      last_success_at = case when ${o.ok} then ${o.at.toISOString()}::timestamptz else last_success_at end
      where id = ${id} and lease_owner = ${owner}`);
  },

  /** The stored version of an advisory, locked (the revision check and the write are one transaction). */
  async currentVersion(ex: Executor, providerId: string, trackingId: string): Promise<AdvisoryRow | undefined> {
    const [row] = await rowsOf<AdvisoryRow>(
      ex,
      sql`select * from csaf_advisories where provider_id = ${providerId} and tracking_id = ${trackingId} for update`,
    );
    return row;
  },

  /** Writes an advisory (a new one, or a newer version replacing the stored one, whose summary goes to history). */
  async writeAdvisory(
    ex: Executor,
    orgId: string,
    providerId: string,
    a: CsafAdvisory,
    url: string,
    sha256: string,
    history: AdvisoryRow["history"],
  ): Promise<string> {
    const [row] = await rowsOf<{ id: string }>(
      ex,
      sql`insert into csaf_advisories (org_id, provider_id, tracking_id, version, tracking_status, category, title, publisher, tlp, lang,
          initial_release_date, current_release_date, url, sha256, cves, revision_history, products, vulnerabilities, history)
        values (${orgId}, ${providerId}, ${a.tracking_id}, ${a.version}, ${a.tracking_status}, ${a.category}, ${a.title}, ${a.publisher},
          ${a.tlp}, ${a.lang}, ${a.initial_release_date}::timestamptz, ${a.current_release_date}::timestamptz, ${url}, ${sha256},
          ${pgArray(a.cves)}::text[], ${JSON.stringify(a.revision_history)}::jsonb, ${JSON.stringify(a.products)}::jsonb,
          ${JSON.stringify(a.vulnerabilities)}::jsonb, ${JSON.stringify(history)}::jsonb)
        on conflict (provider_id, tracking_id) do update set version = excluded.version, tracking_status = excluded.tracking_status,
          category = excluded.category, title = excluded.title, publisher = excluded.publisher, tlp = excluded.tlp, lang = excluded.lang,
          initial_release_date = excluded.initial_release_date, current_release_date = excluded.current_release_date, url = excluded.url,
          sha256 = excluded.sha256, cves = excluded.cves, revision_history = excluded.revision_history, products = excluded.products,
          vulnerabilities = excluded.vulnerabilities, history = excluded.history, fetched_at = now()
        returning id`,
    );
    await ex.execute(sql`update csaf_providers set last_document_at = greatest(last_document_at, ${a.current_release_date}::timestamptz)
      where id = ${providerId}`);
    return row!.id;
  },

  async refuse(ex: Executor, providerId: string, url: string, raison: string): Promise<void> {
    await ex.execute(sql`insert into csaf_refusals (provider_id, url, raison) values (${providerId}, ${url}, ${raison})
      on conflict (provider_id, url) do update set raison = excluded.raison, at = now()`);
  },

  async clearRefusal(ex: Executor, providerId: string, url: string): Promise<void> {
    await ex.execute(sql`delete from csaf_refusals where provider_id = ${providerId} and url = ${url}`);
  },

  async refusals(ex: Executor, providerId: string, limit: number): Promise<{ url: string; raison: string; at: Date | string }[]> {
    return rowsOf(
      ex,
      sql`select url, raison, at from csaf_refusals where provider_id = ${providerId} order by at desc, url limit ${limit}`,
    );
  },

  async advisoryIdsOfProvider(ex: Executor, providerId: string): Promise<string[]> {
    return (await rowsOf<{ id: string }>(ex, sql`select id from csaf_advisories where provider_id = ${providerId} order by id`)).map(
      (r) => r.id,
    );
  },

  async advisoriesByIds(ex: Executor, ids: string[]): Promise<AdvisoryRow[]> {
    if (!ids.length) return [];
    return rowsOf(ex, sql`select * from csaf_advisories where id = any(${pgArray(ids)}::uuid[]) order by tracking_id`);
  },

  /** One page of the organization's advisories, newest release first. */
  async page(
    ex: Executor,
    orgId: string,
    q: { provider_id?: string; cve?: string; q?: string; page: number; page_size: number },
  ): Promise<{ rows: AdvisoryRow[]; total: number }> {
    const where = [sql`a.org_id = ${orgId}`];
    if (q.provider_id) where.push(sql`a.provider_id = ${q.provider_id}`);
    if (q.cve) where.push(sql`a.cves @> array[${q.cve.toUpperCase()}]::text[]`);
    if (q.q) where.push(sql`(a.tracking_id ilike ${`%${q.q}%`} or a.title ilike ${`%${q.q}%`})`);
    const w = sql.join(where, sql` and `);
    const [rows, [count]] = await Promise.all([
      rowsOf<AdvisoryRow>(
        ex,
        sql`select a.* from csaf_advisories a where ${w} order by a.current_release_date desc, a.id
          limit ${q.page_size} offset ${(q.page - 1) * q.page_size}`,
      ),
      rowsOf<{ n: number }>(ex, sql`select count(*)::int as n from csaf_advisories a where ${w}`),
    ]);
    return { rows, total: count!.n };
  },

  async advisory(ex: Executor, orgId: string, id: string): Promise<AdvisoryRow | undefined> {
    const [row] = await rowsOf<AdvisoryRow>(ex, sql`select * from csaf_advisories where org_id = ${orgId} and id = ${id}`);
    return row;
  },

  /** The organization's stack items a CSAF product can name (purl, cpe, product). */
  async items(ex: Executor, orgId: string): Promise<CsafItem[]> {
    return rowsOf<CsafItem>(
      ex,
      sql`select i.id, i.project_id, i.item_type, i.value, i.match_vendor, i.match_product, i.match_version
        from stack_items i join projects p on p.id = i.project_id
        where p.org_id = ${orgId} and i.item_type in ('purl', 'cpe', 'product') order by i.id`,
    );
  },

  /** The CVE facts Vigie holds (severity, score, KEV, PoC, EPSS) of these CVEs. */
  async cveFacts(ex: Executor, cveIds: string[]): Promise<Map<string, CveScores>> {
    if (!cveIds.length) return new Map();
    const rows = await rowsOf<CveScores>(
      ex,
      sql`select c.cve_id, c.severity, c.cvss_score, c.is_kev, c.has_poc, e.epss from cves c left join epss_current e on e.cve_id = c.cve_id
        where c.cve_id = any(${pgArray(cveIds)}::text[])`,
    );
    return new Map(rows.map((r) => [r.cve_id, r]));
  },
};

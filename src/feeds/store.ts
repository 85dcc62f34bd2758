import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "../platform/db/client.js";
import { pgArray, rowsOf } from "../platform/db/sql.js";
import { bumpVersions } from "../platform/db/versions.js";
import type { MergedAffected, MergedCve, MergeInput } from "./merge.js";

/** A source's statement about a CVE, ready to store. */
export interface ContributionRow {
  cve_id: string;
  source: string;
  data: unknown;
  hash: string;
  source_modified: string | null;
  file: string | null;
  raw_hash?: string | null;
}

/** A public advisory (OSV, CERT-FR) ready to store in public_vulns. */
export interface AdvisoryRow {
  id: string;
  source: string;
  url: string;
  summary: string | null;
  aliases: string[];
  severity: string | null;
  cvss_score: number | null;
  published: string | null;
  modified: string | null;
  data: unknown;
  hash: string;
  file: string | null;
}

/** A news article ready to store. */
export interface ArticleRow {
  guid: string | null;
  url: string;
  title: string;
  description: string | null;
  published_at: string | null;
  source: string | null;
  author: string | null;
  image_url: string | null;
  cve_ids: string[];
  hash: string;
  file: string | null;
}

type Advisory = MergeInput["advisories"][number];

/**
 * The advisories naming these CVEs (or, for a key that is an advisory id, that advisory itself),
 * with what the merge uses of them; `full` adds what a record built from them needs (packages,
 * text, dates, score). A withdrawn one no longer speaks for its CVEs. Driven by the ids, one index
 * probe each: `aliases && <250 ids>` is planned as a scan of every advisory (650 ms on the full
 * corpus, against 5 ms so).
 */
async function advisoriesNaming(ex: Executor, idArray: SQL, full = false): Promise<Advisory[]> {
  const data = full
    ? // Packages without their lists of versions (PYSEC lists hundreds): the merge reads their ranges.
      sql`jsonb_build_object('mesures', p.data->'mesures', 'details', p.data->'details',
        'packages', (select jsonb_agg(pk - 'versions') from jsonb_array_elements(case when jsonb_typeof(p.data->'packages') = 'array' then p.data->'packages' else '[]'::jsonb end) pk),
        'cvss_vector', p.data->'cvss_vector', 'cwes', p.data->'cwes', 'references', p.data->'references')`
    : sql`jsonb_build_object('mesures', p.data->'mesures')`;
  const cols = sql`p.id, p.source, p.url, p.aliases, ${data} as data, p.summary, p.published, p.modified, p.cvss_score, p.data->>'withdrawn' as withdrawn`;
  // Each advisory once (it may name several of the ids, and be one of them): its id found by the
  // probes, then its columns built once — not once per id it names (a CERT-FR avis names hundreds:
  // its data read and rebuilt for each made the snapshot's CERT-FR import 2.5× slower).
  const rows = await rowsOf<Advisory & { withdrawn: string | null }>(
    ex,
    sql`
    select ${cols} from public_vulns p
    where p.id in (select n.id from unnest(${idArray}) as a(cve_id) join public_vulns n on n.aliases @> array[a.cve_id])
      or p.id = any(${idArray})`,
  );
  const byId = new Map<string, Advisory>();
  for (const { withdrawn, ...a } of rows) if (withdrawn === null) byId.set(a.id, a);
  return [...byId.values()];
}

/** The advisories of `advisories` that belong to each key: those naming it, and the advisory of that id. */
function assign(advisories: Advisory[], put: (key: string, a: Advisory) => void): void {
  for (const a of advisories) for (const key of new Set([...a.aliases, a.id])) put(key, a);
}

/** The sources that date a CVE before CERT-FR avis do (merge.ts: date_published). */
const DATED_SOURCES = ["cve5", "nvd", "ghsa", "go", "pysec", "rustsec", "osv"];

/** The merged columns of `cves` (MergedCve's fields) and their SQL types. */
const CVE_COLUMNS: [string, string][] = [
  ["cve_id", "text"],
  ["state", "text"],
  ["description", "text"],
  ["severity", "text"],
  ["cvss_score", "real"],
  ["cvss_vector", "text"],
  ["cvss_version", "text"],
  ["cvss_source", "text"],
  ["cwe_ids", "text[]"],
  ["vendor", "text"],
  ["product", "text"],
  ["vendor_norm", "text"],
  ["product_norm", "text"],
  ["date_published", "timestamptz"],
  ["date_updated", "timestamptz"],
  ["date_reserved", "timestamptz"],
  ["assigner", "text"],
  ["is_kev", "boolean"],
  ["kev", "jsonb"],
  ["has_poc", "boolean"],
  ["poc_count", "int"],
  ["poc_first_date", "date"],
  ["maturite_exploit", "text"],
  ["contournement_disponible", "boolean"],
  ["mesures_provisoires", "jsonb"],
  ["aliases", "text[]"],
  ["fusion_de", "text[]"],
  ['"references"', "text[]"],
  ["ssvc", "jsonb"],
  ["sources", "text[]"],
];

/** SQL of the vulnerability data: set-based writes, one statement per batch. */
export const feedStore = {
  /**
   * Stores contributions; a row is rewritten only when its content changed and it is not older
   * than the stored one. Returns the CVE ids written, with whether each was new.
   */
  async upsertContributions(ex: Executor, rows: ContributionRow[]): Promise<{ cve_id: string; inserted: boolean }[]> {
    // Unchanged records are recognised by their hash alone: their data is never sent (a re-import is cheap).
    // (The same content read from another text, e.g. pretty-printed, only records that text's hash.)
    const same = await rowsOf<{ k: string }>(
      ex,
      sql`
      with x as (
        select * from unnest(${pgArray(rows.map((r) => r.cve_id))}::text[], ${pgArray(rows.map((r) => r.source))}::text[],
          ${pgArray(rows.map((r) => r.hash))}::text[], ${pgArray(rows.map((r) => r.raw_hash ?? ""))}::text[]) as x(cve_id, source, hash, raw_hash)),
      raw as (
        update cve_sources s set raw_hash = x.raw_hash from x
        where s.cve_id = x.cve_id and s.source = x.source and s.hash = x.hash and x.raw_hash <> '' and s.raw_hash is distinct from x.raw_hash)
      select x.cve_id || ' ' || x.source as k from x
      where x.hash = (select s.hash from cve_sources s where s.cve_id = x.cve_id and s.source = x.source)`,
    );
    const unchanged = new Set(same.map((r) => r.k));
    const changed = rows.filter((r) => !unchanged.has(`${r.cve_id} ${r.source}`));
    if (!changed.length) return [];
    // A record without its own modification date never replaces a dated one (it cannot be shown newer).
    return rowsOf(
      ex,
      sql`
      insert into cve_sources (cve_id, source, data, hash, raw_hash, source_modified, file, imported_at)
      select x.cve_id, x.source, x.data, x.hash, x.raw_hash, x.source_modified, x.file, now()
      from json_to_recordset(${JSON.stringify(changed)}::json)
        as x(cve_id text, source text, data json, hash text, raw_hash text, source_modified timestamptz, file text)
      on conflict (cve_id, source) do update
        set data = excluded.data, hash = excluded.hash, raw_hash = excluded.raw_hash, source_modified = excluded.source_modified,
            file = excluded.file, imported_at = now()
        where cve_sources.hash <> excluded.hash
          and (cve_sources.source_modified is null
               or excluded.source_modified >= cve_sources.source_modified)
      returning cve_id, (xmax = 0) as inserted`,
    );
  },

  /** Everything the merge needs for these CVEs, in two queries (without the contributions of `except`). */
  async mergeInputs(ex: Executor, ids: string[], except?: string): Promise<Map<string, MergeInput>> {
    const inputs = new Map<string, MergeInput>(ids.map((id) => [id, { cve_id: id, contributions: [], advisories: [] }]));
    // Quoted elements: record keys include advisory ids and aliases as their databases write them.
    const idArray = sql`${pgArray(ids)}::text[]`;
    // One after the other: inside a transaction the statements share one connection.
    const contributions = await rowsOf<{ cve_id: string; source: string; data: unknown; source_modified: Date | null }>(
      ex,
      sql`
        select cve_id, source, data, source_modified from cve_sources where cve_id = any(${idArray}) and source <> ${except ?? ""}`,
    );
    const advisories = await advisoriesNaming(ex, idArray, true);
    for (const c of contributions)
      inputs.get(c.cve_id)?.contributions.push({ source: c.source, data: c.data, source_modified: c.source_modified });
    assign(advisories, (key, a) => inputs.get(key)?.advisories.push(a));
    return inputs;
  },

  /**
   * Writes merged CVEs (a row whose content did not change is left alone) and replaces their
   * affected rows of the given origins (all when null; none when empty). A record written for the
   * first time gets all of its affected rows, whatever the origins.
   */
  async writeMerged(ex: Executor, merged: { cve: MergedCve; affected: MergedAffected[] }[], origins: string[] | null): Promise<void> {
    if (!merged.length) return;
    await lockInOrder(
      ex,
      merged.map((m) => m.cve.cve_id),
    );
    const inserted = await rowsOf<{ cve_id: string }>(
      ex,
      sql`
      insert into cves (${sql.raw(CVE_COLUMNS.map(([c]) => c).join(", "))}, merged_at)
      select ${sql.raw(CVE_COLUMNS.map(([c]) => `x.${c}`).join(", "))}, now()
      from json_to_recordset(${JSON.stringify(merged.map((m) => m.cve))}::json) as x(${sql.raw(CVE_COLUMNS.map(([c, t]) => `${c} ${t}`).join(", "))})
      on conflict (cve_id) do update set ${sql.raw(CVE_COLUMNS.map(([c]) => `${c} = excluded.${c}`).join(", "))}, merged_at = now()
        where (${sql.raw(CVE_COLUMNS.map(([c]) => `cves.${c}`).join(", "))}) is distinct from (${sql.raw(CVE_COLUMNS.map(([c]) => `excluded.${c}`).join(", "))})
      returning cve_id, (xmax = 0) as inserted`,
    );
    const fresh = new Set(inserted.filter((r) => (r as { inserted?: boolean }).inserted).map((r) => r.cve_id));
    // A CVE seen for the first time has no affected rows to remove, and gets all of its own.
    const known = merged.map((m) => m.cve.cve_id).filter((id) => !fresh.has(id));
    if (known.length && (!origins || origins.length)) {
      await ex.execute(sql`delete from cve_affected where cve_id = any(${pgArray(known)}::text[])
        ${origins ? sql`and origin = any(${pgArray(origins)}::text[])` : sql``}`);
    }
    const affected = merged.flatMap((m) =>
      origins && !fresh.has(m.cve.cve_id) ? m.affected.filter((a) => origins.includes(a.origin)) : m.affected,
    );
    if (affected.length) {
      await ex.execute(sql`
        insert into cve_affected (cve_id, origin, vendor, product, vendor_norm, product_norm, cpe, version_from, version_from_inclusive,
          version_to, version_to_inclusive, version_status, version_type, default_status, vulnerable)
        select * from json_to_recordset(${JSON.stringify(affected)}::json) as x(cve_id text, origin text, vendor text, product text,
          vendor_norm text, product_norm text, cpe text, version_from text, version_from_inclusive boolean, version_to text,
          version_to_inclusive boolean, version_status text, version_type text, default_status text, vulnerable boolean)`);
    }
  },

  /** The keys among these that have a record. */
  async heldKeys(ex: Executor, ids: string[]): Promise<string[]> {
    if (!ids.length) return [];
    const rows = await rowsOf<{ cve_id: string }>(ex, sql`select cve_id from cves where cve_id = any(${pgArray(ids)}::text[])`);
    return rows.map((r) => r.cve_id);
  },

  /**
   * The CVE ids among these whose record CERT-FR avis build or date: without a record, or with a
   * record no dated source describes (none of the CVE List, NVD, an OSV advisory: a record built
   * from avis, a KEV-only one). One query: an avis names up to hundreds of CVEs.
   */
  async avisDatedKeys(ex: Executor, ids: string[]): Promise<string[]> {
    if (!ids.length) return [];
    const rows = await rowsOf<{ cve_id: string }>(
      ex,
      sql`
      select x.cve_id from unnest(${pgArray(ids)}::text[]) as x(cve_id) left join cves c on c.cve_id = x.cve_id
      where c.cve_id is null or not (c.sources && ${pgArray(DATED_SOURCES)}::text[])`,
    );
    return rows.map((r) => r.cve_id);
  },

  /** Removes the records of these keys (their affected rows go with them); alerts raised on them stay. */
  async deleteRecords(ex: Executor, ids: string[]): Promise<void> {
    if (!ids.length) return;
    await lockInOrder(ex, ids);
    await ex.execute(sql`delete from cves where cve_id = any(${pgArray(ids)}::text[])`);
  },

  /**
   * The ids among these whose stored record of `source` was read from exactly this text (same raw hash).
   * This lookup and the one in upsertContributions are correlated scalar subqueries, which PostgreSQL
   * never turns into joins: one primary-key probe per record. Planned as joins, they scanned the whole
   * table (2.5 s per batch, NVD import 91 s -> 159 s) when the statistics said the source had no rows
   * yet (the ANALYZE after a cve5 import).
   */
  async knownTexts(ex: Executor, source: string, ids: string[], rawHashes: string[]): Promise<Set<string>> {
    const rows = await rowsOf<{ cve_id: string }>(
      ex,
      sql`
      select x.cve_id from unnest(${pgArray(ids)}::text[], ${pgArray(rawHashes)}::text[]) as x(cve_id, raw_hash)
      where x.raw_hash = (select s.raw_hash from cve_sources s where s.cve_id = x.cve_id and s.source = ${source})`,
    );
    return new Set(rows.map((r) => r.cve_id));
  },

  /** Marks a data set changed (inside the changing transaction): caches of figures derived from it are dropped. */
  async bumpVersion(ex: Executor, name: "cves" | "articles"): Promise<void> {
    await bumpVersions(ex, [name]);
  },

  /** The held CVEs among these, with what a PoC refresh needs: the KEV flag, sources and PoC contributions. */
  async pocInputs(
    ex: Executor,
    ids: string[],
  ): Promise<{ cve_id: string; is_kev: boolean; sources: string[]; pocs: { source: string; data: unknown }[] }[]> {
    return rowsOf(
      ex,
      sql`
      select c.cve_id, c.is_kev, c.sources,
        coalesce((select json_agg(json_build_object('source', s.source, 'data', s.data)) from cve_sources s
                  where s.cve_id = c.cve_id and s.source like 'poc:%'), '[]'::json) as pocs
      from cves c where c.cve_id = any(${pgArray(ids)}::text[])`,
    );
  },

  /** The held CVEs among these, with their sources and the advisories naming them. */
  async advisoryInputs(
    ex: Executor,
    ids: string[],
  ): Promise<{ cve_id: string; sources: string[]; mesures: unknown[]; advisories: Advisory[] }[]> {
    const idArray = sql`${pgArray(ids)}::text[]`;
    // The CVE 5 record's own measures come before the avis' (see advisoryPart).
    const held = await rowsOf<{ cve_id: string; sources: string[]; mesures: unknown[] }>(
      ex,
      sql`select c.cve_id, c.sources, coalesce(s.data->'mesures', '[]'::json) as mesures
        from cves c left join cve_sources s on s.cve_id = c.cve_id and s.source = 'cve5' where c.cve_id = any(${idArray})`,
    );
    const byId = new Map(held.map((h) => [h.cve_id, { ...h, advisories: [] as Advisory[] }]));
    assign(await advisoriesNaming(ex, idArray), (key, a) => byId.get(key)?.advisories.push(a));
    return [...byId.values()];
  },

  /** Rewrites some merged columns of held CVEs (rows whose values did not change are left alone). */
  async updateCveParts(ex: Executor, rows: ({ cve_id: string } & Record<string, unknown>)[], columns: string[]): Promise<void> {
    if (!rows.length) return;
    await lockInOrder(
      ex,
      rows.map((r) => r.cve_id),
    );
    const types = new Map(CVE_COLUMNS);
    await ex.execute(sql`
      update cves c set ${sql.raw(columns.map((col) => `${col} = x.${col}`).join(", "))}, merged_at = now()
      from json_to_recordset(${JSON.stringify(rows)}::json) as x(cve_id text, ${sql.raw(columns.map((col) => `${col} ${types.get(col)}`).join(", "))})
      where c.cve_id = x.cve_id
        and (${sql.raw(columns.map((col) => `c.${col}`).join(", "))}) is distinct from (${sql.raw(columns.map((col) => `x.${col}`).join(", "))})`);
  },

  /**
   * One EPSS batch of one score date: history rows, and the current score when newer. The current
   * row also keeps the earliest score date (what the statistics' epss_published and
   * publication_to_epss read, migration 0029): set on insert, moved back by an older file in the
   * same upsert — the current score is then kept, and the row is not counted as updated.
   */
  async upsertEpss(
    ex: Executor,
    date: string,
    cves: string[],
    epss: number[],
    percentiles: number[],
  ): Promise<{ inserted: number; updated: number; history: number }> {
    const c = `{${cves.join(",")}}`;
    const e = `{${epss.join(",")}}`;
    const p = `{${percentiles.join(",")}}`;
    const [counts] = await rowsOf<{ written: number; inserted: number; updated: number; history: number }>(
      ex,
      sql`
      with cur as (
        insert into epss_current as o (cve_id, score_date, epss, percentile, first_date)
        select cve, ${date}::date, s, pc, ${date}::date from unnest(${c}::text[], ${e}::float8[], ${p}::float8[]) as t(cve, s, pc)
        on conflict (cve_id) do update set
          score_date = greatest(o.score_date, excluded.score_date),
          epss = case when o.score_date <= excluded.score_date then excluded.epss else o.epss end,
          percentile = case when o.score_date <= excluded.score_date then excluded.percentile else o.percentile end,
          first_date = least(o.first_date, excluded.first_date)
        where (o.score_date <= excluded.score_date
                and (o.epss, o.percentile, o.score_date) is distinct from (excluded.epss, excluded.percentile, excluded.score_date))
          or excluded.first_date < o.first_date
        returning (xmax = 0) as inserted, score_date = ${date}::date as scored),
      hist as (
        insert into epss_scores (cve_id, score_date, epss, percentile)
        select cve, ${date}::date, s, pc from unnest(${c}::text[], ${e}::float8[], ${p}::float8[]) as t(cve, s, pc)
        on conflict do nothing returning 1)
      select (select count(*) from cur)::int as written, (select count(*) from cur where inserted)::int as inserted,
        (select count(*) from cur where scored and not inserted)::int as updated,
        (select count(*) from hist)::int as history`,
    );
    const { written, inserted, updated, history } = counts!;
    // A first date moved back changes the statistics too (their answers are cached under this version).
    if (written) await this.bumpVersion(ex, "cves");
    return { inserted, updated, history };
  },

  /**
   * The first EPSS score date kept: `days` days before the newest score date held (epss_current's,
   * read once per purge), so the window follows the feed, not the clock, and a corpus that lags
   * keeps its history. Null when no score is held.
   */
  async epssHistoryStart(ex: Executor, days: number): Promise<string | null> {
    const [row] = await rowsOf<{ start: string | null }>(ex, sql`select (max(score_date) - ${days}::int)::text as start from epss_current`);
    return row!.start;
  },

  /** Deletes up to `batch` EPSS scores dated before `start` (the BRIN index on score_date finds them); returns how many. */
  async purgeEpssScores(ex: Executor, start: string, batch: number): Promise<number> {
    const [row] = await rowsOf<{ n: number }>(
      ex,
      sql`
      with old as (select cve_id, score_date from epss_scores where score_date < ${start}::date limit ${batch}),
      d as (delete from epss_scores s using old where s.cve_id = old.cve_id and s.score_date = old.score_date returning 1)
      select count(*)::int as n from d`,
    );
    return row!.n;
  },

  /**
   * Stores advisories; a row is rewritten only when its content changed and it is not older than
   * the stored one. Returns the ids written, whether each was new, and the aliases it had before
   * and has now (the CVEs whose merge it may change).
   */
  async upsertAdvisories(ex: Executor, all: AdvisoryRow[]): Promise<{ id: string; inserted: boolean; aliases: string[] }[]> {
    const same = await rowsOf<{ id: string }>(
      ex,
      sql`
      select p.id from unnest(${pgArray(all.map((r) => r.id))}::text[], ${pgArray(all.map((r) => r.hash))}::text[]) as x(id, hash)
      join public_vulns p on p.id = x.id and p.hash = x.hash`,
    );
    const unchanged = new Set(same.map((r) => r.id));
    const rows = all.filter((r) => !unchanged.has(r.id));
    if (!rows.length) return [];
    return rowsOf(
      ex,
      sql`
      with x as (
        select * from json_to_recordset(${JSON.stringify(rows)}::json) as x(id text, source text, url text, summary text,
          aliases text[], severity text, cvss_score real, published timestamptz, modified timestamptz, data jsonb, hash text, file text)),
      old as (select p.id, p.aliases from public_vulns p join x on x.id = p.id),
      up as (
        insert into public_vulns (id, source, url, summary, aliases, severity, cvss_score, published, modified, data, hash, file, imported_at)
        select id, source, url, summary, aliases, severity, cvss_score, published, modified, data, hash, file, now() from x
        on conflict (id) do update set source = excluded.source, url = excluded.url, summary = excluded.summary,
          aliases = excluded.aliases, severity = excluded.severity, cvss_score = excluded.cvss_score,
          published = excluded.published, modified = excluded.modified, data = excluded.data, hash = excluded.hash,
          file = excluded.file, imported_at = now()
        where public_vulns.hash <> excluded.hash
          and (public_vulns.modified is null or excluded.modified is null or excluded.modified >= public_vulns.modified)
        returning id, aliases, (xmax = 0) as inserted)
      select up.id, up.inserted, up.aliases || coalesce(old.aliases, '{}'::text[]) as aliases
      from up left join old on old.id = up.id`,
    );
  },

  /** Stored articles having one of these GUIDs or URLs (the deduplication keys). */
  async articlesByKeys(
    ex: Executor,
    guids: string[],
    urls: string[],
  ): Promise<{ id: string; guid: string | null; url: string; hash: string; file: string | null }[]> {
    return rowsOf(
      ex,
      sql`
      select id, guid, url, hash, file from articles
      where guid = any(${pgArray(guids)}::text[]) or url = any(${pgArray(urls)}::text[])`,
    );
  },

  /** Inserts new articles (a concurrent import of the same one is ignored) and rewrites changed ones by id. */
  async writeArticles(ex: Executor, inserts: ArticleRow[], updates: (ArticleRow & { id: string })[]): Promise<number> {
    let inserted = 0;
    if (inserts.length) {
      const r = await rowsOf<{ n: number }>(
        ex,
        sql`
        with ins as (
          insert into articles (guid, url, title, description, published_at, source, author, image_url, cve_ids, hash, file)
          select guid, url, title, description, published_at, source, author, image_url, cve_ids, hash, file
          from json_to_recordset(${JSON.stringify(inserts)}::json) as x(guid text, url text, title text, description text,
            published_at timestamptz, source text, author text, image_url text, cve_ids text[], hash text, file text)
          on conflict do nothing returning 1)
        select count(*)::int as n from ins`,
      );
      inserted = r[0]?.n ?? 0;
    }
    if (updates.length) {
      // The URL of an article found by its GUID is kept: another stored article may own the new one.
      await ex.execute(sql`
        update articles a set title = x.title, description = x.description, published_at = x.published_at, source = x.source,
          author = x.author, image_url = x.image_url, cve_ids = x.cve_ids, hash = x.hash, file = x.file, imported_at = now()
        from json_to_recordset(${JSON.stringify(updates)}::json) as x(id uuid, title text, description text,
          published_at timestamptz, source text, author text, image_url text, cve_ids text[], hash text, file text)
        where a.id = x.id`);
    }
    return inserted;
  },
};

/**
 * Locks the existing rows of these CVEs in id order before they are rewritten: two import
 * batches in flight that share CVEs then wait for each other instead of deadlocking (an UPDATE
 * … FROM or a DELETE locks rows in whatever order its plan visits them).
 */
async function lockInOrder(ex: Executor, ids: string[]): Promise<void> {
  await ex.execute(sql`select 1 from cves where cve_id = any(${pgArray(ids)}::text[]) order by cve_id for update`);
}

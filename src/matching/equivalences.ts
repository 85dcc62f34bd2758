/**
 * Names that designate the same vendor or product, learned from the data rather than a hand list.
 * CNAs write display names ("Apache Software Foundation" / "Apache Tomcat", "Jenkins Project"),
 * CPE data (NVD, the CISA ADP, CNAs' own `cpes`) writes `apache:tomcat`, `jenkins:jenkins`, and a
 * package's name is not always its CPE product (PyPI `jinja2` ↔ `jinja`). Evidence, per CVE:
 * - "entry": a CVE 5 entry (CNA or ADP) naming a vendor/product and listing the CPEs of one product;
 * - "record": the CNA names exactly one product and the CPE data of the same CVE (ADP, NVD) exactly one;
 * - "osv": an OSV advisory naming the CVE affects exactly one package, and the CVE has exactly one CPE product.
 * A pair is in force once MIN_EVIDENCE distinct CVEs support it (one odd record makes no
 * equivalence). Vendor names equal once squashed (`palo_alto_networks` = `paloaltonetworks`) need
 * no entry. Each import batch rewrites the evidence of its CVEs and recounts the pairs it touched,
 * in the batch's transaction: set-based, three statements per batch.
 */
import { sql } from "drizzle-orm";
import type { Executor } from "../platform/db/client.js";
import { pgArray, rowsOf } from "../platform/db/sql.js";

/** Distinct CVEs of evidence for a pair to be in force. */
export const MIN_EVIDENCE = 3;

/** Names that say nothing ("n/a"), never part of an equivalence. */
const VOID_NAMES = ["n/a", "n_a", "na", "unknown", "unspecified", "*", "-", ""];

interface Pair {
  kind: string;
  name: string;
  equivalent: string;
}

/** Rewrites the evidence of these CVEs and the equivalences whose evidence changed (inside the import transaction). */
export async function learnEquivalences(ex: Executor, cveIds: string[]): Promise<void> {
  if (!cveIds.length) return;
  const ids = sql`${pgArray(cveIds)}::text[]`;
  const removed = await rowsOf<Pair>(ex, sql`delete from name_evidence where cve_id = any(${ids}) returning kind, name, equivalent`);
  const voids = sql`${pgArray(VOID_NAMES)}::text[]`;
  const added = await rowsOf<Pair>(
    ex,
    sql`
    with a as (
      select cve_id, origin, vendor_norm, product_norm, cpe is not null as has_cpe,
        nullif(replace(lower(split_part(cpe, ':', 4)), '\\', ''), '') as cv, nullif(replace(lower(split_part(cpe, ':', 5)), '\\', ''), '') as cp
      from cve_affected where cve_id = any(${ids}) and vulnerable),
    named as (select * from a where origin in ('cna', 'adp') and product_norm is not null and product_norm <> all(${voids})),
    cpe1 as (
      select cve_id, min(cv) as cv, min(cp) as cp from a where cp is not null and cp <> all(${voids})
      group by cve_id having count(distinct (cv, cp)) = 1),
    cna1 as (
      select cve_id, min(vendor_norm) as v, min(product_norm) as p from named where origin = 'cna'
      group by cve_id having count(distinct product_norm) = 1 and count(distinct coalesce(vendor_norm, '')) = 1),
    adv as materialized (
      -- Driven by the ids, one index probe each (filters applied after: they made it a scan of every advisory).
      select u.cve_id, pv.source, pv.data from unnest(${ids}) u(cve_id) join public_vulns pv on pv.aliases @> array[u.cve_id]),
    pkg1 as (
      select cve_id, min(n) as p from adv
      cross join lateral jsonb_array_elements(case when jsonb_typeof(data->'packages') = 'array' then data->'packages' else '[]'::jsonb end) pkg
      cross join lateral (select regexp_replace(lower(pkg->>'name'), '^.*[/:]', '') as n) x
      where source <> 'certfr' and data->>'withdrawn' is null and n <> '' group by cve_id having count(distinct n) = 1),
    entry1 as (
      -- An entry listing the CPEs of several products (a router family) tells which of them it is not.
      select cve_id, vendor_norm as v, product_norm as p, min(cv) as cv, min(cp) as cp from named
      where has_cpe and cp <> all(${voids}) group by cve_id, origin, vendor_norm, product_norm having count(distinct (cv, cp)) = 1),
    ev as (
      select cve_id, v, p, cv, cp, 'entry' as via from entry1
      union all select r.cve_id, r.v, r.p, k.cv, k.cp, 'record' from cna1 r join cpe1 k using (cve_id)
      union all select g.cve_id, null, g.p, null, k.cp, 'osv' from pkg1 g join cpe1 k using (cve_id)),
    pairs as (
      select cve_id, 'vendor' as kind, least(v, cv) as name, greatest(v, cv) as equivalent, via from ev
      where v is not null and cv is not null and v <> all(${voids}) and cv <> all(${voids})
        and regexp_replace(v, '[\\s_.,-]+', '', 'g') <> regexp_replace(cv, '[\\s_.,-]+', '', 'g')
      union select cve_id, 'product', least(p, cp), greatest(p, cp), via from ev where p <> cp)
    insert into name_evidence (cve_id, kind, name, equivalent, via)
    select * from pairs order by 1, 2, 3, 4, 5 on conflict do nothing
    returning kind, name, equivalent`,
  );
  const touched = new Map<string, Pair>();
  for (const p of [...removed, ...added]) touched.set(`${p.kind}\u0000${p.name}\u0000${p.equivalent}`, p);
  if (!touched.size) return;
  const list = [...touched.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, p]) => p);
  // Both directions are stored: the matcher probes (kind, name) from whichever side it starts.
  await ex.execute(sql`
    with t as (select * from json_to_recordset(${JSON.stringify(list)}::json) as t(kind text, name text, equivalent text)),
    c as (
      select t.kind, t.name, t.equivalent,
        (select count(distinct e.cve_id) from name_evidence e where e.kind = t.kind and e.name = t.name and e.equivalent = t.equivalent)::int as n
      from t),
    d as (select kind, name, equivalent, n from c union all select kind, equivalent, name, n from c),
    gone as (
      delete from name_equivalences q using d
      where d.n < ${MIN_EVIDENCE} and q.kind = d.kind and q.name = d.name and q.equivalent = d.equivalent)
    insert into name_equivalences (kind, name, equivalent, evidence)
    select kind, name, equivalent, n from d where n >= ${MIN_EVIDENCE} order by 1, 2, 3
    on conflict (kind, name, equivalent) do update set evidence = excluded.evidence
      where name_equivalences.evidence <> excluded.evidence`);
}

/** The learned equivalents of these vendor names (each name → its other names). */
export async function vendorEquivalents(ex: Executor, vendors: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (!vendors.length) return out;
  const rows = await rowsOf<{ name: string; equivalent: string }>(
    ex,
    sql`
    select name, equivalent from name_equivalences where kind = 'vendor' and name = any(${pgArray(vendors)}::text[])`,
  );
  for (const r of rows) out.set(r.name, [...(out.get(r.name) ?? []), r.equivalent]);
  return out;
}

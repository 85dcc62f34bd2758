/**
 * Stack items ↔ CVEs, set-based: one query finds every (item, CVE) candidate through the indexes
 * (a CVE's affected products → cpe/product/vendor items; its advisories' packages → purl items;
 * its id and aliases → cve items; its words → keyword items), then decide.ts keeps the real hits
 * and one statement raises their alerts, with a `cve.new_match` outbox event each, in the caller's
 * transaction. The same query runs from the items' side when items are added.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "../platform/db/client.js";
import { insertEvents, writeEvents, type OutboxEvent } from "../events/outbox.js";
import { pgArray, rowsOf } from "../platform/db/sql.js";
import { alertsVersion, bumpVersions, casesVersion } from "../platform/db/versions.js";
import { palier } from "./priority.js";
import { type AlertHit, insertAlerts } from "./raise.js";
import { vendorEquivalents } from "./equivalences.js";
import { linkedToPackage, packageKey, packageLinks, type PackageLinks } from "./packages.js";
import {
  decideAffected,
  decideOsv,
  decidePackageCpe,
  decideVendor,
  describe,
  meetsSeverity,
  severityRank,
  type AffectedRow,
  type MatchReason,
  type OsvPackageRow,
} from "./decide.js";

interface Candidate {
  item_id: string;
  project_id: string;
  org_id: string;
  item_type: string;
  value: string;
  min_severity: string | null;
  match_vendor: string | null;
  match_version: string | null;
  match_ecosystem: string | null;
  match_product: string | null;
  cve_id: string;
  state: string;
  severity: string;
  cvss_score: number | null;
  is_kev: boolean;
  has_poc: boolean;
  epss: number | null;
  rows: AffectedRow[] | null;
  packages: OsvPackageRow[] | null;
}

interface Hit extends AlertHit {
  match: MatchReason & { item_id: string; item_type: string; value: string };
}

const AFFECTED_JSON = sql`json_agg(json_build_object('origin', a.origin, 'vendor', a.vendor, 'product', a.product, 'vendor_norm', a.vendor_norm, 'product_norm', a.product_norm,
  'cpe', a.cpe, 'version_from', a.version_from, 'version_from_inclusive', a.version_from_inclusive, 'version_to', a.version_to,
  'version_to_inclusive', a.version_to_inclusive, 'version_status', a.version_status, 'version_type', a.version_type,
  'default_status', a.default_status, 'vulnerable', a.vulnerable))`;
const ITEM_COLS = sql`i.id as item_id, i.project_id, p.org_id, i.item_type, i.value, i.min_severity, i.match_vendor, i.match_version,
  i.match_ecosystem, i.match_product`;
const CVE_COLS = sql`c.cve_id, c.state, c.severity, c.cvss_score, c.is_kev, c.has_poc, e.epss`;
const GROUP = sql`group by i.id, p.org_id, c.cve_id, e.epss`;
/** GROUP over the package branch's fenced pairs (`i` is no table there: each item column named). */
const PAIRS_GROUP = sql`group by i.id, i.project_id, i.item_type, i.value, i.min_severity, i.match_vendor, i.match_version,
  i.match_ecosystem, i.match_product, p.org_id, c.cve_id, e.epss`;

/*
 * The affected rows each item type's decision reads (decide.ts), and only those: a row it would drop
 * is neither fetched, sorted nor aggregated. decideAffected reads the rows of the item's vendor
 * (squashed: vigie_vendor_key is vendorKey, checked equal on every vendor name of the corpus; or a
 * learned equivalent of it, or a name holding its words: names.ts vendorWithin) or of no vendor, never a git commit range; decidePackageCpe the bounded,
 * non-git rows of a versioned package; decideVendor the affected rows. A product named by several
 * vendors (linux: debian's, the kernel's) or reached through an equivalence (linux_kernel's 94,784
 * NVD rows) brought every vendor's rows: 1,000 projects x 20 items, 560k candidate rows -> 148k.
 */
const PRODUCT_ROWS = sql`a.version_type is distinct from 'git' and (i.match_vendor is null or a.vendor_norm is null
  or a.vendor_norm in ('n/a', '') or a.vendor_norm = i.match_vendor or vigie_vendor_key(a.vendor_norm) = vigie_vendor_key(i.match_vendor)
  or (i.match_vendor, vigie_vendor_key(a.vendor_norm)) in (select name, vigie_vendor_key(equivalent) from name_equivalences where kind = 'vendor')
  or (vigie_name_words(i.match_vendor) <@ vigie_name_words(a.vendor_norm) and vigie_name_words(i.match_vendor) <> '{}'))`;
/*
 * A display name of a CNA, an ADP or KEV that folds to the item's product once its vendor's leading
 * words are dropped (names.ts productCore: "Apache Airflow" → airflow, "FortiClientEMS" →
 * forticlientems), through the two expression indexes of migration 0025. Only a row naming its
 * vendor: a folded name is a weaker link than the exact one that a row naming no vendor needs (WPScan's
 * vendor-less "my-calendar" plugin is not Mike Spice's my_calendar). An item that names no vendor
 * follows only a name that lost no word: "Versa Director" is not every vendor's "director".
 */
const CORE_ROWS = sql`a.origin in ('cna', 'adp', 'kev') and i.match_product <> a.product_norm and a.vendor_norm not in ('n/a', '')
  and vigie_vendor_key(i.match_product) = vigie_product_core(a.vendor_norm, a.product_norm)
  and (i.match_vendor is not null or vigie_product_core(a.vendor_norm, a.product_norm) = vigie_vendor_key(a.product_norm))`;
/*
 * A CNA display name that is the item's product followed by edition words, under the item's vendor
 * ("NGINX Open Source" of F5 for f5:nginx, "Bamboo Server" for atlassian:bamboo; names.ts productBase,
 * migration 0033): from a changed CVE through the items' product key, from a new item through
 * cve_affected_product_base_idx.
 */
const EDITION_ROWS = sql`a.origin = 'cna' and i.match_vendor is not null and a.vendor_norm not in ('n/a', '')
  and vigie_product_base(a.vendor_norm, a.product_norm) = vigie_vendor_key(i.match_product)`;
/*
 * A row naming no vendor ("n/a") whose product is the display name, the vendor's words first
 * ("VMware vCenter Server" for vmware:vcenter_server, "Draytek VigorConnect" for draytek:vigorconnect):
 * the item's vendor and product folded, one after the other (names.ts nameTails, migration 0033).
 */
const DISPLAY_NAME_ROWS = sql`a.origin in ('cna', 'adp', 'kev') and (a.vendor_norm is null or a.vendor_norm in ('n/a', '')) and i.match_vendor is not null
  and vigie_product_core(a.vendor_norm, a.product_norm) = vigie_vendor_key(i.match_vendor) || vigie_vendor_key(i.match_product)
  and vigie_vendor_key(i.match_product) = any(vigie_name_tails(a.product_norm))`;
const PACKAGE_CPE_ROWS = sql`i.match_version is not null and a.version_type is distinct from 'git' and (a.version_from is not null or a.version_to is not null)`;
const VENDOR_ROWS = sql`a.version_status = 'affected' and a.vulnerable`;

/**
 * The candidate (item, CVE) pairs: `cves` narrows the CVE side (a batch of changed CVEs), `items`
 * the item side (new items), each a SQL condition on c, i or p (the item's project); `affected`
 * says the same of the affected rows a (the planner does not carry `c.cve_id = any(…)` over the
 * join: without it, a batch of 1,000 CVEs read all of cve_affected, once per branch). Each branch
 * probes one index from either side; `fromCves` adds what only that side can probe (an item
 * naming an alias Vigie did not know when it was added).
 */
function candidatesSql(cves: SQL, items: SQL, fromCves: boolean, affected: SQL = sql`true`, pairs = false): SQL {
  const tailWhere = (where: SQL) =>
    pairs
      ? sql`join projects p on p.id = i.project_id where ${where}`
      : sql`join projects p on p.id = i.project_id left join epss_current e on e.cve_id = c.cve_id where ${where}`;
  const tail = tailWhere(sql`${cves} and ${items}`);
  // `pairs`: only (item_id, cve_id), once per row reached, without the aggregates (countCandidates).
  const cols = (more: SQL) => (pairs ? sql`i.id as item_id, c.cve_id` : sql`${ITEM_COLS}, ${CVE_COLS}, ${more}`);
  const group = pairs ? sql`` : GROUP;
  // Items found from a CVE's affected products (one branch per index: an OR would probe none).
  // `via` joins a learned name equivalence q between the affected row and the item (equivalences.ts).
  const byAffected = (on: SQL, via?: "product" | "vendor") => sql`
    select ${cols(sql`${AFFECTED_JSON} as rows, null::json as packages`)}
    from cve_affected a join cves c on c.cve_id = a.cve_id
    ${via ? sql`join name_equivalences q on q.kind = ${via} and q.name = ${via === "product" ? sql`a.product_norm` : sql`a.vendor_norm`}` : sql``}
    join stack_items i on ${on} ${tail} and ${affected} ${group}`;
  // purl items found from the packages of the advisories merged into the record (`on`: the CVE
  // join, given the advisory's id and aliases).
  const packageRows = sql`public_vulns pv cross join lateral jsonb_array_elements(case when jsonb_typeof(pv.data->'packages') = 'array' then pv.data->'packages' else '[]'::jsonb end) pkg
    join stack_items i on i.item_type = 'purl' and i.match_ecosystem = lower(pkg->>'ecosystem') and i.match_product = vigie_package_name(pkg->>'ecosystem', pkg->>'name')
      and vigie_package_keys(pv.data) @> array[i.match_ecosystem || ':' || i.match_product]`;
  const packageCols = (advisory: SQL) =>
    pairs
      ? sql`i.id as item_id, c.cve_id`
      : sql`${ITEM_COLS}, ${CVE_COLS}, null, json_agg(json_build_object('advisory', ${advisory}, 'ecosystem', pkg->>'ecosystem', 'name', pkg->>'name',
  'ranges', coalesce(pkg->'ranges', '[]'::jsonb), 'versions', coalesce(pkg->'versions', '[]'::jsonb)))`;
  // From the items' side (new items), their (advisory, package) pairs first, fenced (offset 0), then
  // the CVEs of those pairs. Left free, the planner read every advisory's CVEs by alias before it
  // looked at the items (62,729 rows for 958 purl items: 2.9 s, BENCH=sbom's 1,000 components);
  // the pairs are the items' rows themselves (`i`, with the advisory's id and aliases): joined back
  // to stack_items, the few pairs it expects made it a merge join of millions of rows.
  const byPackage = (on: (id: SQL, aliases: SQL) => SQL) =>
    fromCves
      ? sql`
    select ${packageCols(sql`pv.id`)}
    from ${packageRows}
    join cves c on ${on(sql`pv.id`, sql`pv.aliases`)}
    ${tail} and pv.data->>'withdrawn' is null ${group}`
      : sql`
    select ${packageCols(sql`i.pv_id`)}
    from (select i.*, pv.id as pv_id, pv.aliases as pv_aliases, pkg.value as pkg from ${packageRows}
      where pv.data->>'withdrawn' is null and ${items} offset 0) i
    join cves c on ${on(sql`i.pv_id`, sql`i.pv_aliases`)}
    ${tailWhere(cves)} ${pairs ? sql`` : PAIRS_GROUP}`;
  // Items found from the CVE record itself.
  const byCve = (on: SQL) => sql`select ${cols(sql`null, null`)} from cves c join stack_items i on ${on} ${tail}`;
  const branches = [
    byAffected(sql`i.item_type in ('cpe', 'product') and i.match_product = a.product_norm and ${PRODUCT_ROWS}`),
    byAffected(sql`i.item_type = 'vendor' and i.match_vendor = a.vendor_norm and ${VENDOR_ROWS}`),
    byAffected(sql`i.item_type = 'purl' and i.match_cpe_product = a.product_norm and ${PACKAGE_CPE_ROWS}`),
    byAffected(sql`i.item_type in ('cpe', 'product') and i.match_product = q.equivalent and ${PRODUCT_ROWS}`, "product"),
    byAffected(sql`i.item_type in ('cpe', 'product') and ${CORE_ROWS} and ${PRODUCT_ROWS}`),
    byAffected(sql`i.item_type in ('cpe', 'product') and ${EDITION_ROWS} and ${PRODUCT_ROWS}`),
    byAffected(sql`i.item_type in ('cpe', 'product') and ${DISPLAY_NAME_ROWS} and ${PRODUCT_ROWS}`),
    byAffected(sql`i.item_type = 'vendor' and i.match_vendor = q.equivalent and ${VENDOR_ROWS}`, "vendor"),
    byAffected(sql`i.item_type = 'purl' and i.match_cpe_product = q.equivalent and ${PACKAGE_CPE_ROWS}`, "product"),
    byPackage((_id, aliases) => sql`c.cve_id = any(${aliases}) and ${aliases} @> array[c.cve_id]`),
    // The record of an advisory that names no CVE is keyed by the advisory's own id.
    byPackage((id) => sql`c.cve_id = ${id}`),
    byCve(sql`i.item_type = 'cve' and i.match_cve = c.cve_id`),
    byCve(sql`i.item_type = 'keyword' and i.match_anchor = any(tsvector_to_array(c.search))
      and c.search @@ array_to_string(array(select quote_literal(w) from unnest(i.match_words) w), ' & ')::tsquery`),
  ];
  if (fromCves) branches.push(byCve(sql`i.item_type = 'cve' and i.match_cve = any(c.aliases) and i.match_cve <> c.cve_id`));
  return sql.join(branches, sql` union all `);
}

const RULE_RANK: Record<string, number> = {
  version_range: 0,
  osv_range: 1,
  cve: 2,
  default_status: 3,
  all_versions: 4,
  unversioned: 5,
  vendor: 6,
  keyword: 7,
  // Raised by a vendor's CSAF advisory (modules/csaf), never by this matcher.
  vendor_advisory: 8,
};

/**
 * The candidates of one (item, CVE) found through several names (its own, learned equivalents) as
 * one: an unaffected statement under one name still vetoes an affected one under another.
 */
function mergeByItem(candidates: Candidate[]): Candidate[] {
  const by = new Map<string, Candidate>();
  for (const c of candidates) {
    const key = `${c.item_id} ${c.cve_id} ${c.packages ? "osv" : ""}`;
    const prev = by.get(key);
    if (!prev) by.set(key, c);
    else if (c.rows) prev.rows = [...(prev.rows ?? []), ...c.rows];
  }
  return [...by.values()];
}

/** The real hits among candidates, one per (project, CVE): the most precise reason wins. */
function decide(candidates: Candidate[], vendorNames: Map<string, string[]>, links: PackageLinks): Hit[] {
  const best = new Map<string, Hit>();
  for (const hit of decideEach(candidates, vendorNames, links)) {
    const key = `${hit.project_id} ${hit.cve_id}`;
    const prev = best.get(key);
    if (prev && RULE_RANK[prev.match.rule]! <= RULE_RANK[hit.match.rule]!) continue;
    best.set(key, hit);
  }
  return [...best.values()];
}

/** The real hits among candidates, one per (item, CVE). */
function decideEach(candidates: Candidate[], vendorNames: Map<string, string[]>, links: PackageLinks): Hit[] {
  const hits: Hit[] = [];
  for (const c of mergeByItem(candidates)) {
    if (c.state === "REJECTED" || !meetsSeverity(c.severity, c.min_severity)) continue;
    let reason: MatchReason | null;
    if (c.item_type === "purl")
      reason = c.packages
        ? decideOsv(c.packages, c.match_version)
        : decidePackageCpe(c.rows ?? [], c.match_version, (r) => linkedToPackage(r, c.cve_id, c.match_ecosystem!, c.match_product!, links));
    else if (c.item_type === "vendor") reason = decideVendor(c.rows ?? []);
    else if (c.item_type === "keyword" || c.item_type === "cve") {
      reason = { rule: c.item_type, version: null, range: null, origin: null, vendor: null, product: null };
    } else reason = decideAffected(c.rows ?? [], c.match_vendor, c.match_version, vendorNames.get(c.match_vendor ?? "") ?? []);
    if (!reason) continue;
    hits.push({
      project_id: c.project_id,
      org_id: c.org_id,
      item_id: c.item_id,
      cve_id: c.cve_id,
      severity: c.severity,
      cvss_score: c.cvss_score,
      is_kev: c.is_kev,
      has_poc: c.has_poc,
      epss: c.epss,
      palier: palier({ severity: c.severity, epss: c.epss, isKev: c.is_kev, hasPoc: c.has_poc }),
      vendor: reason.vendor,
      product: reason.product,
      source: describe(c.item_type, c.value, reason),
      match: { ...reason, item_id: c.item_id, item_type: c.item_type, value: c.value },
    });
  }
  return hits;
}

/**
 * decide() (or decideEach()) with the learned vendor equivalents of the candidates' items and their
 * packages' CPE links (a query each).
 */
async function decideWith(ex: Executor, candidates: Candidate[], how = decide): Promise<Hit[]> {
  const vendors = [...new Set(candidates.filter((c) => c.rows && c.match_vendor).map((c) => c.match_vendor!))];
  const viaCpe = candidates
    .filter((c) => c.item_type === "purl" && c.rows)
    .map((c) => ({ key: packageKey(c.match_ecosystem!, c.match_product!), cveId: c.cve_id, rows: c.rows! }));
  const names = await vendorEquivalents(ex, vendors);
  return how(candidates, names, await packageLinks(ex, viaCpe));
}

/**
 * Cases follow their CVE's severity unless it was set by hand; a case opened before Vigie knew its
 * CVE takes the severity when the CVE arrives. One statement for the batch.
 */
export async function followCaseSeverities(ex: Executor, cveIds: string[]): Promise<void> {
  const rows = await rowsOf<{ project_id: string }>(
    ex,
    sql`update cases k set severity = c.severity, updated_at = now() from cves c
    where c.cve_id = any(${pgArray(cveIds)}::text[]) and k.cve_id = c.cve_id and not k.severity_manual
      and k.severity is distinct from c.severity
    returning k.project_id`,
  );
  await bumpVersions(ex, [...new Set(rows.map((r) => r.project_id))].map(casesVersion));
}

/** Raises the alerts of these hits that do not exist yet, each with its cve.new_match event. Returns how many. */
async function raise(ex: Executor, hits: Hit[]): Promise<number> {
  let n = 0;
  for (const v of (await raiseByItem(ex, hits)).values()) n += v;
  return n;
}

/** raise(), saying how many alerts each item raised (src/matching/raise.ts, the one insert of alerts). */
async function raiseByItem(ex: Executor, hits: Hit[]): Promise<Map<string, number>> {
  return insertAlerts(ex, hits);
}

interface AlertFacts {
  id: string;
  org_id: string;
  project_id: string;
  cve_id: string;
  old_severity: string;
  old_cvss: number | null;
  old_kev: boolean;
  old_poc: boolean;
  old_epss: number | null;
  severity: string;
  cvss_score: number | null;
  is_kev: boolean;
  has_poc: boolean;
  epss: number | null;
  score_date: string | null;
}

/**
 * The smallest EPSS rise that writes `cve.epss_spike`: scores are published with 5 decimals and
 * move a little every day; a rise under one point is noise no workflow asks for (a trigger's
 * `min_delta` is at least this, see engine/graph.ts), and writing it would fill the outbox.
 */
export const EPSS_SPIKE_FLOOR = 0.01;

/**
 * Existing alerts of changed CVEs: their facts follow the CVE (and its EPSS score, for `palier`),
 * and a change that matters emits an event (cve.kev_added, cve.poc_published,
 * cve.severity_raised) — never a second alert.
 */
export async function refreshAlerts(ex: Executor, cveIds: string[]): Promise<void> {
  const rows = await rowsOf<AlertFacts>(
    ex,
    sql`
    select a.id, a.org_id, a.project_id, a.cve_id, a.severity as old_severity, a.cvss_score as old_cvss, a.is_kev as old_kev,
      a.has_poc as old_poc, a.epss as old_epss, c.severity, c.cvss_score, c.is_kev, c.has_poc, e.epss, e.score_date::text as score_date
    from alerts a join cves c on c.cve_id = a.cve_id left join epss_current e on e.cve_id = a.cve_id
    where a.cve_id = any(${pgArray(cveIds)}::text[])
    order by a.id`,
  );
  const updates = [];
  const changedProjects = new Set<string>();
  const events: OutboxEvent[] = [];
  for (const r of rows) {
    const p = palier({ severity: r.severity, epss: r.epss, isKev: r.is_kev, hasPoc: r.has_poc });
    if (
      r.old_severity === r.severity &&
      r.old_cvss === r.cvss_score &&
      r.old_kev === r.is_kev &&
      r.old_poc === r.has_poc &&
      r.old_epss === r.epss
    )
      continue;
    changedProjects.add(r.project_id);
    updates.push({
      id: r.id,
      severity: r.severity,
      cvss_score: r.cvss_score,
      is_kev: r.is_kev,
      has_poc: r.has_poc,
      epss: r.epss,
      palier: p,
    });
    const base = { org_id: r.org_id, project_id: r.project_id, cve_id: r.cve_id, alert_id: r.id };
    if (r.is_kev && !r.old_kev) events.push({ ...base, event: "cve.kev_added", payload: { alert_id: r.id, cve_id: r.cve_id } });
    if (r.has_poc && !r.old_poc) events.push({ ...base, event: "cve.poc_published", payload: { alert_id: r.id, cve_id: r.cve_id } });
    // The score rose between the alert's last known score date and this one (each trigger's
    // min_delta filters at run time): {from, to, delta, score_date}.
    const delta = r.epss !== null && r.old_epss !== null ? Math.round((r.epss - r.old_epss) * 1e5) / 1e5 : 0;
    if (delta >= EPSS_SPIKE_FLOOR) {
      events.push({
        ...base,
        event: "cve.epss_spike",
        payload: { alert_id: r.id, cve_id: r.cve_id, from: r.old_epss!, to: r.epss!, delta, score_date: r.score_date },
      });
    }
    if (severityRank(r.severity) > severityRank(r.old_severity)) {
      events.push({
        ...base,
        event: "cve.severity_raised",
        payload: { alert_id: r.id, cve_id: r.cve_id, from: r.old_severity, to: r.severity },
      });
    }
  }
  if (updates.length) {
    await bumpVersions(ex, [...changedProjects].map(alertsVersion));
    await ex.execute(sql`
      update alerts a set severity = u.severity, cvss_score = u.cvss_score, is_kev = u.is_kev, has_poc = u.has_poc, epss = u.epss,
        palier = u.palier, updated_at = now()
      from json_to_recordset(${JSON.stringify(updates)}::json) as u(id uuid, severity text, cvss_score real, is_kev boolean, has_poc boolean,
        epss double precision, palier text)
      where a.id = u.id`);
  }
  await writeEvents(ex, events);
}

/**
 * Alerts raised under an advisory's own id (it named no CVE) become the alerts of the CVE it now
 * names, in place (same id, read state, tags, triggered_at): the CVE then raises no second alert in
 * that project. Where the project already has an alert for the CVE, that one stays and takes the
 * advisory alert's tags; the advisory alert is removed. One statement for the whole batch.
 */
export async function rekeyAdvisoryAlerts(ex: Executor, pairs: { from: string; to: string }[]): Promise<void> {
  if (!pairs.length) return;
  const rows = await rowsOf<{ project_id: string }>(
    ex,
    sql`
    with p as (select * from json_to_recordset(${JSON.stringify(pairs)}::json) as p("from" text, "to" text)),
    a as (select a.id, a.project_id, p."to", b.id as kept,
            row_number() over (partition by a.project_id, p."to" order by a.triggered_at, a.id) as n
          from alerts a join p on a.cve_id = p."from"
          left join alerts b on b.project_id = a.project_id and b.cve_id = p."to"),
    moved as (update alerts x set cve_id = a."to", updated_at = now() from a where x.id = a.id and a.kept is null and a.n = 1 returning x.project_id),
    gone as (select a.id, a.project_id, coalesce(a.kept, (select m.id from a m where m.project_id = a.project_id and m."to" = a."to" and m.n = 1)) as kept
             from a where a.kept is not null or a.n > 1),
    tagged as (insert into alert_tags (alert_id, tag_id) select g.kept, t.tag_id from gone g join alert_tags t on t.alert_id = g.id on conflict do nothing),
    deleted as (delete from alerts x using gone g where x.id = g.id returning x.project_id)
    select project_id from moved union all select project_id from deleted`,
  );
  await bumpVersions(ex, [...new Set(rows.map((r) => r.project_id))].map(alertsVersion));
}

/**
 * The fields of an alerted CVE a security engineer acts on, as they were before a batch re-merged
 * it: `cve.updated` compares them with the merged record (cvss_score, severity, is_kev, has_poc,
 * mesures_provisoires, state). A field outside this list (a reference added, a description
 * reworded) writes no event.
 */
export interface AlertedCve {
  cve_id: string;
  cvss_score: number | null;
  severity: string;
  is_kev: boolean;
  has_poc: boolean;
  mesures_provisoires: unknown[];
  state: string;
}

/** Before a batch re-merges `cveIds` (in its transaction): the acted-on fields of those some project has an alert for. */
export async function alertedBefore(ex: Executor, cveIds: string[]): Promise<AlertedCve[]> {
  if (!cveIds.length) return [];
  return rowsOf<AlertedCve>(
    ex,
    sql`select c.cve_id, c.cvss_score, c.severity, c.is_kev, c.has_poc, c.mesures_provisoires, c.state from cves c
      where c.cve_id = any(${pgArray(cveIds)}::text[]) and exists (select 1 from alerts a where a.cve_id = c.cve_id)`,
  );
}

/** Alerts whose `matching` turned false (no item matches their CVE any more) or true again. */
export interface Flips {
  unmatched: number;
  rematched: number;
}

/**
 * `cve.updated`, one per alert of the batch whose CVE changed in an acted-on field (`before`, read
 * by alertedBefore) or whose project's items stopped (or started again) matching it — `hits` are
 * the batch's matches, existing alerts included. An alert that stops matching is kept (its read
 * state, tags and case stay; the ranges are often corrected back): `alerts.matching` turns false
 * and the event says `correspondance: {from: true, to: false}`. A rejected CVE says `state`, not
 * `correspondance`. Payload `{alert_id, cve_id, changes: {field: {from, to}}}`, built in one statement.
 */
async function writeUpdates(ex: Executor, cveIds: string[], before: AlertedCve[], hits: Hit[], projectId?: string): Promise<Flips> {
  const ids = sql`${pgArray(cveIds)}::text[]`;
  // `projectId`: the alerts of one project only (its items changed, not the CVEs).
  const inProject = projectId === undefined ? sql`true` : sql`a.project_id = ${projectId}::uuid`;
  const alerts = await rowsOf<{ id: string; project_id: string; cve_id: string; matching: boolean }>(
    ex,
    sql`select a.id, a.project_id, a.cve_id, a.matching from alerts a join cves c on c.cve_id = a.cve_id
      where a.cve_id = any(${ids}) and c.state <> 'REJECTED' and ${inProject}
        -- A vendor's CSAF advisory raised it: the vendor's revisions decide its matching (src/modules/csaf).
        and a.match->>'origin' is distinct from 'csaf'`,
  );
  const matched = new Set(hits.map((h) => `${h.project_id} ${h.cve_id}`));
  const flips = alerts
    .filter((a) => a.matching !== matched.has(`${a.project_id} ${a.cve_id}`))
    .map((a) => ({ id: a.id, matching: !a.matching }));
  const counted = { unmatched: flips.filter((f) => !f.matching).length, rematched: flips.filter((f) => f.matching).length };
  if (!before.length && !flips.length) return counted;
  const change = (field: string, from: SQL, to: SQL) => sql`(${field}::text, ${from}, ${to})`;
  await ex.execute(sql`
    with b as (select * from json_to_recordset(${JSON.stringify(before)}::json) as b(cve_id text, cvss_score real, severity text,
        is_kev boolean, has_poc boolean, mesures_provisoires jsonb, state text)),
      f as (select * from json_to_recordset(${JSON.stringify(flips)}::json) as f(id uuid, matching boolean)),
      flipped as (update alerts a set matching = f.matching from f where a.id = f.id returning a.id),
      ch as (
        select a.id, a.org_id, a.project_id, a.cve_id,
          (select coalesce(jsonb_object_agg(x.k, jsonb_build_object('from', x.old, 'to', x.new)), '{}'::jsonb)
           from (values
             ${change("cvss_score", sql`to_jsonb(b.cvss_score)`, sql`to_jsonb(c.cvss_score)`)},
             ${change("severity", sql`to_jsonb(b.severity)`, sql`to_jsonb(c.severity)`)},
             ${change("is_kev", sql`to_jsonb(b.is_kev)`, sql`to_jsonb(c.is_kev)`)},
             ${change("has_poc", sql`to_jsonb(b.has_poc)`, sql`to_jsonb(c.has_poc)`)},
             ${change("mesures_provisoires", sql`b.mesures_provisoires`, sql`c.mesures_provisoires`)},
             ${change("state", sql`to_jsonb(b.state)`, sql`to_jsonb(c.state)`)},
             ${change("correspondance", sql`to_jsonb(not f.matching)`, sql`to_jsonb(f.matching)`)}
           ) as x(k, old, new)
           where x.old is distinct from x.new and (x.k = 'correspondance' or b.cve_id is not null)) as changes
        from alerts a join cves c on c.cve_id = a.cve_id
        left join b on b.cve_id = a.cve_id left join f on f.id = a.id
        where a.cve_id = any(${ids}) and ${inProject} and (b.cve_id is not null or f.id is not null))
    ${insertEvents("cve.updated", {
      org_id: sql`ch.org_id`,
      project_id: sql`ch.project_id`,
      cve_id: sql`ch.cve_id`,
      alert_id: sql`ch.id`,
      payload: { alert_id: sql`ch.id`, cve_id: sql`ch.cve_id`, changes: sql`ch.changes` },
      from: sql`from ch where ch.changes <> '{}'::jsonb order by ch.project_id, ch.cve_id`,
    })}`);
  return counted;
}

/**
 * After CVEs changed (inside the import transaction): new matches raise alerts, existing alerts
 * follow, and `cve.updated` says what changed in an alerted CVE since `before` (alertedBefore,
 * read before the batch re-merged them).
 */
export async function matchChangedCves(ex: Executor, cveIds: string[], before: AlertedCve[] = []): Promise<void> {
  if (!cveIds.length) return;
  await refreshAlerts(ex, cveIds);
  await followCaseSeverities(ex, cveIds);
  const ids = sql`${pgArray(cveIds)}::text[]`;
  const candidates = await rowsOf<Candidate>(ex, candidatesSql(sql`c.cve_id = any(${ids})`, sql`true`, true, sql`a.cve_id = any(${ids})`));
  const hits = await decideWith(ex, candidates);
  await writeUpdates(ex, cveIds, before, hits);
  await raise(ex, hits);
}

/**
 * Which stored CVEs a new item alerts on. An item naming a version alerts on every CVE that affects
 * that version, whenever published: the version is vulnerable today. An item watching every version
 * (a product, a vendor, a keyword…) follows the project's setting: every CVE, or those published in
 * its last N days plus every KEV one.
 */
const BACKFILL_SCOPE = sql`(i.match_version is not null or c.is_kev or p.alert_backfill = 'all'
  or c.date_published >= now() - make_interval(days => p.alert_backfill_days))`;

/** Items (a condition on i) against the stored corpus (see BACKFILL_SCOPE). Returns the alerts raised. */
async function matchItems(ex: Executor, items: SQL): Promise<number> {
  const candidates = await rowsOf<Candidate>(ex, candidatesSql(BACKFILL_SCOPE, items, false));
  return raise(ex, await decideWith(ex, candidates));
}

/** New (or changed) stack items against the stored corpus. Returns the alerts raised. */
export async function matchNewItems(ex: Executor, itemIds: string[]): Promise<number> {
  return itemIds.length ? matchItems(ex, sql`i.id = any(${pgArray(itemIds)}::uuid[])`) : 0;
}

/** An item's candidates: the stored CVEs (in its project's backfill scope, not rejected) it may match. */
export interface ItemCandidates {
  item_id: string;
  project_id: string;
  candidates: number;
}

const LIVE_SCOPE = sql`${BACKFILL_SCOPE} and c.state <> 'REJECTED'`;

/**
 * How many CVEs each of these items may match, in one query that reads the same indexes as the
 * matcher but neither aggregates nor returns the affected rows (ADR 0037): what decides whether
 * the request raises the alerts or the items-match job does. An upper bound of what is raised
 * (decide.ts still drops ranges that exclude the version, severities under the item's threshold).
 * Items without a candidate are left out.
 */
export async function countCandidates(ex: Executor, itemIds: string[]): Promise<ItemCandidates[]> {
  if (!itemIds.length) return [];
  const pairs = candidatesSql(LIVE_SCOPE, sql`i.id = any(${pgArray(itemIds)}::uuid[])`, false, sql`true`, true);
  return rowsOf<ItemCandidates>(
    ex,
    sql`select x.item_id, i.project_id, count(distinct x.cve_id)::int as candidates from (${pairs}) x
      join stack_items i on i.id = x.item_id group by x.item_id, i.project_id order by x.item_id`,
  );
}

/** The next `limit` candidate CVEs of one item after `after` (a CVE id; null: from the first), in id order. */
export async function nextCandidateCves(ex: Executor, itemId: string, after: string | null, limit: number): Promise<string[]> {
  const scope = after === null ? LIVE_SCOPE : sql`${LIVE_SCOPE} and c.cve_id > ${after}`;
  const pairs = candidatesSql(scope, sql`i.id = ${itemId}::uuid`, false, sql`true`, true);
  const rows = await rowsOf<{ cve_id: string }>(ex, sql`select distinct x.cve_id from (${pairs}) x order by x.cve_id limit ${limit}`);
  return rows.map((r) => r.cve_id);
}

/** One batch of a broad item: its alerts on these CVEs (nextCandidateCves), raised once. Returns how many. */
export async function matchItemOnCves(ex: Executor, itemId: string, cveIds: string[]): Promise<number> {
  if (!cveIds.length) return 0;
  const ids = sql`${pgArray(cveIds)}::text[]`;
  const candidates = await rowsOf<Candidate>(
    ex,
    candidatesSql(sql`c.cve_id = any(${ids}) and ${BACKFILL_SCOPE}`, sql`i.id = ${itemId}::uuid`, false, sql`a.cve_id = any(${ids})`),
  );
  return raise(ex, await decideWith(ex, candidates));
}

/** Items matched whole (a group of small ones), saying how many alerts each raised. */
export async function matchItemsByItem(ex: Executor, itemIds: string[]): Promise<Map<string, number>> {
  if (!itemIds.length) return new Map();
  const candidates = await rowsOf<Candidate>(ex, candidatesSql(BACKFILL_SCOPE, sql`i.id = any(${pgArray(itemIds)}::uuid[])`, false));
  return raiseByItem(ex, await decideWith(ex, candidates));
}

/** The CVEs of the alerts these items are the match of (read before the items go: alerts.item_id is then set null). */
export async function alertedCvesOfItems(ex: Executor, itemIds: string[]): Promise<string[]> {
  if (!itemIds.length) return [];
  const rows = await rowsOf<{ cve_id: string }>(
    ex,
    sql`select distinct cve_id from alerts where item_id = any(${pgArray(itemIds)}::uuid[]) order by cve_id`,
  );
  return rows.map((r) => r.cve_id);
}

/**
 * After a project's items were removed or changed (an SBOM uploaded again or removed): its alerts
 * on `cveIds` (alertedCvesOfItems, read before), those it had marked as matching no more, and those
 * whose item is gone (alerts.item_id set null: another item may have been all that held them) are
 * decided again against the project's items alone, as matchChangedCves decides a changed CVE (the
 * same candidates, decisions and writeUpdates, scoped to the project). An alert no item matches any
 * more is kept and marked (matching=false, cve.updated `correspondance: true → false`): its read
 * state, tags and case stay; one an item matches again turns back. An alert whose item is gone and
 * that an item still matches is linked to that item (and its reason). Raises nothing.
 */
export async function rematchProjectAlerts(ex: Executor, projectId: string, cveIds: string[]): Promise<Flips> {
  const loose = await rowsOf<{ cve_id: string }>(
    ex,
    sql`select cve_id from alerts where project_id = ${projectId}::uuid and (not matching or item_id is null)`,
  );
  const all = [...new Set([...cveIds, ...loose.map((r) => r.cve_id)])].sort();
  if (!all.length) return { unmatched: 0, rematched: 0 };
  const ids = sql`${pgArray(all)}::text[]`;
  const candidates = await rowsOf<Candidate>(
    ex,
    candidatesSql(sql`c.cve_id = any(${ids})`, sql`i.project_id = ${projectId}::uuid`, true, sql`a.cve_id = any(${ids})`),
  );
  const hits = await decideWith(ex, candidates);
  const flips = await writeUpdates(ex, all, [], hits, projectId);
  if (hits.length) {
    await ex.execute(sql`
      update alerts a set item_id = h.item_id, match = h.match, source = h.source, vendor = h.vendor, product = h.product
      from json_to_recordset(${JSON.stringify(hits)}::json) as h(project_id uuid, cve_id text, item_id uuid, match jsonb, source text,
        vendor text, product text)
      where a.project_id = h.project_id and a.cve_id = h.cve_id and a.item_id is null`);
  }
  return flips;
}

/**
 * Every item of a project each of these CVEs matches now, one row per (CVE, item): an alert keeps
 * one item, a VEX statement names them all (three stacks holding three versions of a module). The
 * candidates and decisions of rematchProjectAlerts; writes nothing.
 */
export async function projectMatches(
  ex: Executor,
  projectId: string,
  cveIds: string[],
): Promise<{ cve_id: string; item_id: string; item_type: string; value: string }[]> {
  if (!cveIds.length) return [];
  const ids = sql`${pgArray(cveIds)}::text[]`;
  const candidates = await rowsOf<Candidate>(
    ex,
    candidatesSql(sql`c.cve_id = any(${ids})`, sql`i.project_id = ${projectId}::uuid`, true, sql`a.cve_id = any(${ids})`),
  );
  const items = new Map<string, { cve_id: string; item_id: string; item_type: string; value: string }>();
  for (const h of await decideWith(ex, candidates, decideEach))
    items.set(`${h.cve_id} ${h.item_id}`, { cve_id: h.cve_id, item_id: h.item_id, item_type: h.match.item_type, value: h.match.value });
  return [...items.values()].sort((a, b) => (a.cve_id < b.cve_id ? -1 : a.cve_id > b.cve_id ? 1 : a.value < b.value ? -1 : 1));
}

/**
 * What the name links of src/matching add, on a sample of 1,011 real stack items against the whole
 * corpus of ../shared/data: prints the alerts per rule, and writes one line per (item, CVE, rule) to
 * NAMES_OUT so that two runs (before/after a change to matching) can be compared with `diff`.
 *
 *   NAMES_DATABASE_URL=postgres://postgres@127.0.0.1:5432/corpus NAMES_OUT=/tmp/after.tsv npx tsx bench/names.ts
 *
 * The database is migrated and, when it holds no CVE, the corpus is imported (CVE 5, NVD 1.1, KEV,
 * OSV: about 3 minutes on PostgreSQL). Nothing of the sample stays: it is built, matched and read in
 * one transaction that is rolled back. Each item is alone in its project (alerts are one per
 * project and CVE): every (item, CVE) hit is counted. The sample, drawn in md5 order (the same on
 * every run over the same corpus):
 * - 700 `vendor:product@version` items as CPE data names them (NVD, ADP and CNA CPEs), the version
 *   an exact version listed for that product;
 * - 150 KEV products as KEV names them, each with the upper bound of a range given for it;
 * - 150 purl items of OSV packages (PyPI, npm, crates.io, Go, Maven, RubyGems, NuGet, Packagist),
 *   the version an `introduced` event of theirs;
 * - 11 crates whose name is also an application's (tar, openssl, office, glib…), at versions of theirs.
 */
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { importFeed } from "../src/feeds/import.js";
import { itemKeys } from "../src/matching/items.js";
import { matchNewItems } from "../src/matching/matcher.js";
import { stacksRepository } from "../src/modules/stacks/stacks.repository.js";
import { openDatabase } from "../src/platform/db/client.js";
import { rowsOf } from "../src/platform/db/sql.js";

const DATA = process.env.VIGIE_SHARED_DATA ?? "../shared/data";
const URL_ = process.env.NAMES_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/names_corpus";
const OUT = process.env.NAMES_OUT ?? null;

const PURL_TYPES: Record<string, string> = {
  pypi: "pypi",
  npm: "npm",
  "crates.io": "cargo",
  go: "golang",
  maven: "maven",
  rubygems: "gem",
  nuget: "nuget",
  packagist: "composer",
};

/** Crates named like an application (GNU tar, OpenSSL, Microsoft Office…), at versions the crates had. */
const CRATES = [
  "tar@0.4.26",
  "openssl@0.10.55",
  "office@0.8.1",
  "glib@0.15.0",
  "ncurses@5.101.0",
  "bzip2@0.4.3",
  "gcc@0.3.55",
  "cpython@0.5.0",
  "deno@1.0.0",
  "nix@0.20.0",
  "protobuf@2.27.0",
].map((v) => `pkg:cargo/${v}`);

function purl(ecosystem: string, name: string, version: string): string | null {
  const type = PURL_TYPES[ecosystem];
  if (!type) return null;
  const path = type === "maven" ? name.replace(":", "/") : name;
  return `pkg:${type}/${path}@${version}`;
}

async function importCorpus(db: Awaited<ReturnType<typeof openDatabase>>["db"]): Promise<void> {
  const cve5 = readdirSync(join(DATA, "cve-json5"))
    .filter((f) => /^vulnrichment-\d{4}\.jsonl\.gz$/.test(f))
    .map((f) => join(DATA, "cve-json5", f));
  await importFeed(db, "cve5", cve5);
  await importFeed(db, "nvd", [join(DATA, "nvd/json-1.1-feeds")]);
  await importFeed(db, "kev", [join(DATA, "kev/known_exploited_vulnerabilities.json")]);
  await importFeed(db, "osv", [join(DATA, "osv/osv-combined.jsonl.gz")]);
}

const database = await openDatabase({ databaseUrl: URL_ });
await database.migrate();
if (!(await database.executeSql("select 1 from cves limit 1")).rows.length) await importCorpus(database.db);

const values: { type: "product" | "purl"; value: string }[] = [];
for (const r of await rowsOf<{ v: string }>(
  database.db,
  sql`
  select v from (
    select split_part(cpe, ':', 4) || ':' || split_part(cpe, ':', 5) || '@' || max(version_from) as v
    from cve_affected where cpe like 'cpe:2.3:%' and version_from = version_to and version_from ~ '^[0-9]'
      and split_part(cpe, ':', 4) !~ '[\\\\@]' and split_part(cpe, ':', 5) !~ '[\\\\@]'
    group by split_part(cpe, ':', 4), split_part(cpe, ':', 5)) x
  order by md5(v) limit 700`,
))
  values.push({ type: "product", value: r.v });
for (const r of await rowsOf<{ v: string }>(
  database.db,
  sql`
  select v from (
    select k.vendor_norm || ':' || k.product_norm || '@' || max(b.version_to) as v
    from cve_affected k join cve_affected b on b.cve_id = k.cve_id and b.origin <> 'kev' and b.version_to ~ '^[0-9][0-9.]*$'
    where k.origin = 'kev' and k.vendor_norm is not null and k.product_norm !~ '[:@]' and k.vendor_norm !~ '[:@]'
    group by k.vendor_norm, k.product_norm) x
  order by md5(v) limit 150`,
))
  values.push({ type: "product", value: r.v });
const packages = await rowsOf<{ ecosystem: string; name: string; version: string }>(
  database.db,
  sql`
  select distinct on (lower(p->>'ecosystem'), p->>'name') lower(p->>'ecosystem') as ecosystem, p->>'name' as name, e->>'introduced' as version
  from public_vulns pv cross join lateral jsonb_array_elements(pv.data->'packages') p
  cross join lateral jsonb_array_elements(p->'ranges') r cross join lateral jsonb_array_elements(r->'events') e
  where e->>'introduced' ~ '^v?[1-9][0-9]*\\.[0-9]' and lower(p->>'ecosystem') in ('pypi', 'npm', 'crates.io', 'go', 'maven', 'rubygems', 'nuget', 'packagist')
  order by lower(p->>'ecosystem'), p->>'name', md5(e->>'introduced')`,
);
packages.sort((a, b) => (a.ecosystem + a.name < b.ecosystem + b.name ? -1 : 1));
const drawn = packages
  .map((p) => purl(p.ecosystem, p.name, p.version))
  .filter((v): v is string => v !== null && !CRATES.includes(v))
  .map((v, i) => ({ v, k: (i * 7919) % packages.length }))
  .sort((a, b) => a.k - b.k)
  .slice(0, 150);
for (const { v } of drawn) values.push({ type: "purl", value: v });
for (const v of CRATES) values.push({ type: "purl", value: v });

const lines: string[] = [];
const ROLLBACK = new Error("rollback");
await database.db
  .transaction(async (tx) => {
    const [org] = await rowsOf<{ id: string }>(tx, sql`insert into organizations (name) values ('names bench') returning id`);
    const ids: string[] = [];
    for (const it of values) {
      const [p] = await rowsOf<{ id: string }>(tx, sql`insert into projects (org_id, name) values (${org!.id}, ${it.value}) returning id`);
      const [s] = await rowsOf<{ id: string }>(
        tx,
        sql`insert into stacks (org_id, project_id, name) values (${org!.id}, ${p!.id}, 's') returning id`,
      );
      const [row] = await stacksRepository.insertItems(tx, s!.id, p!.id, [
        { itemType: it.type, value: it.value, minSeverity: null, keys: itemKeys(it.type, it.value) },
      ]);
      ids.push(row!.id);
    }
    const t0 = performance.now();
    for (let i = 0; i < ids.length; i += 200) await matchNewItems(tx, ids.slice(i, i + 200));
    const seconds = (performance.now() - t0) / 1000;
    const alerts = await rowsOf<{ value: string; cve_id: string; rule: string }>(
      tx,
      sql`select i.value, a.cve_id, a.match->>'rule' as rule from alerts a join stack_items i on i.id = a.item_id
      where a.org_id = ${org!.id} order by 1, 2`,
    );
    for (const a of alerts) lines.push(`${a.value}\t${a.cve_id}\t${a.rule}`);
    const byRule = new Map<string, number>();
    for (const a of alerts) byRule.set(a.rule, (byRule.get(a.rule) ?? 0) + 1);
    console.log(
      JSON.stringify({
        items: ids.length,
        alerts: alerts.length,
        seconds: +seconds.toFixed(1),
        by_rule: Object.fromEntries([...byRule].sort()),
      }),
    );
    throw ROLLBACK;
  })
  .catch((e: unknown) => {
    if (e !== ROLLBACK) throw e;
  });
if (OUT) writeFileSync(OUT, `${lines.join("\n")}\n`);
await database.close();

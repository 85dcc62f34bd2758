/**
 * Which CPE data speaks of a package. A purl item with a version is also matched against the
 * version ranges of CPE data (NVD, CNAs, the CISA ADP) whose product is the package's last name or
 * a learned equivalent of it — but a name alone says nothing of the platform: the crate `tar` is
 * not GNU tar, the crate `office` not Microsoft Office, the crate `openssl` not OpenSSL. A row is
 * the package's only through evidence of its own ecosystem:
 * - its CPE's `target_sw` names the ecosystem's language (`cpe:…:smallvec_project:smallvec:…:rust:*:*`);
 * - or its vendor and product appear in the record of a CVE that an advisory of this very package
 *   (OSV: ecosystem and name) names: the record carries both (`pkg:pypi/django` ↔ `djangoproject:django`);
 * - or the row is a repository's: GitHub's CNA, which assigns the CVEs of repository security
 *   advisories, names the repository `<owner>:<repository>` and the record links that repository's
 *   advisory (`https://github.com/psf/requests/security/advisories/GHSA-…` for `psf:requests`) —
 *   unless the package is known to live in another repository: a Go module's path names its own,
 *   and the advisories of a package link the repositories named like it (PyPI `redis` is
 *   `redis/redis-py`, not the server `redis/redis`; the crate `nix` is `nix-rust/nix`, not `NixOS/nix`).
 * The crate `office` meets none of these for Microsoft Office's CPE rows.
 */
import { sql } from "drizzle-orm";
import type { Executor } from "../platform/db/client.js";
import { pgArray, rowsOf } from "../platform/db/sql.js";
import { parseCpe } from "./cpe.js";
import type { AffectedRow } from "./decide.js";
import { vendorKey } from "./names.js";

/** OSV ecosystems (as items.ts keeps them) → the CPE `target_sw` values that name their platform. */
const TARGET_SW: Record<string, string[]> = {
  "pypi": ["python"],
  "npm": ["node.js", "nodejs"],
  "crates.io": ["rust"],
  "go": ["go", "golang"],
  "maven": ["java"],
  "rubygems": ["ruby", "rails", "ruby_on_rails"],
  "nuget": [".net", ".net_framework", ".net_core"],
  "packagist": ["php"],
  "hex": ["elixir", "erlang"],
  "pub": ["dart", "flutter"],
  "hackage": ["haskell"],
  "cran": ["r"],
  "swifturl": ["swift"],
  "cocoapods": ["swift", "objective-c"],
};

/** A package's key as the advisories' package index (vigie_package_keys) holds it: "pypi:django". */
export const packageKey = (ecosystem: string, name: string) => `${ecosystem}:${name}`;

/** What links CPE-side rows to the packages of a batch: the evidence above, read once per batch. */
export interface PackageLinks {
  /** The vendor/product pairs the records of a package's advisories name, by package key (vendor squashed). */
  pairs: Map<string, Set<string>>;
  /** The (CVE, owner, repository) whose record, assigned by GitHub, links that repository's advisory (repositoryKey). */
  repositories: Set<string>;
  /** The GitHub repositories ("owner/repository", lower case) the advisories of a package link, by package key. */
  linked: Map<string, Set<string>>;
}

/** The CVE assigners that are GitHub's CNA: its CVE List short name, NVD's e-mail for it. */
const GITHUB_CNA = ["GitHub_M", "security-advisories@github.com"];

const repositoryKey = (cveId: string, owner: string, repository: string) =>
  `${cveId}\u0000${owner.toLowerCase()}/${repository.toLowerCase()}`;
/** A repository or package name folded for comparison: "redis-py" → redispy, "Jinja2" → jinja2. */
const fold = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, "");

const pairOf = (vendor: string | null, product: string | null) => `${vendorKey(vendor)}\u0000${product ?? ""}`;

/** A purl candidate's rows of CPE data for one CVE, as packageLinks reads them. */
export interface PackageCandidate {
  key: string;
  cveId: string;
  rows: AffectedRow[];
}

/**
 * For these candidates, the evidence linking their packages to CPE-side rows: the vendor/product
 * pairs of CPE-side rows (CNA, ADP, NVD) in the records of the CVEs their packages' advisories name
 * (restricted to the products the candidates hold; the advisories found through their package
 * index), the repositories the candidates' records name, the repositories their packages'
 * advisories link. Three queries a batch.
 */
export async function packageLinks(ex: Executor, candidates: PackageCandidate[]): Promise<PackageLinks> {
  const keys = [...new Set(candidates.map((c) => c.key))];
  const products = [...new Set(candidates.flatMap((c) => c.rows.map((r) => r.product_norm ?? "")))];
  const out: PackageLinks = { pairs: new Map(), repositories: await namedRepositories(ex, candidates), linked: new Map() };
  if (!keys.length || !products.length) return out;
  const wanted = sql`${pgArray(keys)}::text[]`;
  // One probe of the package index for all the keys (&&): a join on each key had the planner scan
  // every advisory, computing its keys 161 times (28 s for the 161 purls of bench/names.ts; 0.5 s).
  const rows = await rowsOf<{ key: string; vendor: string | null; product: string }>(
    ex,
    sql`
    with pv as materialized (
      select c.cve_id, k.key from public_vulns pv
      cross join lateral unnest(vigie_package_keys(pv.data)) k(key)
      cross join lateral unnest(pv.aliases) c(cve_id)
      where vigie_package_keys(pv.data) && ${wanted} and k.key = any(${wanted}) and pv.source <> 'certfr' and pv.data->>'withdrawn' is null)
    select distinct pv.key, a.vendor_norm as vendor, a.product_norm as product
    from pv join cve_affected a on a.cve_id = pv.cve_id and a.origin in ('cna', 'adp', 'nvd')
    where a.product_norm = any(${pgArray(products)}::text[])`,
  );
  for (const r of rows) {
    const set = out.pairs.get(r.key) ?? new Set<string>();
    set.add(pairOf(r.vendor, r.product));
    out.pairs.set(r.key, set);
  }
  if (out.repositories.size) out.linked = await linkedRepositories(ex, keys);
  return out;
}

/**
 * The (CVE, owner, repository) among the candidates' CNA rows whose record GitHub assigned and
 * whose references hold that repository's security advisory (`https://github.com/<vendor>/<product>/security/advisories/`).
 */
async function namedRepositories(ex: Executor, candidates: PackageCandidate[]): Promise<Set<string>> {
  const wanted = new Map<string, { cve_id: string; owner: string; repository: string }>();
  for (const c of candidates)
    for (const r of c.rows)
      if (r.origin === "cna" && r.vendor && r.product && !/[/\s]/.test(r.vendor + r.product))
        wanted.set(repositoryKey(c.cveId, r.vendor, r.product), {
          cve_id: c.cveId,
          owner: r.vendor.toLowerCase(),
          repository: r.product.toLowerCase(),
        });
  if (!wanted.size) return new Set();
  const rows = await rowsOf<{ cve_id: string; owner: string; repository: string }>(
    ex,
    sql`
    select distinct t.cve_id, t.owner, t.repository
    from json_to_recordset(${JSON.stringify([...wanted.values()])}::json) as t(cve_id text, owner text, repository text)
    join cves c on c.cve_id = t.cve_id and c.assigner = any(${pgArray(GITHUB_CNA)}::text[])
    where exists (select 1 from unnest(c."references") u(url)
      where left(lower(u.url), length('https://github.com/' || t.owner || '/' || t.repository || '/security/advisories/'))
        = 'https://github.com/' || t.owner || '/' || t.repository || '/security/advisories/')`,
  );
  return new Set(rows.map((r) => repositoryKey(r.cve_id, r.owner, r.repository)));
}

/** The GitHub repositories ("owner/repository", lower case) the advisories of these packages link, by package key. */
async function linkedRepositories(ex: Executor, keys: string[]): Promise<Map<string, Set<string>>> {
  const wanted = sql`${pgArray(keys)}::text[]`;
  const rows = await rowsOf<{ key: string; repository: string }>(
    ex,
    sql`
    select distinct k.key, lower(substring(u.url from '^https?://github\\.com/([^/#?]+/[^/#?]+)')) as repository
    from public_vulns pv
    cross join lateral unnest(vigie_package_keys(pv.data)) k(key)
    cross join lateral jsonb_array_elements_text(case when jsonb_typeof(pv.data->'references') = 'array' then pv.data->'references' else '[]'::jsonb end) u(url)
    where vigie_package_keys(pv.data) && ${wanted} and k.key = any(${wanted}) and pv.source <> 'certfr' and pv.data->>'withdrawn' is null
      and u.url ~* '^https?://github\\.com/[^/#?]+/[^/#?]+'`,
  );
  const out = new Map<string, Set<string>>();
  for (const r of rows) out.set(r.key, (out.get(r.key) ?? new Set<string>()).add(r.repository.replace(/\.git$/, "")));
  return out;
}

/**
 * The repositories a package is known to live in: a Go module's path on github.com names it; else
 * those its advisories link whose name holds the package's or is held in it (`redis/redis-py` for
 * PyPI `redis`, `pallets/jinja` for `jinja2`; a proof of concept's `tu0laj1/database_test` says nothing).
 */
function ownRepositories(ecosystem: string, name: string, links: PackageLinks): string[] {
  if (ecosystem === "go") {
    const m = /^github\.com\/([^/]+\/[^/]+)/.exec(name);
    if (m) return [m[1]!.toLowerCase()];
  }
  const short = fold(name.split(/[/:]/).at(-1)!);
  return [...(links.linked.get(packageKey(ecosystem, name)) ?? [])].filter((repo) => {
    const r = fold(repo.split("/")[1] ?? "");
    return short !== "" && r !== "" && (r.includes(short) || short.includes(r));
  });
}

/** Whether a CPE-side row of this CVE speaks of the package (ecosystem, compared name), by the evidence above. */
export function linkedToPackage(r: AffectedRow, cveId: string, ecosystem: string, name: string, links: PackageLinks): boolean {
  if (r.origin === "osv" || r.origin === "kev") return false;
  const target = r.cpe ? parseCpe(r.cpe)?.target_sw : undefined;
  if (target && TARGET_SW[ecosystem]?.includes(target.toLowerCase())) return true;
  if (links.pairs.get(packageKey(ecosystem, name))?.has(pairOf(r.vendor_norm, r.product_norm ?? null))) return true;
  if (r.origin !== "cna" || !r.vendor || !r.product || !links.repositories.has(repositoryKey(cveId, r.vendor, r.product))) return false;
  const own = ownRepositories(ecosystem, name, links);
  return own.length === 0 || own.includes(`${r.vendor}/${r.product}`.toLowerCase());
}

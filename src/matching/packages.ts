/**
 * Which CPE data speaks of a package. A purl item with a version is also matched against the
 * version ranges of CPE data (NVD, CNAs, the CISA ADP) whose product is the package's last name or
 * a learned equivalent of it — but a name alone says nothing of the platform: the crate `tar` is
 * not GNU tar, the crate `office` not Microsoft Office, the crate `openssl` not OpenSSL. A row is
 * the package's only through evidence of its own ecosystem:
 * - its CPE's `target_sw` names the ecosystem's language (`cpe:…:smallvec_project:smallvec:…:rust:*:*`);
 * - or its vendor and product appear in the record of a CVE that an advisory of this very package
 *   (OSV: ecosystem and name) names: the record carries both (`pkg:pypi/django` ↔ `djangoproject:django`).
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

/** The vendor/product pairs the records of a package's advisories name, by package key (vendor squashed). */
export type PackageLinks = Map<string, Set<string>>;

const pairOf = (vendor: string | null, product: string | null) => `${vendorKey(vendor)}\u0000${product ?? ""}`;

/**
 * For these packages, the vendor/product pairs of CPE-side rows (CNA, ADP, NVD) in the records of
 * the CVEs their advisories name, restricted to the products the candidates hold: one query, the
 * advisories found through their package index.
 */
export async function packageLinks(ex: Executor, keys: string[], products: string[]): Promise<PackageLinks> {
  const out: PackageLinks = new Map();
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
    const set = out.get(r.key) ?? new Set<string>();
    set.add(pairOf(r.vendor, r.product));
    out.set(r.key, set);
  }
  return out;
}

/** Whether CPE-side row speaks of the package (ecosystem, compared name), by the evidence above. */
export function linkedToPackage(r: AffectedRow, ecosystem: string, name: string, links: PackageLinks): boolean {
  if (r.origin === "osv" || r.origin === "kev") return false;
  const target = r.cpe ? parseCpe(r.cpe)?.target_sw : undefined;
  if (target && TARGET_SW[ecosystem]?.includes(target.toLowerCase())) return true;
  return links.get(packageKey(ecosystem, name))?.has(pairOf(r.vendor_norm, r.product_norm ?? null)) ?? false;
}

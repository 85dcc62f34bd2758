/**
 * Stack item values → the keys the matcher looks them up by. Item types (`item_type`):
 * - `cpe`: a CPE 2.3 string (or 2.2 URI); vendor and product must be named; the version part may be
 *   `*` (every version) or a concrete version (its `update` part, e.g. PAN-OS `h1`, is appended: 10.2.9-h1).
 * - `product`: `vendor:product`, or a bare `product`, with an optional version after `@` or a third
 *   `:` part (`paloaltonetworks:pan-os@10.2.5`, `openbsd:openssh:9.6p1`). Names are compared in
 *   their CPE-style form (lower case, spaces as `_`). A bare product matches every vendor's.
 * - `vendor`: every product of a vendor.
 * - `purl`: a package URL (`pkg:pypi/django@4.2.1`, `pkg:npm/lodash@4.17.20`,
 *   `pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1`, `pkg:golang/github.com/gin-gonic/gin@v1.5.0`),
 *   read by parsePurl (purl.ts: packageurl-js, normalised per type; qualifiers and subpath are
 *   accepted and name no package), matched against the OSV advisories' packages and ranges, and
 *   (with a version) against the version ranges of CPE data naming its last name as product
 *   (djangoproject:django).
 * - `keyword`: every word appears in the CVE (id, description, vendor, product).
 * - `cve`: one CVE id, or an alias (GHSA-…, PYSEC-…) resolved to its CVE when Vigie knows it.
 */
import { BadItem } from "./bad-item.js";
import { normalizeName, parseCpe } from "./cpe.js";
import type { StackItemType } from "../platform/db/schema/alerting.js";
import { parsePurl } from "./purl.js";
import { isConcreteVersion } from "./version.js";

export interface ItemKeys {
  matchVendor: string | null;
  matchProduct: string | null;
  matchVersion: string | null;
  matchEcosystem: string | null;
  matchCpeProduct: string | null;
  /** keyword: the text whose words are matched (turned into lexemes by the database). */
  keywordText: string | null;
  matchCve: string | null;
}

export { BadItem };

const NONE: ItemKeys = {
  matchVendor: null,
  matchProduct: null,
  matchVersion: null,
  matchEcosystem: null,
  matchCpeProduct: null,
  keywordText: null,
  matchCve: null,
};

/** purl types → OSV ecosystems. */
const PURL_ECOSYSTEMS: Record<string, string> = {
  pypi: "pypi",
  npm: "npm",
  maven: "maven",
  golang: "go",
  cargo: "crates.io",
  gem: "rubygems",
  nuget: "nuget",
  composer: "packagist",
  hex: "hex",
  pub: "pub",
  hackage: "hackage",
  cran: "cran",
  swift: "swifturl",
  cocoapods: "cocoapods",
  deb: "debian",
  apk: "alpine",
  rpm: "rpm",
};

const ADVISORY_ID = /^(CVE-\d{4}-\d{4,}|[A-Z][A-Z0-9]*-[A-Za-z0-9][A-Za-z0-9._:-]*)$/;

/** The normalised lookup keys of an item; throws BadItem with a clear message. */
export function itemKeys(type: StackItemType, raw: string): ItemKeys {
  const value = raw.trim();
  if (!value) throw new BadItem("la valeur est vide");
  switch (type) {
    case "cpe":
      return cpeKeys(value);
    case "product":
      return productKeys(value);
    case "vendor": {
      if (value.includes(":")) throw new BadItem("un vendor est un nom seul, sans « : » (utiliser le type product pour vendor:product)");
      return { ...NONE, matchVendor: normalizeName(value) };
    }
    case "purl":
      return purlKeys(value);
    case "keyword": {
      if (!/[\p{L}\p{N}]/u.test(value)) throw new BadItem("le mot-clé ne contient aucun mot");
      return { ...NONE, keywordText: value };
    }
    case "cve": {
      const id = value.toUpperCase().startsWith("CVE-") ? value.toUpperCase() : value;
      if (!ADVISORY_ID.test(id)) throw new BadItem("identifiant attendu : CVE-AAAA-NNNN ou un alias (GHSA-…, PYSEC-…, GO-…)");
      return { ...NONE, matchCve: id };
    }
  }
}

function cpeKeys(value: string): ItemKeys {
  const cpe = parseCpe(value);
  if (!cpe)
    throw new BadItem(
      "CPE mal formée : attendu cpe:2.3:part:vendor:product:version:… (11 attributs après cpe:2.3) ou cpe:/part:vendor:product",
    );
  if (!isConcreteVersion(cpe.vendor) || !isConcreteVersion(cpe.product))
    throw new BadItem("la CPE doit nommer un vendor et un produit (pas * ni -)");
  let version = isConcreteVersion(cpe.version) ? cpe.version : null;
  if (version && isConcreteVersion(cpe.update)) version = `${version}-${cpe.update}`;
  return { ...NONE, matchVendor: normalizeName(cpe.vendor), matchProduct: normalizeName(cpe.product), matchVersion: version };
}

function productKeys(value: string): ItemKeys {
  let name = value;
  let version: string | null = null;
  const at = value.lastIndexOf("@");
  if (at > 0) {
    name = value.slice(0, at);
    version = value.slice(at + 1).trim();
  }
  const parts = name.split(":").map((p) => p.trim());
  if (parts.length === 3 && version === null) version = parts.pop()!;
  if (parts.length > 2 || parts.some((p) => !p))
    throw new BadItem("produit attendu : vendor:product ou product, avec une version facultative (vendor:product@1.2.3)");
  if (version !== null && !isConcreteVersion(version)) throw new BadItem("la version est vide");
  const [vendor, product] = parts.length === 2 ? parts : [null, parts[0]!];
  return { ...NONE, matchVendor: vendor ? normalizeName(vendor) : null, matchProduct: normalizeName(product!), matchVersion: version };
}

/** A package name in its compared form, as vigie_package_name() makes it in SQL (PyPI: PEP 503). */
export function packageName(ecosystem: string, name: string): string {
  return ecosystem.toLowerCase() === "pypi" ? name.toLowerCase().replace(/[-_.]+/g, "-") : name.toLowerCase();
}

function purlKeys(value: string): ItemKeys {
  const p = parsePurl(value);
  const ecosystem = PURL_ECOSYSTEMS[p.type];
  if (!ecosystem) throw new BadItem(`type de purl non pris en charge : ${p.type} (types : ${Object.keys(PURL_ECOSYSTEMS).join(", ")})`);
  const segments = [...(p.namespace ? p.namespace.split("/") : []), p.name];
  // Maven names are group:artifact in OSV; Go and npm keep the whole path (github.com/x/y, @scope/name).
  const name = p.type === "maven" && segments.length >= 2 ? `${segments.slice(0, -1).join(".")}:${segments.at(-1)}` : segments.join("/");
  // CPE data names a package's product by its last name as written (gin, django, smallvec; a PyPI
  // name keeps its dots and underscores); a scoped npm package (@angular/core) has no such name,
  // and without a version CPE ranges tell nothing. A Go module's major version suffix is no name
  // (github.com/containerd/containerd/v2 is containerd).
  const written = [...p.written.segments, p.written.name];
  const last = (p.type === "golang" && written.length > 1 && /^v\d+$/.test(written.at(-1)!) ? written.at(-2) : written.at(-1))!;
  const cpeProduct = p.version && !(p.type === "npm" && segments.length > 1) ? normalizeName(last) : null;
  return {
    ...NONE,
    matchEcosystem: ecosystem,
    matchProduct: packageName(ecosystem, name),
    matchVersion: p.version,
    matchCpeProduct: cpeProduct,
  };
}

/**
 * Package URLs, read in one place: `pkg:type/namespace/name@version?qualifiers#subpath`
 * (https://github.com/package-url/purl-spec). The parsing, the percent-decoding and most of the
 * per-type normalisation are the package-url project's own library, packageurl-js 2.0.1
 * (`PackageURL.parseString`, then its constructor, which applies the `PurlType` normaliser and
 * validator of the type): type lower case; qualifier keys lower case, checked, empty values
 * dropped; namespace and subpath without empty segments; npm, github, bitbucket, gitlab, composer,
 * deb, apk, alpm, hex: namespace and name lower case; pypi: lower case, `_` → `-`; rpm: namespace
 * lower case; pub: lower case, `-` → `_`; maven, swift: namespace required; swift, cran: version
 * required; oci, mlflow: no namespace; conan: a namespace with qualifiers, a `channel` with a
 * namespace. What the specification says and the library misses is added here, each marked
 * "(spec, not in packageurl-js)".
 */
import { PackageURL, PurlComponent } from "packageurl-js";
import { BadItem } from "./bad-item.js";

/** A parsed, normalised package URL. Qualifiers and subpath are read (and checked) but name no package. */
export interface Purl {
  type: string;
  /** Segments joined by `/`, percent-decoded (npm: `@angular`; golang: `github.com/gin-gonic`); null when none. */
  namespace: string | null;
  name: string;
  version: string | null;
  /** Keys lower case, values percent-decoded; null when none. */
  qualifiers: Readonly<Record<string, string>> | null;
  subpath: string | null;
  /**
   * The namespace segments and the name as written (percent-decoded, before the type's
   * normalisation): CPE data names a product after the package's own spelling (items.ts).
   */
  written: { segments: string[]; name: string };
}

const FORMAT = "purl mal formé : attendu pkg:type/namespace/name@version (ex. pkg:pypi/django@4.2.1)";

/** The library's English reasons (`Invalid purl: …`) as French item messages. */
function badItem(err: unknown): BadItem {
  const m = err instanceof Error ? err.message : "";
  if (/unable to decode/.test(m)) return new BadItem("purl mal formé : encodage %xx invalide");
  if (/"name" is a required component/.test(m)) return new BadItem("purl sans nom de paquet");
  const q = /qualifier "(.*)" (?:contains an illegal character|cannot start with a number)/.exec(m);
  if (q)
    return new BadItem(
      `purl mal formé : clé de qualificatif « ${q[1]} » invalide (lettres ASCII, chiffres, « . », « - », « _ », pas de chiffre en tête)`,
    );
  const req = /^Invalid purl: (\w+) requires a "(namespace|version|qualifiers)" component/.exec(m);
  if (req) {
    const what = {
      namespace: "un namespace (pkg:type/namespace/name)",
      version: "une version (@version)",
      qualifiers: "des qualificatifs",
    };
    return new BadItem(`purl mal formé : un purl ${req[1]} doit avoir ${what[req[2] as keyof typeof what]}`);
  }
  const empty = /^Invalid purl: (\w+) "namespace" component must be empty/.exec(m);
  if (empty) return new BadItem(`purl mal formé : un purl ${empty[1]} n'a pas de namespace`);
  if (/pub "name" component/.test(m)) return new BadItem("purl mal formé : un nom de paquet pub ne contient que a-z, 0-9 et _");
  return new BadItem(FORMAT);
}

function hasControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

const nonEmpty = (s: string | undefined | null): string | null => (s ? s : null);

/**
 * A package URL's components, normalised per its type; throws BadItem saying what is wrong.
 * Surrounding blanks are ignored; control characters are refused (a purl is an ASCII URL: they
 * must be percent-encoded, and the URL parser under the library would silently drop tabs and
 * line feeds).
 */
export function parsePurl(value: string): Purl {
  const s = value.trim();
  if (!/^pkg:/i.test(s)) throw new BadItem(FORMAT);
  if (hasControl(s)) throw new BadItem("purl mal formé : caractère de contrôle (à écrire en %xx)");
  // (spec, not in packageurl-js) "Strip the remainder from leading and trailing '/'": the library
  // strips the leading ones only, and reads `pkg:npm/lodash/` as a namespace without a name.
  const end = s.search(/[?#]/);
  const path = (end < 0 ? s : s.slice(0, end)).replace(/\/+$/, "");
  const input = end < 0 ? path : path + s.slice(end);
  // (spec, not in packageurl-js) The version is what follows the last `@`, and "the '@' version
  // separator must be encoded as %40 elsewhere". The library takes an `@` right after a `/` for
  // the start of a name (a lenience for `pkg:npm/@angular/core`, kept): then `pkg:npm/lodash/@4.17.20`
  // would name the package `@4.17.20` where the specification reads an empty name, and
  // `pkg:npm/foo@1.0@beta` the package `foo@1.0`.
  const at = path.lastIndexOf("@");
  if (at > 0 && path[at - 1] === "/" && !path.includes("/", at)) throw new BadItem("purl sans nom de paquet");
  const beforeVersion = at > 0 && path[at - 1] !== "/" ? path.slice(0, at) : path;
  if (/[^/]@/.test(beforeVersion.replace(/^pkg:\/*/i, "")))
    throw new BadItem("purl mal formé : un « @ » ailleurs que devant la version s'écrit %40");
  let raw: ReturnType<typeof PackageURL.parseString>;
  let p: PackageURL;
  try {
    raw = PackageURL.parseString(input);
    const [type, namespace, name, version, qualifiers, subpath] = raw;
    // packageurl-js 2.0.1's golang validator refers to an undefined `throws` (a ReferenceError)
    // when a version starting with `v` is not semver — a rule of a pending spec change
    // (purl-spec PR 196), not of the specification: the version is set after validation.
    const golang = type?.trim().toLowerCase() === "golang";
    p = new PackageURL(type as string, namespace, name as string, golang ? undefined : version, qualifiers, subpath);
    if (golang) p.version = PurlComponent.version.normalize(version);
  } catch (err) {
    throw badItem(err);
  }
  let namespace = nonEmpty(p.namespace);
  let name = p.name;
  if (p.type === "pypi") {
    // (spec, not in packageurl-js) types/pypi-definition.json: "Replace runs of consecutive dash -,
    // underscore _, or dot . characters with a single dash -" (PEP 503); the library replaces `_` only.
    name = name.replace(/[-_.]+/g, "-");
  } else if (p.type === "golang") {
    // (spec, not in packageurl-js) types/golang-definition.json: "The namespace must be lowercased",
    // "The name must be lowercased"; the library leaves golang as written (purl-spec PR 196 pending).
    namespace = namespace?.toLowerCase() ?? null;
    name = name.toLowerCase();
  }
  // (spec, not in packageurl-js) subpath: "Discard any '.' or '..' segment"; the library keeps a
  // subpath of one such segment.
  const subpath = nonEmpty(
    p.subpath
      ?.split("/")
      .filter((seg) => seg && seg !== "." && seg !== "..")
      .join("/"),
  );
  const qualifiers = p.qualifiers && Object.keys(p.qualifiers).length ? { ...p.qualifiers } : null;
  return {
    type: p.type,
    namespace,
    name,
    version: nonEmpty(p.version),
    qualifiers,
    subpath,
    written: { segments: (raw[1] ?? "").split("/").filter(Boolean), name: raw[2] ?? name },
  };
}

/**
 * A purl's identity as a string: `pkg:type/namespace/name`, with `@version` when `withVersion`,
 * without qualifiers or subpath, each component percent-encoded as the specification builds it
 * (so `pkg:npm/%40angular/core`). Two spellings of one package (`pkg:PyPI/Django_Rest`,
 * `pkg:pypi/django-rest`) give the same string.
 */
export function canonicalPurl(p: Pick<Purl, "type" | "namespace" | "name" | "version">, { withVersion }: { withVersion: boolean }): string {
  const ns = p.namespace ? `${PurlComponent.namespace.encode(p.namespace)}/` : "";
  const version = withVersion && p.version ? `@${PurlComponent.version.encode(p.version)}` : "";
  return `pkg:${p.type}/${ns}${PurlComponent.name.encode(p.name)}${version}`;
}

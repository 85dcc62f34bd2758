// Package URLs read by parsePurl: the purl specification's own test suite (test/fixtures/purl,
// see its SOURCES.md), the forms the matcher and the endoflife.date keys relied on, and each case
// where the old hand-written readers (items.ts purlKeys, feeds/eol.ts parsePurlKey) read a value
// the specification reads otherwise.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parsePurlKey } from "../feeds/eol.js";
import { BadItem } from "./bad-item.js";
import { itemKeys } from "./items.js";
import { canonicalPurl, parsePurl } from "./purl.js";

interface SuiteCase {
  description: string;
  purl: string;
  canonical_purl: string | null;
  type: string | null;
  namespace: string | null;
  name: string | null;
  version: string | null;
  qualifiers: Record<string, string> | null;
  subpath: string | null;
  is_invalid: boolean;
}

const suite = (file: string): SuiteCase[] => JSON.parse(readFileSync(new URL(`../../test/fixtures/purl/${file}`, import.meta.url), "utf8"));
const CASES = [...suite("test-suite-data.json"), ...suite("extra-cases.json")];
const components = (p: ReturnType<typeof parsePurl>) => ({
  type: p.type,
  namespace: p.namespace,
  name: p.name,
  version: p.version,
  qualifiers: p.qualifiers,
  subpath: p.subpath,
});

describe("the purl specification's test suite", () => {
  it("holds the cases it should (41 of purl-spec, 8 more)", () => {
    expect(CASES).toHaveLength(49);
    expect(CASES.filter((c) => c.is_invalid)).toHaveLength(13);
  });

  const valid = CASES.filter((c) => !c.is_invalid);
  it.each(valid.map((c) => [c.description, c] as const))("%s", (_, c) => {
    const p = parsePurl(c.purl);
    const expected = {
      type: c.type,
      namespace: c.namespace,
      name: c.name,
      version: c.version,
      qualifiers: c.qualifiers,
      subpath: c.subpath,
    };
    expect(components(p)).toEqual(expected);
    // The canonical form parses to the same components, and its identity is canonicalPurl's string.
    expect(components(parsePurl(c.canonical_purl!))).toEqual(expected);
    expect(canonicalPurl(p, { withVersion: true })).toBe(c.canonical_purl!.split(/[?#]/)[0]);
  });

  const invalid = CASES.filter((c) => c.is_invalid);
  it.each(invalid.map((c) => [c.description, c.purl] as const))("%s: %s is refused", (_, purl) => {
    expect(() => parsePurl(purl)).toThrow(BadItem);
  });
});

describe("parsePurl: the forms the matcher and the endoflife.date keys read", () => {
  it("a scoped npm package, its @ encoded or not (the library's lenience for a leading @)", () => {
    for (const v of ["pkg:npm/%40angular/core@16.0.0", "pkg:npm/@angular/core@16.0.0", "pkg:npm/@Angular/Core@16.0.0"])
      expect(components(parsePurl(v))).toEqual({
        type: "npm",
        namespace: "@angular",
        name: "core",
        version: "16.0.0",
        qualifiers: null,
        subpath: null,
      });
  });

  it("maven keeps its case; its qualifiers are read and name no package", () => {
    const p = parsePurl("pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1?type=jar&Classifier=sources");
    expect(p).toMatchObject({ namespace: "org.apache.logging.log4j", name: "log4j-core", version: "2.14.1" });
    expect(p.qualifiers).toEqual({ type: "jar", classifier: "sources" });
    expect(parsePurl("pkg:maven/HTTPClient/HTTPClient@0.3-3").name).toBe("HTTPClient");
  });

  it("golang: the module path is namespace and name, a major-version suffix included, lower case", () => {
    const p = parsePurl("pkg:golang/github.com/containerd/containerd/v2@v2.0.1");
    expect(components(p)).toMatchObject({ namespace: "github.com/containerd/containerd", name: "v2", version: "v2.0.1" });
    // types/golang-definition.json: "The namespace must be lowercased", "The name must be lowercased"
    // (packageurl-js 2.0.1 leaves golang as written); the written form is kept for CPE names.
    const azure = parsePurl("pkg:golang/github.com/Azure/azure-sdk-for-go@v68.0.0+incompatible");
    expect(azure).toMatchObject({ namespace: "github.com/azure", name: "azure-sdk-for-go", version: "v68.0.0+incompatible" });
    expect(azure.written).toEqual({ segments: ["github.com", "Azure"], name: "azure-sdk-for-go" });
    // The Go standard library as OSV names it, and a version `v…` that is no semver: accepted (the
    // library's golang check of it throws a ReferenceError in 2.0.1, and the spec has no such rule).
    expect(parsePurl("pkg:golang/stdlib@1.21.3")).toMatchObject({ namespace: null, name: "stdlib" });
    expect(parsePurl("pkg:golang/golang.org/x/net@v0.17").version).toBe("v0.17");
  });

  it("pypi: lower case, runs of - _ . as one - (PEP 503, as the pypi type definition says)", () => {
    expect(parsePurl("pkg:pypi/Django_Rest_Framework@3.14").name).toBe("django-rest-framework");
    expect(parsePurl("pkg:pypi/zope.interface@5.0").name).toBe("zope-interface");
    expect(parsePurl("pkg:PyPI/zope.interface").written.name).toBe("zope.interface");
  });

  it("percent-encoded names and versions are decoded; non-ASCII is read as UTF-8", () => {
    expect(parsePurl("pkg:npm/%40adonisjs/core")).toMatchObject({ namespace: "@adonisjs", name: "core" });
    expect(parsePurl("pkg:pypi/my%20package@1.0%2Bcpu").version).toBe("1.0+cpu");
    expect(parsePurl("pkg:generic/caf%C3%A9@1").name).toBe("café");
  });

  it("qualifiers (lower-case keys, empty values dropped) and subpath (no empty, . or .. segment) are read", () => {
    const p = parsePurl("pkg:deb/ubuntu/openssl@3.0.2-0ubuntu1.10?arch=x86_64&distro=ubuntu-22.04&Empty=#/usr/./lib/../x/");
    expect(p.qualifiers).toEqual({ arch: "x86_64", distro: "ubuntu-22.04" });
    expect(p.subpath).toBe("usr/lib/x");
    expect(parsePurl("pkg:npm/foo#..").subpath).toBeNull();
    expect(parsePurl("pkg:rpm/redhat/openssl@3.0.7?arch=x86_64&distro=rhel-9.2#usr/lib")).toMatchObject({
      namespace: "redhat",
      name: "openssl",
      version: "3.0.7",
      subpath: "usr/lib",
    });
  });

  it("surrounding blanks and trailing slashes are not significant", () => {
    expect(parsePurl("  pkg:npm/lodash/ ")).toMatchObject({ name: "lodash", version: null });
    expect(parsePurl("pkg:golang/google.golang.org/genproto/#googleapis/api/")).toMatchObject({
      name: "genproto",
      subpath: "googleapis/api",
    });
  });
});

describe("canonicalPurl: one string per package, to merge duplicates", () => {
  it("spellings of one package give one string; qualifiers and subpath are left out; the version on demand", () => {
    const a = parsePurl("pkg:PyPI/Django_Rest@3.14?file_name=x.whl#src");
    const b = parsePurl("pkg://pypi/django-rest@3.14");
    expect(canonicalPurl(a, { withVersion: true })).toBe("pkg:pypi/django-rest@3.14");
    expect(canonicalPurl(b, { withVersion: true })).toBe("pkg:pypi/django-rest@3.14");
    expect(canonicalPurl(a, { withVersion: false })).toBe("pkg:pypi/django-rest");
    expect(canonicalPurl(parsePurl("pkg:npm/@Angular/core@16.0.0"), { withVersion: false })).toBe("pkg:npm/%40angular/core");
    expect(canonicalPurl(parsePurl("pkg:npm/lodash"), { withVersion: true })).toBe("pkg:npm/lodash");
  });

  it("versions and names keep the characters the specification leaves unencoded, encode the others", () => {
    expect(canonicalPurl(parsePurl("pkg:docker/customer/img@sha256:244fd47e?repository_url=gcr.io"), { withVersion: true })).toBe(
      "pkg:docker/customer/img@sha256:244fd47e",
    );
    expect(canonicalPurl(parsePurl("pkg:golang/github.com/cncf/xds/go@v0.0.0-2021+x"), { withVersion: true })).toBe(
      "pkg:golang/github.com/cncf/xds/go@v0.0.0-2021+x",
    );
    expect(canonicalPurl(parsePurl("pkg:maven/mygroup/myartifact@1.0.0%20Final"), { withVersion: true })).toBe(
      "pkg:maven/mygroup/myartifact@1.0.0%20Final",
    );
  });
});

describe("parsePurl refuses what is no package URL, saying why", () => {
  it.each([
    ["django@4.2.1", /purl mal formé : attendu pkg:type/],
    ["pkg:EnterpriseLibrary.Common@6.0.1304", /purl mal formé : attendu pkg:type/],
    ["pkg:1npm/foo", /purl mal formé : attendu pkg:type/],
    ["pkg://user:pass@npm/foo", /purl mal formé/],
    ["pkg:npm/", /purl sans nom de paquet/],
    ["pkg:npm/lodash/@4.17.20", /purl sans nom de paquet/],
    ["pkg:pypi/django@%E0%A4%A", /encodage %xx invalide/],
    ["pkg:npm/100%/name", /encodage %xx invalide/],
    ["pkg:npm/foo?a=100%", /encodage %xx invalide/],
    ["pkg:npm/foo#100%", /encodage %xx invalide/],
    ["pkg:npm/fo\to@1", /caractère de contrôle/],
    ["pkg:npm/myartifact@1.0.0?in%20production=true", /clé de qualificatif « in production » invalide/],
    ["pkg:npm/foo?1key=1", /clé de qualificatif « 1key » invalide/],
    ["pkg:npm/foo@1.0@beta", /« @ » ailleurs que devant la version s'écrit %40/],
    ["pkg:maven/log4j@1.2.17", /un purl maven doit avoir un namespace/],
    ["pkg:swift/github.com/Alamofire/Alamofire", /un purl swift doit avoir une version/],
    ["pkg:cran/A3", /un purl cran doit avoir une version/],
    ["pkg:conan/bincrafters/cctz@2.3", /un purl conan doit avoir des qualificatifs/],
    ["pkg:oci/library/debian@sha256%3A3b4e", /un purl oci n'a pas de namespace/],
    ["pkg:pub/flutter.web", /un nom de paquet pub ne contient que/],
  ])("%j", (value, message) => {
    expect(() => parsePurl(value)).toThrow(BadItem);
    expect(() => parsePurl(value)).toThrow(message);
  });

  it("a type the matcher has no OSV ecosystem for is a purl, but no stack item", () => {
    expect(parsePurl("pkg:docker/library/nginx@1.25").type).toBe("docker");
    expect(() => itemKeys("purl", "pkg:docker/library/nginx@1.25")).toThrow(/type de purl non pris en charge : docker/);
    expect(() => itemKeys("purl", "pkg:GitHub/Package-url/purl-spec@244fd47")).toThrow(/type de purl non pris en charge : github/);
  });
});

// What the old readers (a regular expression each, before packageurl-js) read otherwise, and the
// rule of the specification that decides. Every other value they accepted reads the same: checked
// on the 941 purls of endoflife.date's product pages, the 1,572 of ../shared/data/osv and the 344
// of test/fixtures/sbom (identical keys from both readers).
describe("where the specification corrects the old readers", () => {
  it("`pkg://`, `pkg:/` and an upper-case scheme are accepted (parsers must accept 'pkg://'; the scheme is lowercased)", () => {
    for (const v of ["pkg://pypi/django@4.2.1", "pkg:/pypi/django@4.2.1", "PKG:pypi/django@4.2.1"]) {
      expect(itemKeys("purl", v)).toMatchObject({ matchEcosystem: "pypi", matchProduct: "django", matchVersion: "4.2.1" });
      expect(parsePurlKey(v)).toEqual({ key: "pkg:pypi/django", version: "4.2.1" });
    }
  });

  it("the version is after the last @ (was: the first): `foo@1.0@beta` is refused, `foo@1/x` has version 1/x", () => {
    expect(() => itemKeys("purl", "pkg:npm/foo@1.0@beta")).toThrow(/%40/);
    expect(parsePurlKey("pkg:npm/foo@1.0@beta")).toBeNull();
    expect(parsePurlKey("pkg:npm/foo@1/x")).toEqual({ key: "pkg:npm/foo", version: "1/x" });
  });

  it("an empty version is no version (was: an @ ending the name); an @ after a slash leaves no name (was: lodash 4.17.20)", () => {
    expect(itemKeys("purl", "pkg:npm/foo@")).toMatchObject({ matchProduct: "foo", matchVersion: null });
    expect(parsePurlKey("pkg:npm/foo@")).toEqual({ key: "pkg:npm/foo", version: null });
    expect(() => itemKeys("purl", "pkg:npm/lodash/@4.17.20")).toThrow(/purl sans nom de paquet/);
  });

  it("a type's required components: maven and swift namespaces, swift and cran versions (the type definitions, the test suite)", () => {
    for (const v of ["pkg:maven/log4j@1.2.17", "pkg:swift/Alamofire@5.4.3", "pkg:swift/github.com/Alamofire/Alamofire", "pkg:cran/A3"]) {
      expect(() => itemKeys("purl", v)).toThrow(BadItem);
      expect(parsePurlKey(v)).toBeNull();
    }
    expect(itemKeys("purl", "pkg:cran/A3@0.9.1")).toMatchObject({ matchEcosystem: "cran", matchProduct: "a3", matchVersion: "0.9.1" });
  });

  it("qualifiers and subpath are checked though ignored: bad keys, bad %xx and control characters are refused", () => {
    for (const v of ["pkg:npm/foo?in%20production=true", "pkg:npm/foo?a=%", "pkg:npm/foo#%", "pkg:npm/fo\to@1"]) {
      expect(() => itemKeys("purl", v)).toThrow(BadItem);
      expect(parsePurlKey(v)).toBeNull();
    }
  });
});

describe("the matcher's keys, as before", () => {
  it("qualifiers and subpath change nothing", () => {
    const plain = itemKeys("purl", "pkg:deb/ubuntu/openssl@3.0.2-0ubuntu1.10");
    expect(itemKeys("purl", "pkg:deb/ubuntu/openssl@3.0.2-0ubuntu1.10?arch=x86_64&distro=ubuntu-22.04#usr/lib")).toEqual(plain);
    expect(plain).toMatchObject({ matchEcosystem: "debian", matchProduct: "ubuntu/openssl", matchCpeProduct: "openssl" });
  });

  it("Go: the last name before a major-version suffix names the CPE product; PyPI: the name as written", () => {
    expect(itemKeys("purl", "pkg:golang/github.com/containerd/containerd/v2@v2.0.1")).toMatchObject({
      matchEcosystem: "go",
      matchProduct: "github.com/containerd/containerd/v2",
      matchCpeProduct: "containerd",
    });
    expect(itemKeys("purl", "pkg:pypi/zope.interface@5.0")).toMatchObject({
      matchProduct: "zope-interface",
      matchCpeProduct: "zope.interface",
    });
    expect(itemKeys("purl", "pkg:pypi/Django_Rest@3.14")).toMatchObject({ matchProduct: "django-rest", matchCpeProduct: "django_rest" });
  });
});

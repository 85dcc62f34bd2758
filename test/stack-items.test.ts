import { describe, expect, it } from "vitest";
import { VALUE_FORMATS } from "../src/modules/stacks/stacks.schemas.js";
import { BadItem, itemKeys, packageName } from "../src/matching/items.js";

describe("stack item values → match keys", () => {
  it.each([
    // CVE-2024-3400's ADP CPE, with the PAN-OS hotfix in the update part.
    [
      "cpe",
      "cpe:2.3:o:paloaltonetworks:pan-os:10.2.9:h1:*:*:*:*:*:*",
      { matchVendor: "paloaltonetworks", matchProduct: "pan-os", matchVersion: "10.2.9-h1" },
    ],
    ["cpe", "cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*", { matchVendor: "openbsd", matchProduct: "openssh", matchVersion: null }],
    ["cpe", "cpe:/a:openbsd:openssh:9.6p1", { matchVendor: "openbsd", matchProduct: "openssh", matchVersion: "9.6p1" }],
    ["product", "Palo Alto Networks:PAN-OS@10.2.5", { matchVendor: "palo_alto_networks", matchProduct: "pan-os", matchVersion: "10.2.5" }],
    ["product", "openbsd:openssh:9.6p1", { matchVendor: "openbsd", matchProduct: "openssh", matchVersion: "9.6p1" }],
    ["product", "OpenSSH", { matchVendor: null, matchProduct: "openssh", matchVersion: null }],
    ["vendor", "Palo Alto Networks", { matchVendor: "palo_alto_networks" }],
    ["purl", "pkg:pypi/Django@4.2.1", { matchEcosystem: "pypi", matchProduct: "django", matchVersion: "4.2.1", matchCpeProduct: "django" }],
    ["purl", "pkg:pypi/zope.interface@5.0", { matchEcosystem: "pypi", matchProduct: "zope-interface", matchVersion: "5.0" }],
    // A scoped npm package has no product name CPE data would use ("core" would be noise).
    [
      "purl",
      "pkg:npm/%40angular/core@16.0.0",
      { matchEcosystem: "npm", matchProduct: "@angular/core", matchVersion: "16.0.0", matchCpeProduct: null },
    ],
    [
      "purl",
      "pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1",
      { matchEcosystem: "maven", matchProduct: "org.apache.logging.log4j:log4j-core", matchVersion: "2.14.1" },
    ],
    [
      "purl",
      "pkg:golang/github.com/gin-gonic/gin@v1.5.0",
      { matchEcosystem: "go", matchProduct: "github.com/gin-gonic/gin", matchVersion: "v1.5.0", matchCpeProduct: "gin" },
    ],
    // Qualifiers and subpath are read and ignored; `pkg://`, `pkg:/` and an upper-case scheme are accepted (purl spec).
    [
      "purl",
      "PKG://deb/ubuntu/openssl@3.0.2-0ubuntu1.10?arch=x86_64&distro=ubuntu-22.04#usr/lib",
      { matchEcosystem: "debian", matchProduct: "ubuntu/openssl", matchVersion: "3.0.2-0ubuntu1.10", matchCpeProduct: "openssl" },
    ],
    ["purl", "pkg:/npm/@angular/core", { matchEcosystem: "npm", matchProduct: "@angular/core", matchVersion: null, matchCpeProduct: null }],
    // Without a version, CPE ranges say nothing about the package: OSV only.
    ["purl", "pkg:cargo/smallvec", { matchEcosystem: "crates.io", matchProduct: "smallvec", matchVersion: null, matchCpeProduct: null }],
    ["keyword", "GlobalProtect command injection", { keywordText: "GlobalProtect command injection" }],
    ["cve", "cve-2024-3400", { matchCve: "CVE-2024-3400" }],
    ["cve", "GHSA-2m57-hf25-phgg", { matchCve: "GHSA-2m57-hf25-phgg" }],
  ] as const)("%s %s", (type, value, expected) => {
    expect(itemKeys(type, value)).toMatchObject(expected);
    // The format the OpenAPI document gives for the type holds every accepted value, spaced or not.
    expect(value).toMatch(new RegExp(VALUE_FORMATS[type].pattern));
    expect(` ${value} `).toMatch(new RegExp(VALUE_FORMATS[type].pattern));
  });

  it.each([
    ["cpe", "cpe:2.3:a:openbsd", /CPE mal formée/],
    ["cpe", "cpe:2.3:a:*:*:*:*:*:*:*:*:*:*", /doit nommer un vendor et un produit/],
    ["product", "a:b:c:d", /produit attendu/],
    ["product", ":openssh", /produit attendu/],
    ["vendor", "openbsd:openssh", /sans « : »/],
    ["purl", "django@4.2.1", /purl mal formé/],
    ["purl", "pkg:unknown/x@1", /type de purl non pris en charge : unknown/],
    ["purl", "pkg:pypi/django@%E0%A4%A", /encodage %xx invalide/],
    ["purl", "pkg:maven/log4j@1.2.17", /un purl maven doit avoir un namespace/],
    ["purl", "pkg:npm/foo?in%20production=true", /clé de qualificatif/],
    ["keyword", "  --- ", /aucun mot/],
    ["cve", "2024-3400", /identifiant attendu/],
    ["product", "   ", /vide/],
  ] as const)("%s %j is refused", (type, value, message) => {
    expect(() => itemKeys(type, value)).toThrow(BadItem);
    expect(() => itemKeys(type, value)).toThrow(message);
  });

  it("package names compare as OSV writes them (PyPI as PEP 503 normalises them)", () => {
    expect(packageName("PyPI", "Zope_Interface")).toBe("zope-interface");
    expect(packageName("Go", "github.com/Foo/Bar")).toBe("github.com/foo/bar");
  });
});

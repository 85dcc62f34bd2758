import { describe, expect, it } from "vitest";
import type { SbomComponent } from "../../sbom/types.js";
import { cpeKey, diffItems, type HeldItem, itemsOfComponents, purlKey, purlWithVersion, type WantedItem } from "./sbom.items.js";

const component = (c: Partial<SbomComponent>): SbomComponent => ({ ref: null, name: "x", version: null, purl: null, cpe: null, ...c });

describe("an item's identity within its SBOM", () => {
  it.each([
    ["pkg:npm/%40angular/core@16.0.0?x=1#a/b", "pkg:npm/%40angular/core"],
    ["pkg:pypi/Django_Rest@1.0", "pkg:pypi/django-rest"],
    ["pkg:golang/github.com/gin-gonic/gin@v1.5.0", "pkg:golang/github.com/gin-gonic/gin"],
    ["pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1?type=jar", "pkg:maven/org.apache.logging.log4j/log4j-core"],
    ["pkg:npm/tar", "pkg:npm/tar"],
  ])("purl %s → %s", (purl, key) => expect(purlKey(purl)).toBe(key));

  it.each([
    ["cpe:2.3:o:paloaltonetworks:pan-os:10.2.9:h1:*:*:*:*:*:*", "cpe:2.3:o:paloaltonetworks:pan-os:*:*:*:*:*:*:*:*"],
    ["cpe:2.3:a:djangoproject:django:4.2.1:*:*:*:*:*:*:*", "cpe:2.3:a:djangoproject:django:*:*:*:*:*:*:*:*"],
    // An escaped colon stays inside its attribute.
    ["cpe:2.3:a:acme:foo\\:bar:1.0:*:*:*:*:*:*:*", "cpe:2.3:a:acme:foo\\:bar:*:*:*:*:*:*:*:*"],
    ["cpe:/a:openbsd:openssh:9.6p1", "cpe:/a:openbsd:openssh"],
  ])("CPE %s → %s", (cpe, key) => expect(cpeKey(cpe)).toBe(key));

  it("a purl without version takes the component's", () => {
    expect(purlWithVersion("pkg:npm/tar", "6.1.0")).toBe("pkg:npm/tar@6.1.0");
    expect(purlWithVersion("pkg:maven/g/a?type=jar", "1.0 beta")).toBe("pkg:maven/g/a@1.0%20beta?type=jar");
    expect(purlWithVersion("pkg:npm/%40scope/x@2.0.0", "1.0.0")).toBe("pkg:npm/%40scope/x@2.0.0");
    expect(purlWithVersion("pkg:npm/tar", null)).toBe("pkg:npm/tar");
  });
});

describe("components → items", () => {
  it("a purl item and a CPE item per component, merged by identity and version, the rest ignored with a reason", () => {
    const { items, ignored } = itemsOfComponents([
      component({
        name: "django",
        version: "4.2.1",
        purl: "pkg:pypi/django@4.2.1",
        cpe: "cpe:2.3:a:djangoproject:django:4.2.1:*:*:*:*:*:*:*",
      }),
      component({ name: "Django", version: "4.2.1", purl: "pkg:pypi/Django@4.2.1" }),
      component({ name: "brace-expansion", version: "2.1.8", purl: "pkg:npm/brace-expansion@2.1.8" }),
      component({ name: "brace-expansion", version: "5.0.13", purl: "pkg:npm/brace-expansion@5.0.13" }),
      component({ ref: "config", name: "config.yaml" }),
      component({ ref: "o", name: "openssl", version: "3.0.13", purl: "pkg:generic/openssl@3.0.13" }),
    ]);
    expect(items.map((i) => [i.itemType, i.value, i.key, i.version])).toEqual([
      ["purl", "pkg:pypi/django@4.2.1", "pkg:pypi/django", "4.2.1"],
      ["cpe", "cpe:2.3:a:djangoproject:django:4.2.1:*:*:*:*:*:*:*", "cpe:2.3:a:djangoproject:django:*:*:*:*:*:*:*:*", "4.2.1"],
      ["purl", "pkg:npm/brace-expansion@2.1.8", "pkg:npm/brace-expansion", "2.1.8"],
      ["purl", "pkg:npm/brace-expansion@5.0.13", "pkg:npm/brace-expansion", "5.0.13"],
    ]);
    expect(ignored).toEqual([
      { ref: "config", name: "config.yaml", version: null, purl: null, cpe: null, raison: "ni purl ni CPE" },
      {
        ref: "o",
        name: "openssl",
        version: "3.0.13",
        purl: "pkg:generic/openssl@3.0.13",
        cpe: null,
        raison: expect.stringMatching(/^purl « pkg:generic\/openssl@3\.0\.13 » : type de purl non pris en charge : generic/),
      },
    ]);
  });

  it("an old purl type beside a CPE (issue 33: pkg:alpine, pkg:dotnet): the CPE kept, the purl said not to be", () => {
    const { items, ignored, partial } = itemsOfComponents([
      component({
        ref: "musl",
        name: "musl",
        version: "1.2.3-r4",
        purl: "pkg:alpine/musl@1.2.3-r4",
        cpe: "cpe:2.3:a:musl-libc:musl:1.2.3:*:*:*:*:*:*:*",
      }),
    ]);
    expect(items.map((i) => i.itemType)).toEqual(["cpe"]);
    expect(ignored).toEqual([]);
    expect(partial).toEqual([
      {
        ref: "musl",
        name: "musl",
        version: "1.2.3-r4",
        purl: "pkg:alpine/musl@1.2.3-r4",
        cpe: "cpe:2.3:a:musl-libc:musl:1.2.3:*:*:*:*:*:*:*",
        raison: expect.stringMatching(/^purl « pkg:alpine\/musl@1\.2\.3-r4 » : type de purl non pris en charge : alpine/),
      },
    ]);
  });
});

describe("the difference of an upload", () => {
  const held = (id: string, key: string, version: string | null): HeldItem => ({
    id,
    itemType: "purl",
    value: `${key}@${version}`,
    key,
    version,
  });
  const wanted = (key: string, version: string | null): WantedItem =>
    ({ itemType: "purl", value: `${key}@${version}`, key, version, keys: {} }) as WantedItem;

  it("unchanged, version changed (in place), added, removed", () => {
    const d = diffItems(
      [held("1", "pkg:pypi/django", "4.2.1"), held("2", "pkg:npm/tar", "6.1.0"), held("3", "pkg:cargo/cap-primitives", "3.4.0")],
      [wanted("pkg:npm/tar", "6.1.0"), wanted("pkg:pypi/django", "4.2.3"), wanted("pkg:pypi/aiohttp", "3.8.5")],
    );
    expect(d.unchanged).toBe(1);
    expect(d.changed.map((c) => [c.held.id, c.wanted.version])).toEqual([["1", "4.2.3"]]);
    expect(d.added.map((w) => w.key)).toEqual(["pkg:pypi/aiohttp"]);
    expect(d.removed.map((h) => h.id)).toEqual(["3"]);
  });

  it("a key held at several versions (npm nests them): same versions kept, the others paired in order", () => {
    const d = diffItems(
      [
        held("1", "pkg:npm/brace-expansion", "2.1.8"),
        held("2", "pkg:npm/brace-expansion", "5.0.13"),
        held("3", "pkg:npm/brace-expansion", "1.1.11"),
      ],
      [wanted("pkg:npm/brace-expansion", "5.0.13"), wanted("pkg:npm/brace-expansion", "2.1.9")],
    );
    expect(d.unchanged).toBe(1);
    expect(d.changed.map((c) => [c.held.id, c.wanted.version])).toEqual([["1", "2.1.9"]]);
    expect(d.removed.map((h) => h.id)).toEqual(["3"]);
    expect(d.added).toEqual([]);
  });

  it("the same items: all unchanged", () => {
    const d = diffItems([held("1", "pkg:npm/tar", "6.1.0")], [wanted("pkg:npm/tar", "6.1.0")]);
    expect(d).toEqual({ added: [], removed: [], changed: [], unchanged: 1 });
  });
});

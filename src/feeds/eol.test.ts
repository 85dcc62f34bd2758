import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { apiProductOf, type FrontMatter } from "../../scripts/mirror/eol.js";
import {
  cycleOfVersion,
  eolApiAnswer,
  eolApiNames,
  eolKeyOfCpe,
  eolKeyOfPurl,
  pageId,
  parseEolPage,
  parsePurlKey,
  productOf,
  productOfApi,
} from "./eol.js";
import { RecordError } from "./types.js";

// Real pages of endoflife.date (test/fixtures/eol/SOURCES.txt says where each comes from).
const FIX = resolve(dirname(fileURLToPath(import.meta.url)), "../../test/fixtures/eol");
const page = (id: string) => parseEolPage(id, readFileSync(resolve(FIX, `products-md/${id}.md`), "utf8"));

describe("parseEolPage on real product pages", () => {
  it("nginx: title, category, description from the quote, identifiers and their keys, cycles newest first as on the page", () => {
    const p = page("nginx");
    expect(p).toMatchObject({ id: "nginx", name: "nginx", category: "server-app" });
    expect(p.description).toBe("NGINX is an HTTP and reverse proxy server, a mail proxy server, and a generic TCP/UDP proxy server.");
    expect(p.identifiers).toContainEqual({ cpe: "cpe:2.3:a:f5:nginx" });
    expect(p.identifiers).toContainEqual({ repology: "nginx" });
    expect(p.keys).toContain("cpe:f5:nginx");
    expect(p.keys).toContain("pkg:deb/debian/nginx");
    expect(p.keys).not.toContain("nginx"); // repology names are not lookup keys
    expect(p.cycles[0]).toEqual({
      cycle: "1.31",
      position: 0,
      release_date: "2026-05-13",
      eol: false,
      lts: null,
      support: null,
      extended_support: null,
      latest: "1.31.4",
      latest_release_date: "2026-08-19",
      link: "https://nginx.org/en/CHANGES",
    });
    // eol keeps upstream's type: a date string here, a boolean above.
    const c128 = p.cycles.find((c) => c.cycle === "1.28")!;
    expect(c128.eol).toBe("2026-04-14");
    // No link of its own: the page's changelogTemplate, filled in.
    expect(c128.link).toBe("https://nginx.org/en/CHANGES-1.28");
  });

  it("ubuntu: lts a boolean, support (eoas) and extendedSupport (eoes) dates; a Liquid template gives no link", () => {
    const c = page("ubuntu").cycles.find((x) => x.cycle === "24.04")!;
    expect(c).toMatchObject({
      lts: true,
      release_date: "2024-04-25",
      support: "2029-05-31",
      eol: "2029-05-31",
      extended_support: "2036-05-31",
    });
    expect(c.link).toBeNull();
  });

  it("php and django: support from eoas; django's CPE and PyPI purl", () => {
    expect(page("php").cycles.find((x) => x.cycle === "8.3")).toMatchObject({ support: "2025-12-31", eol: "2027-12-31", latest: "8.3.33" });
    const d = page("django");
    expect(d.keys).toEqual(expect.arrayContaining(["cpe:djangoproject:django", "pkg:pypi/django"]));
    expect(d.cycles.find((x) => x.cycle === "4.2")).toMatchObject({ lts: true, eol: "2026-04-07", support: "2023-12-04" });
  });

  it("refuses a page without front matter, a bad YAML, a missing title or releaseCycle", () => {
    expect(() => parseEolPage("x", "# no front matter")).toThrow(RecordError);
    expect(() => parseEolPage("x", "---\ntitle: [unclosed\n---\n")).toThrow(/YAML invalide/);
    expect(() => parseEolPage("x", "---\ncategory: os\nreleases: []\n---\n")).toThrow(/title/);
    expect(() => parseEolPage("x", "---\ntitle: X\nreleases:\n  - eol: true\n---\n")).toThrow(/releaseCycle/);
  });

  it("the JSON export of the front matter gives the same cycles as the page", () => {
    const bundle = JSON.parse(readFileSync(resolve(FIX, "products-frontmatter.json"), "utf8"));
    expect(productOf("nginx", bundle.nginx, null).cycles).toEqual(page("nginx").cycles);
  });

  it("pageId: the file name without .md", () => {
    expect(pageId("/a/products-md/linux-kernel.md")).toBe("linux-kernel");
    expect(pageId("x/nginx.md.gz")).toBe("nginx");
    // As the sync stores a downloaded page (a directory of its own, the remote name kept).
    expect(pageId("/var/feeds-cache/eol/0123abcd/5678ef01/nginx.md")).toBe("nginx");
  });
});

/**
 * An answer of GET https://endoflife.date/api/v1/products/ubuntu, shaped as endoflife.date's generator
 * writes it (_plugins/generate-api-v1.rb: answer, product and release fields in its order), values
 * of the page at the shared data's commit (test/fixtures/eol/products-md/ubuntu.md), two cycles.
 */
const UBUNTU_V1 = {
  schema_version: "1.0.0",
  generated_at: "2026-08-22T06:12:31+00:00",
  last_modified: "2026-08-19T10:02:11+00:00",
  result: {
    name: "ubuntu",
    aliases: ["ubuntu-linux"],
    label: "Ubuntu",
    category: "os",
    tags: ["linux-distribution", "os"],
    versionCommand: "cat /etc/os-release",
    identifiers: [
      { type: "cpe", id: "cpe:2.3:o:canonical:ubuntu_linux" },
      { type: "cpe", id: "cpe:/o:canonical:ubuntu_linux" },
    ],
    labels: {
      eoas: "Hardware & Maintenance",
      discontinued: null,
      eol: "Maintenance & Security Support",
      eoes: "Expanded Security Maintenance",
    },
    links: {
      icon: "https://cdn.jsdelivr.net/npm/simple-icons/icons/ubuntu.svg",
      html: "https://endoflife.date/ubuntu",
      releasePolicy: "https://wiki.ubuntu.com/Releases",
    },
    releases: [
      {
        name: "24.04",
        codename: "Noble Numbat",
        label: "24.04 'Noble Numbat' (LTS)",
        releaseDate: "2024-04-25",
        isLts: true,
        ltsFrom: null,
        isEoas: false,
        eoasFrom: "2029-05-31",
        isEol: false,
        eolFrom: "2029-05-31",
        isEoes: false,
        eoesFrom: "2036-05-31",
        isMaintained: true,
        latest: { name: "24.04.4", date: "2026-02-12", link: "https://wiki.ubuntu.com/NobleNumbat/ReleaseNotes/" },
      },
      {
        name: "14.04",
        codename: "Trusty Tahr",
        label: "14.04 'Trusty Tahr' (LTS)",
        releaseDate: "2014-04-17",
        isLts: true,
        ltsFrom: null,
        isEoas: true,
        eoasFrom: "2019-04-02",
        isEol: true,
        eolFrom: "2019-04-02",
        isEoes: true,
        eoesFrom: "2024-04-02",
        isMaintained: false,
        latest: { name: "14.04.6", date: "2019-03-07", link: "https://wiki.ubuntu.com/TrustyTahr/ReleaseNotes/" },
      },
    ],
  },
};

describe("endoflife.date API v1 (productOfApi)", () => {
  it("a product document: id, label, identifiers [{type, id}] and their keys, cycles with the front matter's date-or-flag", () => {
    const { result, lastModified } = eolApiAnswer(UBUNTU_V1);
    expect(lastModified).toBe("2026-08-19T10:02:11+00:00");
    const p = productOfApi(result);
    expect(p).toMatchObject({ id: "ubuntu", name: "Ubuntu", category: "os", description: null });
    expect(p.identifiers).toEqual([{ cpe: "cpe:2.3:o:canonical:ubuntu_linux" }, { cpe: "cpe:/o:canonical:ubuntu_linux" }]);
    expect(p.keys).toEqual(["cpe:canonical:ubuntu_linux"]);
    expect(p.cycles).toEqual([
      {
        cycle: "24.04",
        position: 0,
        release_date: "2024-04-25",
        eol: "2029-05-31", // eolFrom: the date, not isEol (false today)
        lts: true, // no ltsFrom: the flag
        support: "2029-05-31",
        extended_support: "2036-05-31",
        latest: "24.04.4",
        latest_release_date: "2026-02-12",
        link: "https://wiki.ubuntu.com/NobleNumbat/ReleaseNotes/",
      },
      {
        cycle: "14.04",
        position: 1,
        release_date: "2014-04-17",
        eol: "2019-04-02",
        lts: true,
        support: "2019-04-02",
        extended_support: "2024-04-02",
        latest: "14.04.6",
        latest_release_date: "2019-03-07",
        link: "https://wiki.ubuntu.com/TrustyTahr/ReleaseNotes/",
      },
    ]);
  });

  it("a flag without date stays a flag; a product without eoas/eoes columns has them null, without release column no latest", () => {
    const p = productOfApi({
      name: "x",
      label: "X",
      releases: [
        {
          name: "2",
          isLts: false,
          ltsFrom: null,
          isEol: false,
          eolFrom: null,
          isMaintained: true,
          latest: { name: "2.1", date: null, link: null },
        },
        { name: "1", isLts: false, ltsFrom: null, isEol: true, eolFrom: null, isMaintained: false, latest: null },
      ],
    });
    expect(p.cycles[0]).toMatchObject({ eol: false, lts: false, support: null, extended_support: null, latest: "2.1" });
    expect(p.cycles[1]).toMatchObject({ eol: true, latest: null, latest_release_date: null, link: null });
  });

  it("the same cycles as the page's front matter, for every product of the test publisher (the mirror's derivation)", () => {
    const fms = JSON.parse(readFileSync(resolve(FIX, "../sync/eol/products-frontmatter.json"), "utf8")) as Record<string, FrontMatter>;
    for (const [id, fm] of Object.entries(fms)) {
      const fromApi = productOfApi(apiProductOf(id, fm, "2026-08-22"));
      const fromPage = productOf(id, fm, null);
      expect(fromApi.keys).toEqual(fromPage.keys);
      const strip = (c: (typeof fromPage.cycles)[number]) => ({
        ...c,
        lts: c.lts || false,
        link: null,
        latest: fm.latestColumn === false ? null : c.latest,
      });
      expect(fromApi.cycles.map(strip)).toEqual(fromPage.cycles.map(strip));
    }
  });

  it("refuses what is not a product: no result, no name or label, releases not a list or without name", () => {
    expect(() => eolApiAnswer({ result: {} })).toThrow(/schema_version/);
    expect(() => eolApiAnswer([])).toThrow(RecordError);
    expect(() => productOfApi(null)).toThrow(RecordError);
    expect(() => productOfApi({ label: "X", releases: [] })).toThrow(/name absent/);
    expect(() => productOfApi({ name: "x", releases: [] })).toThrow(/label absent/);
    expect(() => productOfApi({ name: "x", label: "X", releases: {} })).toThrow(/releases/);
    expect(() => productOfApi({ name: "x", label: "X", releases: [{ isEol: true }] })).toThrow(/releases\[0\] : name absent/);
  });

  it("the list (GET /api/v1/products): each product's name, once; a name that is not a path segment is left", () => {
    const list = {
      schema_version: "1.0.0",
      generated_at: "2026-08-22T06:12:31+00:00",
      total: 4,
      result: [
        {
          name: "nginx",
          aliases: [],
          label: "nginx",
          category: "server-app",
          tags: ["server-app", "web-server"],
          uri: "https://endoflife.date/api/v1/products/nginx",
        },
        {
          name: "amazon-linux",
          aliases: [],
          label: "Amazon Linux",
          category: "os",
          tags: ["os"],
          uri: "https://endoflife.date/api/v1/products/amazon-linux",
        },
        { name: "nginx" },
        { name: "../etc" },
      ],
    };
    expect(eolApiNames(list)).toEqual(["nginx", "amazon-linux"]);
    expect(() => eolApiNames(UBUNTU_V1)).toThrow(/liste/);
  });
});

describe("lookup keys and cycles of a version", () => {
  it("CPE 2.3 and 2.2 give the same key; purls lose version, qualifiers; PyPI names are normalised; %40 decoded", () => {
    expect(eolKeyOfCpe("cpe:2.3:a:f5:nginx:1.24.0:*:*:*:*:*:*:*")).toBe("cpe:f5:nginx");
    expect(eolKeyOfCpe("cpe:/a:djangoproject:django")).toBe("cpe:djangoproject:django");
    expect(eolKeyOfCpe("cpe:2.3:a:*:nginx")).toBeNull();
    expect(parsePurlKey("pkg:deb/debian/nginx@1.22.1-9?arch=amd64")).toEqual({ key: "pkg:deb/debian/nginx", version: "1.22.1-9" });
    expect(eolKeyOfPurl("pkg:PyPI/Django_Rest")).toBe("pkg:pypi/django-rest");
    expect(eolKeyOfPurl("pkg:npm/%40adonisjs/core")).toBe("pkg:npm/@adonisjs/core");
    expect(parsePurlKey("not a purl")).toBeNull();
  });

  it("a version is in the cycle it equals or starts with (and a dot); the longest cycle wins", () => {
    const cycles = [{ cycle: "1.2" }, { cycle: "1.22" }, { cycle: "1" }, { cycle: "24.04" }];
    expect(cycleOfVersion("1.22.1", cycles)?.cycle).toBe("1.22");
    expect(cycleOfVersion("1.2.9", cycles)?.cycle).toBe("1.2");
    expect(cycleOfVersion("1.22", cycles)?.cycle).toBe("1.22");
    expect(cycleOfVersion("v1.3.0", cycles)?.cycle).toBe("1");
    expect(cycleOfVersion("24.04.4", cycles)?.cycle).toBe("24.04");
    expect(cycleOfVersion("1.220", cycles)?.cycle).toBe("1");
    expect(cycleOfVersion("2.0", cycles)).toBeNull();
    expect(cycleOfVersion("*", cycles)).toBeNull();
  });
});

import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cycleOfVersion, eolKeyOfCpe, eolKeyOfPurl, pageId, parseEolPage, parsePurlKey, productOf } from "./eol.js";
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

import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { wordpressPage } from "../../../test/urls-servers.js";
import { detect, readHtml, resolveVersion } from "./urls.detect.js";
import { boundRepetition, loadFingerprints, parsePattern, requiredLiterals } from "./urls.fingerprints.js";

// The bundled set: enthec/webappanalyzer @ 1b9eee81 (assets/wappalyzer), 7,586 technologies.
const fp = loadFingerprints();
const page = (over: Partial<Parameters<typeof detect>[1]> = {}) => ({
  url: "https://blog.example.org/",
  headers: {},
  html: "<html><head></head><body></body></html>",
  certIssuer: null,
  ...over,
});
const byName = (list: ReturnType<typeof detect>) => new Map(list.map((d) => [d.name, d]));

describe("fingerprints (Wappalyzer format)", () => {
  it("loads the bundled set: every technology, categories by name, CPEs", () => {
    expect(fp.technologies.size).toBe(7586);
    expect([...fp.technologies.values()].filter((t) => t.cpe).length).toBe(463);
    expect(fp.technologies.get("Nginx")).toMatchObject({
      categories: ["Web servers", "Reverse proxies"],
      cpe: "cpe:2.3:a:f5:nginx:*:*:*:*:*:*:*:*",
    });
    // One pattern of the set is not a JavaScript regex; it is left out, not the technology.
    expect(fp.skipped).toBeLessThan(5);
  });

  it("parses version and confidence attributes", () => {
    const p = parsePattern("nginx(?:/([\\d.]+))?\\;version:\\1\\;confidence:50")!;
    expect(p).toMatchObject({ version: "\\1", confidence: 50 });
    expect(p.regex.flags).toBe("i");
    expect(resolveVersion(p.version, p.regex.exec("nginx/1.25.3")!)).toBe("1.25.3");
    expect(resolveVersion(p.version, p.regex.exec("nginx")!)).toBeNull();
    // The ternary form: \1?yes:no.
    const g = parsePattern("gtag\\([^)]+'(G-)\\;version:\\1?GA4:")!;
    expect(resolveVersion(g.version, g.regex.exec("gtag('config', 'G-XYZ')")!)).toBe("GA4");
  });

  it("bounds unbounded repetitions as Wappalyzer does, outside classes and escapes", () => {
    expect(boundRepetition("<[^>]+a*")).toBe("<[^>]{1,250}a{0,250}");
    expect(boundRepetition("[+*]\\+\\*")).toBe("[+*]\\+\\*");
    expect(boundRepetition("a+?")).toBe("a{1,250}?");
  });

  it("finds texts one of which every match must contain, or none when it cannot tell", () => {
    expect(requiredLiterals("<[^>]+beacon\\.riskified\\.com")).toEqual(["beacon.riskified.com"]);
    expect(requiredLiterals('<title>phpPgAdmin<\\/title>|<span class="appname">phpPgAdmin')).toEqual([
      "<title>phppgadmin</title>",
      '<span class="appname">phppgadmin',
    ]);
    expect(requiredLiterals('<[^>]+(?:id="block-cart|class="commerce-product)')).toEqual(['id="block-cart', 'class="commerce-product']);
    expect(requiredLiterals("wp-(?:content|includes)/")).toEqual(["content", "includes"]);
    expect(requiredLiterals("abcd?e")).toEqual(["abc"]); // d is optional
    expect(requiredLiterals("(?:foo)?x[abc]y")).toBeNull(); // an optional group says nothing
    expect(requiredLiterals("(?!nope)ab|xyz")).toBeNull(); // one alternative has no text
  });
});

describe("detect", () => {
  it("reads headers with versions, and what they imply", () => {
    const found = byName(detect(fp, page({ headers: { server: "nginx/1.24.0", "x-powered-by": "PHP/8.2.7" } })));
    expect(found.get("Nginx")).toMatchObject({ version: "1.24.0", confidence: 100, cpe: "cpe:2.3:a:f5:nginx:*:*:*:*:*:*:*:*" });
    expect(found.get("PHP")).toMatchObject({ version: "8.2.7", categories: ["Programming languages"] });
  });

  it("reads a WordPress page: generator meta tag, script URLs, HTML, and implied PHP and MySQL", () => {
    const found = byName(detect(fp, page({ html: wordpressPage(3) })));
    expect(found.get("WordPress")).toMatchObject({ version: "6.4.2", categories: ["CMS", "Blogs"] });
    expect(found.get("jQuery Migrate")?.version).toBe("3.4.1");
    expect(found.get("Bootstrap")?.version).toBe("5.3.2");
    expect(found.has("Google Tag Manager")).toBe(true);
    // WordPress implies PHP and MySQL (no version: nothing on the page says it).
    expect(found.get("PHP")).toMatchObject({ version: null });
    expect(found.has("MySQL")).toBe(true);
  });

  it("reads cookies, exact names and globs (Google Analytics _ga_*)", () => {
    const found = byName(detect(fp, page({ headers: { "set-cookie": ["PHPSESSID=abc; path=/", "_ga_XYZ123=GS1.1; path=/"] } })));
    expect(found.has("PHP")).toBe(true);
    expect(found.get("Google Analytics")?.version).toBe("GA4");
  });

  it("reads the certificate's issuer and the Tomcat version a header gives", () => {
    const found = byName(detect(fp, page({ headers: { "x-powered-by": "Tomcat-9.0.80" }, certIssuer: "Let's Encrypt" })));
    expect(found.has("Let's Encrypt")).toBe(true);
    expect(found.get("Apache Tomcat")).toMatchObject({ version: "9.0.80", cpe: "cpe:2.3:a:apache:tomcat:*:*:*:*:*:*:*:*" });
    expect(found.has("Java")).toBe(true); // implied
  });

  it("applies implies (with its confidence), excludes and requires, from a directory of the same layout", () => {
    const dir = mkdtempSync(join(tmpdir(), "vigie-fp-"));
    mkdirSync(join(dir, "technologies"));
    writeFileSync(join(dir, "categories.json"), JSON.stringify({ "1": { name: "CMS" }, "2": { name: "Widgets" } }));
    writeFileSync(
      join(dir, "technologies", "a.json"),
      JSON.stringify({
        Alpha: { cats: [1], headers: { "X-Alpha": "([\\d.]+)\\;version:\\1" }, implies: ["Beta\\;confidence:50"], excludes: ["Gamma"] },
        Beta: { cats: [2] },
        Gamma: { cats: [2], headers: { "X-Gamma": "" } },
        Delta: { cats: [2], headers: { "X-Delta": "" }, requires: ["Zeta"] },
      }),
    );
    const small = loadFingerprints(dir);
    const found = detect(small, page({ headers: { "x-alpha": "2.1", "x-gamma": "1", "x-delta": "1" } }));
    expect(found.map((d) => [d.name, d.version, d.confidence, d.categories])).toEqual([
      ["Alpha", "2.1", 100, ["CMS"]],
      ["Beta", null, 50, ["Widgets"]],
    ]);
    expect(() => loadFingerprints(join(dir, "missing"))).toThrow(/empreintes illisibles/);
  });

  it("finds nothing on an empty answer", () => {
    expect(detect(fp, page())).toEqual([]);
  });

  it("collects meta tags and script URLs with htmlparser2", () => {
    const facts = readHtml(
      '<meta name="Generator" content="Drupal 10"><meta property="og:type" content="x"><script src="/a.js"></script><script>inline</script>',
    );
    expect(facts.meta.get("generator")).toEqual(["Drupal 10"]);
    expect(facts.meta.get("og:type")).toEqual(["x"]);
    expect(facts.scripts).toEqual(["/a.js"]);
  });
});

import { describe, expect, it } from "vitest";
import { certfr } from "../importers/certfr.js";
import { avisRef, avisToFetch, documentUrlOf, feedAvis, feedUrlOf, movedRefs, readCheckpoint } from "./certfr.js";

// Shaped like the site's feed (RSS 2.0, items oldest first, guid = link, pubDate at midnight);
// derived, with references and titles of real avis of shared/data.
const FEED = `<?xml version='1.0' encoding='UTF-8'?>
<rss xmlns:atom="http://www.w3.org/2005/Atom" version="2.0"><channel><title>CERT-FR</title>
<link>https://www.cert.ssi.gouv.fr/avis/feed/</link><language>fr-FR</language>
<item><title>Multiples vuln&#233;rabilit&#233;s dans les produits Fortinet (14 janvier 2025)</title>
<link>https://www.cert.ssi.gouv.fr/avis/CERTFR-2025-AVI-0030/</link>
<guid isPermaLink="true">https://www.cert.ssi.gouv.fr/avis/CERTFR-2025-AVI-0030/</guid>
<pubDate>Tue, 14 Jan 2025 00:00:00 +0000</pubDate></item>
<item><title>Bulletin d'actualité CERTFR-2026-ACT-008 (16 février 2026)</title>
<link>https://www.cert.ssi.gouv.fr/actualite/CERTFR-2026-ACT-008/</link>
<pubDate>Mon, 16 Feb 2026 00:00:00 +0000</pubDate></item>
<item><title>Vulnérabilité dans Microsoft Windows (18 février 2026)</title>
<link>https://www.cert.ssi.gouv.fr/avis/CERTFR-2026-AVI-0185/</link>
<guid isPermaLink="true">https://www.cert.ssi.gouv.fr/avis/CERTFR-2026-AVI-0185/</guid>
<pubDate>Wed, 18 Feb 2026 00:00:00 +0000</pubDate></item>
<item><title>Vulnérabilité dans Traefik (20 février 2026)</title>
<guid isPermaLink="true">https://www.cert.ssi.gouv.fr/avis/certfr-2026-avi-0191</guid>
<pubDate>Fri, 20 Feb 2026 00:00:00 +0000</pubDate></item>
</channel></rss>`;

describe("CERT-FR publisher: the feed's avis", () => {
  it("reads the avis of the feed in its order (link, else guid), leaving other bulletins out", () => {
    expect(feedAvis(FEED, "https://www.cert.ssi.gouv.fr/avis/feed/")).toEqual([
      { ref: "CERTFR-2025-AVI-0030", date: "2025-01-14T00:00:00.000Z" },
      { ref: "CERTFR-2026-AVI-0185", date: "2026-02-18T00:00:00.000Z" },
      { ref: "CERTFR-2026-AVI-0191", date: "2026-02-20T00:00:00.000Z" },
    ]);
    expect(() => feedAvis("<html><body>maintenance</body></html>", null)).toThrow(/not a feed/);
  });

  it("names an avis by its page, and builds the site's addresses from the base", () => {
    expect(avisRef("https://www.cert.ssi.gouv.fr/avis/CERTA-2008-AVI-123/")).toBe("CERTA-2008-AVI-123");
    expect(avisRef("https://www.cert.ssi.gouv.fr/alerte/CERTFR-2026-ALE-002/")).toBeNull();
    expect(avisRef("https://www.cert.ssi.gouv.fr/avis/CERTFR-2026-AVI-0185/json/")).toBeNull();
    expect(feedUrlOf("https://www.cert.ssi.gouv.fr/")).toBe("https://www.cert.ssi.gouv.fr/avis/feed/");
    expect(documentUrlOf("http://127.0.0.1:9/certfr", "CERTFR-2026-AVI-0185")).toBe(
      "http://127.0.0.1:9/certfr/avis/CERTFR-2026-AVI-0185/json/",
    );
  });

  it("finds the avis listed both times that moved (a revision brings an avis to the newest end)", () => {
    expect(movedRefs(["a", "b", "c", "d"], ["c", "d", "e", "f"])).toEqual(new Set());
    expect(movedRefs(["a", "b", "c", "d"], ["c", "d", "e", "b"])).toEqual(new Set(["b"]));
    // Newest first works the same.
    expect(movedRefs(["d", "c", "b", "a"], ["b", "f", "d", "c"])).toEqual(new Set(["b"]));
    expect(movedRefs([], ["a"])).toEqual(new Set());
  });

  it("fetches what is new, listed again, re-dated or moved; not what was applied as listed", () => {
    const applied = [
      { ref: "A", date: "2026-02-18T00:00:00.000Z", rev: "2026-02-18" },
      { ref: "B", date: "2026-02-19T00:00:00.000Z", rev: "2026-02-19" },
      { ref: "C", date: "2026-02-19T00:00:00.000Z", rev: "2026-02-19" },
    ];
    const listed = (...items: [string, string][]) => items.map(([ref, d]) => ({ ref, date: `${d}T00:00:00.000Z` }));
    expect(avisToFetch(listed(["A", "2026-02-18"], ["B", "2026-02-19"], ["C", "2026-02-19"]), applied)).toEqual([]);
    // A new avis, and A revised in a feed that re-dates it.
    expect(
      avisToFetch(listed(["B", "2026-02-19"], ["C", "2026-02-19"], ["A", "2026-02-21"], ["D", "2026-02-20"]), applied).map((a) => a.ref),
    ).toEqual(["A", "D"]);
    // A revised, its date kept (as the site does), moved after the others.
    expect(avisToFetch(listed(["B", "2026-02-19"], ["C", "2026-02-19"], ["A", "2026-02-18"]), applied).map((a) => a.ref)).toEqual(["A"]);
    // Nothing applied yet: everything.
    expect(avisToFetch(listed(["A", "2026-02-18"]), [])).toHaveLength(1);
  });

  it("reads a stored checkpoint, or starts empty from anything else", () => {
    expect(readCheckpoint(null)).toEqual({ avis: [], newest: null });
    expect(readCheckpoint({ etag: '"x"', avis: [{ ref: "A", date: null, rev: null }, 3], newest: "2026-02-20" })).toEqual({
      etag: '"x"',
      avis: [{ ref: "A", date: null, rev: null }],
      newest: "2026-02-20",
    });
  });

  it("the importer takes one document per file named after its avis, however far its reference is", () => {
    // The site sorts the keys: `"reference"` may come after 64 KiB of `content` and `cves`.
    const head = `{\n  "$ref": "https://www.cert.ssi.gouv.fr/openapi.json",\n  "affected_systems": [`;
    expect(certfr.sniff.test(head, "/tmp/x/CERTFR-2025-AVI-0022.json")).toBe(true);
    expect(certfr.sniff.test(`{"affected_systems": [`, "/tmp/x/CERTFR-2025-AVI-0022.json")).toBe(true);
    expect(certfr.sniff.test(`{"affected_systems": [`, "/tmp/x/avis.json")).toBe(false);
    expect(certfr.sniff.test(`{"vulnerabilities": [`, "/tmp/x/nvd.json")).toBe(false);
  });
});

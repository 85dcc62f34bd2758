import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DESCRIPTION_MAX, decodeEntities, extractCveIds, htmlToText, parseFeed, parseFeedDate } from "./rss.js";
import { RecordError } from "./types.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const SHARED_RSS = resolve(REPO, process.env.VIGIE_SHARED_DATA ?? "../shared/data", "rss");
const FIXTURES = resolve(REPO, "test/fixtures/feeds");
const fixture = (rel: string) => readFileSync(resolve(FIXTURES, rel), "utf8");

/**
 * The output of the hand-written parser this module replaced, on every captured feed of
 * shared/data/rss (descriptions as "length sha256-prefix" to keep the file small).
 */
const EXPECTED = JSON.parse(fixture("rss-expected.json")) as Record<string, { title: string; items: Record<string, unknown>[] }>;

const digest = (s: string | null) => (s === null ? null : `${s.length} ${createHash("sha256").update(s).digest("hex").slice(0, 16)}`);

describe.skipIf(!existsSync(SHARED_RSS))("parseFeed on every captured feed of shared/data/rss", () => {
  it.each(Object.keys(EXPECTED))("%s", (rel) => {
    const feed = parseFeed(readFileSync(resolve(SHARED_RSS, rel), "utf8"), null);
    const expected = EXPECTED[rel]!;
    expect(feed.title).toBe(expected.title);
    expect(
      feed.items.map(({ description, source, ...rest }) => {
        expect(source).toBe(expected.title);
        return { ...rest, description: digest(description) };
      }),
    ).toEqual(expected.items);
  });
});

describe("parseFeed — RSS 2.0 (real captures, test/fixtures/feeds/rss)", () => {
  it("BleepingComputer: dc:creator, CDATA description, RFC 822 dates with a numeric zone", () => {
    const feed = parseFeed(fixture("rss/bleepingcomputer.xml"), null);
    expect(feed.title).toBe("BleepingComputer");
    expect(feed.items).toHaveLength(12);
    expect(feed.items[0]).toEqual({
      guid: "https://www.bleepingcomputer.com/news/security/law-enforcement-seizes-blacksuit-ransomware-leak-sites/",
      url: "https://www.bleepingcomputer.com/news/security/law-enforcement-seizes-blacksuit-ransomware-leak-sites/",
      title: "BlackSuit ransomware extortion sites seized in Operation Checkmate",
      description: expect.stringMatching(
        /^Law enforcement has seized the dark web extortion sites of the BlackSuit ransomware operation, /,
      ),
      published_at: "2025-07-24T21:34:13.000Z",
      author: "Sergiu Gatlan",
      image_url: null,
      source: "BleepingComputer",
      cve_ids: [],
    });
  });

  it("DataBreaches.net: numeric character references in link and title; the Matomo pixel is not an image", () => {
    const feed = parseFeed(fixture("rss/databreaches.xml"), null);
    const first = feed.items[0]!;
    expect(first.title).toBe("The day after XSS.is forum was seized, it struggles to come back online — but is it really them?");
    expect(first.url).toBe(
      "https://databreaches.net/2025/07/24/the-day-after-xss-is-forum-was-seized-it-struggles-to-come-back-online-but-is-it-really-them/?pk_campaign=feed&pk_kwd=the-day-after-xss-is-forum-was-seized-it-struggles-to-come-back-online-but-is-it-really-them",
    );
    expect(first.published_at).toBe("2025-07-25T00:21:44.000Z");
    expect(feed.items.every((a) => a.image_url === null)).toBe(true);
  });

  it("Proofpoint: no guid, no description, dates without a zone taken as UTC", () => {
    const feed = parseFeed(fixture("rss/proofpoint.xml"), null);
    expect(feed.items).toHaveLength(10);
    expect(feed.items[0]).toMatchObject({
      guid: null,
      url: "https://www.proofpoint.com/us/newsroom/news/ta829-unkgreensec-malware-campaigns-underpinned-same-infrastructure",
      title: "TA829, UNK_GreenSec malware campaigns underpinned by same infrastructure",
      description: null,
      published_at: "2025-07-02T13:14:54.000Z",
      author: null,
    });
  });
});

describe.skipIf(!existsSync(SHARED_RSS))("parseFeed — larger captures of shared/data/rss", () => {
  const read = (rel: string) => parseFeed(readFileSync(resolve(SHARED_RSS, rel), "utf8"), null);

  it("CISA (xml:base, escaped HTML): text description cut at DESCRIPTION_MAX, relative <img> resolved, CVE ids", () => {
    const feed = read("cyberdash-2025-07-24/cybersecurity-advisories.xml");
    const lumma = feed.items.find((a) => a.url.endsWith("/aa25-141b"))!;
    expect(lumma.image_url).toBe(
      "https://www.cisa.gov/sites/default/files/styles/large/public/2025-05/Figure%201%20-%20LummaC2%20Main%20Routine.png?itok=4-3q4JJo",
    );
    expect(lumma.description).toMatch(/^Summary The Federal Bureau of Investigation \(FBI\) and the Cybersecurity/);
    expect(lumma.description!.length).toBeLessThanOrEqual(DESCRIPTION_MAX);
    expect(lumma.description!.endsWith("…")).toBe(true);
    expect(lumma.description).not.toMatch(/[<>]|&(?:lt|gt|amp|quot);/);
    expect(feed.items.find((a) => a.url.endsWith("/aa25-163a"))!.cve_ids).toEqual(["CVE-2024-57727"]);
  });

  it("Microsoft (content:encoded): CVE ids of the content in order, first <img> of the content", () => {
    const first = read("cyberdash-2025-07-24/microsoftsecurity.xml").items[0]!;
    expect(first.cve_ids).toEqual(["CVE-2025-53770", "CVE-2025-49706", "CVE-2025-49704", "CVE-2025-53771"]);
    expect(first.image_url).toBe(
      "https://www.microsoft.com/en-us/security/blog/wp-content/uploads/2025/07/Fig1-Post-request-1024x171.webp",
    );
    expect(first.author).toBe("Microsoft Threat Intelligence");
  });
});

describe("parseFeed — Atom and JSON Feed (GitHub advisories, real captures)", () => {
  it("the Atom and JSON Feed versions of the same advisories agree (but for the GUID the JSON Feed lacks)", () => {
    const atom = parseFeed(fixture("rss/maven-atom-first3.rss"), null);
    const json = parseFeed(fixture("rss/maven-jsonfeed-first3.json"), null);
    expect(atom.title).toBe("Security Advisory for Java artifacts hosted at the Maven central repository");
    expect(json.items).toEqual(atom.items.map((a) => ({ ...a, guid: null })));
    expect(atom.items.map((a) => a.cve_ids)).toEqual([["CVE-2026-2366"], ["CVE-2026-3429"], ["CVE-2026-3911"]]);
    expect(atom.items[0]).toMatchObject({
      guid: "https://github.com/advisories/GHSA-r8jr-wg88-fq5c",
      url: "https://github.com/advisories/GHSA-r8jr-wg88-fq5c",
      title: "[org.keycloak:keycloak-js-admin-client] Keycloak vulnerable to authorization bypass via the Admin API",
      published_at: "2026-03-12T12:30:29.000Z",
      author: "GitHub",
    });
  });

  it("an image of the HTML content", () => {
    const go = parseFeed(fixture("rss/go-atom-first3.rss"), null);
    expect(go.items[2]!.image_url).toBe("https://github.com/user-attachments/assets/606acae0-e6f7-467f-b512-b5350ec6cf38");
  });
});

// Synthetic documents: none of the captured feeds is malformed or in RSS 1.0, so these cases are
// written here, each the smallest document that shows one thing.
describe("parseFeed — tolerance and formats no capture shows (synthetic)", () => {
  it("HTML entities without a DTD, a bare &, relative links against the feed URL", () => {
    const feed = parseFeed(
      `<rss><channel><title>A&nbsp;B &amp; C</title><item><title>Caf&eacute; &amp;amp; R&D &#146;s</title>` +
        `<link>/a?x=1&y=2</link><description>x&nbsp;y &lt;b&gt;CVE-2024-1234&lt;/b&gt;</description></item></channel></rss>`,
      "https://example.org/feed",
    );
    expect(feed.title).toBe("A B & C");
    expect(feed.items[0]).toMatchObject({
      title: "Café & R&D ’s",
      url: "https://example.org/a?x=1&y=2",
      description: "x y CVE-2024-1234",
      cve_ids: ["CVE-2024-1234"],
    });
  });

  it("RSS 1.0 (RDF) with dc:date and dc:creator", () => {
    const feed = parseFeed(
      `<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">` +
        `<channel rdf:about="https://example.org/"><title>RDF</title></channel>` +
        `<item rdf:about="https://example.org/1"><title>One</title><link>https://example.org/1</link>` +
        `<dc:date>2025-01-02T03:04:05+01:00</dc:date><dc:creator>Ann</dc:creator></item></rdf:RDF>`,
      null,
    );
    expect(feed).toEqual({
      title: "RDF",
      items: [
        {
          guid: null,
          url: "https://example.org/1",
          title: "One",
          description: null,
          published_at: "2025-01-02T02:04:05.000Z",
          author: "Ann",
          image_url: null,
          source: "RDF",
          cve_ids: [],
        },
      ],
    });
  });

  it("Atom xhtml content, xml:base, media:thumbnail", () => {
    const feed = parseFeed(
      `<feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/" xml:base="https://example.org/blog/">` +
        `<title type="html">T &lt;i&gt;x&lt;/i&gt;</title><entry><id>urn:1</id><title>E</title><link href="post/1"/>` +
        `<updated>2025-02-03T04:05:06Z</updated><media:thumbnail url="img/t.png"/>` +
        `<content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>Hello <b>CVE-2025-0001</b></p></div></content></entry></feed>`,
      null,
    );
    expect(feed.title).toBe("T x");
    expect(feed.items[0]).toMatchObject({
      guid: "urn:1",
      url: "https://example.org/blog/post/1",
      image_url: "https://example.org/blog/img/t.png",
      description: "Hello CVE-2025-0001",
      published_at: "2025-02-03T04:05:06.000Z",
      cve_ids: ["CVE-2025-0001"],
    });
  });

  it("refuses what is not a feed", () => {
    expect(() => parseFeed("<html><body>x</body></html>", null)).toThrow(RecordError);
    expect(() => parseFeed('{"a":1}', null)).toThrow(RecordError);
    expect(() => parseFeed("plain text", null)).toThrow(RecordError);
  });
});

describe("text helpers", () => {
  it("parseFeedDate: RFC 822 with zones, ISO 8601, the variant seen in a feed", () => {
    expect(parseFeedDate("Thu, 24 Jul 2025 20:52:55 EDT")).toBe("2025-07-25T00:52:55.000Z");
    expect(parseFeedDate("Thu, 24 Jul 2025 17:34:13 -0400")).toBe("2025-07-24T21:34:13.000Z");
    expect(parseFeedDate("02 Jul 2025 13:14:54")).toBe("2025-07-02T13:14:54.000Z");
    expect(parseFeedDate("Jul 24, 2025 05:47:25+0000")).toBe("2025-07-24T05:47:25.000Z");
    expect(parseFeedDate("2026-03-12T12:30:29.123+02:00")).toBe("2026-03-12T10:30:29.123Z");
    expect(parseFeedDate("not a date")).toBeNull();
  });

  it("htmlToText, decodeEntities, extractCveIds", () => {
    expect(htmlToText("<p>a&nbsp;b</p><script>x()</script><p>c &amp; d</p>")).toBe("a b c & d");
    expect(decodeEntities("&lt;&#x2019;&unknown;")).toBe("<’&unknown;");
    expect(extractCveIds("cve-2024-1 CVE‑2024‑12345 CVE 2023_4966", "CVE-2024-12345")).toEqual(["CVE-2024-12345", "CVE-2023-4966"]);
  });
});

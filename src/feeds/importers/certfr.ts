import { parseCertfrAvis } from "../certfr.js";
import { advisoryWriter } from "../cve-merge.js";
import { eachRecord, hashOf, jsonRecords, parseJson } from "../records.js";
import { certfrPublisher } from "../publishers/certfr.js";
import { feedSource } from "./feed-source.js";

/** CERT-FR avis: the advisory as a public vulnerability, and its interim measures on each of its CVEs. */
export const certfr = feedSource({
  id: "certfr",
  endings: [".json", ".jsonl"],
  defaultEnding: ".jsonl",
  sniff: {
    // The site's documents open with their schema (`"$ref": ".../openapi.json"`) and sort their keys:
    // `reference` comes after `content` and `cves`, beyond the head read here in 28 avis of 2025–2026
    // (CERTFR-2025-AVI-0022: at 73,545 characters). A file named after an avis (`<reference>.json`,
    // as the sync saves each document) is also taken; each record is checked when parsed.
    test: (h, file) =>
      /"reference"\s*:\s*"CERT(FR|A)-\d{4}-AVI-/.test(h) ||
      /^\s*\{\s*"\$ref"\s*:\s*"https:\/\/www\.cert\.ssi\.gouv\.fr\/openapi\.json"/.test(h) ||
      (/(?:^|[\\/])CERT(?:FR|A)-\d{4}-AVI-\d{3,4}\.json$/i.test(file) && /^\s*\{/.test(h)),
    expected: "avis CERT-FR au format JSON (reference CERTFR-AAAA-AVI-NNNN)",
  },
  tables: ["public_vulns", "cves"],
  // The avis feed, then each new or revised avis's JSON document.
  publisher: certfrPublisher,
  async importFiles(db, files, tally) {
    const writer = advisoryWriter(db, tally);
    await eachRecord(jsonRecords(files, []), tally, async (rec) => {
      const a = parseCertfrAvis(parseJson(rec.text));
      const data = {
        title: a.title,
        summary: a.summary,
        produits: a.produits,
        systemes_affectes: a.systemes_affectes,
        risks: a.risks,
        mesures: a.mesures,
        documentation: a.documentation,
      };
      await writer.add(
        {
          id: a.reference,
          source: "certfr",
          url: a.url,
          summary: a.title,
          aliases: a.cve_ids,
          severity: null,
          cvss_score: null,
          published: a.published,
          modified: a.modified,
          data,
          hash: hashOf([a.cve_ids, a.published, a.modified, data]),
          file: rec.file,
        },
        rec.text.length,
      );
    });
    await writer.flush();
  },
});

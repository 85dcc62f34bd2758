import { parseCertfrAvis } from "../certfr.js";
import { advisoryWriter } from "../cve-merge.js";
import { eachRecord, hashOf, jsonRecords, parseJson } from "../records.js";
import { singleFile } from "../publishers/file.js";
import { HOUR } from "../sync/publisher.js";
import { feedSource } from "./feed-source.js";

/** CERT-FR avis: the advisory as a public vulnerability, and its interim measures on each of its CVEs. */
export const certfr = feedSource({
  id: "certfr",
  endings: [".json", ".jsonl"],
  defaultEnding: ".jsonl",
  sniff: {
    test: (h) => /"reference"\s*:\s*"CERT(FR|A)-\d{4}-AVI-/.test(h),
    expected: "avis CERT-FR au format JSON (reference CERTFR-AAAA-AVI-NNNN)",
  },
  tables: ["public_vulns", "cves"],
  // CERT-FR publishes one JSON document per avis: synced only from a configured mirror.
  publisher: singleFile([], HOUR),
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

import { advisoryWriter } from "../cve-merge.js";
import { MERGE_RULES_VERSION } from "../merge.js";
import { parseOsvRecord } from "../osv.js";
import { eachRecord, hashOf, jsonRecords, parseJson } from "../records.js";
import { singleFile } from "../publishers/file.js";
import { HOUR } from "../sync/publisher.js";
import { feedSource } from "./feed-source.js";

/** OSV advisories (GHSA, GO, PYSEC, RUSTSEC…): public vulnerabilities linked to their CVEs by alias. */
export const osv = feedSource({
  id: "osv",
  endings: [".json", ".jsonl"],
  defaultEnding: ".jsonl",
  sniff: {
    // A CVE JSON 5 record has an "id" (in the CISA ADP's SSVC content) and "affected" too.
    test: (h) => /"id"\s*:/.test(h) && /"(modified|affected|schema_version)"\s*:/.test(h) && !h.includes('"cveMetadata"'),
    expected: "documents OSV : id, modified, affected",
  },
  tables: ["public_vulns", "cves"],
  // OSV publishes zip archives: synced only from a configured mirror.
  publisher: singleFile([], HOUR),
  async importFiles(db, files, tally) {
    const writer = advisoryWriter(db, tally);
    await eachRecord(jsonRecords(files, []), tally, async (rec) => {
      const o = parseOsvRecord(parseJson(rec.text));
      const data = {
        packages: o.packages,
        details: o.details,
        cwes: o.cwes,
        references: o.references,
        cvss_vector: o.cvss_vector,
        withdrawn: o.withdrawn,
      };
      await writer.add(
        {
          id: o.id,
          source: o.source,
          url: o.url,
          summary: o.summary ?? o.details?.split("\n")[0] ?? null,
          aliases: o.aliases,
          severity: o.severity,
          cvss_score: o.cvss_score,
          published: o.published,
          modified: o.modified,
          data,
          hash: hashOf([MERGE_RULES_VERSION, o.summary, o.aliases, o.severity, o.cvss_score, o.published, o.modified, data]),
          file: rec.file,
        },
        rec.text.length,
      );
    });
    await writer.flush();
  },
});

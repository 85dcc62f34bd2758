import { advisoryWriter } from "../cve-merge.js";
import { MERGE_RULES_VERSION } from "../merge.js";
import { parseOsvRecord } from "../osv.js";
import { eachRecord, hashOf, jsonRecords, parseJson } from "../records.js";
import { osvPublisher } from "../publishers/osv.js";
import { feedSource } from "./feed-source.js";

/** OSV advisories (GHSA, GO, PYSEC, RUSTSEC…): public vulnerabilities linked to their CVEs by alias. */
export const osv = feedSource({
  id: "osv",
  endings: [".json", ".jsonl"],
  defaultEnding: ".jsonl",
  sniff: {
    // A CVE JSON 5 record has an "id" (in the CISA ADP's SSVC content) and "affected" too. Its
    // "cveMetadata" is a key; an advisory's text that names it (escaped quotes) does not count:
    // the sync's JSON Lines of a whole ecosystem would otherwise be refused for one advisory's words.
    test: (h) => /"id"\s*:/.test(h) && /"(modified|affected|schema_version)"\s*:/.test(h) && !/(?<!\\)"cveMetadata"\s*:/.test(h),
    expected: "documents OSV : id, modified, affected",
  },
  tables: ["public_vulns", "cves"],
  publisher: osvPublisher,
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

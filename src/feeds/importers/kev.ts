import { basename } from "node:path";
import { contributionWriter } from "../cve-merge.js";
import { csvRecords, parseKevCsvRow, parseKevJsonEntry } from "../kev.js";
import { MERGE_RULES_VERSION } from "../merge.js";
import { lines } from "../reader.js";
import { eachRecord, hashOf, jsonRecords, parseJson } from "../records.js";
import { RecordError } from "../types.js";
import { singleFile } from "../publishers/file.js";
import { HOUR } from "../sync/publisher.js";
import { feedSource } from "./feed-source.js";

/** The CISA Known Exploited Vulnerabilities catalog, JSON or CSV. */
export const kev = feedSource({
  id: "kev",
  endings: [".json", ".csv"],
  defaultEnding: ".json",
  sniff: {
    test: (h, f) => (/\.csv(\.gz)?$/.test(f) ? /^\uFEFF?"?cveID"?,/.test(h) : h.includes('"catalogVersion"') || h.includes('"cveID"')),
    expected: "catalogue CISA KEV (JSON ou CSV)",
  },
  tables: ["cves", "cve_sources"],
  publisher: singleFile(["https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json"], HOUR),
  async importFiles(db, files, tally) {
    const writer = contributionWriter(db, tally);
    const store = async (k: ReturnType<typeof parseKevJsonEntry>, file: string) =>
      writer.add({ cve_id: k.cve_id, source: "kev", data: k, hash: hashOf([MERGE_RULES_VERSION, k]), source_modified: k.date_added, file });
    for (const file of files) {
      const name = basename(file);
      if (/\.csv(\.gz)?$/.test(file)) {
        const text = (async function* () {
          for await (const l of lines(file)) yield l.text;
        })();
        for await (const { line, row } of csvRecords(text)) {
          tally.result.read++;
          try {
            await store(parseKevCsvRow(row), name);
          } catch (err) {
            if (err instanceof RecordError) tally.fail({ file: name, loc: { line } }, err.message);
            else throw err;
          }
        }
      } else {
        await eachRecord(jsonRecords([file], ["vulnerabilities"]), tally, async (rec) =>
          store(parseKevJsonEntry(parseJson(rec.text)), rec.file),
        );
      }
    }
    await writer.flush();
  },
});

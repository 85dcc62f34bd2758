import { contribution, contributionWriter } from "../cve-merge.js";
import { isReserved, parseCve5 } from "../cve5.js";
import { eachRecord, jsonRecords, parseJson, skipKnownTexts } from "../records.js";
import { cve5Publisher } from "../publishers/cve5.js";
import { feedSource } from "./feed-source.js";

/** CVE List records (CVE JSON 5): one per file, JSON Lines, or arrays of records. */
export const cve5 = feedSource({
  id: "cve5",
  endings: [".json", ".jsonl"],
  defaultEnding: ".jsonl",
  sniff: {
    test: (h) => h.includes('"cveMetadata"') || h.includes("CVE_RECORD"),
    expected: "enregistrements CVE JSON 5 : cveMetadata, containers",
  },
  tables: ["cves", "cve_affected", "cve_sources"],
  // The cvelistV5 releases: a baseline, then hourly deltas (src/feeds/publishers/cve5.ts).
  publisher: cve5Publisher,
  async importFiles(db, files, tally) {
    const writer = contributionWriter(db, tally);
    let reserved = 0;
    const records = skipKnownTexts(
      db,
      "cve5",
      jsonRecords(files, []),
      tally,
      (text) => /"cveId"\s*:\s*"(CVE-\d{4}-\d{4,})"/.exec(text)?.[1],
    );
    await eachRecord(records, tally, async (rec) => {
      const parsed = parseCve5(parseJson(rec.text));
      if (isReserved(parsed)) {
        reserved++;
        return;
      }
      await writer.add(contribution(parsed, "cve5", rec.file, rec.rawHash), rec.text.length);
    });
    await writer.flush();
    tally.result.reserved = reserved;
  },
});

import { contribution, contributionWriter } from "../cve-merge.js";
import { parseNvd11Item, parseNvd20 } from "../nvd.js";
import { eachRecord, jsonRecords, parseJson, skipKnownTexts } from "../records.js";
import { singleFile } from "../publishers/file.js";
import { HOUR } from "../sync/publisher.js";
import { feedSource } from "./feed-source.js";

/** NVD: JSON 1.1 yearly feeds (CVE_Items) or API 2.0 responses and objects. */
export const nvd = feedSource({
  id: "nvd",
  endings: [".json", ".jsonl"],
  defaultEnding: ".json",
  sniff: {
    test: (h) => /"CVE_Items"|"vulnStatus"|"sourceIdentifier"/.test(h),
    expected: "flux NVD JSON 1.1 (CVE_Items) ou objets CVE de l'API 2.0",
  },
  tables: ["cves", "cve_affected", "cve_sources"],
  // NVD serves a paged API: synced only from a configured mirror.
  publisher: singleFile([], 2 * HOUR),
  async importFiles(db, files, tally) {
    const writer = contributionWriter(db, tally);
    const idOf = (text: string) => /"(?:ID|id)"\s*:\s*"(CVE-\d{4}-\d{4,})"/.exec(text)?.[1];
    await eachRecord(skipKnownTexts(db, "nvd", jsonRecords(files, ["CVE_Items", "vulnerabilities"]), tally, idOf), tally, async (rec) => {
      const value = parseJson(rec.text) as Record<string, unknown>;
      // API 2.0 responses wrap each object as {"cve": {...}}; 1.1 items carry "cve" with CVE_data_meta.
      const item =
        value && typeof value === "object" && "cve" in value && !("configurations" in value || "impact" in value) ? value.cve : value;
      const isV11 = !!item && typeof item === "object" && "cve" in (item as object);
      const parsed = isV11 ? parseNvd11Item(item) : parseNvd20(item);
      await writer.add(contribution(parsed, "nvd", rec.file, rec.rawHash), rec.text.length);
    });
    await writer.flush();
  },
});

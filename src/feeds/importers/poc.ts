import { basename } from "node:path";
import { contributionWriter } from "../cve-merge.js";
import { parseNomiSecFile, parseNomiSecLine, parseTrickestLine, type PocRecord } from "../poc.js";
import { eachRecord, hashOf, jsonRecords, parseJson, wholeFiles } from "../records.js";
import { pocPublisher } from "../publishers/poc.js";
import { feedSource } from "./feed-source.js";

/** PoC evidence: trickest JSONL, nomi-sec JSONL ({"cve","repos"}) or nomi-sec per-CVE files (a JSON array). */
export const poc = feedSource({
  id: "poc",
  endings: [".json", ".jsonl"],
  defaultEnding: ".jsonl",
  sniff: {
    test: (h, f) =>
      /\.jsonl(\.gz)?$/.test(f) ? /"(github_pocs|reference_pocs|repos)"/.test(h) : /^\s*\[/.test(h) && /CVE-\d{4}-\d+/i.test(basename(f)),
    expected: "JSONL trickest (github_pocs, reference_pocs) ou nomi-sec ({cve, repos}), ou fichiers nomi-sec CVE-….json",
  },
  tables: ["cves", "cve_sources"],
  // nomi-sec/PoC-in-GitHub through GitHub's API (ADR 0023); a JSONL mirror address: a single file, daily.
  publisher: pocPublisher,
  async importFiles(db, files, tally) {
    const writer = contributionWriter(db, tally);
    const store = (p: PocRecord, file: string) => {
      // Only the evidence is kept (with nomi-sec's stars, shown in the CVE's PoC list): trickest's other references are NVD references already stored with the CVE.
      const data = { urls: p.urls, first_seen: p.first_seen, ...(p.stars && Object.keys(p.stars).length ? { stars: p.stars } : {}) };
      return writer.add({ cve_id: p.cve_id, source: `poc:${p.source}`, data, hash: hashOf(data), source_modified: null, file });
    };
    const jsonl = files.filter((f) => /\.jsonl(\.gz)?$/.test(f));
    await eachRecord(jsonRecords(jsonl, []), tally, async (rec) => {
      const v = parseJson(rec.text);
      await store(v && typeof v === "object" && "repos" in v ? parseNomiSecLine(v) : parseTrickestLine(v), rec.file);
    });
    const perCve = files.filter((f) => !jsonl.includes(f));
    await eachRecord(wholeFiles(perCve), tally, async (rec) => store(parseNomiSecFile(rec.file, parseJson(rec.text)), rec.file));
    await writer.flush();
  },
});

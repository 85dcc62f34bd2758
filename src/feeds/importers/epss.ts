import { basename } from "node:path";
import { refreshAlerts } from "../../matching/matcher.js";
import { FormatError, head, lines } from "../reader.js";
import { feedStore } from "../store.js";
import { singleFile } from "../publishers/file.js";
import { HOUR } from "../sync/publisher.js";
import { feedSource } from "./feed-source.js";

// Not through the batch writer, whose 1,000-row batches are sized for CVE records of kilobytes
// that are merged and matched: a score is three numbers written to two tables by one set-based
// statement each (feedStore.upsertEpss), so 20,000 of them per transaction, 18 transactions for
// the 360,000 scores of a daily file instead of 360.
const EPSS_BATCH = 20_000;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The score date of an EPSS file: its "#model_version:…,score_date:…" line, else --date, else its name. */
function epssDate(firstLine: string, file: string, fallback: string | undefined): string {
  const fromHeader = /score_date:(\d{4}-\d{2}-\d{2})/.exec(firstLine)?.[1];
  const fromName = /(\d{4}-\d{2}-\d{2})/.exec(basename(file))?.[1];
  const date = fromHeader ?? fallback ?? fromName;
  if (!date || !ISO_DATE.test(date))
    throw new FormatError(`${file} : date des scores introuvable (ligne #score_date, nom de fichier ou --date AAAA-MM-JJ)`);
  return date;
}

/** FIRST's daily EPSS scores (CSV: cve,epss,percentile, after a #model_version line). */
export const epss = feedSource({
  id: "epss",
  endings: [".csv"],
  defaultEnding: ".csv",
  sniff: {
    test: (h) => /^(#[^\n]*\n)?cve,epss,percentile\r?\n/.test(h.replace(/^\uFEFF/, "")),
    expected: "CSV EPSS : cve,epss,percentile",
  },
  tables: ["epss_current", "epss_scores"],
  publisher: singleFile(["https://epss.empiricalsecurity.com/epss_scores-current.csv.gz"], HOUR),
  async importFiles(db, files, tally, opts) {
    // Every file's score date is known before anything is written.
    const dates = new Map<string, string>();
    for (const file of files) dates.set(file, epssDate((await head(file, 512)).split("\n")[0]!, file, opts.date));
    for (const file of files) {
      const name = basename(file);
      const date = dates.get(file)!;
      let cves: string[] = [];
      let scores: number[] = [];
      let pcts: number[] = [];
      const flush = async () => {
        if (!cves.length) return;
        // The alerts of these CVEs follow their new score (their palier) in the same transaction.
        const r = await db.transaction(async (tx) => {
          const counts = await feedStore.upsertEpss(tx, date, cves, scores, pcts);
          if (counts.inserted + counts.updated) await refreshAlerts(tx, cves);
          return counts;
        });
        tally.result.inserted += r.inserted;
        tally.result.updated += r.updated;
        tally.result.unchanged += cves.length - r.inserted - r.updated;
        cves = [];
        scores = [];
        pcts = [];
        tally.tick();
      };
      for await (const { line, text } of lines(file)) {
        if ((line === 1 && text.startsWith("#")) || /^\uFEFF?cve,epss,percentile/.test(text) || !text) continue;
        tally.result.read++;
        const [cve, score, pct] = text.split(",");
        const s = Number(score);
        const p = Number(pct);
        if (!cve || !/^CVE-\d{4}-\d{4,}$/.test(cve) || !(s >= 0 && s <= 1) || !(p >= 0 && p <= 1) || score === "" || pct === "") {
          tally.fail({ file: name, loc: { line } }, `ligne EPSS invalide : ${text.slice(0, 80)}`);
          continue;
        }
        cves.push(cve);
        scores.push(s);
        pcts.push(p);
        if (cves.length >= EPSS_BATCH) await flush();
      }
      await flush();
    }
  },
});

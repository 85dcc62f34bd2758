import { basename } from "node:path";
import type { Db } from "../platform/db/client.js";
import { isReserved, parseCve5 } from "./cve5.js";
import { csvRecords, parseKevCsvRow, parseKevJsonEntry } from "./kev.js";
import { parseNvd11Item, parseNvd20 } from "./nvd.js";
import {
  ContributionWriter, expandPaths, FormatError, hashOf, jsonRecords, parseJson, sniff, Tally,
  type ImportOptions, type ImportResult, type Source, type SourceRecord,
} from "./pipeline.js";
import { head, lines } from "./reader.js";
import { feedStore } from "./store.js";
import { RecordError, type CveContribution } from "./types.js";

/** Runs `use` on each record; a record that fails is reported with its place and skipped. */
async function eachRecord(records: AsyncIterable<SourceRecord>, tally: Tally, use: (rec: SourceRecord) => Promise<void>): Promise<void> {
  for await (const rec of records) {
    tally.result.read++;
    try {
      await use(rec);
    } catch (err) {
      if (err instanceof RecordError) tally.fail(rec, err.message);
      else throw err;
    }
  }
}

function contribution(c: CveContribution, source: string, file: string) {
  return { cve_id: c.cve_id, source, data: c, hash: hashOf(c), source_modified: c.modified, file };
}

async function importCve5(db: Db, files: string[], tally: Tally): Promise<void> {
  await sniff(files, "cve5", (h) => h.includes('"cveMetadata"') || h.includes("CVE_RECORD"), "enregistrements CVE JSON 5 : cveMetadata, containers");
  const writer = new ContributionWriter(db, tally);
  let reserved = 0;
  await eachRecord(jsonRecords(files, []), tally, async (rec) => {
    const parsed = parseCve5(parseJson(rec.text));
    if (isReserved(parsed)) {
      reserved++;
      return;
    }
    await writer.add(contribution(parsed, "cve5", rec.file));
  });
  await writer.flush();
  tally.result.reserved = reserved;
}

async function importNvd(db: Db, files: string[], tally: Tally): Promise<void> {
  await sniff(files, "nvd", (h) => /"CVE_Items"|"vulnStatus"|"sourceIdentifier"/.test(h), "flux NVD JSON 1.1 (CVE_Items) ou objets CVE de l'API 2.0");
  const writer = new ContributionWriter(db, tally);
  await eachRecord(jsonRecords(files, ["CVE_Items", "vulnerabilities"]), tally, async (rec) => {
    const value = parseJson(rec.text) as Record<string, unknown>;
    // API 2.0 responses wrap each object as {"cve": {...}}; 1.1 items carry "cve" with CVE_data_meta.
    const item = value && typeof value === "object" && "cve" in value && !("configurations" in value || "impact" in value) ? value.cve : value;
    const isV11 = !!item && typeof item === "object" && "cve" in (item as object);
    const parsed = isV11 ? parseNvd11Item(item) : parseNvd20(item);
    await writer.add(contribution(parsed, "nvd", rec.file));
  });
  await writer.flush();
}

async function importKev(db: Db, files: string[], tally: Tally): Promise<void> {
  await sniff(files, "kev", (h, f) => (/\.csv(\.gz)?$/.test(f) ? /^\uFEFF?"?cveID"?,/.test(h) : h.includes('"catalogVersion"') || h.includes('"cveID"')), "catalogue CISA KEV (JSON ou CSV)");
  const writer = new ContributionWriter(db, tally);
  const store = async (k: ReturnType<typeof parseKevJsonEntry>, file: string) =>
    writer.add({ cve_id: k.cve_id, source: "kev", data: k, hash: hashOf(k), source_modified: k.date_added, file });
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
      await eachRecord(jsonRecords([file], ["vulnerabilities"]), tally, async (rec) => store(parseKevJsonEntry(parseJson(rec.text)), rec.file));
    }
  }
  await writer.flush();
}

const EPSS_BATCH = 20_000;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The score date of an EPSS file: its "#model_version:…,score_date:…" line, else --date, else its name. */
function epssDate(firstLine: string, file: string, fallback: string | undefined): string {
  const fromHeader = /score_date:(\d{4}-\d{2}-\d{2})/.exec(firstLine)?.[1];
  const fromName = /(\d{4}-\d{2}-\d{2})/.exec(basename(file))?.[1];
  const date = fromHeader ?? fallback ?? fromName;
  if (!date || !ISO_DATE.test(date)) throw new FormatError(`${file} : date des scores introuvable (ligne #score_date, nom de fichier ou --date AAAA-MM-JJ)`);
  return date;
}

async function importEpss(db: Db, files: string[], tally: Tally, opts: ImportOptions): Promise<void> {
  await sniff(files, "epss", (h) => /^(#[^\n]*\n)?cve,epss,percentile\r?\n/.test(h.replace(/^\uFEFF/, "")), "CSV EPSS : cve,epss,percentile");
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
      const r = await db.transaction((tx) => feedStore.upsertEpss(tx, date, cves, scores, pcts));
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
      const [cve, epss, pct] = text.split(",");
      const s = Number(epss);
      const p = Number(pct);
      if (!cve || !/^CVE-\d{4}-\d{4,}$/.test(cve) || !(s >= 0 && s <= 1) || !(p >= 0 && p <= 1) || epss === "" || pct === "") {
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
}

const IMPORTERS: Partial<Record<Source, (db: Db, files: string[], tally: Tally, opts: ImportOptions) => Promise<void>>> = {
  cve5: importCve5,
  nvd: importNvd,
  kev: importKev,
  epss: importEpss,
};

const ENDINGS: Record<Source, string[]> = {
  cve5: [".json", ".jsonl"],
  nvd: [".json", ".jsonl"],
  epss: [".csv"],
  kev: [".json", ".csv"],
  poc: [".json", ".jsonl"],
  osv: [".json", ".jsonl"],
  certfr: [".json", ".jsonl"],
  rss: [".xml", ".rss", ".atom", ".json"],
};

/** Imports files or directories of one source; see ImportResult for what it reports. */
export async function importFeed(db: Db, source: Source, paths: string[], opts: ImportOptions = {}): Promise<ImportResult> {
  const importer = IMPORTERS[source];
  if (!importer) throw new FormatError(`source ${source} : importeur non encore disponible`);
  const files = expandPaths(paths, ENDINGS[source]);
  const tally = new Tally(source, files.length, opts.progress);
  await importer(db, files, tally, opts);
  return tally.done();
}

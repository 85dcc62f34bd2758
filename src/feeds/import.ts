import { basename } from "node:path";
import { sql } from "drizzle-orm";
import { refreshAlerts } from "../matching/matcher.js";
import type { Db } from "../platform/db/client.js";
import { parseCertfrAvis } from "./certfr.js";
import { isReserved, parseCve5 } from "./cve5.js";
import { csvRecords, parseKevCsvRow, parseKevJsonEntry } from "./kev.js";
import { parseNvd11Item, parseNvd20 } from "./nvd.js";
import { MERGE_RULES_VERSION } from "./merge.js";
import { parseOsvRecord } from "./osv.js";
import { parseNomiSecFile, parseNomiSecLine, parseTrickestLine, type PocRecord } from "./poc.js";
import { parseFeed } from "./rss.js";
import {
  advisoryWriter, contributionWriter, expandPaths, FormatError, hashOf, jsonRecords, parseJson, skipKnownTexts, sniff, Tally, wholeFiles,
  type ImportOptions, type ImportResult, type Source, type SourceRecord,
} from "./pipeline.js";
import { head, lines, readWhole } from "./reader.js";
import { feedStore, type ArticleRow } from "./store.js";
import { RecordError, type CveContribution } from "./types.js";

/** Runs `use` on each record; a record that fails is reported with its place and skipped. */
async function eachRecord<R extends SourceRecord>(records: AsyncIterable<R>, tally: Tally, use: (rec: R) => Promise<void>): Promise<void> {
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

function contribution(c: CveContribution, source: string, file: string, rawHash?: string) {
  return { cve_id: c.cve_id, source, data: c, hash: hashOf(c), raw_hash: rawHash ?? null, source_modified: c.modified, file };
}

async function importCve5(db: Db, files: string[], tally: Tally): Promise<void> {
  await sniff(files, "cve5", (h) => h.includes('"cveMetadata"') || h.includes("CVE_RECORD"), "enregistrements CVE JSON 5 : cveMetadata, containers");
  const writer = contributionWriter(db, tally);
  let reserved = 0;
  const records = skipKnownTexts(db, "cve5", jsonRecords(files, []), tally, (text) => /"cveId"\s*:\s*"(CVE-\d{4}-\d{4,})"/.exec(text)?.[1]);
  await eachRecord(records, tally, async (rec) => {
    const parsed = parseCve5(parseJson(rec.text));
    if (isReserved(parsed)) {
      reserved++;
      return;
    }
    await writer.add(contribution(parsed, "cve5", rec.file, rec.rawHash));
  });
  await writer.flush();
  tally.result.reserved = reserved;
}

async function importNvd(db: Db, files: string[], tally: Tally): Promise<void> {
  await sniff(files, "nvd", (h) => /"CVE_Items"|"vulnStatus"|"sourceIdentifier"/.test(h), "flux NVD JSON 1.1 (CVE_Items) ou objets CVE de l'API 2.0");
  const writer = contributionWriter(db, tally);
  const idOf = (text: string) => /"(?:ID|id)"\s*:\s*"(CVE-\d{4}-\d{4,})"/.exec(text)?.[1];
  await eachRecord(skipKnownTexts(db, "nvd", jsonRecords(files, ["CVE_Items", "vulnerabilities"]), tally, idOf), tally, async (rec) => {
    const value = parseJson(rec.text) as Record<string, unknown>;
    // API 2.0 responses wrap each object as {"cve": {...}}; 1.1 items carry "cve" with CVE_data_meta.
    const item = value && typeof value === "object" && "cve" in value && !("configurations" in value || "impact" in value) ? value.cve : value;
    const isV11 = !!item && typeof item === "object" && "cve" in (item as object);
    const parsed = isV11 ? parseNvd11Item(item) : parseNvd20(item);
    await writer.add(contribution(parsed, "nvd", rec.file, rec.rawHash));
  });
  await writer.flush();
}

async function importKev(db: Db, files: string[], tally: Tally): Promise<void> {
  await sniff(files, "kev", (h, f) => (/\.csv(\.gz)?$/.test(f) ? /^\uFEFF?"?cveID"?,/.test(h) : h.includes('"catalogVersion"') || h.includes('"cveID"')), "catalogue CISA KEV (JSON ou CSV)");
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

/** PoC evidence: trickest JSONL, nomi-sec JSONL ({"cve","repos"}) or nomi-sec per-CVE files (a JSON array). */
async function importPoc(db: Db, files: string[], tally: Tally): Promise<void> {
  await sniff(files, "poc", (h, f) => (/\.jsonl(\.gz)?$/.test(f) ? /"(github_pocs|reference_pocs|repos)"/.test(h) : /^\s*\[/.test(h) && /CVE-\d{4}-\d+/i.test(basename(f))),
    "JSONL trickest (github_pocs, reference_pocs) ou nomi-sec ({cve, repos}), ou fichiers nomi-sec CVE-….json");
  const writer = contributionWriter(db, tally);
  const store = (p: PocRecord, file: string) => {
    // Only the evidence is kept: trickest's other references are NVD references already stored with the CVE.
    const data = { urls: p.urls, first_seen: p.first_seen };
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
}

/** OSV advisories (GHSA, GO, PYSEC, RUSTSEC…): public vulnerabilities linked to their CVEs by alias. */
async function importOsv(db: Db, files: string[], tally: Tally): Promise<void> {
  await sniff(files, "osv", (h) => /"id"\s*:/.test(h) && /"(modified|affected|schema_version)"\s*:/.test(h), "documents OSV : id, modified, affected");
  const writer = advisoryWriter(db, tally);
  await eachRecord(jsonRecords(files, []), tally, async (rec) => {
    const o = parseOsvRecord(parseJson(rec.text));
    const data = { packages: o.packages, details: o.details, cwes: o.cwes, references: o.references, cvss_vector: o.cvss_vector, withdrawn: o.withdrawn };
    await writer.add({
      id: o.id, source: o.source, url: o.url, summary: o.summary ?? o.details?.split("\n")[0] ?? null, aliases: o.aliases,
      severity: o.severity, cvss_score: o.cvss_score, published: o.published, modified: o.modified, data, hash: hashOf([MERGE_RULES_VERSION, o.summary, o.aliases, o.severity, o.cvss_score, o.published, o.modified, data]), file: rec.file,
    });
  });
  await writer.flush();
}

/** CERT-FR avis: the advisory as a public vulnerability, and its interim measures on each of its CVEs. */
async function importCertfr(db: Db, files: string[], tally: Tally): Promise<void> {
  await sniff(files, "certfr", (h) => /"reference"\s*:\s*"CERT(FR|A)-\d{4}-AVI-/.test(h), "avis CERT-FR au format JSON (reference CERTFR-AAAA-AVI-NNNN)");
  const writer = advisoryWriter(db, tally);
  await eachRecord(jsonRecords(files, []), tally, async (rec) => {
    const a = parseCertfrAvis(parseJson(rec.text));
    const data = { title: a.title, summary: a.summary, produits: a.produits, systemes_affectes: a.systemes_affectes, risks: a.risks, mesures: a.mesures, documentation: a.documentation };
    await writer.add({
      id: a.reference, source: "certfr", url: a.url, summary: a.title, aliases: a.cve_ids, severity: null, cvss_score: null,
      published: a.published, modified: a.modified, data, hash: hashOf([a.cve_ids, a.published, a.modified, data]), file: rec.file,
    });
  });
  await writer.flush();
}

/** RSS 2.0, RSS 1.0, Atom and JSON Feed documents: articles, deduplicated by GUID, else URL. */
async function importRss(db: Db, files: string[], tally: Tally): Promise<void> {
  await sniff(files, "rss", (h) => /<(rss|feed|rdf:RDF)[\s>]/.test(h) || /"version"\s*:\s*"https?:\/\/jsonfeed\.org\/version\/1/.test(h), "flux RSS, Atom ou JSON Feed");
  for (const file of files) {
    const name = basename(file);
    let items;
    try {
      items = parseFeed(await readWhole(file), null).items;
    } catch (err) {
      if (!(err instanceof RecordError)) throw err;
      tally.result.read++;
      tally.fail({ file: name, loc: { index: 0 } }, err.message);
      continue;
    }
    tally.result.read += items.length;
    const byKey = new Map<string, ArticleRow>();
    for (const it of items) {
      const { guid, url, title, description, published_at, source, author, image_url, cve_ids } = it;
      const row = { guid, url, title, description, published_at, source, author, image_url, cve_ids, file: name };
      byKey.set(guid ?? url, { ...row, hash: hashOf({ ...row, file: undefined }) });
    }
    const rows = [...byKey.values()];
    const r = await db.transaction(async (tx) => {
      const stored = await feedStore.articlesByKeys(tx, rows.flatMap((a) => (a.guid ? [a.guid] : [])), rows.map((a) => a.url));
      const inserts: ArticleRow[] = [];
      const updates: (ArticleRow & { id: string })[] = [];
      let unchanged = 0;
      for (const a of rows) {
        const old = stored.find((s) => (a.guid && s.guid === a.guid) || (!a.guid && s.url === a.url)) ?? stored.find((s) => s.url === a.url);
        // An article already known from another feed (an Atom and a JSON Feed of one site) is that one.
        if (!old) inserts.push(a);
        else if (old.hash !== a.hash && old.file === a.file) updates.push({ ...a, id: old.id });
        else unchanged++;
      }
      const inserted = await feedStore.writeArticles(tx, inserts, updates);
      if (inserted || updates.length) await feedStore.bumpVersion(tx, "articles");
      // Repeats inside the document count as unchanged too.
      return { inserted, updated: updates.length, unchanged: unchanged + inserts.length - inserted + items.length - rows.length };
    });
    tally.result.inserted += r.inserted;
    tally.result.updated += r.updated;
    tally.result.unchanged += r.unchanged;
    tally.tick();
  }
}

const IMPORTERS: Record<Source, (db: Db, files: string[], tally: Tally, opts: ImportOptions) => Promise<void>> = {
  cve5: importCve5,
  nvd: importNvd,
  kev: importKev,
  epss: importEpss,
  poc: importPoc,
  osv: importOsv,
  certfr: importCertfr,
  rss: importRss,
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

const ANALYZE_AFTER = 5000;
const ANALYZED: Record<Source, string> = {
  cve5: "cves, cve_affected, cve_sources", nvd: "cves, cve_affected, cve_sources", kev: "cves, cve_sources",
  epss: "epss_current, epss_scores", poc: "cves, cve_sources", osv: "public_vulns, cves", certfr: "public_vulns, cves", rss: "articles",
};

/** Imports files or directories of one source; see ImportResult for what it reports. */
export async function importFeed(db: Db, source: Source, paths: string[], opts: ImportOptions = {}): Promise<ImportResult> {
  const importer = IMPORTERS[source];
  const files = expandPaths(paths, ENDINGS[source]);
  const tally = new Tally(source, files.length, opts.progress);
  await importer(db, files, tally, opts);
  // After a bulk load the planner's statistics are stale until autovacuum comes by: the list
  // queries then pick poor plans (a vendor page took 50 ms instead of 2 ms on the full corpus).
  if (tally.result.inserted + tally.result.updated >= ANALYZE_AFTER) await db.execute(sql.raw(`analyze ${ANALYZED[source]}`));
  return tally.done();
}

#!/usr/bin/env node
// Rebuilds fixtures/snapshot/ — the real data `npm start` imports into an empty database — from
// the shared data set (default ../shared/data; see its MANIFEST.md). Values are copied unchanged;
// big files are streamed. Usage: node scripts/make-snapshot.mjs [SHARED_DATA_DIR]
import { createReadStream, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createGunzip, gzipSync } from "node:zlib";

const DATA = process.argv[2] ?? "../shared/data";
const OUT = "fixtures/snapshot";
// CVE-2024-NNNN with NNNN below this bound, plus the records the README and the tests talk about.
const CVE5_BOUND = 4500;
const CVE5_ALWAYS = new Set(["CVE-2024-3400", "CVE-2024-6387", "CVE-2024-0001", "CVE-2024-1216"]);
const NVD_ITEMS = 2000;
const OSV_EXTRA = 1500;
const CERTFR_LAST = 1500;

// The packages and products of the README's stack example: every OSV advisory of these packages
// and every CVE 5 record naming these products (any year), with the CVE records the advisories name.
const README_PACKAGES = [["pypi", "django"]];
const README_PRODUCTS = [/"vendor":"Palo Alto Networks"[^}]*"product":"PAN-OS"/];

const lines = (file) => createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Infinity });
const write = (path, text) => writeFileSync(path, gzipSync(text));
const counts = {};

// The data directories are rebuilt; PROVENANCE.md (written by hand, with the counts printed below) stays.
for (const d of ["cve5", "nvd", "kev", "epss", "poc", "osv", "certfr", "rss", "eol"]) {
  rmSync(join(OUT, d), { recursive: true, force: true });
  mkdirSync(join(OUT, d), { recursive: true });
}
const ids = new Set();

// osv (first pass): the advisories of the README's packages, and the CVEs they name.
const readmeAdvisories = new Set();
const readmeCves = new Set();
for await (const line of lines(join(DATA, "osv/osv-combined.jsonl.gz"))) {
  const adv = JSON.parse(line);
  const hit = (adv.affected ?? []).some((a) =>
    README_PACKAGES.some(([eco, name]) => a.package?.ecosystem?.toLowerCase() === eco && a.package?.name?.toLowerCase() === name),
  );
  if (!hit) continue;
  readmeAdvisories.add(adv.id);
  for (const a of adv.aliases ?? []) if (a.startsWith("CVE-")) readmeCves.add(a);
}

// cve5: CVE JSON 5 records of 2024 (CISA vulnrichment), one per line.
const cve5 = [];
for await (const line of lines(join(DATA, "cve-json5/vulnrichment-2024.jsonl.gz"))) {
  const id = /"cveId":"(CVE-\d{4}-\d+)"/.exec(line)?.[1];
  if (!id || (Number(id.split("-")[2]) >= CVE5_BOUND && !CVE5_ALWAYS.has(id))) continue;
  cve5.push(line);
  ids.add(id);
}
write(join(OUT, "cve5/vulnrichment-2024-subset.jsonl.gz"), cve5.join("\n") + "\n");
counts.cve5 = cve5.length;

// cve5: the records of every year that the README's advisories name or that name its products.
{
  const out = [];
  for (const f of readdirSync(join(DATA, "cve-json5"))
    .filter((f) => /^vulnrichment-\d{4}\.jsonl\.gz$/.test(f))
    .sort()) {
    for await (const line of lines(join(DATA, "cve-json5", f))) {
      const id = /"cveId":"(CVE-\d{4}-\d+)"/.exec(line)?.[1];
      if (!id || ids.has(id)) continue;
      if (readmeCves.has(id) || README_PRODUCTS.some((re) => re.test(line))) {
        out.push(line);
        ids.add(id);
      }
    }
  }
  write(join(OUT, "cve5/vulnrichment-readme-examples.jsonl.gz"), out.join("\n") + "\n");
  counts.cve5_readme = out.length;
  // Their EPSS scores and PoCs too, record or not (a CVE known from its advisory alone).
  for (const id of readmeCves) ids.add(id);
}

// nvd: the first items of the 2025 NVD 1.1 feed (streamed item by item) and the two API 2.0 objects.
{
  const text = await new Promise((resolve, reject) => {
    let s = "";
    const z = createReadStream(join(DATA, "nvd/json-1.1-feeds/nvdcve-1.1-2025.json.gz")).pipe(createGunzip());
    z.setEncoding("utf8");
    z.on("data", (c) => {
      s += c;
      // Enough text for NVD_ITEMS items: stop reading.
      if ((s.match(/"CVE_data_meta"/g)?.length ?? 0) > NVD_ITEMS + 1) {
        z.destroy();
        resolve(s);
      }
    });
    z.on("end", () => resolve(s));
    z.on("error", reject);
  });
  const start = text.indexOf("[", text.indexOf('"CVE_Items"'));
  const items = [];
  let depth = 0,
    from = -1,
    inStr = false,
    esc = false;
  for (let i = start + 1; i < text.length && items.length < NVD_ITEMS; i++) {
    const c = text[i];
    if (inStr) {
      if (esc) esc = false;
      else if (c === "\\") esc = true;
      else if (c === '"') inStr = false;
      continue;
    }
    if (c === '"') inStr = true;
    else if (c === "{") {
      if (depth++ === 0) from = i;
    } else if (c === "}" && --depth === 0) items.push(JSON.parse(text.slice(from, i + 1)));
  }
  for (const it of items) ids.add(it.cve.CVE_data_meta.ID);
  write(
    join(OUT, "nvd/nvdcve-1.1-2025-subset.json.gz"),
    JSON.stringify({
      CVE_data_type: "CVE",
      CVE_data_format: "MITRE",
      CVE_data_version: "4.0",
      CVE_data_numberOfCVEs: String(items.length),
      CVE_Items: items,
    }),
  );
  for (const [dir, file] of [
    ["CVE-2024/CVE-2024-34xx", "CVE-2024-3400.json"],
    ["CVE-2023/CVE-2023-49xx", "CVE-2023-4966.json"],
  ]) {
    write(join(OUT, "nvd", `${file}.gz`), readFileSync(join(DATA, "nvd/api-2.0-sample", dir, file)));
    ids.add(file.replace(".json", ""));
  }
  counts.nvd = items.length + 2;
}

// kev: the whole catalog.
{
  const kev = readFileSync(join(DATA, "kev/known_exploited_vulnerabilities.json"), "utf8");
  write(join(OUT, "kev/known_exploited_vulnerabilities.json.gz"), kev);
  for (const v of JSON.parse(kev).vulnerabilities) ids.add(v.cveID);
  counts.kev = JSON.parse(kev).vulnerabilities.length;
}

// epss: the scores of the snapshot's CVEs (the file name carries the score date).
{
  const rows = ["cve,epss,percentile"];
  for await (const line of lines(join(DATA, "epss/epss_scores-2026-08-16.from-first-api.csv.gz"))) {
    if (ids.has(line.slice(0, line.indexOf(",")))) rows.push(line);
  }
  write(join(OUT, "epss/epss_scores-2026-08-16.csv.gz"), rows.join("\n") + "\n");
  counts.epss = rows.length - 1;
}

// poc: the trickest lines of the snapshot's CVEs.
{
  const out = [];
  for await (const line of lines(join(DATA, "poc/trickest/trickest-cve-poc.jsonl.gz"))) {
    const id = /"cve":"(CVE-\d{4}-\d+)"/.exec(line)?.[1];
    if (id && ids.has(id)) out.push(line);
  }
  write(join(OUT, "poc/trickest-cve-poc-subset.jsonl.gz"), out.join("\n") + "\n");
  counts.poc = out.length;
}

// osv: advisories naming a snapshot CVE, then the first others up to OSV_EXTRA.
{
  const out = [];
  let extra = 0;
  for await (const line of lines(join(DATA, "osv/osv-combined.jsonl.gz"))) {
    const adv = JSON.parse(line);
    if (readmeAdvisories.has(adv.id) || (adv.aliases ?? []).some((a) => ids.has(a))) out.push(line);
    else if (extra < OSV_EXTRA) {
      extra++;
      out.push(line);
    }
  }
  write(join(OUT, "osv/osv-subset.jsonl.gz"), out.join("\n") + "\n");
  counts.osv = out.length;
}

// certfr: the most recent avis.
{
  const last = [];
  for await (const line of lines(join(DATA, "certfr/certfr-all-json.jsonl.gz"))) {
    last.push(line);
    if (last.length > CERTFR_LAST) last.shift();
  }
  write(join(OUT, "certfr/certfr-recent.jsonl.gz"), last.join("\n") + "\n");
  counts.certfr = last.length;
}

// rss: the captured feeds, as served.
{
  let n = 0;
  for (const f of readdirSync(join(DATA, "rss/cyberdash-2025-07-24")).sort()) {
    write(join(OUT, "rss", `${f}.gz`), readFileSync(join(DATA, "rss/cyberdash-2025-07-24", f)));
    n++;
  }
  counts.rss = n;
}

// eol: every endoflife.date product page, as it is (the README's "End of life" examples name several).
{
  let n = 0;
  for (const f of readdirSync(join(DATA, "eol/products-md")).sort()) {
    if (!f.endsWith(".md")) continue;
    write(join(OUT, "eol", `${f}.gz`), readFileSync(join(DATA, "eol/products-md", f)));
    n++;
  }
  counts.eol = n;
}

process.stdout.write(JSON.stringify(counts) + "\n");

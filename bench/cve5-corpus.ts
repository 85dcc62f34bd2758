/**
 * Figures of the CVE 5 reading rules on the whole cisagov/vulnrichment corpus of ../shared/data
 * (`npx tsx bench/cve5-corpus.ts`; not part of `npm run bench`: it measures data, not speed):
 * 1. CNA vs ADP: records where the CNA and the CISA ADP both give versions of one product (the
 *    same product within the record: equal names, or the ADP's vendor + product spelling the CNA's
 *    product, "VMware ESXi" = vmware + esxi), those where the CNA's versions are text the rule
 *    leaves to the ADP, and those where the ADP range holds a version the CNA does not (a bound of
 *    either side, or "0", hit by the ADP rows and not by the CNA's): the ADP rows cnaDecides sets aside;
 * 2. `changes` inside version ranges: how many, and how many place a status change inside their range;
 * 3. update-style bounds ("8.0 U2d", "7.0 Update 3q"), ESXi image names, update lines rewritten;
 *    and in the NVD 1.1 feeds, VMware CPEs whose update field names an update (8.0:update_2c).
 * Every decision goes through the parser and decideAffected, as imports and matching do.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createReadStream } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createGunzip, gunzipSync } from "node:zlib";
import { esxiPatch, isReserved, parseCve5 } from "../src/feeds/cve5.js";
import { mergeCve, type MergedAffected } from "../src/feeds/merge.js";
import { cnaDecides, decideAffected, type AffectedRow } from "../src/matching/decide.js";
import { vendorKey } from "../src/matching/names.js";

const DATA = process.env.VIGIE_SHARED_DATA ?? "../shared/data";
const UPDATE_BOUND = /^\d+(?:\.\d+)*[\s_-]*(?:u|update)[\s_]*\d+[a-z]*$/i;

type Obj = Record<string, unknown>;
const objs = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter((x): x is Obj => typeof x === "object" && x !== null) : []);
const key = (s: string | null) => vendorKey(s);
const rowsOf = (rows: MergedAffected[]) => rows as unknown as AffectedRow[];

const tally = {
  records: 0,
  bothVersioned: 0,
  sameProduct: 0,
  sameProductName: 0,
  cnaText: 0,
  adpWider: 0,
  adpWiderProducts: 0,
  adpWiderExamples: [] as string[],
  changes: 0,
  changesRecords: 0,
  changesInside: 0,
  changesInsideRecords: 0,
  changesRuns: 0,
  changesExamples: [] as string[],
  updateBounds: 0,
  updateRecords: 0,
  esxiNames: 0,
  esxiRecords: 0,
  lineRows: 0,
  lineRecords: 0,
  examplesUpdate: [] as string[],
};

/** The rows of one product entry of a container (parsed alone, as the record's parser reads it). */
function entryRows(cveId: string, origin: "cna" | "adp", entry: Obj): MergedAffected[] {
  const container = { affected: [entry] };
  const record = {
    cveMetadata: { cveId, state: "PUBLISHED" },
    containers: origin === "cna" ? { cna: container } : { cna: {}, adp: [container] },
  };
  const data = parseCve5(record);
  if (isReserved(data)) return [];
  return mergeCve({ cve_id: cveId, contributions: [{ source: "cve5", data, source_modified: null }], advisories: [] })!.affected;
}

const versioned = (rows: MergedAffected[]) => rows.some((r) => r.version_from !== null || r.version_to !== null);

/** Same product within a record: equal names, or the ADP's vendor + product spelling the CNA's product. */
function sameProduct(cna: Obj, adp: Obj): "name" | "vendor+product" | null {
  const cp = key(String(cna.product ?? ""));
  const ap = key(String(adp.product ?? ""));
  if (!cp || !ap) return null;
  if (cp === ap) return "name";
  const av = key(String(adp.vendor ?? ""));
  const cv = key(String(cna.vendor ?? ""));
  return cp === av + ap || cv + cp === av + ap ? "vendor+product" : null;
}

function cnaVsAdp(cveId: string, cna: Obj, adps: Obj[]): void {
  const cnaEntries = objs(cna.affected)
    .map((e) => ({ e, rows: entryRows(cveId, "cna", e) }))
    .filter((x) => versioned(x.rows));
  const adpEntries = adps
    .flatMap((a) => objs(a.affected))
    .map((e) => ({ e, rows: entryRows(cveId, "adp", e) }))
    .filter((x) => versioned(x.rows));
  if (!cnaEntries.length || !adpEntries.length) return;
  tally.bothVersioned++;
  // One product may be several entries on either side (Apple: one macOS entry per line).
  const products = new Map<string, { e: Obj; cna: MergedAffected[]; adp: MergedAffected[]; byName: boolean }>();
  for (const c of cnaEntries) {
    const k = key(String(c.e.product ?? ""));
    const p = products.get(k) ?? { e: c.e, cna: [], adp: [], byName: false };
    p.cna.push(...c.rows);
    products.set(k, p);
  }
  for (const a of adpEntries) {
    for (const p of products.values()) {
      const link = sameProduct(p.e, a.e);
      if (!link) continue;
      p.adp.push(...a.rows);
      if (link === "name") p.byName = true;
    }
  }
  let same = false;
  let byName = false;
  let text = false;
  let wider = 0;
  for (const p of products.values()) {
    if (!p.adp.length) continue;
    same = true;
    byName ||= p.byName;
    // A CNA whose versions are text kept as written ("10.4.1, 10.4.2, 11.0.0") does not set the ADP aside.
    if (cnaDecides(rowsOf([...p.cna, ...p.adp])).some((r) => r.origin === "adp")) {
      text = true;
      continue;
    }
    const bounds = ["0", ...[...p.cna, ...p.adp].flatMap((r) => [r.version_from, r.version_to])].filter((v): v is string => !!v);
    const hit = bounds.find((v) => decideAffected(rowsOf(p.adp), null, v) && !decideAffected(rowsOf(p.cna), null, v));
    if (hit) {
      wider++;
      tally.adpWiderExamples.push(`${cveId} ${String(p.e.product)} ${hit}`);
    }
  }
  if (same) tally.sameProduct++;
  if (byName) tally.sameProductName++;
  if (text) tally.cnaText++;
  if (wider) {
    tally.adpWider++;
    tally.adpWiderProducts += wider;
  }
}

function versionShapes(cveId: string, containers: Obj[]): void {
  let changes = 0;
  let inside = 0;
  let updates = 0;
  let esxi = 0;
  for (const c of containers) {
    for (const e of objs(c.affected)) {
      for (const v of objs(e.versions)) {
        for (const b of [v.version, v.lessThan, v.lessThanOrEqual]) {
          if (typeof b !== "string") continue;
          if (UPDATE_BOUND.test(b.trim())) updates++;
          if (esxiPatch(b.trim())) esxi++;
        }
        if (!Array.isArray(v.changes) || !v.changes.length) continue;
        changes++;
        const rows = entryRows(cveId, "cna", { ...e, versions: [v] });
        if (rows.length > 1) {
          inside++;
          // A run of changes to one status, read per release line (see backports in cve5.ts).
          if (new Set(objs(v.changes).map((c) => c.status)).size === 1 && v.changes.length > 1) tally.changesRuns++;
          if (tally.changesExamples.length < 12) tally.changesExamples.push(`${cveId} ${String(e.product)}`);
        }
      }
      const lines = entryRows(cveId, "cna", e).filter((r) => r.version_from && / U\d+$/.test(r.version_from));
      if (lines.length) {
        tally.lineRows += lines.length;
        tally.lineRecords++;
        if (tally.examplesUpdate.length < 12)
          tally.examplesUpdate.push(`${cveId} ${String(e.product)} [${lines[0]!.version_from}, ${lines[0]!.version_to}[`);
      }
    }
  }
  tally.changes += changes;
  if (changes) tally.changesRecords++;
  tally.changesInside += inside;
  if (inside) tally.changesInsideRecords++;
  tally.updateBounds += updates;
  if (updates) tally.updateRecords++;
  tally.esxiNames += esxi;
  if (esxi) tally.esxiRecords++;
}

async function scanCve5(): Promise<void> {
  const dir = join(DATA, "cve-json5");
  for (const file of readdirSync(dir).filter((f) => /^vulnrichment-\d{4}\.jsonl\.gz$/.test(f))) {
    for await (const line of createInterface({ input: createReadStream(join(dir, file)).pipe(createGunzip()), crlfDelay: Infinity })) {
      if (!line) continue;
      const r = JSON.parse(line) as { cveMetadata: { cveId: string }; containers: { cna: Obj; adp?: Obj[] } };
      tally.records++;
      const cna = r.containers.cna;
      const adps = objs(r.containers.adp);
      cnaVsAdp(r.cveMetadata.cveId, cna, adps);
      versionShapes(r.cveMetadata.cveId, [cna, ...adps]);
    }
  }
}

/** NVD 1.1: VMware ESXi / vCenter CPE matches whose update field names an update. */
function scanNvd(): { matches: number; cves: number } {
  const dir = join(DATA, "nvd", "json-1.1-feeds");
  let matches = 0;
  const cves = new Set<string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".json.gz"))) {
    const feed = JSON.parse(gunzipSync(readFileSync(join(dir, file))).toString("utf8")) as { CVE_Items: Obj[] };
    for (const item of feed.CVE_Items) {
      const id = String(((item.cve as Obj).CVE_data_meta as Obj).ID);
      const walk = (nodes: Obj[]): void => {
        for (const n of nodes) {
          for (const m of objs(n.cpe_match)) {
            const p = String(m.cpe23Uri).split(":");
            if (p[3] === "vmware" && (p[4] === "esxi" || p[4] === "vcenter_server") && /^(u|update)_?\d/.test(p[6] ?? "")) {
              matches++;
              cves.add(id);
            }
          }
          walk(objs(n.children));
        }
      };
      walk(objs((item.configurations as Obj | undefined)?.nodes));
    }
  }
  return { matches, cves: cves.size };
}

await scanCve5();
const nvd = scanNvd();
console.log(
  JSON.stringify(
    {
      cve5_records: tally.records,
      cna_adp: {
        records_both_versioned: tally.bothVersioned,
        records_same_product: tally.sameProduct,
        records_same_product_by_equal_name: tally.sameProductName,
        records_cna_without_readable_versions: tally.cnaText,
        records_adp_wider: tally.adpWider,
        products_adp_wider: tally.adpWiderProducts,
        examples: [...tally.adpWiderExamples.slice(0, 4), ...tally.adpWiderExamples.filter((_, i) => i % 150 === 149)],
      },
      changes: {
        version_items: tally.changes,
        records: tally.changesRecords,
        items_changing_inside_range: tally.changesInside,
        records_changing_inside_range: tally.changesInsideRecords,
        items_with_a_run_of_one_status: tally.changesRuns,
        examples: tally.changesExamples,
      },
      updates: {
        update_style_bounds: tally.updateBounds,
        records: tally.updateRecords,
        esxi_image_names: tally.esxiNames,
        esxi_records: tally.esxiRecords,
        update_line_rows: tally.lineRows,
        update_line_entries: tally.lineRecords,
        examples: tally.examplesUpdate,
        nvd_vmware_update_cpes: nvd.matches,
        nvd_vmware_update_cves: nvd.cves,
      },
    },
    null,
    2,
  ),
);

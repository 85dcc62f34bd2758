import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { importFeed } from "../src/feeds/import.js";
import { StatsService } from "../src/modules/stats/stats.service.js";
import { bearer, createTestApp, tenantWithScopes } from "./helpers.js";

/**
 * The statistics endpoints against a direct computation: the fixture (test/fixtures/stats, real
 * records, see its README) is read here in plain JS, each figure is recomputed from it, and the
 * endpoint must give the same. The period P (2024-01-01 → 2024-06-30) has CVEs published on both
 * sides of midnight in Paris at its month, quarter and end boundaries.
 */

const D = "test/fixtures/stats";
const t = await createTestApp();
const db = t.database.db;

// ---------------------------------------------------------------------------------------------
// The fixture, read in plain JS

const PARIS = new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Paris", year: "numeric", month: "2-digit", day: "2-digit" });
/** The Paris calendar day of a timestamp (one without an offset is UTC, as the sources mean it). */
const parisDay = (ts: string | null | undefined): string | null =>
  ts ? PARIS.format(new Date(/(Z|[+-]\d\d:\d\d)$/.test(ts) ? ts : `${ts}Z`)) : null;
const todayParis = () => PARIS.format(new Date());
const DAY_MS = 86_400_000;
const daysBetween = (a: string, b: string) => Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY_MS);
const lines = (file: string) =>
  readFileSync(`${D}/${file}`, "utf8")
    .split("\n")
    .filter((l) => l.trim());

interface Cve5Meta {
  cveId: string;
  state: string;
  datePublished?: string;
  dateReserved?: string;
  dateUpdated?: string;
  assignerShortName?: string;
}
const cve5 = lines("cve5.jsonl").map((l) => (JSON.parse(l) as { cveMetadata: Cve5Meta }).cveMetadata);
const nvd = ["nvd2-CVE-2024-3400.json", "nvd2-CVE-2023-4966.json"].map(
  (f) => JSON.parse(readFileSync(`${D}/${f}`, "utf8")) as { id: string; published: string; lastModified: string; sourceIdentifier: string },
);
const kevCatalog = (JSON.parse(readFileSync(`${D}/kev.json`, "utf8")) as { vulnerabilities: { cveID: string; dateAdded: string }[] })
  .vulnerabilities;
const EPSS_FILES = ["2026-08-09", "2026-08-16"] as const;
const epssRows = EPSS_FILES.map((date) => ({
  date,
  rows: lines(`epss_scores-${date}.csv`)
    .slice(1)
    .map((l) => l.split(",") as [string, string, string]),
}));
const trickest = lines("poc-trickest.jsonl").map((l) => (JSON.parse(l) as { cve: string }).cve);

/**
 * What the merge decides from several sources (read off the records, cited in the README): the
 * retained CVSS base score (highest version, CNA first), the vendor and product shown and their
 * keys, the CWEs (CVE record + KEV), whether a PoC counts (CVE-2024-27294's only trickest link is
 * the fkie-cad NVD mirror, an aggregator: no PoC) and the first PoC day (nomi-sec created_at).
 */
const MERGED: Record<
  string,
  {
    cvss: number | null;
    vendor: string | null;
    product: string | null;
    productKey: string | null;
    cwes: string[];
    poc: boolean;
    pocFirst?: string;
  }
> = {
  "CVE-2021-44228": {
    cvss: null,
    vendor: "Apache",
    product: "Log4j2",
    productKey: "log4j2",
    cwes: ["CWE-20", "CWE-400", "CWE-502"],
    poc: false,
  },
  "CVE-2023-48788": {
    cvss: 9.3,
    vendor: "Fortinet",
    product: "FortiClientEMS",
    productKey: "forticlientems",
    cwes: ["CWE-89"],
    poc: false,
  },
  "CVE-2023-4966": {
    cvss: 7.5,
    vendor: "citrix",
    product: "netscaler_application_delivery_controller",
    productKey: "netscaler_application_delivery_controller",
    cwes: ["CWE-119"],
    poc: false,
  },
  "CVE-2024-0001": {
    cvss: 10,
    vendor: "Pure Storage",
    product: "FlashArray",
    productKey: "flasharray",
    cwes: ["CWE-1188"],
    poc: true,
    pocFirst: "2024-03-04",
  },
  "CVE-2024-0403": { cvss: 5.3, vendor: "Recipes", product: "Recipes", productKey: "recipes", cwes: ["CWE-918"], poc: false },
  "CVE-2024-1216": { cvss: null, vendor: null, product: null, productKey: null, cwes: [], poc: false },
  "CVE-2024-1709": {
    cvss: 10,
    vendor: "ConnectWise",
    product: "ScreenConnect",
    productKey: "screenconnect",
    cwes: ["CWE-288"],
    poc: false,
  },
  "CVE-2024-2016": { cvss: 6.3, vendor: "zhicms", product: "zhicms", productKey: "zhicms", cwes: ["CWE-94"], poc: false },
  "CVE-2024-2045": { cvss: 4.4, vendor: "Session", product: "Session", productKey: "session", cwes: ["CWE-22"], poc: false },
  "CVE-2024-21338": {
    cvss: 7.8,
    vendor: "Microsoft",
    product: "Windows 10 Version 1809",
    productKey: "windows_10_version_1809",
    cwes: ["CWE-822"],
    poc: false,
  },
  "CVE-2024-21412": {
    cvss: 8.1,
    vendor: "Microsoft",
    product: "Windows 11 version 21H2",
    productKey: "windows_11_version_21h2",
    cwes: ["CWE-693"],
    poc: true,
  },
  "CVE-2024-21762": { cvss: 9.6, vendor: "Fortinet", product: "FortiProxy", productKey: "fortiproxy", cwes: ["CWE-787"], poc: false },
  "CVE-2024-21893": { cvss: 8.2, vendor: "Ivanti", product: "ICS", productKey: "ics", cwes: ["CWE-918"], poc: true },
  "CVE-2024-23113": {
    cvss: 9.8,
    vendor: "Fortinet",
    product: "FortiSwitchManager",
    productKey: "fortiswitchmanager",
    cwes: ["CWE-134"],
    poc: false,
  },
  "CVE-2024-24919": {
    cvss: 8.6,
    vendor: "checkpoint",
    product: "Check Point Quantum Gateway, Spark Gateway and CloudGuard Network",
    productKey: "check_point_quantum_gateway,_spark_gateway_and_cloudguard_network",
    cwes: ["CWE-200"],
    poc: true,
  },
  "CVE-2024-27294": {
    cvss: 7.3,
    vendor: "danielparks",
    product: "puppet-golang",
    productKey: "puppet-golang",
    cwes: ["CWE-732"],
    poc: false,
  },
  "CVE-2024-3400": {
    cvss: 10,
    vendor: "Palo Alto Networks",
    product: "PAN-OS",
    productKey: "pan-os",
    cwes: ["CWE-20", "CWE-77"],
    poc: true,
  },
  "CVE-2024-34703": { cvss: 7.5, vendor: "randombit", product: "botan", productKey: "botan", cwes: ["CWE-405", "CWE-770"], poc: false },
  "CVE-2024-37383": { cvss: 6.1, vendor: "roundcube", product: "webmail", productKey: "webmail", cwes: ["CWE-79"], poc: false },
  "CVE-2024-4577": { cvss: 9.8, vendor: "PHP Group", product: "PHP", productKey: "php", cwes: ["CWE-78"], poc: true },
  "CVE-2024-6416": { cvss: 5.3, vendor: null, product: null, productKey: null, cwes: ["CWE-89"], poc: false },
  "CVE-2024-6419": {
    cvss: 5.3,
    vendor: "SourceCodester",
    product: "Medicine Tracker System",
    productKey: "medicine_tracker_system",
    cwes: ["CWE-89"],
    poc: false,
  },
};

const severityOf = (s: number | null) =>
  s === null ? "unknown" : s === 0 ? "none" : s < 4 ? "low" : s < 7 ? "medium" : s < 9 ? "high" : "critical";
const vendorKeyOf = (v: string | null) => (v ? v.toLowerCase().replace(/[\s_.,-]+/g, "") : null);
const latest = (...ts: (string | undefined)[]) =>
  ts.filter((x): x is string => !!x).sort((a, b) => Date.parse(/Z$/.test(b) ? b : `${b}Z`) - Date.parse(/Z$/.test(a) ? a : `${a}Z`))[0];

interface Fact {
  id: string;
  state: string;
  day: string | null;
  published: string | null;
  updated: string | null;
  reserved: string | null;
  kevAdded: string | null;
  pocFirst: string | null;
  epssFirst: string | null;
  epss: number | null;
  cvss: number | null;
  severity: string;
  kev: boolean;
  poc: boolean;
  maturite: string;
  assigner: string | null;
  vendorKey: string | null;
  vendor: string | null;
  productKey: string | null;
  product: string | null;
  cwes: string[];
  sources: string[];
}

function factsOf(): Fact[] {
  const ids = [...new Set([...cve5.map((c) => c.cveId), ...nvd.map((n) => n.id), ...kevCatalog.map((k) => k.cveID)])].sort();
  return ids.map((id) => {
    const c = cve5.find((x) => x.cveId === id);
    const n = nvd.find((x) => x.id === id);
    const k = kevCatalog.find((x) => x.cveID === id);
    const m = MERGED[id]!;
    const state = c?.state ?? "PUBLISHED";
    const published = parisDay(c ? c.datePublished : n?.published);
    const updated = parisDay(latest(c?.dateUpdated, n?.lastModified));
    const reserved = parisDay(c?.dateReserved);
    const scored = epssRows.filter((f) => f.rows.some((r) => r[0] === id));
    const sources = [
      ...(c ? ["cve5"] : []),
      ...(k ? ["kev"] : []),
      ...(n ? ["nvd"] : []),
      ...(id === "CVE-2024-0001" ? ["poc:nomi-sec"] : []),
      ...(trickest.includes(id) ? ["poc:trickest"] : []),
    ];
    return {
      id,
      state,
      day: state === "PUBLISHED" ? published : state === "REJECTED" ? (published ?? updated) : reserved,
      published,
      updated,
      reserved,
      kevAdded: k?.dateAdded ?? null,
      pocFirst: m.pocFirst ?? null,
      epssFirst: scored[0]?.date ?? null,
      epss: scored.length ? Number(scored.at(-1)!.rows.find((r) => r[0] === id)![1]) : null,
      cvss: m.cvss,
      severity: severityOf(m.cvss),
      kev: !!k,
      poc: m.poc,
      maturite: k ? "in_the_wild" : m.poc ? "poc" : "none",
      assigner: c?.assignerShortName ?? n?.sourceIdentifier ?? null,
      vendorKey: vendorKeyOf(m.vendor),
      vendor: m.vendor,
      productKey: m.productKey,
      product: m.product,
      cwes: m.cwes,
      sources,
    };
  });
}
const FACTS = factsOf();

// ---------------------------------------------------------------------------------------------
// The direct computation

type Range = { from: string; to: string };
const P: Range = { from: "2024-01-01", to: "2024-06-30" };
const inRange = (d: string | null, r: Range) => d !== null && d >= r.from && d <= r.to;
const population = (r: Range, only?: string[]) =>
  FACTS.filter((f) => f.state === "PUBLISHED" && inRange(f.day, r) && (!only || only.includes(f.id)));
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
/** Half up on the decimal value (the API rounds exact numeric means): 12 significant digits drop the binary noise (2.55486 / 4 = 0.63871499…). */
const round = (x: number | null, d: number) => (x === null ? null : Math.round(Number((x * 10 ** d).toPrecision(12))) / 10 ** d);
const pctOf = (part: number, whole: number) => (whole > 0 ? Math.round((part * 10_000) / whole) / 100 : 0);

function expectedTotals(r: Range, only?: string[]) {
  const pop = population(r, only);
  const scoped = FACTS.filter((f) => !only || only.includes(f.id));
  const published = pop.length;
  const rejected = scoped.filter((f) => f.state === "REJECTED" && inRange(f.day, r)).length;
  const reserved = scoped.filter((f) => f.state === "RESERVED" && inRange(f.day, r)).length;
  return {
    from: r.from,
    to: r.to,
    total: published + rejected + reserved,
    published,
    rejected,
    reserved,
    kev: pop.filter((f) => f.kev).length,
    poc: pop.filter((f) => f.poc).length,
    triple_threat: pop.filter((f) => f.kev && f.poc && f.epss !== null && f.epss >= 0.5).length,
    avg_cvss: round(mean(pop.flatMap((f) => (f.cvss === null ? [] : [f.cvss]))), 2),
    avg_epss: round(mean(pop.flatMap((f) => (f.epss === null ? [] : [f.epss]))), 5),
    without_date: scoped.filter((f) => f.state === "PUBLISHED" && f.day === null).length,
    // The fixture holds no CVE that only an advisory cites (test/reference-only.test.ts does).
    reference_only: 0,
    newest_published: scoped.reduce<string | null>((n, f) => (f.state === "PUBLISHED" && f.day && (!n || f.day > n) ? f.day : n), null),
  };
}

type Dim = "vendor" | "product" | "cwe" | "severity" | "assigner" | "source";
/** The values a CVE counts under in a dimension, with their display label. */
function valuesOf(f: Fact, d: Dim): { value: string; label: string }[] {
  switch (d) {
    case "vendor":
      return f.vendorKey ? [{ value: f.vendorKey, label: f.vendor! }] : [];
    case "product":
      return f.productKey ? [{ value: f.productKey, label: f.product! }] : [];
    case "cwe":
      return f.cwes.map((c) => ({ value: c, label: c }));
    case "severity":
      return [{ value: f.severity, label: f.severity }];
    case "assigner":
      return f.assigner ? [{ value: f.assigner, label: f.assigner }] : [];
    case "source":
      return f.sources.map((s) => ({ value: s, label: SOURCE_NAMES[s] ?? s }));
  }
}
const SOURCE_NAMES: Record<string, string> = {
  cve5: "CVE List (CVE JSON 5)",
  nvd: "NVD",
  kev: "CISA KEV",
  "poc:trickest": "PoC trickest/cve",
  "poc:nomi-sec": "PoC nomi-sec/PoC-in-GitHub",
};

type Sort = "total" | "critical" | "high" | "kev" | "poc" | "avg_cvss" | "avg_epss";
function expectedTop(r: Range, d: Dim, sort: Sort, limit: number, opts: { kevOnly?: boolean; only?: string[] } = {}) {
  const pop = population(r, opts.only).filter((f) => !opts.kevOnly || f.kev);
  const groups = new Map<string, { label: string; cves: Fact[] }>();
  for (const f of pop)
    for (const v of valuesOf(f, d)) {
      const g = groups.get(v.value) ?? { label: v.label, cves: [] };
      g.cves.push(f);
      groups.set(v.value, g);
    }
  const items = [...groups].map(([value, g]) => {
    const cvss = g.cves.flatMap((f) => (f.cvss === null ? [] : [f.cvss]));
    const epss = g.cves.flatMap((f) => (f.epss === null ? [] : [f.epss]));
    return {
      value,
      label: g.label,
      total: g.cves.length,
      critical: g.cves.filter((f) => f.severity === "critical").length,
      high: g.cves.filter((f) => f.severity === "high").length,
      kev: g.cves.filter((f) => f.kev).length,
      poc: g.cves.filter((f) => f.poc).length,
      share_pct: pctOf(g.cves.length, pop.length),
      avg_cvss: round(mean(cvss), 2),
      avg_epss: round(mean(epss), 5),
      rawCvss: mean(cvss),
      rawEpss: mean(epss),
    };
  });
  const key = (i: (typeof items)[number]) =>
    sort === "avg_cvss" ? (i.rawCvss ?? -1) : sort === "avg_epss" ? (i.rawEpss ?? -1) : i[sort === "total" ? "total" : sort];
  items.sort((a, b) => key(b) - key(a) || b.total - a.total || (a.value < b.value ? -1 : 1));
  return {
    grand_total: pop.length,
    distinct_values: groups.size,
    without_value: pop.filter((f) => valuesOf(f, d).length === 0).length,
    items: items.slice(0, limit).map(({ rawCvss: _c, rawEpss: _e, ...i }, n) => ({ rank: n + 1, ...i })),
  };
}

type Granularity = "day" | "week" | "month" | "quarter" | "year";
const dayAfter = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
/** The period of a day: its label and first day (ISO weeks: Monday, week-year of the Thursday). */
function periodOf(day: string, g: Granularity): { period: string; start: string } {
  const [y, m] = [Number(day.slice(0, 4)), Number(day.slice(5, 7))];
  if (g === "day") return { period: day, start: day };
  if (g === "month") return { period: day.slice(0, 7), start: `${day.slice(0, 7)}-01` };
  if (g === "quarter") {
    const q = Math.ceil(m / 3);
    return { period: `${y}-Q${q}`, start: `${y}-${String(q * 3 - 2).padStart(2, "0")}-01` };
  }
  if (g === "year") return { period: `${y}`, start: `${y}-01-01` };
  const date = new Date(`${day}T00:00:00Z`);
  const monday = new Date(date.getTime() - ((date.getUTCDay() + 6) % 7) * DAY_MS);
  const thursday = new Date(monday.getTime() + 3 * DAY_MS);
  const weekYear = thursday.getUTCFullYear();
  const jan4 = new Date(Date.UTC(weekYear, 0, 4));
  const week1Monday = jan4.getTime() - ((jan4.getUTCDay() + 6) % 7) * DAY_MS;
  const week = Math.round((monday.getTime() - week1Monday) / (7 * DAY_MS)) + 1;
  return { period: `${weekYear}-W${String(week).padStart(2, "0")}`, start: monday.toISOString().slice(0, 10) };
}
/** Every period meeting the range, in order (walking its days). */
function periodsOf(r: Range, g: Granularity) {
  const out: { period: string; start: string }[] = [];
  for (let d = r.from; d <= r.to; d = dayAfter(d)) {
    const p = periodOf(d, g);
    if (out.at(-1)?.period !== p.period) out.push(p);
  }
  return out;
}

type Axis = "published" | "updated" | "kev_added" | "poc_published" | "epss_published";
const AXIS: Record<Axis, (f: Fact) => string | null> = {
  published: (f) => f.day,
  updated: (f) => f.updated,
  kev_added: (f) => f.kevAdded,
  poc_published: (f) => f.pocFirst,
  epss_published: (f) => f.epssFirst,
};
function expectedTimeseries(r: Range, axis: Axis, g: Granularity, only?: string[]) {
  const cves = FACTS.filter((f) => f.state === "PUBLISHED" && inRange(AXIS[axis](f), r) && (!only || only.includes(f.id)));
  const points = periodsOf(r, g).map((p) => {
    const inP = cves.filter((f) => periodOf(AXIS[axis](f)!, g).period === p.period);
    return {
      ...p,
      count: inP.length,
      critical: inP.filter((f) => f.severity === "critical").length,
      high: inP.filter((f) => f.severity === "high").length,
      kev: inP.filter((f) => f.kev).length,
      poc: inP.filter((f) => f.poc).length,
    };
  });
  return { from: r.from, to: r.to, axis, granularity: g, count: points.length, total: cves.length, points };
}

/** numpy's default (linear) percentile, = percentile_cont. */
function percentile(sorted: number[], p: number): number {
  const pos = (sorted.length - 1) * p;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}
function figures(days: number[]) {
  const s = [...days].sort((a, b) => a - b);
  if (!s.length) return { count: 0, mean: null, median: null, p90: null, min: null, max: null };
  return {
    count: s.length,
    mean: round(mean(s), 1),
    median: round(percentile(s, 0.5), 1),
    p90: round(percentile(s, 0.9), 1),
    min: s[0]!,
    max: s.at(-1)!,
  };
}
/** (end day, days) of a corpus delay metric. */
function delayPairs(metric: string, r: Range, only?: string[]): { end: string; days: number }[] {
  const [end, start] = {
    publication_to_kev: ["kevAdded", "published"],
    publication_to_poc: ["pocFirst", "published"],
    publication_to_epss: ["epssFirst", "published"],
    reservation_to_publication: ["published", "reserved"],
  }[metric] as [keyof Fact, keyof Fact];
  return FACTS.filter(
    (f) => f.state === "PUBLISHED" && inRange(f[end] as string | null, r) && f[start] !== null && (!only || only.includes(f.id)),
  ).map((f) => ({
    end: f[end] as string,
    days: daysBetween(f[start] as string, f[end] as string),
  }));
}

/** Shares of a list adding up to 100 exactly, each within a hundredth of the exact share. */
function expectShares(buckets: { total: number; share_pct: number }[]) {
  const sum = buckets.reduce((a, b) => a + b.total, 0);
  if (sum === 0) return;
  expect(buckets.reduce((a, b) => a + Math.round(b.share_pct * 100), 0)).toBe(10_000);
  for (const b of buckets) {
    expect(Math.abs(b.share_pct - (b.total * 100) / sum)).toBeLessThan(0.01 + 1e-9);
    expect(Math.round(b.share_pct * 100)).toBeCloseTo(b.share_pct * 100, 6);
  }
}

// ---------------------------------------------------------------------------------------------
// The app, the data, the tenants

const IMPORTS = [
  ["cve5", "cve5.jsonl"],
  ["nvd", "nvd2-CVE-2024-3400.json"],
  ["nvd", "nvd2-CVE-2023-4966.json"],
  ["kev", "kev.json"],
  ["epss", "epss_scores-2026-08-09.csv"],
  ["epss", "epss_scores-2026-08-16.csv"],
  ["poc", "poc-trickest.jsonl"],
  ["poc", "poc-nomi-sec/CVE-2024-0001.json"],
] as const;
for (const [source, file] of IMPORTS) {
  const r = await importFeed(db, source, [`${D}/${file}`]);
  if (r.errors.length) throw new Error(`${file}: ${JSON.stringify(r.errors)}`);
}

const a = await tenantWithScopes(t, "Alpha", ["stacks-write", "cases-write"]);
const b = await tenantWithScopes(t, "Beta", []);
const stack = await a.call("POST", "/stacks", {
  name: "Edge",
  items: [
    { item_type: "product", value: "fortinet:fortios" },
    { item_type: "product", value: "paloaltonetworks:pan-os" },
  ],
});
if (stack.statusCode !== 201) throw new Error(stack.body);
/** FortiOS is among the affected products of CVE-2024-21762 and CVE-2024-23113 (not CVE-2023-48788: FortiClientEMS); PAN-OS of CVE-2024-3400. */
const ALERTED = ["CVE-2024-21762", "CVE-2024-23113", "CVE-2024-3400"];

async function get<T = Record<string, unknown>>(path: string, query: Record<string, string | number | boolean> = {}, key = a.readKey) {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
  const res = await t.app.inject({ method: "GET", url: `/api/v1/stats/${path}${qs ? `?${qs}` : ""}`, headers: bearer(key) });
  return { status: res.statusCode, body: res.json() as T };
}
async function ok<T = Record<string, unknown>>(path: string, query: Record<string, string | number | boolean> = {}, key = a.readKey) {
  const r = await get<T>(path, query, key);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

describe("the fixture", () => {
  it("is what the facts say: the Paris day, the merge's score, vendor and PoC (per-CVE read)", async () => {
    // The direct computation rests on FACTS: its merge-decided fields are checked once against the CVE records served.
    for (const f of FACTS) {
      const res = await t.app.inject({ method: "GET", url: `/api/v1/cves/${f.id}`, headers: bearer(a.readKey) });
      expect(res.statusCode).toBe(200);
      const c = res.json() as Record<string, unknown>;
      expect({
        id: f.id,
        cvss: c.cvss_score,
        kev: c.is_kev,
        poc: c.has_poc,
        severity: c.severity,
        vendor: c.vendor,
        product: c.product,
      }).toEqual({
        id: f.id,
        cvss: f.cvss,
        kev: f.kev,
        poc: f.poc,
        severity: f.severity,
        vendor: f.vendor,
        product: f.product,
      });
    }
    // The boundary records: published after 22:00 UTC on 29 Feb / 30 June count on 1 March / 1 July in Paris.
    expect(Object.fromEntries(FACTS.filter((f) => /2024-(02-29|03-01|06-30|07-01)/.test(f.day ?? "")).map((f) => [f.id, f.day]))).toEqual({
      "CVE-2024-0403": "2024-03-01",
      "CVE-2024-2016": "2024-02-29",
      "CVE-2024-2045": "2024-03-01",
      "CVE-2024-27294": "2024-02-29",
      "CVE-2024-34703": "2024-06-30",
      "CVE-2024-6416": "2024-07-01",
      "CVE-2024-6419": "2024-07-01",
    });
  });
});

describe("totals", () => {
  it("count the period's published CVEs by Paris day, rejected apart, KEV-only without date outside every period", async () => {
    const e = expectedTotals(P);
    expect(e).toMatchObject({ published: 16, rejected: 1, reserved: 0, without_date: 1, triple_threat: 4 });
    expect(await ok("totals", P)).toEqual(e);
  });

  it("move a CVE published at 23:31 UTC on 29 February into March", async () => {
    for (const r of [
      { from: "2024-02-01", to: "2024-02-29" },
      { from: "2024-03-01", to: "2024-03-31" },
      { from: "2024-06-30", to: "2024-06-30" },
      { from: "2024-07-01", to: "2024-07-01" },
      { from: "2023-10-01", to: "2023-10-31" },
    ])
      expect(await ok("totals", r)).toEqual(expectedTotals(r));
    expect((await ok("totals", { from: "2024-03-01", to: "2024-03-31" })).published).toBe(3);
    expect((await ok("totals", { from: "2024-07-01", to: "2024-07-01" })).published).toBe(2);
  });

  it("leave a CVE without EPSS out of avg_epss (never a 0), and give null when no CVE is scored", async () => {
    const pop = population(P);
    const scored = pop.filter((f) => f.epss !== null);
    expect(scored.length).toBeLessThan(pop.length);
    const body = await ok("totals", P);
    expect(body.avg_epss).toBe(round(mean(scored.map((f) => f.epss!)), 5));
    // 30 June 2024: CVE-2024-34703 only, no EPSS score.
    expect(await ok("totals", { from: "2024-06-30", to: "2024-06-30" })).toMatchObject({ published: 1, avg_epss: null, avg_cvss: 7.5 });
    expect(await ok("totals", { from: "2025-01-01", to: "2025-01-31" })).toMatchObject({ published: 0, avg_epss: null, avg_cvss: null });
  });
});

describe("top", () => {
  const cases: [Dim, Sort, number, boolean][] = [
    ["vendor", "total", 10, false],
    ["vendor", "critical", 3, false],
    ["vendor", "avg_cvss", 100, false],
    ["vendor", "avg_epss", 5, false],
    ["product", "total", 4, false],
    ["cwe", "total", 100, false],
    ["cwe", "kev", 3, true],
    ["severity", "total", 10, false],
    ["severity", "poc", 10, false],
    ["assigner", "high", 100, false],
    ["source", "total", 10, false],
    ["source", "kev", 2, false],
  ];
  it.each(cases)("%s sorted by %s (limit %i, kev_only %s) is the direct count", async (dimension, sort, limit, kevOnly) => {
    const body = await ok("top", { ...P, dimension, sort, limit, kev_only: kevOnly });
    const e = expectedTop(P, dimension, sort, limit, { kevOnly });
    expect(body).toEqual({ from: P.from, to: P.to, period: null, dimension, label: expect.any(String), kev_only: kevOnly, sort, ...e });
    expect(body.items).toHaveLength(Math.min(limit, e.distinct_values));
  });

  it("labels the dimension and its values; the vendor key groups spellings; shares are of grand_total", async () => {
    const body = await ok<{ label: string; items: { value: string; label: string; share_pct: number; total: number }[] }>("top", {
      ...P,
      dimension: "vendor",
    });
    expect(body.label).toBe("Éditeur");
    expect(body.items.slice(0, 2).map((i) => [i.value, i.label, i.total, i.share_pct])).toEqual([
      ["fortinet", "Fortinet", 3, 18.75],
      ["microsoft", "Microsoft", 2, 12.5],
    ]);
    const sources = await ok<{ label: string; items: { value: string; label: string }[] }>("top", { ...P, dimension: "source" });
    expect(sources.label).toBe("Source");
    expect(sources.items.find((i) => i.value === "poc:trickest")?.label).toBe("PoC trickest/cve");
  });
});

describe("top: values missing", () => {
  it("a CVE without vendor counts in grand_total and without_value, not among the values (1 July 2024: CVE-2024-6416)", async () => {
    const r = { from: "2024-07-01", to: "2024-07-01" };
    const body = await ok("top", { ...r, dimension: "vendor" });
    expect(body).toMatchObject(expectedTop(r, "vendor", "total", 10));
    expect(body).toMatchObject({ grand_total: 2, distinct_values: 1, without_value: 1 });
    expect((body as { items: { share_pct: number }[] }).items[0]!.share_pct).toBe(50);
  });
});

describe("top/trend", () => {
  it.each([
    ["vendor", "month", 3],
    ["severity", "quarter", 5],
    ["cwe", "week", 2],
  ] as const)("%s per %s: the top %i values over the period, one point per period with 0s", async (dimension, granularity, limit) => {
    const body = await ok("top/trend", { ...P, dimension, granularity, limit });
    const top = expectedTop(P, dimension, "total", limit).items;
    const pop = population(P);
    const periods = periodsOf(P, granularity);
    expect(body).toEqual({
      from: P.from,
      to: P.to,
      dimension,
      granularity,
      series: top.map((i) => ({ value: i.value, label: i.label, total: i.total })),
      points: periods.map((p) => ({
        period: p.period,
        ...Object.fromEntries(
          top.map((i) => [
            i.value,
            pop.filter((f) => periodOf(f.day!, granularity).period === p.period && valuesOf(f, dimension).some((v) => v.value === i.value))
              .length,
          ]),
        ),
      })),
    });
  });
});

describe("timeseries", () => {
  const grid: [Axis, Granularity, Range][] = [
    ["published", "month", P],
    ["published", "quarter", { from: "2024-01-01", to: "2024-09-30" }],
    ["published", "week", { from: "2024-02-19", to: "2024-03-10" }],
    ["published", "day", { from: "2024-02-27", to: "2024-03-02" }],
    ["published", "year", { from: "2023-01-01", to: "2024-12-31" }],
    ["updated", "month", { from: "2024-01-01", to: "2025-12-31" }],
    ["kev_added", "month", { from: "2024-01-01", to: "2024-12-31" }],
    ["kev_added", "week", P],
    ["poc_published", "month", P],
    ["epss_published", "week", { from: "2026-08-01", to: "2026-08-31" }],
  ];
  it.each(grid)("%s per %s over %o is the direct count, empty periods present", async (axis, granularity, r) => {
    const body = await ok<{ count: number; points: { count: number }[] }>("timeseries", { ...r, axis, granularity });
    expect(body).toEqual(expectedTimeseries(r, axis, granularity));
    expect(body.count).toBe(body.points.length);
  });

  it("labels ISO weeks (2024-W09 holds 29 Feb and 1 March, Monday 26 Feb) and counts the boundary days on their Paris side", async () => {
    const body = await ok<{ points: { period: string; start: string; count: number }[] }>("timeseries", {
      from: "2024-02-19",
      to: "2024-03-10",
      granularity: "week",
    });
    expect(body.points.map((p) => [p.period, p.start, p.count])).toEqual([
      ["2024-W08", "2024-02-19", 1],
      ["2024-W09", "2024-02-26", 4],
      ["2024-W10", "2024-03-04", 0],
    ]);
    const days = await ok<{ points: { period: string; count: number }[] }>("timeseries", {
      from: "2024-02-28",
      to: "2024-03-01",
      granularity: "day",
    });
    expect(days.points.map((p) => [p.period, p.count])).toEqual([
      ["2024-02-28", 0],
      ["2024-02-29", 2],
      ["2024-03-01", 2],
    ]);
    // A week across the new year belongs to the year of its Thursday; the first period may start before `from`.
    const ny = await ok<{ points: { period: string; start: string }[] }>("timeseries", {
      from: "2024-12-30",
      to: "2025-01-06",
      granularity: "week",
    });
    expect(ny.points.map((p) => [p.period, p.start])).toEqual([
      ["2025-W01", "2024-12-30"],
      ["2025-W02", "2025-01-06"],
    ]);
    const q = await ok<{ points: { period: string; count: number }[] }>("timeseries", {
      from: "2024-01-01",
      to: "2024-09-30",
      granularity: "quarter",
    });
    expect(q.points.map((p) => [p.period, p.count])).toEqual([
      ["2024-Q1", 11],
      ["2024-Q2", 5],
      ["2024-Q3", 3],
    ]);
  });
});

describe("distribution", () => {
  const CVSS_LABELS = [...Array.from({ length: 10 }, (_, i) => (i === 9 ? "9.0-10.0" : `${i}.0-${i}.9`)), "sans_score"];
  const EPSS_LINEAR = [...Array.from({ length: 10 }, (_, i) => `${(i / 10).toFixed(1)}-${((i + 1) / 10).toFixed(1)}`), "sans_score"];
  const EPSS_LOG = ["<0.0001", "0.0001-0.001", "0.001-0.01", "0.01-0.1", "0.1-1.0", "sans_score"];
  const AGE = ["0-6j", "7-29j", "30-89j", "90-364j", "1-2ans", "2-5ans", "5ans+"];
  const bucketOf: Record<string, (f: Fact, r: Range) => string> = {
    cvss: (f) => (f.cvss === null ? "sans_score" : CVSS_LABELS[Math.min(Math.floor(f.cvss), 9)]!),
    "epss-linear": (f) => (f.epss === null ? "sans_score" : EPSS_LINEAR[Math.min(Math.floor(f.epss * 10), 9)]!),
    "epss-log": (f) =>
      f.epss === null ? "sans_score" : EPSS_LOG[f.epss < 0.0001 ? 0 : f.epss < 0.001 ? 1 : f.epss < 0.01 ? 2 : f.epss < 0.1 ? 3 : 4]!,
    severity: (f) => f.severity,
    maturite_exploit: (f) => f.maturite,
    age: (f, r) => {
      const d = daysBetween(f.day!, r.to);
      return AGE[d < 7 ? 0 : d < 30 ? 1 : d < 90 ? 2 : d < 365 ? 3 : d < 730 ? 4 : d < 1825 ? 5 : 6]!;
    },
  };
  const ORDER: Record<string, string[]> = {
    cvss: CVSS_LABELS,
    "epss-linear": EPSS_LINEAR,
    "epss-log": EPSS_LOG,
    severity: ["none", "low", "medium", "high", "critical", "unknown"],
    maturite_exploit: ["none", "poc", "functional", "in_the_wild"],
    age: AGE,
  };
  const expectedBuckets = (names: string[], of: (f: Fact) => string, pop: Fact[]) =>
    names.map((bucket) => {
      const inB = pop.filter((f) => of(f) === bucket);
      const withPoc = inB.filter((f) => f.poc).length;
      return { bucket, total: inB.length, with_poc: withPoc, kev: inB.filter((f) => f.kev).length, poc_pct: pctOf(withPoc, inB.length) };
    });

  it.each([
    ["cvss", "linear", P],
    ["epss", "linear", P],
    ["epss", "log", P],
    ["severity", "linear", P],
    ["maturite_exploit", "linear", P],
    ["age", "linear", P],
    ["age", "linear", { from: "2023-10-01", to: "2024-10-01" }],
  ] as const)("%s (%s) over %o: buckets in natural order, direct counts, shares adding up to 100", async (metric, scale, r) => {
    const body = await ok<{ grand_total: number; buckets: { bucket: string; total: number; share_pct: number }[] }>("distribution", {
      ...r,
      metric,
      scale,
    });
    const key = metric === "epss" ? `epss-${scale}` : metric;
    const pop = population(r);
    const e = expectedBuckets(ORDER[key]!, (f) => bucketOf[key]!(f, r), pop);
    expect(body).toMatchObject({ from: r.from, to: r.to, metric, label: expect.any(String), grand_total: pop.length });
    expect(body.buckets.map(({ share_pct: _s, ...x }) => x)).toEqual(e);
    expect(body.buckets.reduce((s, x) => s + x.total, 0)).toBe(pop.length);
    expectShares(body.buckets);
  });

  it("cwe: (CVE, CWE) pairs by count then id, then autres and sans_cwe; grand_total the CVEs", async () => {
    const pop = population(P);
    const counts = new Map<string, Fact[]>();
    for (const f of pop) for (const c of f.cwes) counts.set(c, [...(counts.get(c) ?? []), f]);
    const named = [...counts].sort((x, y) => y[1].length - x[1].length || (x[0] < y[0] ? -1 : 1));
    const row = (bucket: string, cves: Fact[]) => {
      const withPoc = cves.filter((f) => f.poc).length;
      return { bucket, total: cves.length, with_poc: withPoc, kev: cves.filter((f) => f.kev).length, poc_pct: pctOf(withPoc, cves.length) };
    };
    const e = [
      ...named.slice(0, 20).map(([c, cves]) => row(c, cves)),
      row(
        "autres",
        named.slice(20).flatMap(([, cves]) => cves),
      ),
      row(
        "sans_cwe",
        pop.filter((f) => !f.cwes.length),
      ),
    ];
    const body = await ok<{ grand_total: number; buckets: { bucket: string; total: number; share_pct: number }[] }>("distribution", {
      ...P,
      metric: "cwe",
    });
    expect(body.grand_total).toBe(pop.length);
    expect(body.buckets.map(({ share_pct: _s, ...x }) => x)).toEqual(e);
    expect(body.buckets[0]).toMatchObject({ bucket: "CWE-918", total: 2 });
    expectShares(body.buckets);
  });

  it("gives all-zero shares over an empty period, buckets still listed", async () => {
    const body = await ok<{ buckets: { total: number; share_pct: number }[] }>("distribution", {
      from: "2025-01-01",
      to: "2025-01-31",
      metric: "cvss",
    });
    expect(body.buckets).toHaveLength(11);
    expect(body.buckets.every((x) => x.total === 0 && x.share_pct === 0)).toBe(true);
  });
});

describe("delays", () => {
  const ranges: [string, Range, Granularity | undefined][] = [
    ["publication_to_kev", { from: "2024-01-01", to: "2024-12-31" }, "quarter"],
    ["publication_to_kev", P, "month"],
    ["publication_to_poc", P, "month"],
    ["publication_to_epss", { from: "2026-08-01", to: "2026-08-31" }, "week"],
    ["reservation_to_publication", P, "month"],
    ["reservation_to_publication", { from: "2024-01-01", to: "2024-12-31" }, undefined],
  ];
  it.each(ranges)("%s over %o by %s: count, mean, median, p90 (interpolated), min, max by hand", async (metric, r, granularity) => {
    const pairs = delayPairs(metric, r);
    expect(pairs.length).toBeGreaterThan(0);
    const body = await ok("delays", { ...r, metric, ...(granularity && { granularity }) });
    expect(body).toEqual({
      from: r.from,
      to: r.to,
      metric,
      unit: "days",
      granularity: granularity ?? null,
      overall: figures(pairs.map((p) => p.days)),
      points: granularity
        ? periodsOf(r, granularity).map((p) => ({
            ...p,
            ...figures(pairs.filter((x) => periodOf(x.end, granularity).period === p.period).map((x) => x.days)),
          }))
        : null,
    });
  });

  it("publication_to_kev over 2024: the figures written out", async () => {
    // KEV dateAdded − Paris publication day, for the 2024 KEV additions of published CVEs:
    // 21893 0, 21762 0, 21412 0, 1709 1, 21338 20, 48788 13, 3400 0, 24919 2, 4577 3, 23113 237, 37383 139.
    const body = await ok<{ overall: unknown }>("delays", { from: "2024-01-01", to: "2024-12-31", metric: "publication_to_kev" });
    expect(body.overall).toEqual({ count: 11, mean: 37.7, median: 2, p90: 139, min: 0, max: 237 });
  });

  it("keeps a negative delay: CVE-2024-0001's PoC repository predates its publication", async () => {
    const body = await ok<{ overall: unknown }>("delays", { ...P, metric: "publication_to_poc" });
    expect(body.overall).toEqual({ count: 1, mean: -203, median: -203, p90: -203, min: -203, max: -203 });
  });

  it("refuses a project metric without project_id (422)", async () => {
    for (const metric of ["publication_to_alert", "alert_to_case_closed"]) {
      const r = await get<{ detail: { loc: string[]; type: string }[] }>("delays", { ...P, metric });
      expect(r.status).toBe(422);
      expect(r.body.detail[0]).toMatchObject({ loc: ["query", "project_id"], msg: expect.stringContaining(metric) });
    }
  });
});

describe("a project's statistics", () => {
  const scope = { project_id: a.projectId };
  it("alerted exactly the CVEs of its stack items", async () => {
    const res = await a.call("GET", "/alerts?page_size=100");
    expect((res.json() as { items: { cve_id: string }[] }).items.map((x) => x.cve_id).sort()).toEqual(ALERTED);
  });

  it("count only the CVEs alerted in the project", async () => {
    expect(await ok("totals", { ...P, ...scope })).toEqual(expectedTotals(P, ALERTED));
    expect(await ok("top", { ...P, ...scope, dimension: "vendor" })).toMatchObject(
      expectedTop(P, "vendor", "total", 10, { only: ALERTED }),
    );
    expect(await ok("timeseries", { ...P, ...scope, granularity: "month" })).toEqual(expectedTimeseries(P, "published", "month", ALERTED));
    const dist = await ok<{ grand_total: number; buckets: { bucket: string; total: number }[] }>("distribution", {
      ...P,
      ...scope,
      metric: "severity",
    });
    expect(dist.grand_total).toBe(3);
    const trend = await ok<{ series: { value: string; total: number }[] }>("top/trend", {
      ...P,
      ...scope,
      dimension: "vendor",
      granularity: "quarter",
    });
    expect(trend.series).toEqual([
      { value: "fortinet", label: "Fortinet", total: 2 },
      { value: "paloaltonetworks", label: "Palo Alto Networks", total: 1 },
    ]);
    expect(trend).toMatchObject({
      points: [
        { period: "2024-Q1", fortinet: 2, paloaltonetworks: 0 },
        { period: "2024-Q2", fortinet: 0, paloaltonetworks: 1 },
      ],
    });
    const year = { from: "2024-01-01", to: "2024-12-31" };
    expect((await ok<{ overall: unknown }>("delays", { ...year, ...scope, metric: "publication_to_kev" })).overall).toEqual(
      figures(delayPairs("publication_to_kev", year, ALERTED).map((x) => x.days)),
    );
    expect(dist.buckets.filter((x) => x.total).map((x) => [x.bucket, x.total])).toEqual([["critical", 3]]);
  });

  it("publication_to_alert and alert_to_case_closed, by hand", async () => {
    const today = todayParis();
    const r = { from: "2024-01-01", to: today };
    const toAlert = await ok<{ overall: unknown }>("delays", { ...r, ...scope, metric: "publication_to_alert" });
    const days = ALERTED.map((id) => daysBetween(FACTS.find((f) => f.id === id)!.published!, today));
    expect(toAlert.overall).toEqual(figures(days));
    // No case closed yet.
    expect((await ok<{ overall: unknown }>("delays", { ...r, ...scope, metric: "alert_to_case_closed" })).overall).toMatchObject({
      count: 0,
      median: null,
    });
    expect((await a.call("PUT", "/cases/CVE-2024-3400", { status: "corrige" })).statusCode).toBeLessThan(300);
    expect((await a.call("PUT", "/cases/CVE-2024-21762", { status: "en_analyse" })).statusCode).toBeLessThan(300);
    // The cache must not serve the figures read before the case changed.
    const closed = await ok<{ overall: unknown; points: { period: string; count: number }[] }>("delays", {
      ...r,
      ...scope,
      metric: "alert_to_case_closed",
      granularity: "year",
    });
    expect(closed.overall).toEqual({ count: 1, mean: 0, median: 0, p90: 0, min: 0, max: 0 });
    expect(closed.points.at(-1)).toMatchObject({ period: today.slice(0, 4), count: 1 });
    expect((await a.call("PUT", "/cases/CVE-2024-21762", { status: "corrige" })).statusCode).toBe(200);
    expect((await ok<{ overall: { count: number } }>("delays", { ...r, ...scope, metric: "alert_to_case_closed" })).overall.count).toBe(2);
  });

  it("another organization's project is a 404 « Projet introuvable », so is one outside a restricted key", async () => {
    for (const path of ["totals", "top", "top/trend", "timeseries", "distribution", "delays"]) {
      const r = await get(path, { ...P, project_id: b.projectId });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Projet introuvable" });
    }
    const other = await t.services.projects.create({ orgId: a.orgId, name: "Staging" });
    const restricted = await t.services.apiKeys.create({ orgId: a.orgId, scopes: [], projectIds: [other.id] });
    const r = await get("totals", { ...P, project_id: a.projectId }, restricted.key);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ detail: "Projet introuvable" });
    expect((await get("totals", { ...P, project_id: other.id }, restricted.key)).status).toBe(200);
  });
});

describe("bad parameters: FastAPI-shaped 422", () => {
  const literal = (loc: string, input: string, expected: string) => ({
    type: "literal_error",
    loc: ["query", loc],
    msg: `Input should be ${expected}`,
    input,
    ctx: { expected },
  });
  it.each([
    ["top", { dimension: "os" }, literal("dimension", "os", "'vendor', 'product', 'cwe', 'severity', 'assigner' or 'source'")],
    ["top", { sort: "name" }, literal("sort", "name", "'total', 'critical', 'high', 'kev', 'poc', 'avg_cvss' or 'avg_epss'")],
    ["top/trend", { dimension: "os" }, literal("dimension", "os", "'vendor', 'product', 'cwe', 'severity', 'assigner' or 'source'")],
    ["distribution", { metric: "age2" }, literal("metric", "age2", "'cvss', 'epss', 'severity', 'cwe', 'maturite_exploit' or 'age'")],
    [
      "delays",
      { metric: "x" },
      literal(
        "metric",
        "x",
        "'publication_to_kev', 'publication_to_poc', 'publication_to_epss', 'reservation_to_publication', 'publication_to_alert' or 'alert_to_case_closed'",
      ),
    ],
    [
      "timeseries",
      { axis: "created" },
      literal("axis", "created", "'published', 'updated', 'kev_added', 'poc_published' or 'epss_published'"),
    ],
    ["timeseries", { granularity: "hour" }, literal("granularity", "hour", "'day', 'week', 'month', 'quarter' or 'year'")],
  ] as const)("%s %o: literal_error listing the allowed values", async (path, query, error) => {
    const r = await get<{ detail: unknown[] }>(path, query);
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([error]);
  });

  it("limit 0 and 101, a bad date, from after to, period with from", async () => {
    for (const limit of [0, 101]) {
      const r = await get<{ detail: { type: string; loc: string[] }[] }>("top", { limit });
      expect(r.status).toBe(422);
      expect(r.body.detail[0]).toMatchObject({ type: limit ? "less_than_equal" : "greater_than_equal", loc: ["query", "limit"] });
    }
    const bad = await get<{ detail: { loc: string[] }[] }>("totals", { from: "2024-02-30" });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]!.loc).toEqual(["query", "from"]);
    const reversed = await get<{ detail: { loc: string[] }[] }>("totals", { from: "2024-06-30", to: "2024-01-01" });
    expect(reversed.status).toBe(422);
    expect(reversed.body.detail[0]!.loc).toEqual(["query", "from"]);
    const both = await get<{ detail: { loc: string[] }[] }>("totals", { period: "30d", from: "2024-01-01" });
    expect(both.status).toBe(422);
    expect(both.body.detail[0]!.loc).toEqual(["query", "period"]);
  });
});

describe("the default period", () => {
  it("is the last 365 days ending today in Paris (a fixed clock: 30 June 2024 at 22:30 UTC is 1 July in Paris)", async () => {
    const service = new StatsService(db, () => new Date("2024-06-30T22:30:00Z"));
    const r = { from: "2023-07-03", to: "2024-07-01" };
    expect(await service.totals({})).toEqual(expectedTotals(r));
    expect((await service.totals({})).published).toBe(expectedTotals(r).published);
    const ts = await service.timeseries({ axis: "published", granularity: "month" });
    expect(ts).toEqual(expectedTimeseries(r, "published", "month"));
    // ytd: since 1 January (Paris).
    expect(await service.totals({ period: "ytd" })).toMatchObject({ from: "2024-01-01", to: "2024-07-01" });
  });

  it("through the API: nothing asked, the 365 days up to the newest publication day held (before today); asked, as asked", async () => {
    const today = todayParis();
    // The fixture's newest publication day (Paris), in 2024: the default period ends there.
    const newest = FACTS.reduce((n, f) => (f.state === "PUBLISHED" && f.day && f.day > n ? f.day : n), "");
    expect(newest.slice(0, 4)).toBe("2024");
    const from = new Date(Date.parse(`${newest}T00:00:00Z`) - 364 * DAY_MS).toISOString().slice(0, 10);
    expect(await ok("totals")).toMatchObject({ from, to: newest, newest_published: newest });
    expect(await ok("totals")).toEqual(expectedTotals({ from, to: newest }));
    // A `to` or `from` given: the period as asked, even when it holds nothing; newest_published says where the data ends.
    const yearAgo = new Date(Date.parse(`${today}T00:00:00Z`) - 364 * DAY_MS).toISOString().slice(0, 10);
    expect(await ok("totals", { to: today })).toMatchObject({ from: yearAgo, to: today, published: 0, newest_published: newest });
    expect(await ok("totals", { from: yearAgo })).toMatchObject({ from: yearAgo, to: today, published: 0 });
    const top = await ok("top", { period: "30d" });
    expect(top).toMatchObject({
      period: "30d",
      to: today,
      from: new Date(Date.parse(`${today}T00:00:00Z`) - 29 * DAY_MS).toISOString().slice(0, 10),
    });
  });
});

describe("fresh figures", () => {
  it("change at once when one more record is imported (the cache serves no stale figure)", async () => {
    const before = await ok<{ published: number }>("totals", P);
    const feb = await ok<{ points: { period: string; count: number }[] }>("timeseries", P);
    const late = JSON.parse(lines("cve5-late.jsonl")[0]!) as { cveMetadata: Cve5Meta };
    // CVE-2024-2015, published 29 Feb 2024 at 21:00:10 UTC: 22:00 in Paris, still February.
    expect(parisDay(late.cveMetadata.datePublished)).toBe("2024-02-29");
    const r = await importFeed(db, "cve5", [`${D}/cve5-late.jsonl`]);
    expect(r.errors).toEqual([]);
    expect((await ok<{ published: number }>("totals", P)).published).toBe(before.published + 1);
    const after = await ok<{ points: { period: string; count: number }[] }>("timeseries", P);
    expect(after.points.find((p) => p.period === "2024-02")!.count).toBe(feb.points.find((p) => p.period === "2024-02")!.count + 1);
  });
});

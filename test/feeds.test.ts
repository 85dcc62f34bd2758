import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importFeed } from "../src/feeds/import.js";
import { mergeIds } from "../src/feeds/cve-merge.js";
import { FormatError } from "../src/feeds/reader.js";
import { bearer, createTenant, createTestApp, createWorkflow, workflowsUrl } from "./helpers.js";

const t = await createTestApp();
const tenant = await createTenant(t);
const FIX = "test/fixtures/import";
const db = t.database.db;
const get = async (url: string) => t.app.inject({ method: "GET", url, headers: bearer(tenant.readKey) });
const tmp = mkdtempSync(join(tmpdir(), "vigie-feeds-"));

async function count(table: string): Promise<number> {
  const { rows } = (await t.database.executeSql(`select count(*)::int as n from ${table}`, [])) as { rows: { n: number }[] };
  return rows[0]!.n;
}

describe("importing the real feeds (small cited subsets)", () => {
  it("CVE JSON 5: stores records, keeps rejected ones, and a second import changes nothing", async () => {
    const first = await importFeed(db, "cve5", [`${FIX}/cve5-sample.jsonl`]);
    expect(first).toMatchObject({ source: "cve5", read: 4, inserted: 4, updated: 0, unchanged: 0, skipped: 0, errors: [] });
    const again = await importFeed(db, "cve5", [`${FIX}/cve5-sample.jsonl`]);
    expect(again).toMatchObject({ read: 4, inserted: 0, updated: 0, unchanged: 4 });
    // The same record pretty-printed (test/fixtures/feeds: values unchanged) is the same content: nothing rewritten.
    expect(await importFeed(db, "cve5", ["test/fixtures/feeds/cve5/CVE-2024-3400.json"])).toMatchObject({
      read: 1,
      inserted: 0,
      updated: 0,
      unchanged: 1,
    });
    expect(await importFeed(db, "cve5", [`${FIX}/cve5-sample.jsonl`])).toMatchObject({ read: 4, inserted: 0, updated: 0, unchanged: 4 });
    const rejected = (await get("/api/v1/cves/CVE-2024-1216")).json();
    expect(rejected.cve_id).toBe("CVE-2024-1216");
    // Rejected records are kept, out of the default list.
    expect(rejected.state).toBe("REJECTED");
    expect((await get("/api/v1/cves?page_size=100")).json().total).toBe(3);
    expect((await get("/api/v1/cves?state=all")).json().total).toBe(4);
    expect((await get("/api/v1/cves?state=rejected")).json().items.map((c: { cve_id: string }) => c.cve_id)).toEqual(["CVE-2024-1216"]);
  });

  it("counts every record read once: inserted, updated, unchanged or skipped", async () => {
    // The same two records twice in one import: the repeats are unchanged.
    const r = await importFeed(db, "nvd", [
      `${FIX}/nvd2-CVE-2024-3400.json`,
      `${FIX}/nvd2-CVE-2023-4966.json`,
      `${FIX}/nvd2-CVE-2024-3400.json`,
    ]);
    expect(r.inserted + r.updated + r.unchanged + r.skipped).toBe(r.read);
  });

  it("merges NVD, EPSS and KEV into CVE-2024-3400", async () => {
    await importFeed(db, "nvd", [`${FIX}/nvd2-CVE-2024-3400.json`, `${FIX}/nvd2-CVE-2023-4966.json`]);
    const epss = await importFeed(db, "epss", [`${FIX}/epss_scores-2026-08-16.csv`]);
    expect(epss).toMatchObject({ read: 5, inserted: 5, skipped: 0 });
    const kev = await importFeed(db, "kev", [`${FIX}/kev-sample.json`]);
    expect(kev).toMatchObject({ read: 3, inserted: 3 });
    const res = await get("/api/v1/cves/CVE-2024-3400");
    expect(res.statusCode).toBe(200);
    const cve = res.json();
    expect(cve).toMatchObject({
      cve_id: "CVE-2024-3400",
      severity: "critical",
      is_kev: true,
      epss_score: 0.99999,
      epss_percentile: 1,
      epss_publie: true,
    });
    expect(cve.cvss_score).toBe(10);
    expect(cve.vendor).toMatch(/palo alto/i);
    expect(cve.product).toMatch(/pan-os/i);
    expect(cve.affected.length).toBeGreaterThan(0);
    // Each range says which source states it (the CVE explorer groups them by source).
    const origins = new Set(cve.affected.map((a: { origin: string }) => a.origin));
    expect([...origins].sort()).toEqual(["adp", "cna", "kev"]);
    // 10.2.0 ≤ v < 10.2.9-h1, as the CNA states it.
    expect(cve.affected).toContainEqual(
      expect.objectContaining({
        origin: "cna",
        version_from: "10.2.0",
        version_from_inclusive: true,
        version_to: "10.2.9-h1",
        version_to_inclusive: false,
        version_status: "affected",
      }),
    );
    expect(cve.cwe_ids).toContain("CWE-77");
    // CVE-2023-4966 is known from NVD and KEV only.
    const citrix = (await get("/api/v1/cves/CVE-2023-4966")).json();
    expect(citrix).toMatchObject({ is_kev: true, epss_publie: true });
  });

  it("a CVE absent from every EPSS file has epss_score null and epss_publie false, never 0", async () => {
    const rejected = (await get("/api/v1/cves/CVE-2024-1216")).json();
    expect(rejected.epss_score).toBeNull();
    expect(rejected.epss_publie).toBe(false);
  });

  it("EPSS keeps each CVE's history; an older file does not replace a newer score", async () => {
    const older = await importFeed(db, "epss", [`${FIX}/epss_scores-2026-08-09.csv`]);
    expect(older.updated).toBe(0);
    const { rows } = (await t.database.executeSql(
      "select score_date::text as d from epss_scores where cve_id = 'CVE-2024-3400' order by 1",
      [],
    )) as { rows: { d: string }[] };
    expect(rows.map((r) => r.d)).toEqual(["2026-08-09", "2026-08-16"]);
    const header = join(tmp, "synthetic.csv");
    // Synthetic: the real daily CSV starts with this comment line (shared/data's copies lost it).
    writeFileSync(header, "#model_version:v2026.06.15,score_date:2026-08-20T12:03:07Z\ncve,epss,percentile\nCVE-2024-0001,0.01,0.6\n");
    await importFeed(db, "epss", [header]);
    expect((await get("/api/v1/cves/CVE-2024-0001")).json()).toMatchObject({ epss_score: 0.01, epss_percentile: 0.6 });
  });

  it("reports a malformed record with its file and line and skips it; a file of another format changes nothing", async () => {
    const mixed = join(tmp, "mixed.jsonl");
    const good = (await import("node:fs")).readFileSync(`${FIX}/cve5-sample.jsonl`, "utf8").split("\n")[0]!;
    writeFileSync(mixed, `${good}\n{"dataType": "CVE_RECORD", "cveMetadata": \n{"not": "a cve"}\n`);
    const r = await importFeed(db, "cve5", [mixed]);
    expect(r.read).toBe(3);
    expect(r.skipped).toBe(2);
    expect(r.errors.map((e) => e.line)).toEqual([2, 3]);
    expect(r.errors[0]!.file).toBe("mixed.jsonl");
    const before = await count("cve_sources");
    await expect(importFeed(db, "cve5", [`${FIX}/epss_scores-2026-08-16.csv`])).rejects.toThrow(FormatError);
    await expect(importFeed(db, "epss", [`${FIX}/kev-sample.json`])).rejects.toThrow(FormatError);
    await expect(importFeed(db, "kev", [`${FIX}/cve5-sample.jsonl`])).rejects.toThrow(FormatError);
    // A damaged gzip (cut in the middle) and a truncated JSON document: refused before any write.
    const { gzipSync } = await import("node:zlib");
    const { readFileSync } = await import("node:fs");
    // (three copies: longer than what the format check reads, so the damage is found by the full pass)
    const gz = gzipSync(readFileSync(`${FIX}/cve5-sample.jsonl`, "utf8").repeat(3));
    writeFileSync(join(tmp, "cut.jsonl.gz"), gz.subarray(0, Math.floor(gz.length * 0.9)));
    await expect(importFeed(db, "cve5", [join(tmp, "cut.jsonl.gz")])).rejects.toThrow(/fichier endommagé/);
    const kev = readFileSync(`${FIX}/kev-sample.json`, "utf8");
    writeFileSync(join(tmp, "kev-cut.json"), kev.slice(0, Math.floor(kev.length * 0.7)));
    await expect(importFeed(db, "kev", [join(tmp, "kev-cut.json")])).rejects.toThrow(/tronqué/);
    expect(await count("cve_sources")).toBe(before);
  });
});

describe("GET /api/v1/cves", () => {
  it("filters, sorts and pages; bad values get FastAPI-shaped 422s", async () => {
    const kev = (await get("/api/v1/cves?is_kev=true")).json();
    // CVE-2021-44228 is known from the KEV catalog alone: KEV entries create their CVE record.
    expect(kev.items.map((c: { cve_id: string }) => c.cve_id).sort()).toEqual(["CVE-2021-44228", "CVE-2023-4966", "CVE-2024-3400"]);
    const byVendor = (await get("/api/v1/cves?vendor=Palo%20Alto%20Networks")).json();
    expect(byVendor.items.map((c: { cve_id: string }) => c.cve_id)).toContain("CVE-2024-3400");
    const q = (await get("/api/v1/cves?q=OpenSSH")).json();
    expect(q.items.map((c: { cve_id: string }) => c.cve_id)).toContain("CVE-2024-6387");
    const sev = (await get("/api/v1/cves?severity=critical&severity=high&sort=-epss")).json();
    expect(sev.items.every((c: { severity: string }) => ["critical", "high"].includes(c.severity))).toBe(true);
    const epss = sev.items.map((c: { epss_score: number | null }) => c.epss_score ?? -1);
    expect(epss).toEqual([...epss].sort((a: number, b: number) => b - a));
    const page = (await get("/api/v1/cves?page=2&page_size=2")).json();
    expect(page).toMatchObject({ page: 2, page_size: 2 });
    expect(page.items).toHaveLength(2);
    const bad = await get("/api/v1/cves?page=0&page_size=101&severity=severe&min_cvss=x");
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail.map((d: { type: string; loc: string[] }) => `${d.type}:${d.loc.join(".")}`)).toEqual([
      "literal_error:query.severity.0",
      "float_parsing:query.min_cvss",
      "greater_than_equal:query.page",
      "less_than_equal:query.page_size",
    ]);
    expect((await get("/api/v1/cves/CVE-1999-99999")).json()).toEqual({ detail: "CVE introuvable" });
  });
});

describe("PoC, OSV, CERT-FR and RSS imports", () => {
  const FEEDS = "test/fixtures/feeds";

  it("PoC: trickest and nomi-sec evidence sets has_poc, poc_count and the exploit maturity; re-import changes nothing", async () => {
    const trickest = await importFeed(db, "poc", [`${FEEDS}/poc/trickest-sample.jsonl`]);
    expect(trickest).toMatchObject({ read: 3, skipped: 0 });
    expect(trickest.inserted).toBe(3);
    const nomi = await importFeed(db, "poc", [`${FEEDS}/poc/nomi-sec`]);
    expect(nomi).toMatchObject({ read: 1, inserted: 1, skipped: 0 });
    const panos = (await get("/api/v1/cves/CVE-2024-3400")).json();
    expect(panos.has_poc).toBe(true);
    expect(panos.poc_count).toBeGreaterThan(0);
    // In KEV: exploited in the wild, whatever the PoC count.
    expect(panos.maturite_exploit).toBe("in_the_wild");
    const flasharray = (await get("/api/v1/cves/CVE-2024-0001")).json();
    expect(flasharray).toMatchObject({ has_poc: true, maturite_exploit: "poc" });
    expect((await get("/api/v1/cves?has_poc=true&page_size=100")).json().items.map((c: { cve_id: string }) => c.cve_id)).toContain(
      "CVE-2024-0001",
    );
    expect(await importFeed(db, "poc", [`${FEEDS}/poc/trickest-sample.jsonl`])).toMatchObject({ inserted: 0, updated: 0, unchanged: 3 });
  });

  it("OSV: advisories are public vulnerabilities, merged into their CVE (aliases, fusion_de); an alias resolves to its CVE", async () => {
    // List totals are cached per filter set until an import changes the CVE data.
    const totalBefore = (await get("/api/v1/cves")).json().total;
    expect((await get("/api/v1/cves")).json().total).toBe(totalBefore);
    await importFeed(db, "cve5", [`${FIX}/cve5-CVE-2023-47627.jsonl`]);
    expect((await get("/api/v1/cves")).json().total).toBe(totalBefore + 1);
    const r = await importFeed(db, "osv", [`${FIX}/osv-sample.jsonl`]);
    expect(r).toMatchObject({ read: 2, inserted: 2, skipped: 0 });
    const cve = (await get("/api/v1/cves/CVE-2023-47627")).json();
    expect(cve.aliases).toEqual(expect.arrayContaining(["PYSEC-2023-246", "GHSA-gfw2-4jvh-wgfg"]));
    // PYSEC-2024-26 mentions CVE-2023-47627 in its text only: not an alias.
    expect(cve.aliases).not.toContain("PYSEC-2024-26");
    expect((await get("/api/v1/cves/GHSA-gfw2-4jvh-wgfg")).json().cve_id).toBe("CVE-2023-47627");
    expect((await get("/api/v1/cves/pysec-2023-246")).json().cve_id).toBe("CVE-2023-47627");
    const vuln = (await get("/api/v1/vulnerabilities/PYSEC-2023-246")).json();
    expect(vuln).toMatchObject({ id: "PYSEC-2023-246", source: "pysec", aliases: ["CVE-2023-47627", "GHSA-gfw2-4jvh-wgfg"] });
    expect(vuln.correspondances[0]).toMatchObject({ ecosystem: "PyPI", name: "aiohttp" });
    const list = (await get("/api/v1/vulnerabilities?source=pysec&q=GHSA-gfw2-4jvh-wgfg")).json();
    expect(list.items.map((v: { id: string }) => v.id)).toEqual(["PYSEC-2023-246"]);
    expect(await importFeed(db, "osv", [`${FIX}/osv-sample.jsonl`])).toMatchObject({ inserted: 0, updated: 0, unchanged: 2 });
  });

  it("CERT-FR: the avis brings its interim measures and attribution to its CVE, and is listed as a public vulnerability", async () => {
    const r = await importFeed(db, "certfr", [`${FIX}/certfr-sample.jsonl`]);
    expect(r).toMatchObject({ read: 2, inserted: 2, skipped: 0 });
    const cve = (await get("/api/v1/cves/CVE-2024-3400")).json();
    expect(cve.aliases).toContain("CERTFR-2024-AVI-0307");
    expect(cve.mesures_provisoires.length).toBeGreaterThan(0);
    // The CVE 5 record's own measures (Palo Alto's workaround and fix) come first, then the avis'.
    expect(cve.mesures_provisoires.slice(0, 2).map((x: { source: string; categorie: string }) => `${x.source} ${x.categorie}`)).toEqual([
      "palo_alto contournement",
      "palo_alto correctif",
    ]);
    const m = cve.mesures_provisoires.find((x: { source: string }) => x.source === "CERT-FR");
    expect(m).toMatchObject({ source: "CERT-FR", reference: "CERTFR-2024-AVI-0307", url: expect.stringContaining("CERTFR-2024-AVI-0307") });
    expect(m.attribution).toMatch(/CERT-FR/);
    expect(["contournement", "correctif"]).toContain(m.categorie);
    expect(cve.contournement_disponible).toBe(cve.mesures_provisoires.some((x: { categorie: string }) => x.categorie === "contournement"));
    // The avis names one CVE: its reference resolves to it.
    expect((await get("/api/v1/cves/CERTFR-2024-AVI-0307")).json().cve_id).toBe("CVE-2024-3400");
    const avis = (await get("/api/v1/vulnerabilities?source=certfr")).json();
    expect(avis.total).toBe(2);
    expect(await importFeed(db, "certfr", [`${FIX}/certfr-sample.jsonl`])).toMatchObject({ inserted: 0, unchanged: 2 });
  });

  it("RSS/Atom/JSON Feed: articles deduplicated by GUID or URL, with the CVE ids they mention; newest first", async () => {
    const r = await importFeed(db, "rss", [`${FEEDS}/rss`]);
    expect(r.skipped).toBe(0);
    expect(r.inserted).toBeGreaterThan(10);
    // The maven Atom and JSON Feed files hold the same three advisories: stored once.
    expect(r.inserted + r.unchanged).toBe(r.read);
    const all = (await get("/api/v1/articles?page_size=100")).json();
    expect(all.total).toBe(r.inserted);
    const dates = all.items.map((a: { published_at: string | null }) => a.published_at ?? "");
    expect(dates).toEqual([...dates].sort().reverse());
    const byCve = (await get("/api/v1/articles?cve_id=CVE-2026-3429")).json();
    expect(byCve.total).toBe(1);
    expect(byCve.items[0].url).toMatch(/^https:\/\//);
    const again = await importFeed(db, "rss", [`${FEEDS}/rss`]);
    expect(again).toMatchObject({ inserted: 0, updated: 0, unchanged: r.read });
    expect((await get("/api/v1/articles?page_size=0")).statusCode).toBe(422);
  });
});

describe("partial refreshes", () => {
  it("the PoC and advisory refreshes leave every CVE exactly as a full merge would", async () => {
    const snapshot = async () => {
      const { rows } = (await t.database.executeSql("select * from cves order by cve_id", [])) as { rows: Record<string, unknown>[] };
      const affected = (await t.database.executeSql(
        "select cve_id, origin, vendor, product, cpe, version_from, version_to, version_status from cve_affected order by 1, 2, 3, 4, 5, 6, 7, 8",
        [],
      )) as { rows: unknown[] };
      return { cves: rows.map(({ merged_at: _m, ...r }) => r), affected: affected.rows };
    };
    const before = await snapshot();
    expect(before.cves.length).toBeGreaterThan(5);
    expect(before.affected.length).toBeGreaterThan(5);
    await db.transaction((tx) =>
      mergeIds(
        tx,
        before.cves.map((r) => r.cve_id as string),
      ),
    );
    expect(await snapshot()).toEqual(before);
  });
});

describe("workflow dry run on real CVE data", () => {
  it("evaluates the conditions on the merged record and says the CVE is known", async () => {
    const graph = {
      nodes: [
        { id: "t", type: "trigger", event: "cve.new_match" },
        {
          id: "c",
          type: "condition",
          match: "all",
          rules: [
            { field: "cve.is_kev", op: "eq", value: true },
            { field: "cve.severity", op: "gte", value: "high" },
          ],
        },
        { id: "a", type: "action", action: "create_case" },
      ],
      edges: [
        { from: "t", to: "c" },
        { from: "c", to: "a", when: "true" },
      ],
    };
    const wf = (await createWorkflow(t, tenant, { name: "kev-high", graph })).json();
    const run = async (cve_id: string) =>
      (
        await t.app.inject({
          method: "POST",
          url: workflowsUrl(tenant, `/${wf.id}/dry-run`),
          headers: bearer(tenant.key),
          payload: { cve_id },
        })
      ).json();
    const panos = await run("CVE-2024-3400");
    expect(panos).toMatchObject({ status: "dry_run", cve_connue: true, avertissement: null });
    const cond = panos.noeuds.find((n: { id: string }) => n.id === "c");
    expect(cond.resultat).toBe("vrai");
    expect(cond.regles.map((r: { valeur_observee: unknown }) => r.valeur_observee)).toEqual([true, "critical"]);
    // CVE-2024-6387 (OpenSSH) is high but not in this KEV subset.
    expect((await run("CVE-2024-6387")).noeuds.find((n: { id: string }) => n.id === "c").resultat).toBe("faux");
  });
});

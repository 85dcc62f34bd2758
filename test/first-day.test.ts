import { describe, expect, it } from "vitest";
import { importFeed } from "../src/feeds/import.js";
import { RECORD_SOURCES } from "../src/feeds/merge.js";
import { createTestApp, tenantWithScopes } from "./helpers.js";

/**
 * Issue 34, a security engineer's first day (API side), on real records: the CVE List subset and
 * KEV entries of test/fixtures/import (CVE-2024-3400 among them), CVE-2024-9468
 * (test/fixtures/matching), the KEV entries of three PAN-OS CVEs with no CVE record
 * (test/fixtures/advisories/kev-panos.json: "non vérifiable" for a versioned item) and three
 * CERT-FR avis of 2024 naming CVEs no other source describes (certfr-avis-2024.jsonl).
 * 1. Reference-only CVEs: named, out of the list, its total and the statistics unless asked.
 * 2. One truth about priority: the inbox tabs' counts add up to the project's, the priority order.
 * 3. The first stack: the default workflow opens cases for verified P1/P2 matches only.
 */
const t = await createTestApp();
const db = t.database.db;
for (const [source, file] of [
  ["cve5", "test/fixtures/import/cve5-sample.jsonl"],
  ["kev", "test/fixtures/import/kev-sample.json"],
  ["cve5", "test/fixtures/matching/cve5-panos.jsonl"],
  ["kev", "test/fixtures/advisories/kev-panos.json"],
  ["certfr", "test/fixtures/advisories/certfr-avis-2024.jsonl"],
] as const)
  expect((await importFeed(db, source, [file])).errors).toEqual([]);

const team = await tenantWithScopes(t, "First day", ["stacks-write", "alerts-write", "cases-write"]);
const get = async <T = Record<string, unknown>>(url: string) => {
  const res = await t.app.inject({ method: "GET", url, headers: { authorization: `Bearer ${team.readKey}` } });
  expect(res.statusCode, url).toBe(200);
  return res.json() as T;
};
const rows = async <T>(text: string, params: unknown[] = []) => ((await t.database.executeSql(text, params)) as { rows: T[] }).rows;

/** The CVEs only the avis name (no CVE List, NVD, KEV or OSV record among the fixtures). */
const REFERENCE_ONLY = ["CVE-2024-2431", "CVE-2024-2432", "CVE-2024-2433", "CVE-2024-9680"];
const YEAR = "from=2024-01-01&to=2024-12-31";

describe("1. a CVE known only by reference", () => {
  it("has its own state, REFERENCE_ONLY, and its detail says which advisories cite it", async () => {
    const cited = await rows<{ cve_id: string }>(
      `select cve_id from cves where cve_id = any($1::text[]) and not (sources && $2::text[]) order by 1`,
      [REFERENCE_ONLY, [...RECORD_SOURCES]],
    );
    expect(cited.map((r) => r.cve_id)).toEqual(REFERENCE_ONLY);
    const cve = await get<{ state: string; referenced_by: { id: string; url: string }[]; severity: string; vendor: null }>(
      "/api/v1/cves/CVE-2024-9680",
    );
    expect(cve).toMatchObject({ state: "REFERENCE_ONLY", severity: "unknown", vendor: null });
    expect(cve.referenced_by.map((r) => [r.id, r.url])).toEqual([
      ["CERTFR-2024-AVI-0865", "https://www.cert.ssi.gouv.fr/avis/CERTFR-2024-AVI-0865/"],
      ["CERTFR-2024-AVI-0869", "https://www.cert.ssi.gouv.fr/avis/CERTFR-2024-AVI-0869/"],
    ]);
    // A CVE with its record: PUBLISHED, and the avis citing it (none here).
    expect(await get("/api/v1/cves/CVE-2024-3400")).toMatchObject({ state: "PUBLISHED", referenced_by: [] });
  });

  it("is out of the CVE list and its total by default; state=reference_only lists them, state=all lists every one", async () => {
    type Page = { items: { cve_id: string; state: string }[]; total: number };
    const all = await rows<{ n: number; rejected: number }>(
      "select count(*)::int as n, (count(*) filter (where state = 'REJECTED'))::int as rejected from cves",
    );
    const published = await get<Page>("/api/v1/cves?page_size=100");
    expect(published.total).toBe(all[0]!.n - all[0]!.rejected - REFERENCE_ONLY.length);
    expect(published.items.filter((c) => REFERENCE_ONLY.includes(c.cve_id))).toEqual([]);
    expect(published.items.every((c) => c.state === "PUBLISHED")).toBe(true);
    const cited = await get<Page>("/api/v1/cves?state=reference_only&page_size=100");
    expect(cited.total).toBe(REFERENCE_ONLY.length);
    expect(cited.items.map((c) => [c.cve_id, c.state]).sort()).toEqual(REFERENCE_ONLY.map((id) => [id, "REFERENCE_ONLY"]));
    expect((await get<Page>("/api/v1/cves?state=all&page_size=1")).total).toBe(all[0]!.n);
    // The partial index that serves the default order holds exactly RECORD_SOURCES.
    const [index] = await rows<{ def: string }>("select indexdef as def from pg_indexes where indexname = 'cves_record_published_idx'");
    expect(index!.def).toContain(`'{${RECORD_SOURCES.join(",")}}'::text[]`);
  });

  it("is out of the statistics by default, counted apart; include_reference_only adds it, and the totals stay consistent", async () => {
    type Totals = { total: number; published: number; rejected: number; reserved: number; reference_only: number; avg_cvss: number | null };
    const facts = await rows<{ id: string; day: string; rec: boolean }>(
      `select cve_id as id, day::text as day, sources && $1::text[] as rec from cve_facts
        where state = 'PUBLISHED' and day between '2024-01-01' and '2024-12-31'`,
      [[...RECORD_SOURCES]],
    );
    const cited = facts.filter((f) => !f.rec).map((f) => f.id);
    expect(cited.sort()).toEqual(REFERENCE_ONLY);
    const out = await get<Totals>(`/api/v1/stats/totals?${YEAR}`);
    expect(out.published).toBe(facts.length - REFERENCE_ONLY.length);
    expect(out.reference_only).toBe(REFERENCE_ONLY.length);
    expect(out.total).toBe(out.published + out.rejected + out.reserved);
    const withThem = await get<Totals>(`/api/v1/stats/totals?${YEAR}&include_reference_only=true`);
    expect(withThem).toMatchObject({ published: out.published, reference_only: REFERENCE_ONLY.length });
    expect(withThem.total).toBe(out.total + REFERENCE_ONLY.length);
    // Unscored, they leave the mean CVSS as it is; they fill the ranking's "no vendor" and the sans_score bucket.
    expect(withThem.avg_cvss).toBe(out.avg_cvss);
    type Top = { grand_total: number; without_value: number };
    const top = await get<Top>(`/api/v1/stats/top?${YEAR}`);
    const topWith = await get<Top>(`/api/v1/stats/top?${YEAR}&include_reference_only=true`);
    expect(top.grand_total).toBe(out.published);
    expect(topWith.grand_total).toBe(out.published + REFERENCE_ONLY.length);
    expect(topWith.without_value).toBe(top.without_value + REFERENCE_ONLY.length);
    type Dist = { buckets: { bucket: string; total: number }[] };
    const none = (d: Dist) => d.buckets.find((b) => b.bucket === "sans_score")!.total;
    const cvss = await get<Dist>(`/api/v1/stats/distribution?${YEAR}&metric=cvss`);
    const cvssWith = await get<Dist>(`/api/v1/stats/distribution?${YEAR}&metric=cvss&include_reference_only=true`);
    expect(none(cvssWith)).toBe(none(cvss) + REFERENCE_ONLY.length);
    type Series = { total: number };
    expect((await get<Series>(`/api/v1/stats/timeseries?${YEAR}`)).total).toBe(out.published);
    expect((await get<Series>(`/api/v1/stats/timeseries?${YEAR}&include_reference_only=true`)).total).toBe(
      out.published + REFERENCE_ONLY.length,
    );
  });

  it("the default period ends at the newest publication held, reference-only CVEs aside", async () => {
    const [newest] = await rows<{ day: string }>(
      `select max(day)::text as day from cve_facts where state = 'PUBLISHED' and sources && $1::text[]`,
      [[...RECORD_SOURCES]],
    );
    const out = await get<{ to: string; newest_published: string; published: number }>("/api/v1/stats/totals");
    expect(out).toMatchObject({ to: newest!.day, newest_published: newest!.day });
    expect(out.published).toBeGreaterThan(0);
    // CVE-2024-9680's avis (October 2024) is newer than some records, not counted as the newest datum unless asked.
    const withThem = await get<{ newest_published: string }>("/api/v1/stats/totals?include_reference_only=true");
    expect(withThem.newest_published >= newest!.day).toBe(true);
  });
});

describe("2 and 3. the first stack: one truth about priority, and not a flood of cases", () => {
  type Alert = { id: string; cve_id: string; palier: string; severity: string; triggered_at: string; correspondance: { rule: string } };
  type Page = { items: Alert[]; total: number; unread_count: number };
  const VERIFIED = "rule=version_range&rule=all_versions&rule=default_status&rule=osv_range&rule=vendor&rule=keyword&rule=cve";
  let raised = 0;

  it("the README's PAN-OS item raises verified and unverifiable P1 alerts", async () => {
    const res = await team.call("POST", "/stacks", {
      name: "Production",
      items: [{ item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" }],
    });
    expect(res.statusCode).toBe(201);
    raised = res.json().alertes_creees;
    const all = await team.call("GET", "/alerts?page_size=100");
    const byRule = Object.fromEntries((all.json() as Page).items.map((a) => [a.cve_id, `${a.palier} ${a.correspondance.rule}`]));
    expect(byRule).toEqual({
      "CVE-2024-3400": "P1 version_range",
      "CVE-2024-9468": "P3 version_range",
      "CVE-2024-0012": "P1 unversioned",
      "CVE-2024-3393": "P1 unversioned",
      "CVE-2024-9474": "P1 unversioned",
    });
    expect(raised).toBe(5);
  });

  it("the inbox tabs' counts add up to the project's; home's P1 figure is the verified tab's", async () => {
    const stats = (await team.call("GET", "/stats")).json() as { unread_alerts: number };
    const verified = (await team.call("GET", `/alerts?${VERIFIED}&page_size=1`)).json() as Page;
    const unverified = (await team.call("GET", "/alerts?rule=unversioned&page_size=1")).json() as Page;
    expect(verified.unread_count + unverified.unread_count).toBe(stats.unread_alerts);
    expect([verified.unread_count, unverified.unread_count]).toEqual([2, 3]);
    // Home asks exactly what its link opens: the verified tab, P1, unread.
    const p1 = (await team.call("GET", `/alerts?${VERIFIED}&palier=P1&is_read=false&page_size=1`)).json() as Page;
    expect(p1.total).toBe(1);
    const p1All = (await team.call("GET", "/alerts?palier=P1&is_read=false&page_size=1")).json() as Page;
    expect(p1All.total).toBe(p1.total + unverified.unread_count);
  });

  it("sort=palier is what to handle first: tier, verified before unverifiable, severity, newest", async () => {
    // Raised in the same second, a P1 first or last by date: the order must not depend on it.
    await rows(`update alerts set triggered_at = date_trunc('second', now()) where project_id = $1`, [team.projectId]);
    await rows(`update alerts set triggered_at = triggered_at + interval '1 second' where project_id = $1 and cve_id = 'CVE-2024-9468'`, [
      team.projectId,
    ]);
    const page = (await team.call("GET", "/alerts?sort=palier&page_size=100")).json() as Page;
    const RANK: Record<string, number> = { critical: 0, high: 1, medium: 2, low: 3, unknown: 4, none: 5 };
    const expected = [...page.items].sort(
      (a, b) =>
        a.palier.localeCompare(b.palier) ||
        Number(a.correspondance.rule === "unversioned") - Number(b.correspondance.rule === "unversioned") ||
        RANK[a.severity]! - RANK[b.severity]! ||
        b.triggered_at.localeCompare(a.triggered_at) ||
        b.id.localeCompare(a.id),
    );
    expect(page.items.map((a) => a.cve_id)).toEqual(expected.map((a) => a.cve_id));
    expect(page.items[0]!.cve_id).toBe("CVE-2024-3400");
    expect(page.items.at(-1)!.cve_id).toBe("CVE-2024-9468");
    // The newest first is still there, on request: the P3 raised a second later comes first.
    expect(((await team.call("GET", "/alerts?page_size=1")).json() as Page).items[0]!.cve_id).toBe("CVE-2024-9468");
  });

  it("the default workflow opens a case for the verified P1 only; the others wait in the inbox", async () => {
    await t.services.runs.dispatchAll();
    const runs = await rows<{ cve_id: string; status: string }>(
      "select e.cve_id, r.status from workflow_runs r join outbox_events e on e.id = r.event_id where r.workflow_id = $1 order by 1",
      [team.defaultWorkflowId],
    );
    // It ran on every new match, and stopped at its condition for four of them.
    expect(runs).toHaveLength(raised);
    expect(runs.every((r) => r.status === "success")).toBe(true);
    const cases = (await team.call("GET", "/cases?page_size=100")).json() as { items: { cve_id: string }[] };
    expect(cases.items.map((c) => c.cve_id)).toEqual(["CVE-2024-3400"]);
    // `c` in the inbox on another alert now opens a case (201), not "existait déjà".
    expect((await team.call("PUT", "/cases/CVE-2024-0012", {})).statusCode).toBe(201);
    expect((await team.call("PUT", "/cases/CVE-2024-3400", {})).statusCode).toBe(200);
  });
});

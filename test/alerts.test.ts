import { describe, expect, it } from "vitest";
import { importFeed } from "../src/feeds/import.js";
import { bearer, createTestApp, tenantWithScopes } from "./helpers.js";

const t = await createTestApp();
const db = t.database.db;
const IMPORT = "test/fixtures/import";
const MATCH = "test/fixtures/matching";
const WRITE_SCOPES = ["stacks-write", "alerts-write", "tags-write"];

interface Alert {
  id: string;
  cve_id: string;
  severity: string;
  epss_score: number | null;
  is_kev: boolean;
  has_poc: boolean;
  palier: string;
  source: string;
  is_read: boolean;
  vendor: string | null;
  product: string | null;
  cvss_score: number | null;
  description: string | null;
  aliases: string[];
  tags: { id: string; name: string }[];
  correspondance: Record<string, unknown>;
}

async function tenantWithKeys(name: string) {
  return tenantWithScopes(t, name, WRITE_SCOPES);
}

async function alertsOf(call: Awaited<ReturnType<typeof tenantWithKeys>>["call"], query = "") {
  const res = await call("GET", `/alerts?page_size=100${query}`);
  expect(res.statusCode).toBe(200);
  return res.json() as { items: Alert[]; total: number; unread_count: number };
}

async function events(projectId: string): Promise<{ event: string; cve_id: string; alert_id: string }[]> {
  const { rows } = (await t.database.executeSql("select event, cve_id, alert_id from outbox_events where project_id = $1 order by id", [
    projectId,
  ])) as { rows: { event: string; cve_id: string; alert_id: string }[] };
  return rows;
}

async function importAll() {
  for (const [source, path] of [
    ["cve5", `${IMPORT}/cve5-sample.jsonl`],
    ["cve5", `${MATCH}/cve5-panos.jsonl`],
    ["cve5", `${MATCH}/cve5-django.jsonl`],
    ["nvd", `${IMPORT}/nvd2-CVE-2024-3400.json`],
    ["osv", `${MATCH}/osv-django.jsonl`],
  ] as const) {
    const r = await importFeed(db, source, [path]);
    expect(r.errors).toEqual([]);
  }
}

const a = await tenantWithKeys("Alpha");
const b = await tenantWithKeys("Beta");
const ids = (alerts: { items: Alert[] }) => alerts.items.map((x) => x.cve_id).sort();

describe("stacks, matching and alerts on real records", () => {
  it("an item added before the data alerts when its CVEs are imported (PAN-OS 10.2.5, Django 4.2.1)", async () => {
    const res = await a.call("POST", "/stacks", {
      name: "Production",
      items: [
        { item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" },
        { item_type: "purl", value: "pkg:pypi/django@4.2.1" },
      ],
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ name: "Production", project_id: a.projectId, alertes_creees: 0 });
    expect(res.json().items.map((i: { item_type: string }) => i.item_type)).toEqual(["product", "purl"]);

    await importAll();
    const alerts = await alertsOf(a.call);
    // CVE-2024-3400 (10.2.0 ≤ v < 10.2.9-h1), CVE-2024-9468 (< 10.2.9-h11), CVE-2023-36053 (Django 4.2 < 4.2.3, PYSEC-2023-100).
    // Not CVE-2022-0028 (PAN-OS 10.1 only), not CVE-2024-6387 (OpenSSH), not PYSEC-2023-61 (fixed in 4.2.1).
    expect(ids(alerts)).toEqual(["CVE-2023-36053", "CVE-2024-3400", "CVE-2024-9468"]);
    expect(alerts.unread_count).toBe(3);
    const panos = alerts.items.find((x) => x.cve_id === "CVE-2024-3400")!;
    // KEV from the CISA ADP container already; no public PoC imported yet.
    expect(panos).toMatchObject({ severity: "critical", cvss_score: 10, is_kev: true, has_poc: false, palier: "P1", is_read: false });
    expect(panos.source).toContain("10.2.5");
    expect(panos.source).toContain("10.2.9-h1");
    expect(panos.correspondance).toMatchObject({ rule: "version_range", version: "10.2.5", item_type: "product" });
    expect(panos.description).toContain("GlobalProtect");
    const django = alerts.items.find((x) => x.cve_id === "CVE-2023-36053")!;
    expect(django.source).toBe("purl pkg:pypi/django@4.2.1 : version 4.2.1 dans [4.2, 4.2.3[ (PYSEC-2023-100)");
    expect(django.correspondance).toMatchObject({ rule: "osv_range", version: "4.2.1" });
    expect(django.aliases).toContain("PYSEC-2023-100");
    // One cve.new_match event per alert, written with it.
    const ev = await events(a.projectId);
    expect(ev.map((e) => e.event)).toEqual(["cve.new_match", "cve.new_match", "cve.new_match"]);
    expect(new Set(ev.map((e) => e.alert_id))).toEqual(new Set(alerts.items.map((x) => x.id)));
  });

  it("an item with a version alerts on every stored CVE that affects it, whenever published; a version-less one on the recent window", async () => {
    expect((await b.call("GET", "/alert-settings")).json()).toEqual({ alert_backfill: "recent", alert_backfill_days: 90 });
    // Every PAN-OS version watched, recent only (the default): none of these 2022-2024 records is from
    // the last 90 days; the KEV ones (CVE-2022-0028, CVE-2024-3400: CISA ADP marker) pass the window.
    const edge = await b.call("POST", "/stacks", { name: "Edge", items: [{ item_type: "product", value: "paloaltonetworks:pan-os" }] });
    expect(edge.json().alertes_creees).toBe(2);
    // Counted (and cached) now: the count must follow the alerts raised below.
    expect(ids(await alertsOf(b.call))).toEqual(["CVE-2022-0028", "CVE-2024-3400"]);
    // 10.2.9-h1 is vulnerable today to CVE-2024-9468 (published 2024-10, not KEV, fixed in 10.2.9-h11),
    // whatever its age; it is past CVE-2024-3400's fix (10.2.9-h1).
    const stackId = edge.json().id as string;
    const added = await b.call("POST", `/stacks/${stackId}/items`, {
      item_type: "cpe",
      value: "cpe:2.3:o:paloaltonetworks:pan-os:10.2.9:h1:*:*:*:*:*:*",
    });
    expect(added.statusCode).toBe(201);
    expect(added.json().alertes_creees).toBe(1);
    const alerts = await alertsOf(b.call);
    expect(ids(alerts)).toEqual(["CVE-2022-0028", "CVE-2024-3400", "CVE-2024-9468"]);
    expect(alerts.items.find((x) => x.cve_id === "CVE-2024-9468")!.correspondance).toMatchObject({
      rule: "version_range",
      version: "10.2.9-h1",
      item_type: "cpe",
    });
  });

  it("changing alert_backfill re-evaluates the project's items (raising what it allows, deleting nothing)", async () => {
    const d = await tenantWithKeys("Delta");
    await d.call("POST", "/stacks", { name: "Watch", items: [{ item_type: "product", value: "paloaltonetworks:pan-os" }] });
    expect(ids(await alertsOf(d.call))).toEqual(["CVE-2022-0028", "CVE-2024-3400"]);
    expect((await d.call("PATCH", "/alert-settings", { alert_backfill: "all" })).json().alert_backfill).toBe("all");
    const every = await alertsOf(d.call);
    expect(ids(every)).toEqual(["CVE-2022-0028", "CVE-2024-3400", "CVE-2024-9468"]);
    expect((await events(d.projectId)).map((e) => [e.event, e.cve_id]).at(-1)).toEqual(["cve.new_match", "CVE-2024-9468"]);
    // Back to recent: nothing is withdrawn.
    expect((await d.call("PATCH", "/alert-settings", { alert_backfill: "recent", alert_backfill_days: 30 })).statusCode).toBe(200);
    expect(ids(await alertsOf(d.call))).toEqual(ids(every));
  });

  it("defaultStatus and version expressions as CNAs write them (Jenkins CVE-2024-23897, dropwizard CVE-2020-5245, MySQL CVE-2018-2562)", async () => {
    expect((await importFeed(db, "cve5", [`${MATCH}/cve5-expressions.jsonl`])).errors).toEqual([]);
    const e = await tenantWithKeys("Epsilon");
    const res = await e.call("POST", "/stacks", {
      name: "Build",
      items: [
        // Jenkins lists only its unaffected lines (< 1.606, 2.426.3–2.426.x, 2.440.1–2.440.x, ≥ 2.442), defaultStatus affected.
        { item_type: "product", value: "jenkins:jenkins@2.426.2" },
        // ">= 1.3.0, < 1.3.19" in `version`, without lessThan.
        { item_type: "product", value: "dropwizard:dropwizard-validation@1.3.5" },
        // "5.5.58 and prior" (one per series).
        { item_type: "product", value: "oracle_corporation:mysql_server@5.5.40" },
      ],
    });
    expect(res.statusCode).toBe(201);
    const alerts = await alertsOf(e.call);
    expect(ids(alerts)).toEqual(["CVE-2018-2562", "CVE-2020-5245", "CVE-2024-23897"]);
    expect(alerts.items.find((x) => x.cve_id === "CVE-2024-23897")!.correspondance).toMatchObject({
      rule: "default_status",
      version: "2.426.2",
    });
    expect(alerts.items.find((x) => x.cve_id === "CVE-2020-5245")!.source).toContain("[1.3.0, 1.3.19[");
    // Versions the records call unaffected raise nothing.
    const f = await tenantWithKeys("Zeta");
    const none = await f.call("POST", "/stacks", {
      name: "Build",
      items: [
        { item_type: "product", value: "jenkins:jenkins@2.426.3" },
        { item_type: "product", value: "jenkins:jenkins@2.442" },
        { item_type: "product", value: "dropwizard:dropwizard-validation@1.3.19" },
        { item_type: "product", value: "oracle_corporation:mysql_server@5.5.59" },
      ],
    });
    expect(none.json().alertes_creees).toBe(0);
  });

  it("products meet across the names CNAs and CPE data give them, learned from the records (Apache Tomcat = apache:tomcat)", async () => {
    const q = async () =>
      (
        await t.database.executeSql(
          "select kind, name, equivalent, evidence from name_equivalences where name in ('apache_tomcat', 'apache_software_foundation', 'accumulo') order by 1, 2, 3",
          [],
        )
      ).rows;
    expect(await q()).toEqual([]);
    expect((await importFeed(db, "cve5", [`${MATCH}/cve5-tomcat.jsonl`])).errors).toEqual([]);
    // Four records where the CNA names "Apache Software Foundation / Apache Tomcat" and the CISA ADP
    // apache:tomcat; CVE-2023-42795's ADP says apache:accumulo — one odd record, no equivalence.
    expect(await q()).toEqual([
      { kind: "product", name: "apache_tomcat", equivalent: "tomcat", evidence: 4 },
      { kind: "vendor", name: "apache_software_foundation", equivalent: "apache", evidence: 5 },
    ]);
    const g = await tenantWithKeys("Eta");
    const res = await g.call("POST", "/stacks", { name: "Web", items: [{ item_type: "product", value: "apache:tomcat@9.0.80" }] });
    expect(res.statusCode).toBe(201);
    const alerts = await alertsOf(g.call);
    // CVE-2023-42795 (≤ 9.0.80), CVE-2024-23672 and CVE-2024-24549 (≤ 9.0.85) are stated by the CNA alone
    // ("Apache Tomcat"); not CVE-2023-41080 (≤ 9.0.79), not CVE-2023-34981 (9.0.74 only).
    expect(ids(alerts)).toEqual([
      "CVE-2023-42795",
      "CVE-2023-45648",
      "CVE-2023-46589",
      "CVE-2024-23672",
      "CVE-2024-24549",
      "CVE-2024-34750",
    ]);
    expect(alerts.items.find((x) => x.cve_id === "CVE-2024-23672")!.source).toBe(
      "product apache:tomcat@9.0.80 : version 9.0.80 dans [9.0.0-M1, 9.0.85] (cna)",
    );
    // The display form finds the CPE-named rows too.
    const h = await tenantWithKeys("Theta");
    await h.call("POST", "/stacks", {
      name: "Web",
      items: [{ item_type: "product", value: "Apache Software Foundation:Apache Tomcat@9.0.80" }],
    });
    expect(ids(await alertsOf(h.call))).toEqual(ids(alerts));
  });

  it("another tenant sees none of it and can touch none of it", async () => {
    const mine = (await alertsOf(a.call)).items[0]!;
    expect((await alertsOf(b.call)).items.map((x) => x.id)).not.toContain(mine.id);
    // B's key on A's project, and A's alert through B's project: 404.
    expect((await t.app.inject({ method: "GET", url: `${a.base}/alerts`, headers: bearer(b.key) })).json()).toEqual({
      detail: "Projet introuvable",
    });
    expect((await b.call("PATCH", `/alerts/${mine.id}`, { is_read: true })).statusCode).toBe(404);
    const stacks = (await a.call("GET", "/stacks")).json() as { id: string }[];
    expect((await b.call("GET", `/stacks/${stacks[0]!.id}`)).json()).toEqual({ detail: "Pile introuvable" });
    expect((await b.call("DELETE", `/stacks/${stacks[0]!.id}`)).statusCode).toBe(404);
    expect((await alertsOf(a.call)).items.find((x) => x.id === mine.id)!.is_read).toBe(false);
  });

  it("a change that matters updates the alert and emits an event, never a second alert; re-importing raises nothing", async () => {
    const before = await alertsOf(a.call);
    const eventsBefore = (await events(a.projectId)).length;
    expect((await importFeed(db, "poc", [`${MATCH}/poc-panos.jsonl`])).inserted).toBe(1);
    const after = await alertsOf(a.call);
    expect(after.total).toBe(before.total);
    expect(after.items.find((x) => x.cve_id === "CVE-2024-3400")).toMatchObject({ has_poc: true, palier: "P1" });
    const ev = await events(a.projectId);
    // The PoC has its own event, and the CVE's acted-on fields changed (cve.updated: has_poc false → true).
    expect(ev.slice(eventsBefore).map((e) => [e.event, e.cve_id])).toEqual([
      ["cve.poc_published", "CVE-2024-3400"],
      ["cve.updated", "CVE-2024-3400"],
    ]);

    // A new EPSS score: the alerts show it (and their palier follows it), no event.
    expect((await importFeed(db, "epss", [`${MATCH}/epss_scores-2026-08-16.csv`])).inserted).toBe(2);
    const scored = await alertsOf(a.call, "&min_epss=0.01");
    expect(scored.items.map((x) => [x.cve_id, x.epss_score, x.palier])).toEqual([["CVE-2023-36053", 0.02978, "P3"]]);
    expect((await events(a.projectId)).length).toBe(ev.length);

    await importAll();
    await importFeed(db, "kev", [`${IMPORT}/kev-sample.json`]);
    await importFeed(db, "poc", [`${MATCH}/poc-panos.jsonl`]);
    await importFeed(db, "epss", [`${MATCH}/epss_scores-2026-08-16.csv`]);
    expect((await alertsOf(a.call)).total).toBe(before.total);
    expect((await events(a.projectId)).length).toBe(ev.length);
  });

  it("keyword, cve (by alias) and min_severity items", async () => {
    const c = await tenantWithKeys("Gamma");
    await c.call("PATCH", "/alert-settings", { alert_backfill: "all" });
    const res = await c.call("POST", "/stacks", {
      name: "Watch",
      items: [
        { item_type: "keyword", value: "GlobalProtect command injection" },
        { item_type: "cve", value: "PYSEC-2023-100" },
        { item_type: "vendor", value: "Palo Alto Networks", min_severity: "critical" },
      ],
    });
    expect(res.statusCode).toBe(201);
    // CVE-2024-3400 by its words and by the vendor (critical); CVE-2023-36053 through its alias; the
    // vendor's high and medium CVEs (CVE-2024-9468, CVE-2022-0028) stay below the threshold.
    expect(ids(await alertsOf(c.call))).toEqual(["CVE-2023-36053", "CVE-2024-3400"]);
  });

  it("a value that cannot be matched is a 422 that names it, and nothing is created", async () => {
    const stacksBefore = ((await a.call("GET", "/stacks")).json() as unknown[]).length;
    const res = await a.call("POST", "/stacks", {
      name: "Bad",
      items: [
        { item_type: "product", value: "openbsd:openssh@9.6p1" },
        { item_type: "cpe", value: "cpe:2.3:a:openbsd" },
        { item_type: "purl", value: "pkg:unknown/x@1" },
      ],
    });
    expect(res.statusCode).toBe(422);
    const detail = res.json().detail as { type: string; loc: (string | number)[]; msg: string }[];
    expect(detail.map((d) => d.loc)).toEqual([
      ["body", "items", 1, "value"],
      ["body", "items", 2, "value"],
    ]);
    expect(detail[0]).toMatchObject({ type: "value_error", msg: expect.stringMatching(/^Value error, CPE mal formée/) });
    expect(detail[1]!.msg).toContain("type de purl non pris en charge : unknown");
    expect(((await a.call("GET", "/stacks")).json() as unknown[]).length).toBe(stacksBefore);
    // A tag of no project of this organization.
    const stackId = ((await a.call("GET", "/stacks")).json() as { id: string }[])[0]!.id;
    const badTag = await a.call("POST", `/stacks/${stackId}/items`, {
      item_type: "vendor",
      value: "openbsd",
      tag_ids: ["00000000-0000-4000-8000-000000000000"],
    });
    expect(badTag.statusCode).toBe(422);
    expect(badTag.json().detail[0]).toMatchObject({ type: "value_error", loc: ["body", "tag_ids"] });

    const badType = await a.call("POST", "/stacks", { name: "Bad", items: [{ item_type: "os", value: "linux" }] });
    expect(badType.statusCode).toBe(422);
    expect(badType.json().detail[0]).toMatchObject({ type: "literal_error", loc: ["body", "items", 0, "item_type"] });
    // A write without the scope.
    const ro = await t.app.inject({ method: "POST", url: `${a.base}/stacks`, headers: bearer(a.readKey), payload: { name: "X" } });
    expect(ro.statusCode).toBe(403);
    expect(ro.json().detail).toContain("stacks-write");
  });

  it("stack and item updates, deletes; alerts stay", async () => {
    const stack = ((await a.call("GET", "/stacks")).json() as { id: string; items: { id: string; value: string }[] }[])[0]!;
    expect((await a.call("PATCH", `/stacks/${stack.id}`, { name: "Prod" })).json().name).toBe("Prod");
    const item = stack.items[0]!;
    const patched = await a.call("PATCH", `/stacks/${stack.id}/items/${item.id}`, { value: "paloaltonetworks:pan-os@10.1.5" });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().value).toBe("paloaltonetworks:pan-os@10.1.5");
    expect((await a.call("PATCH", `/stacks/${stack.id}/items/${item.id}`, { value: "a:b:c:d" })).statusCode).toBe(422);
    expect((await a.call("DELETE", `/stacks/${stack.id}/items/${item.id}`)).statusCode).toBe(204);
    expect((await a.call("DELETE", `/stacks/${stack.id}/items/${item.id}`)).json()).toEqual({ detail: "Élément de pile introuvable" });
    expect(ids(await alertsOf(a.call))).toContain("CVE-2024-3400");
  });

  it("read state, tags and statistics agree with the list", async () => {
    const list = await alertsOf(a.call);
    // The item now runs 10.1.5: CVE-2022-0028 (KEV) joined; CVE-2024-3400 stayed (alerts are history).
    const kev = await alertsOf(a.call, "&is_kev=true&q=CVE-2024-3400");
    expect(ids(kev)).toEqual(["CVE-2024-3400"]);
    expect(ids(await alertsOf(a.call, "&is_kev=true"))).toEqual(["CVE-2022-0028", "CVE-2024-3400"]);
    expect(ids(await alertsOf(a.call, "&q=django"))).toEqual(["CVE-2023-36053"]);
    const highOrCritical = list.items
      .filter((x) => x.severity === "high" || x.severity === "critical")
      .map((x) => x.cve_id)
      .sort();
    expect(highOrCritical.length).toBeGreaterThan(0);
    expect(ids(await alertsOf(a.call, "&severity=high&severity=critical"))).toEqual(highOrCritical);
    expect((await a.call("GET", "/alerts?severity=urgent")).statusCode).toBe(422);
    const p1 = list.items
      .filter((x) => x.palier === "P1")
      .map((x) => x.cve_id)
      .sort();
    const p3 = list.items
      .filter((x) => x.palier === "P3")
      .map((x) => x.cve_id)
      .sort();
    expect(p1.length).toBeGreaterThan(0);
    expect(ids(await alertsOf(a.call, "&palier=P1"))).toEqual(p1);
    expect(ids(await alertsOf(a.call, "&palier=P1&palier=P3"))).toEqual([...p1, ...p3].sort());
    expect((await a.call("GET", "/alerts?palier=P9")).statusCode).toBe(422);

    const read = await a.call("PATCH", `/alerts/${kev.items[0]!.id}`, { is_read: true });
    expect(read.json()).toMatchObject({ cve_id: "CVE-2024-3400", is_read: true });
    expect((await alertsOf(a.call)).unread_count).toBe(list.unread_count - 1);
    expect(ids(await alertsOf(a.call, "&is_read=false"))).not.toContain("CVE-2024-3400");

    const tag = await a.call("POST", "/tags", { name: "Urgent", color: "#ff0000" });
    expect(tag.statusCode).toBe(201);
    expect((await a.call("POST", "/tags", { name: "urgent" })).json().detail.code).toBe("nom_deja_utilise");
    const tagId = tag.json().id as string;
    expect((await a.call("POST", `/alerts/${kev.items[0]!.id}/tags`, { tag_id: tagId })).statusCode).toBe(204);
    const tagged = await alertsOf(a.call, "&tag=urgent");
    expect(ids(tagged)).toEqual(["CVE-2024-3400"]);
    expect(tagged.items[0]!.tags).toEqual([{ id: tagId, name: "Urgent", color: "#ff0000" }]);
    // B cannot use A's tag.
    const bAlert = (await alertsOf(b.call)).items[0]!;
    expect((await b.call("POST", `/alerts/${bAlert.id}/tags`, { tag_id: tagId })).json()).toEqual({ detail: "Tag introuvable" });
    expect((await a.call("DELETE", `/alerts/${kev.items[0]!.id}/tags/${tagId}`)).statusCode).toBe(204);
    expect((await alertsOf(a.call, "&tag=urgent")).total).toBe(0);

    const stats = (await a.call("GET", "/stats")).json();
    const now = await alertsOf(a.call);
    expect(stats).toMatchObject({
      total_alerts: now.total,
      unread_alerts: now.unread_count,
      kev_alerts: 2,
      poc_alerts: 1,
      stack_items: 1,
      monitored_urls: 0,
      eol_subscriptions: 0,
    });
    expect(Object.values(stats.alerts_by_severity as Record<string, number>).reduce((x, y) => x + y, 0)).toBe(now.total);

    expect((await a.call("POST", "/alerts/read", {})).statusCode).toBe(422);
    expect((await a.call("POST", "/alerts/read", { all: true })).json()).toEqual({ updated: now.unread_count });
    expect((await alertsOf(a.call)).unread_count).toBe(0);
    expect((await a.call("GET", "/stats")).json().unread_alerts).toBe(0);
  });
});

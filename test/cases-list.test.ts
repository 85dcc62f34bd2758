import { parse } from "csv-parse/sync";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { neutralise } from "../src/modules/cases/cases.export.js";
import { addDays, parisDate } from "../src/platform/paris.js";
import { createTestApp, tenantWithScopes } from "./helpers.js";

const t = await createTestApp();
const db = t.database.db;
const today = parisDate(new Date());

interface Case {
  cve_id: string;
  status: string;
  severity: string | null;
  notes: string | null;
  exception: { nature: string; expires_on: string } | null;
  risque: { id: string; title: string; expires_on: string } | null;
  tags: { id: string; name: string }[];
  history?: { event: string; from_status: string | null; to_status: string; comment: string | null; details: unknown }[];
}
interface List {
  items: Case[];
  total: number;
  page: number;
  page_size: number;
}

async function tenantWithKeys(name: string) {
  return tenantWithScopes(t, name, ["cases-write", "tags-write"]);
}

const a = await tenantWithKeys("Alpha");
const b = await tenantWithKeys("Beta");

const ids = (l: List) => l.items.map((c) => c.cve_id);
const list = async (query: string) => {
  const res = await a.call("GET", `/cases${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as List;
};
const history = async (cve: string) => ((await a.call("GET", `/cases/${cve}`)).json() as Case).history!;
const put = async (cve: string, body: unknown, path = "") => {
  const res = await a.call("PUT", `/cases/${cve}${path}`, body);
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json() as Case;
};

// The project's cases, one per situation the filters tell apart.
const web = await t.services.tags.create(a.project, { name: "web", color: "#ff0000" });
const prod = await t.services.tags.create(a.project, { name: "prod", color: "#00ff00" });
await put("CVE-2099-1001", { severity: "critical", notes: "serveur exposé" });
await put("CVE-2099-1002", { status: "en_analyse", severity: "high" });
await put("CVE-2099-1003", { status: "en_analyse", severity: "low" });
await put("CVE-2099-1003", { nature: "MITIGATED", measure: "WAF", justification: "filtré", expires_on: addDays(today, 10) }, "/exception");
await put("CVE-2099-1004", { severity: "medium" });
await put("CVE-2099-1004", { nature: "ACCEPTED_RISK", justification: "accepté", expires_on: addDays(today, 3) }, "/exception");
await put("CVE-2099-1005", { status: "corrige" });
await put("CVE-2099-1006", { severity: "high" });
await put("CVE-2099-1007", { status: "non_concerne", severity: "none", notes: '=HYPERLINK("http://x")' });
for (const [cve, tag] of [
  ["CVE-2099-1002", web],
  ["CVE-2099-1007", web],
  ["CVE-2099-1007", prod],
] as const)
  expect((await a.call("POST", `/cases/${cve}/tags`, { tag_id: tag.id })).statusCode).toBe(204);
// A register entry covering CVE-2099-1006 (the register's own API belongs to src/modules/risks).
const inserted = await db.execute(sql`insert into risks (org_id, title, owner, justification, expires_on)
    values (${a.orgId}, '+Risque accepté', 'rssi', 'budget', ${addDays(today, 4)}::date) returning id`);
const [risk] = (inserted as unknown as { rows: { id: string }[] }).rows;
await db.execute(
  sql`update cases set status = 'risque_accepte', risk_id = ${risk!.id} where project_id = ${a.projectId} and cve_id = 'CVE-2099-1006'`,
);
// Known instants: created and updated one hour apart each, 1007 the most recently changed.
await db.execute(sql`update cases set created_at = timestamptz '2026-01-01T00:00:00Z' + (right(cve_id, 1)::int * interval '1 hour'),
  updated_at = timestamptz '2026-02-01T00:00:00Z' + (right(cve_id, 1)::int * interval '1 hour') where project_id = ${a.projectId}`);
const ALL = ["CVE-2099-1001", "CVE-2099-1002", "CVE-2099-1003", "CVE-2099-1004", "CVE-2099-1005", "CVE-2099-1006", "CVE-2099-1007"];

describe("GET cases", () => {
  it("lists the project's cases, most recently changed first, with tags, register entry and paging", async () => {
    const all = await list("");
    expect(all.total).toBe(7);
    expect(ids(all)).toEqual([...ALL].reverse());
    expect(all.items[0]!.tags.map((x) => x.name)).toEqual(["prod", "web"]);
    expect(all.items.find((c) => c.cve_id === "CVE-2099-1006")!.risque).toEqual({
      id: risk!.id,
      title: "+Risque accepté",
      expires_on: addDays(today, 4),
    });
    const page2 = await list("?page=2&page_size=3");
    expect(page2).toMatchObject({ total: 7, page: 2, page_size: 3 });
    expect(ids(page2)).toEqual(["CVE-2099-1004", "CVE-2099-1003", "CVE-2099-1002"]);
    const past = await list("?page=4&page_size=3");
    expect(past).toMatchObject({ items: [], total: 7 });
  });

  it.each([
    ["?status=nouveau&status=corrige", ["CVE-2099-1001", "CVE-2099-1005"]],
    ["?status=risque_accepte", ["CVE-2099-1004", "CVE-2099-1006"]],
    ["?severity=high", ["CVE-2099-1002", "CVE-2099-1006"]],
    ["?severity=critical&severity=unknown", ["CVE-2099-1001", "CVE-2099-1005"]],
    ["?tag=WEB", ["CVE-2099-1002", "CVE-2099-1007"]],
    ["?tag=prod&status=non_concerne", ["CVE-2099-1007"]],
    ["?q=2099-1003", ["CVE-2099-1003"]],
    ["?q=cve-2099-100", ALL],
    ["?q=EXPOS", ["CVE-2099-1001"]],
    ["?q=%25", []],
    ["?has_exception=true", ["CVE-2099-1003", "CVE-2099-1004", "CVE-2099-1006"]],
    ["?has_exception=false", ["CVE-2099-1001", "CVE-2099-1002", "CVE-2099-1005", "CVE-2099-1007"]],
    [`?expiring_before=${addDays(today, 4)}`, ["CVE-2099-1004", "CVE-2099-1006"]],
    [`?expiring_before=${addDays(today, 3)}`, ["CVE-2099-1004"]],
    [`?expiring_before=${addDays(today, 10)}`, ["CVE-2099-1003", "CVE-2099-1004", "CVE-2099-1006"]],
    [`?risk_id=${risk!.id}`, ["CVE-2099-1006"]],
  ])("%s selects exactly its cases, and total counts them", async (query, expected) => {
    const l = await list(`${query}&sort=cve_id`.replace(/^&/, "?"));
    expect(ids(l)).toEqual(expected);
    expect(l.total).toBe(expected.length);
  });

  it("selects by tag id too", async () => {
    expect(ids(await list(`?tag=${prod.id}`))).toEqual(["CVE-2099-1007"]);
  });

  it.each([
    ["updated_at", ALL],
    ["-created_at", [...ALL].reverse()],
    ["created_at", ALL],
    ["cve_id", ALL],
    ["-cve_id", [...ALL].reverse()],
    // Soonest effective expiry (own exception or register entry) first, the cases without one after, by CVE id.
    ["expires_on", ["CVE-2099-1004", "CVE-2099-1006", "CVE-2099-1003", "CVE-2099-1001", "CVE-2099-1002", "CVE-2099-1005", "CVE-2099-1007"]],
    // critical, high, medium, low, none, unknown, then no severity.
    ["severity", ["CVE-2099-1001", "CVE-2099-1002", "CVE-2099-1006", "CVE-2099-1004", "CVE-2099-1003", "CVE-2099-1007", "CVE-2099-1005"]],
  ])("sort=%s orders the cases", async (sort, expected) => {
    expect(ids(await list(`?sort=${sort}`))).toEqual(expected);
    // Paging follows the same order.
    expect(ids(await list(`?sort=${sort}&page=2&page_size=4`))).toEqual(expected.slice(4));
  });

  it("refuses bad filters with a FastAPI-shaped 422", async () => {
    for (const q of [
      "?status=ferme",
      "?severity=grave",
      "?has_exception=peut-etre",
      "?expiring_before=2026-02-30",
      "?risk_id=x",
      "?sort=palier",
    ]) {
      const res = await a.call("GET", `/cases${q}`);
      expect(res.statusCode, q).toBe(422);
      expect((res.json() as { detail: { loc: string[] }[] }).detail[0]!.loc[0]).toBe("query");
    }
  });

  it("recounts total after a change of the project's cases (the cached count goes with the cases version)", async () => {
    expect((await list("?status=nouveau")).total).toBe(1);
    expect((await list("?tag=web")).total).toBe(2);
    await put("CVE-2099-1099", {});
    expect((await list("?status=nouveau")).total).toBe(2);
    // A renamed tag changes what the tag filter selects.
    await t.services.tags.update(a.project, web.id, { name: "site" });
    expect((await list("?tag=web")).total).toBe(0);
    await t.services.tags.update(a.project, web.id, { name: "web" });
    expect((await list("?tag=web")).total).toBe(2);
    // A bulk change too.
    const bulk = await a.call("POST", "/cases/bulk", { cve_ids: ["CVE-2099-1099"], set: { add_tags: [web.id] } });
    expect(bulk.json()).toEqual({ matched: 1, created: 0, updated: 1 });
    expect((await list("?tag=web")).total).toBe(3);
    await a.call("POST", "/cases/bulk", { cve_ids: ["CVE-2099-1099"], set: { remove_tags: [web.id] } });
    expect((await list("?tag=web")).total).toBe(2);
  });
});

describe("GET cases/stats", () => {
  it("counts the project's cases by status and severity, exceptions, register and expiring soon (Paris days)", async () => {
    const res = await a.call("GET", "/cases/stats");
    expect(res.statusCode).toBe(200);
    // Seven cases and CVE-2099-1099 (nouveau, unknown CVE).
    expect(res.json()).toEqual({
      total: 8,
      by_status: { nouveau: 2, en_analyse: 1, en_remediation: 0, corrige: 1, non_concerne: 1, attenue: 1, risque_accepte: 2 },
      by_severity: { critical: 1, high: 2, medium: 1, low: 1, none: 1, unknown: 2 },
      open: 3,
      closed: 5,
      with_exception: 2,
      covered_by_register: 1,
      // Within 7 days (the project's default): 1004 (+3) and 1006 (+4); 1003 (+10) is not.
      expiring_soon: 2,
    });
    await db.execute(sql`update projects set exception_warning_days = 10 where id = ${a.projectId}`);
    expect((await a.call("GET", "/cases/stats")).json()).toMatchObject({ expiring_soon: 3 });
    await db.execute(sql`update projects set exception_warning_days = 7 where id = ${a.projectId}`);
  });
});

describe("GET cases/export", () => {
  const COLUMNS = [
    "cve_id",
    "status",
    "severity",
    "severity_manual",
    "notes",
    "created_at",
    "updated_at",
    "exception_nature",
    "exception_measure",
    "exception_justification",
    "exception_expires_on",
    "exception_set_at",
    "risk_id",
    "risk_title",
    "risk_expires_on",
    "tags",
  ];

  it("streams the filtered list as CSV with a header row, formula cells neutralised, as an attachment", async () => {
    const res = await a.call("GET", "/cases/export?format=csv&sort=cve_id&status=non_concerne&status=risque_accepte&status=attenue");
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(res.headers["content-disposition"]).toBe(`attachment; filename="cases-${a.projectId}.csv"`);
    const rows = parse(res.body, { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0]!)).toEqual(COLUMNS);
    expect(rows.map((r) => r.cve_id)).toEqual(["CVE-2099-1003", "CVE-2099-1004", "CVE-2099-1006", "CVE-2099-1007"]);
    expect(rows[0]).toMatchObject({
      status: "attenue",
      severity: "low",
      severity_manual: "true",
      exception_nature: "MITIGATED",
      exception_measure: "WAF",
      exception_justification: "filtré",
      exception_expires_on: addDays(today, 10),
      risk_id: "",
      tags: "",
      created_at: "2026-01-01T03:00:00.000Z",
    });
    expect(rows[0]!.exception_set_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    // A cell a spreadsheet would run as a formula starts with a quote.
    expect(rows[2]).toMatchObject({ risk_id: risk!.id, risk_title: "'+Risque accepté", risk_expires_on: addDays(today, 4) });
    expect(rows[3]).toMatchObject({ notes: '\'=HYPERLINK("http://x")', tags: "prod; web", exception_nature: "" });
  });

  it("streams JSON objects with the same keys (values as they are), default sort, filters respected", async () => {
    const res = await a.call("GET", "/cases/export?format=json&tag=web");
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(res.headers["content-disposition"]).toBe(`attachment; filename="cases-${a.projectId}.json"`);
    const rows = res.json() as Record<string, unknown>[];
    expect(rows.map((r) => r.cve_id)).toEqual(["CVE-2099-1007", "CVE-2099-1002"]);
    expect(Object.keys(rows[0]!)).toEqual(COLUMNS);
    expect(rows[0]).toMatchObject({ notes: '=HYPERLINK("http://x")', severity_manual: true, tags: "prod; web", exception_nature: null });
    const none = await a.call("GET", "/cases/export?format=json&q=nothing-like-it");
    expect(none.json()).toEqual([]);
    const header = await a.call("GET", "/cases/export?q=nothing-like-it");
    expect(header.body).toBe(`${COLUMNS.join(",")}\n`);
  });

  it("walks the list in chunks by keyset without losing or repeating a case, in every sort", async () => {
    const service = t.services.cases;
    for (const sort of ["-updated_at", "updated_at", "created_at", "-created_at", "cve_id", "-cve_id", "expires_on", "severity"] as const) {
      const seen: string[] = [];
      for await (const chunk of service.export(a.project, { format: "json", sort }, 2)) seen.push(...chunk.map((r) => r.cve_id));
      const listed = ids(await list(`?sort=${sort}&page_size=100`));
      expect(seen, sort).toEqual(listed);
    }
  });

  it("is declared in OpenAPI with both media types (CSV text, JSON array of CaseExportRow)", async () => {
    const doc = (await t.app.inject({ method: "GET", url: "/openapi.json" })).json();
    const op = doc.paths["/api/v1/organizations/{org_id}/projects/{project_id}/cases/export"].get;
    expect(Object.keys(op.responses["200"].content)).toEqual(["text/csv", "application/json"]);
    expect(op.responses["200"].content["text/csv"].schema.type).toBe("string");
    expect(op.responses["200"].content["application/json"].schema).toEqual({
      type: "array",
      items: { $ref: "#/components/schemas/CaseExportRow" },
    });
    expect(Object.keys(doc.components.schemas.CaseExportRow.properties)).toEqual(COLUMNS);
  });

  it("neutralises every formula lead (= + - @ tab CR) and nothing else", () => {
    expect(["=1+1", "+33 1", "-2", "@SUM(A1)", "\tx", "\rx", "a=b", " =x", "", "CVE-2099-1"].map(neutralise)).toEqual([
      "'=1+1",
      "'+33 1",
      "'-2",
      "'@SUM(A1)",
      "'\tx",
      "'\rx",
      "a=b",
      " =x",
      "",
      "CVE-2099-1",
    ]);
  });

  it("refuses an unknown format: 422 literal_error", async () => {
    const res = await a.call("GET", "/cases/export?format=xlsx");
    expect(res.statusCode).toBe(422);
    expect((res.json() as { detail: { type: string; loc: string[] }[] }).detail[0]).toMatchObject({
      type: "literal_error",
      loc: ["query", "format"],
    });
  });
});

describe("POST cases/bulk", () => {
  it("changes status, severity and tags of these cases, a history row per case and change, with the comment", async () => {
    await put("CVE-2099-2001", {});
    await put("CVE-2099-2002", { status: "en_analyse" });
    await put("CVE-2099-2003", { status: "en_remediation" });
    const res = await a.call("POST", "/cases/bulk", {
      cve_ids: ["cve-2099-2001", "CVE-2099-2002", "CVE-2099-2003", "CVE-2099-2001"],
      set: { status: "en_remediation", severity: "high", add_tags: [prod.id] },
      comment: "campagne de patch",
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ matched: 3, created: 0, updated: 3 });
    const h1 = await history("CVE-2099-2001");
    expect(h1.slice(1).map((h) => [h.event, h.from_status, h.to_status, h.comment, h.details])).toEqual([
      ["status", "nouveau", "en_remediation", "campagne de patch", null],
      ["severity", "en_remediation", "en_remediation", "campagne de patch", { from: null, to: "high", follows_cve: false }],
      ["tag_added", "en_remediation", "en_remediation", "campagne de patch", { tag: { id: prod.id, name: "prod" } }],
    ]);
    // Already en_remediation: no status row.
    expect((await history("CVE-2099-2003")).slice(2).map((h) => h.event)).toEqual(["severity", "tag_added"]);
    const c = (await a.call("GET", "/cases/CVE-2099-2002")).json() as Case;
    expect(c).toMatchObject({ status: "en_remediation", severity: "high", tags: [{ name: "prod" }] });
    // The same again changes nothing: no row.
    const again = await a.call("POST", "/cases/bulk", {
      cve_ids: ["CVE-2099-2001", "CVE-2099-2002"],
      set: { status: "en_remediation", severity: "high", add_tags: [prod.id] },
    });
    expect(again.json()).toEqual({ matched: 2, created: 0, updated: 0 });
    expect(await history("CVE-2099-2001")).toHaveLength(4);
    // Following the CVE again; removing the tag.
    const back = await a.call("POST", "/cases/bulk", { cve_ids: ["CVE-2099-2001"], set: { severity: null, remove_tags: [prod.id] } });
    expect(back.json()).toEqual({ matched: 1, created: 0, updated: 1 });
    expect((await history("CVE-2099-2001")).slice(4).map((h) => [h.event, h.details])).toEqual([
      ["severity", { from: "high", to: null, follows_cve: true }],
      ["tag_removed", { tag: { id: prod.id, name: "prod" } }],
    ]);
  });

  it("refuses the whole change when one case cannot take the status: 409 with the refused CVE ids, nothing changed", async () => {
    await put("CVE-2099-3001", {});
    await put("CVE-2099-3002", { status: "corrige" });
    await put("CVE-2099-3003", { status: "non_concerne" });
    const before = await Promise.all(["CVE-2099-3001", "CVE-2099-3002", "CVE-2099-3003"].map(history));
    const res = await a.call("POST", "/cases/bulk", {
      cve_ids: ["CVE-2099-3003", "CVE-2099-3001", "CVE-2099-3002"],
      set: { status: "en_remediation", add_tags: [web.id] },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      detail: {
        code: "transition_invalide",
        message:
          "2 dossiers ne peuvent pas prendre ce statut, rien n'a été modifié. Transition invalide : corrige → en_remediation (depuis corrige : en_analyse)",
        from: "corrige",
        to: "en_remediation",
        cve_ids: ["CVE-2099-3002", "CVE-2099-3003"],
      },
    });
    expect(await Promise.all(["CVE-2099-3001", "CVE-2099-3002", "CVE-2099-3003"].map(history))).toEqual(before);
    expect((await a.call("GET", "/cases/CVE-2099-3001")).json() as Case).toMatchObject({ status: "nouveau", tags: [] });
    // attenue is reached by an exception only.
    const exc = await a.call("POST", "/cases/bulk", { cve_ids: ["CVE-2099-3001"], set: { status: "attenue" } });
    expect(exc.statusCode).toBe(409);
  });

  it("by filter: leaving an exception removes the case's own or uncovers it from the register, as PUT does", async () => {
    const before = ((await a.call("GET", "/cases/CVE-2099-1003")).json() as Case).exception!;
    const res = await a.call("POST", "/cases/bulk", {
      filter: { has_exception: true },
      set: { status: "en_analyse" },
      comment: "revue annuelle",
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ matched: 3, created: 0, updated: 3 });
    const h3 = (await history("CVE-2099-1003")).at(-1)!;
    expect(h3).toMatchObject({ event: "exception_removed", from_status: "attenue", to_status: "en_analyse", comment: "revue annuelle" });
    expect(h3.details).toEqual({ exception: before });
    const h4 = (await history("CVE-2099-1004")).at(-1)!;
    expect(h4).toMatchObject({
      event: "exception_removed",
      from_status: "risque_accepte",
      details: { exception: { nature: "ACCEPTED_RISK" } },
    });
    const h6 = (await history("CVE-2099-1006")).at(-1)!;
    expect(h6).toMatchObject({ event: "risk_unlinked", from_status: "risque_accepte", to_status: "en_analyse" });
    expect(h6.details).toEqual({ risk: { id: risk!.id, title: "+Risque accepté", expires_on: addDays(today, 4) } });
    expect((await list("?has_exception=true")).total).toBe(0);
    const c6 = (await a.call("GET", "/cases/CVE-2099-1006")).json() as Case;
    expect(c6).toMatchObject({ status: "en_analyse", risque: null, exception: null });
    // The filter selects by the list's rules: an empty selection changes nothing.
    expect((await a.call("POST", "/cases/bulk", { filter: { has_exception: true }, set: { status: "corrige" } })).json()).toEqual({
      matched: 0,
      created: 0,
      updated: 0,
    });
  });

  it("creates the missing cases of cve_ids with create_missing, then applies the change to all of them", async () => {
    await put("CVE-2099-5001", { status: "en_analyse" });
    const res = await a.call("POST", "/cases/bulk", {
      cve_ids: ["CVE-2099-5001", "cve-2099-5002"],
      create_missing: true,
      set: { status: "en_remediation" },
      comment: "import du rapport d'audit",
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ matched: 2, created: 1, updated: 2 });
    expect((await history("CVE-2099-5002")).map((h) => [h.event, h.from_status, h.to_status, h.comment])).toEqual([
      ["created", null, "nouveau", "import du rapport d'audit"],
      ["status", "nouveau", "en_remediation", "import du rapport d'audit"],
    ]);
    // All or nothing: a refused transition rolls the creations back too.
    await put("CVE-2099-5003", { status: "corrige" });
    const refused = await a.call("POST", "/cases/bulk", {
      cve_ids: ["CVE-2099-5003", "CVE-2099-5004"],
      create_missing: true,
      set: { status: "en_remediation" },
    });
    expect(refused.statusCode).toBe(409);
    expect((await a.call("GET", "/cases/CVE-2099-5004")).statusCode).toBe(404);
    // Only with cve_ids.
    const withFilter = await a.call("POST", "/cases/bulk", { filter: {}, create_missing: true, set: { status: "en_analyse" } });
    expect(withFilter.statusCode).toBe(422);
    expect((withFilter.json() as { detail: { loc: string[] }[] }).detail[0]!.loc).toEqual(["body", "create_missing"]);
  });

  it("refuses bad input with a 422 and changes nothing", async () => {
    const foreignTag = await t.services.tags.create(b.project, { name: "ailleurs", color: "#000000" });
    const cases: [unknown, string[], string][] = [
      [
        { cve_ids: ["CVE-2099-1001", "CVE-2099-9999", "CVE-2099-9998"], set: { status: "corrige" } },
        ["body", "cve_ids"],
        "CVE-2099-9999, CVE-2099-9998",
      ],
      [{ cve_ids: ["CVE-2099-1001"], filter: {}, set: { status: "corrige" } }, ["body"], "soit cve_ids"],
      [{ set: { status: "corrige" } }, ["body"], "soit cve_ids"],
      [{ cve_ids: ["CVE-2099-1001"], set: {} }, ["body", "set"], "au moins un changement"],
      [{ cve_ids: ["CVE-2099-1001"], set: { add_tags: [foreignTag.id] } }, ["body", "set", "add_tags"], foreignTag.id],
      [{ cve_ids: ["CVE-2099-1001"], set: { remove_tags: [foreignTag.id] } }, ["body", "set", "remove_tags"], foreignTag.id],
      [{ cve_ids: [], set: { status: "corrige" } }, ["body", "cve_ids"], ""],
      [{ cve_ids: ["GHSA-1"], set: { status: "corrige" } }, ["body", "cve_ids", "0"], ""],
      [{ filter: { status: ["ferme"] }, set: { status: "corrige" } }, ["body", "filter", "status", "0"], ""],
    ];
    const before = await history("CVE-2099-1001");
    for (const [body, loc, msg] of cases) {
      const res = await a.call("POST", "/cases/bulk", body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      const d = (res.json() as { detail: { loc: (string | number)[]; msg: string }[] }).detail[0]!;
      expect(d.loc.map(String)).toEqual(loc);
      expect(d.msg).toContain(msg);
    }
    expect(await history("CVE-2099-1001")).toEqual(before);
  });

  it("refuses a filter selecting more than 50,000 cases (422), and needs cases-write (403)", async () => {
    const c = await tenantWithKeys("Gamma");
    await db.execute(sql`insert into cases (org_id, project_id, cve_id, status)
      select ${c.orgId}::uuid, ${c.projectId}::uuid, 'CVE-2098-' || lpad(n::text, 5, '0'), 'nouveau' from generate_series(1, 50001) n`);
    const res = await c.call("POST", "/cases/bulk", { filter: {}, set: { status: "en_analyse" } });
    expect(res.statusCode).toBe(422);
    expect((res.json() as { detail: { loc: string[]; msg: string }[] }).detail[0]).toMatchObject({
      loc: ["body", "filter"],
      msg: expect.stringContaining("plus de 50000 dossiers"),
    });
    expect((await c.call("GET", "/cases?status=nouveau")).json()).toMatchObject({ total: 50001 });
    const noScope = await c.call("POST", "/cases/bulk", { filter: {}, set: { status: "en_analyse" } }, c.readKey);
    expect(noScope.statusCode).toBe(403);
  });
});

describe("another tenant", () => {
  it("sees none of it: 404 « Projet introuvable », and a key restricted to another project too", async () => {
    const other = await t.services.projects.create({ orgId: a.orgId, name: "Recette" });
    const { key: restricted } = await t.services.apiKeys.create({
      orgId: a.orgId,
      name: "recette",
      scopes: ["cases-write"],
      projectIds: [other.id],
    });
    for (const token of [b.key, restricted]) {
      for (const [method, path, body] of [
        ["GET", "/cases", undefined],
        ["GET", "/cases/stats", undefined],
        ["GET", "/cases/export?format=csv", undefined],
        ["POST", "/cases/bulk", { filter: {}, set: { status: "corrige" } }],
      ] as const) {
        const res = await a.call(method, path, body, token);
        expect(res.statusCode, `${method} ${path}`).toBe(404);
        expect(res.json()).toEqual({ detail: "Projet introuvable" });
      }
    }
    // Its own project lists its own cases only.
    expect((await b.call("GET", "/cases")).json()).toMatchObject({ items: [], total: 0 });
    expect((await b.call("GET", "/cases/stats")).json()).toMatchObject({ total: 0, by_severity: {} });
    expect((await b.call("POST", "/cases/bulk", { cve_ids: ["CVE-2099-1001"], set: { status: "corrige" } })).statusCode).toBe(422);
  });
});

import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import type { ActionContext, ActionHandler } from "../src/engine/actions.js";
import { importFeed } from "../src/feeds/import.js";
import { startJobs } from "../src/jobs.js";
import { createLogger } from "../src/platform/log.js";
import { parisDate } from "../src/platform/paris.js";
import { createTenant, createTestApp, createWorkflow, tenantWithScopes } from "./helpers.js";
import { localServer, selfSigned, wordpressPage } from "./urls-servers.js";

/**
 * Monitored URLs end to end: the routes, scans of local HTTP and HTTPS servers (certificates made
 * by openssl here, one expired, one expiring in 10 days) with the SSRF guard relaxed explicitly
 * (VIGIE_ALLOW_PRIVATE_TARGETS=true), and a second application with the default guard that must
 * refuse them. Notifications are a fake handler that records each call.
 */
const calls: { action: string; title: string; project: string }[] = [];
const fake =
  (action: string): ActionHandler =>
  async (ctx: ActionContext) => {
    calls.push({ action, title: ctx.message.title, project: ctx.project.id });
    return { detail: `${action} envoyé` };
  };
const t = await createTestApp(
  { VIGIE_ALLOW_PRIVATE_TARGETS: "true", VIGIE_URLS_SCAN_TIMEOUT_MS: "1500" },
  {
    notify: {
      notify_webhook: fake("notify_webhook"),
      notify_email: fake("notify_email"),
      notify_slack: fake("notify_slack"),
      notify_teams: fake("notify_teams"),
    },
  },
);
const sqlRows = async <T>(text: string, params: unknown[] = []) => ((await t.database.executeSql(text, params)) as { rows: T[] }).rows;

let flaky = 200;
const web = await localServer({
  "/": (_req, res) =>
    res
      .writeHead(200, {
        "content-type": "text/html; charset=utf-8",
        server: "nginx/1.24.0",
        "x-powered-by": "Tomcat-9.0.80",
        "set-cookie": "PHPSESSID=abc; path=/",
      })
      .end(wordpressPage(5)),
  "/loop": (_req, res) => res.writeHead(302, { location: "/loop" }).end(),
  "/silent": () => undefined,
  "/error": (_req, res) => res.writeHead(503).end("maintenance"),
  "/flaky": (_req, res) => res.writeHead(flaky).end("flaky"),
  "/to-private": (_req, res) => res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end(),
});
const DAY = 86_400_000;
const expired = await localServer(
  { "/": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html><body>expired</body></html>") },
  await selfSigned({
    cn: "localhost",
    org: "Vigie Test CA",
    notBefore: new Date("2020-01-01T00:00:00Z"),
    notAfter: new Date("2021-01-02T03:04:05Z"),
  }),
);
const soonEnd = new Date(Math.floor((Date.now() + 10 * DAY) / 1000) * 1000);
const soon = await localServer(
  { "/": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html><body>soon</body></html>") },
  await selfSigned({ cn: "localhost", org: "Soon Expiring CA", notBefore: new Date(Date.now() - DAY), notAfter: soonEnd }),
);
afterAll(async () => {
  await Promise.all([web.close(), expired.close(), soon.close()]);
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const a = await tenantWithScopes(t, "Urls A", ["urls-write", "stacks-write", "workflows-write"]);
const b = await tenantWithScopes(t, "Urls B", ["urls-write", "stacks-write"]);

async function monitor(x: typeof a, url: string, extra: Record<string, unknown> = {}) {
  const res = await x.call("POST", "/monitored-urls", { url, ...extra });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; url: string };
}
const detail = async (x: typeof a, id: string) => (await x.call("GET", `/monitored-urls/${id}`)).json();
const eventsOf = (urlId: string) =>
  sqlRows<{ event: string; payload: Record<string, unknown> }>(
    "select event, payload from outbox_events where payload->>'url_id' = $1 order by id",
    [urlId],
  );

describe("monitored URLs: the routes", () => {
  it("creates, lists with paging, reads, changes and deletes; the stats count them", async () => {
    const x = await tenantWithScopes(t, "Urls routes", ["urls-write"]);
    const first = await x.call("POST", "/monitored-urls", { url: "HTTPS://Shop.Example.ORG/path#frag", label: "Boutique" });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({
      url: "https://shop.example.org/path",
      label: "Boutique",
      is_enabled: true,
      last_status: "pending",
      last_http_status: null,
      cert_expires_at: null,
      cert_issuer: null,
      last_scanned_at: null,
      scan_interval_hours: 24,
      down_after: null,
      cert_warning_days: null,
      consecutive_failures: 0,
    });
    const id = first.json().id;
    await monitor(x, "http://intranet.example.org/");
    const page = (await x.call("GET", "/monitored-urls?page=1&page_size=1")).json();
    // This application lets scans reach private addresses (VIGIE_ALLOW_PRIVATE_TARGETS=true): the list says so.
    expect(page).toMatchObject({ total: 2, page: 1, page_size: 1, private_targets_allowed: true });
    expect(page.items).toHaveLength(1);
    expect((await x.call("GET", "/monitored-urls?page=2&page_size=1")).json().items).toHaveLength(1);
    expect(await detail(x, id)).toMatchObject({ id, technologies: [] });

    const patched = await x.call("PATCH", `/monitored-urls/${id}`, {
      label: null,
      scan_interval_hours: 6,
      down_after: 2,
      is_enabled: false,
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ label: null, scan_interval_hours: 6, down_after: 2, is_enabled: false });

    const dup = await x.call("POST", "/monitored-urls", { url: "https://shop.example.org/path" });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().detail.code).toBe("url_deja_surveillee");

    expect((await x.call("GET", "/stats")).json().monitored_urls).toBe(2);
    expect((await x.call("DELETE", `/monitored-urls/${id}`)).statusCode).toBe(204);
    expect((await x.call("GET", `/monitored-urls/${id}`)).statusCode).toBe(404);
    expect((await x.call("GET", "/stats")).json().monitored_urls).toBe(1);
  });

  it("refuses a URL that is not http(s) with a Pydantic-shaped 422 on the field, and one with credentials", async () => {
    for (const url of ["ftp://files.example.org/", "javascript:alert(1)", "file:///etc/passwd", "example.org"]) {
      const res = await a.call("POST", "/monitored-urls", { url });
      expect(res.statusCode).toBe(422);
      expect(res.json().detail).toEqual([
        {
          type: "string_pattern_mismatch",
          loc: ["body", "url"],
          msg: "String should match pattern '^[Hh][Tt][Tt][Pp][Ss]?:\\/\\/\\S+$'",
          input: url,
          ctx: { pattern: "^[Hh][Tt][Tt][Pp][Ss]?:\\/\\/\\S+$" },
        },
      ]);
    }
    const cred = await a.call("POST", "/monitored-urls", { url: "https://user:secret@example.org/" });
    expect(cred.statusCode).toBe(422);
    expect(cred.json().detail[0]).toMatchObject({ type: "value_error", loc: ["body", "url"] });
    const interval = await a.call("POST", "/monitored-urls", { url: "https://example.org/", scan_interval_hours: 0 });
    expect(interval.json().detail[0]).toMatchObject({ type: "greater_than_equal", loc: ["body", "scan_interval_hours"] });
    expect((await a.call("GET", "/monitored-urls")).json().total).toBe(0);
  });

  it("needs urls-write to write, not to read", async () => {
    const res = await a.call("POST", "/monitored-urls", { url: "https://example.org/" }, a.readKey);
    expect(res.statusCode).toBe(403);
    expect((await a.call("GET", "/monitored-urls", undefined, a.readKey)).statusCode).toBe(200);
  });
});

// A URL added is due at the database's now(), in microseconds; a JavaScript Date is in milliseconds, so
// "now" taken in the same millisecond can come before it (the last URL was then left pending).
const justAfter = () => new Date(Date.now() + 1000);

describe("monitored URLs: scans", () => {
  it("scans an HTTP page: status, technologies with versions, categories and CPEs; sends no cookie or credentials", async () => {
    const u = await monitor(a, `${web.base}/`);
    const r = await t.services.urls.scanDue(justAfter());
    expect(r.scanned).toBeGreaterThanOrEqual(1);
    const d = await detail(a, u.id);
    expect(d).toMatchObject({
      last_status: "up",
      last_http_status: 200,
      cert_expires_at: null,
      cert_issuer: null,
      consecutive_failures: 0,
    });
    expect(d.last_scanned_at).not.toBeNull();
    const tech = new Map((d.technologies as { name: string }[]).map((x) => [x.name, x]));
    expect(tech.get("WordPress")).toEqual({
      name: "WordPress",
      version: "6.4.2",
      confidence: 100,
      categories: ["CMS", "Blogs"],
      cpe: "cpe:2.3:a:wordpress:wordpress:*:*:*:*:*:*:*:*",
      website: "https://wordpress.org",
    });
    expect(tech.get("Nginx")).toMatchObject({ version: "1.24.0" });
    expect(tech.get("Apache Tomcat")).toMatchObject({ version: "9.0.80", cpe: "cpe:2.3:a:apache:tomcat:*:*:*:*:*:*:*:*" });
    // An error page later does not wipe what the site runs.
    await t.database.executeSql("update monitored_urls set url = $1, next_scan_at = now() where id = $2", [`${web.base}/error`, u.id]);
    await t.services.urls.scanOne(u.id);
    const after = await detail(a, u.id);
    expect(after).toMatchObject({ last_status: "down", last_http_status: 503 });
    expect(after.technologies).toEqual(d.technologies);
    await t.database.executeSql("update monitored_urls set url = $1 where id = $2", [`${web.base}/`, u.id]);
    const hit = web.seen.find((s) => s.url === "/")!;
    expect(hit.headers.cookie).toBeUndefined();
    expect(hit.headers.authorization).toBeUndefined();
  });

  it("reads the leaf certificate of an HTTPS server whose self-signed certificate expired: expiry and issuer", async () => {
    const u = await monitor(a, `${expired.base}/`);
    await t.services.urls.scanDue(justAfter());
    const d = await detail(a, u.id);
    expect(d).toMatchObject({
      last_status: "tls_error",
      last_http_status: 200,
      cert_expires_at: "2021-01-02T03:04:05.000Z",
      cert_issuer: "Vigie Test CA",
      cert_subject: "localhost",
      cert_valid: false,
    });
    expect(["CERT_HAS_EXPIRED", "DEPTH_ZERO_SELF_SIGNED_CERT"]).toContain(d.cert_error);
    expect(d.last_error).toContain("certificat non vérifié");
  });

  it("tells a redirect loop, a timeout, a refused connection and a server error apart", async () => {
    const port = await closedPort();
    const urls = {
      redirect_loop: await monitor(a, `${web.base}/loop`),
      timeout: await monitor(a, `${web.base}/silent`),
      refused: await monitor(a, `http://127.0.0.1:${port}/`),
      down: await monitor(a, `${web.base}/error`),
      http_error: await monitor(a, `${web.base}/missing`),
    };
    await t.services.urls.scanDue(justAfter());
    for (const [status, u] of Object.entries(urls)) expect((await detail(a, u.id)).last_status, status).toBe(status);
    expect((await detail(a, urls.down.id)).last_http_status).toBe(503);
    // At most 5 redirects followed: the first request and 5 more.
    expect(web.seen.filter((s) => s.url === "/loop")).toHaveLength(6);
    // A failure with no answer keeps nothing of a certificate and says why.
    expect((await detail(a, urls.refused.id)).last_error).toContain("ECONNREFUSED");
  });

  it("POST …/scan answers 202 and the scan runs as a job (urls-scan)", async () => {
    const u = await monitor(a, `${web.base}/flaky`, { is_enabled: false });
    const jobs = await startJobs(t.database, t.services, createLogger("silent"), t.config);
    try {
      const res = await a.call("POST", `/monitored-urls/${u.id}/scan`);
      expect(res.statusCode).toBe(202);
      expect(res.json()).toMatchObject({ id: u.id, status: "queued" });
      let d = await detail(a, u.id);
      for (let i = 0; i < 100 && d.last_scanned_at === null; i++) {
        await new Promise((r) => setTimeout(r, 100));
        d = await detail(a, u.id);
      }
      expect(d).toMatchObject({ last_status: "up", last_http_status: 200 });
      const { rows } = (await t.database.executeSql(
        "select state, output from pgboss.job where name = 'urls-scan' and data->>'url_id' = $1",
        [u.id],
      )) as { rows: { state: string; output: Record<string, unknown> }[] };
      expect(rows.map((r) => r.state)).toEqual(["completed"]);
    } finally {
      await jobs.stop();
    }
  });
});

describe("monitored URLs: the SSRF guard", () => {
  it("refuses local servers by default, on the first hop and on redirects, before any request reaches them", async () => {
    const g = await createTestApp();
    const x = await tenantWithScopes(g, "Guarded", ["urls-write"]);
    const before = web.seen.length;
    const direct = await x.call("POST", "/monitored-urls", { url: `${web.base}/` });
    const https = await x.call("POST", "/monitored-urls", { url: `${expired.base}/` });
    const local = await x.call("POST", "/monitored-urls", { url: `http://localhost:${web.port}/` });
    const metadata = await x.call("POST", "/monitored-urls", { url: "http://169.254.169.254/latest/meta-data/" });
    await g.services.urls.scanDue(justAfter());
    for (const res of [direct, https, local, metadata]) {
      const d = (await x.call("GET", `/monitored-urls/${res.json().id}`)).json();
      expect(d.last_status).toBe("blocked");
      expect(d.last_error).toContain("VIGIE_ALLOW_PRIVATE_TARGETS");
    }
    expect(web.seen.length).toBe(before);
    // The list tells the web application, which then refuses such addresses when typed.
    expect((await x.call("GET", "/monitored-urls")).json().private_targets_allowed).toBe(false);
  });

  it("checks redirects even when the first address is let through", async () => {
    const u = await monitor(b, `${web.base}/to-private`);
    const before = web.seen.length;
    // Relaxed for 127.0.0.1 only: the redirect to the metadata address is refused.
    const { createScanner } = await import("../src/modules/urls/urls.scan.js");
    const { loadFingerprints } = await import("../src/modules/urls/urls.fingerprints.js");
    const fp = loadFingerprints();
    const scan = createScanner(
      { allowPrivate: false, allowAddresses: ["127.0.0.1"], timeoutMs: 1500, maxBodyBytes: 1 << 21, maxRedirects: 5 },
      () => fp,
    );
    const r = await scan(u.url);
    expect(r).toMatchObject({ status: "blocked", httpStatus: null });
    expect(r.error).toContain("métadonnées cloud");
    expect(web.seen.length).toBe(before + 1);
  });
});

describe("monitored URLs: events", () => {
  it("url.down after N failures in a row (once), url.recovered at the next success (once)", async () => {
    const u = await monitor(a, `${web.base}/flaky?events`, { down_after: 2, scan_interval_hours: 1 });
    const scan = async () => {
      await t.services.urls.scanOne(u.id);
      return (await eventsOf(u.id)).map((e) => e.event);
    };
    flaky = 500;
    expect(await scan()).toEqual([]);
    expect((await detail(a, u.id)).consecutive_failures).toBe(1);
    expect(await scan()).toEqual(["url.down"]);
    expect(await scan()).toEqual(["url.down"]);
    flaky = 200;
    expect(await scan()).toEqual(["url.down", "url.recovered"]);
    expect(await scan()).toEqual(["url.down", "url.recovered"]);
    const [down, recovered] = await eventsOf(u.id);
    expect(down!.payload).toMatchObject({ url: u.url, status: "down", http_status: 500, consecutive_failures: 2 });
    expect(recovered!.payload).toMatchObject({ url: u.url, status: "up", http_status: 200 });
    const d = await detail(a, u.id);
    expect(d.consecutive_failures).toBe(0);
    // The next scan is an interval away, ±10 %.
    const next = Date.parse(d.next_scan_at) - Date.parse(d.last_scanned_at);
    expect(next).toBeGreaterThanOrEqual(0.9 * 3600_000);
    expect(next).toBeLessThanOrEqual(1.1 * 3600_000);
  });

  it("url.cert_expiring once per certificate expiry date, within the warning days (Paris days)", async () => {
    const u = await monitor(a, `${soon.base}/`);
    await t.services.urls.scanOne(u.id);
    await t.services.urls.scanOne(u.id);
    const events = await eventsOf(u.id);
    expect(events.map((e) => e.event)).toEqual(["url.cert_expiring"]);
    const left = Math.round((Date.parse(parisDate(soonEnd)) - Date.parse(parisDate(new Date()))) / DAY);
    expect(events[0]!.payload).toMatchObject({
      url: u.url,
      cert_issuer: "Soon Expiring CA",
      cert_expires_at: soonEnd.toISOString(),
      days_left: left,
    });
    // A URL whose warning window is shorter than the days left gets none.
    const quiet = await monitor(b, `${soon.base}/`, { cert_warning_days: 5 });
    await t.services.urls.scanOne(quiet.id);
    expect(await eventsOf(quiet.id)).toEqual([]);
  });

  it("a workflow fires on url.down, with the URL's facts", async () => {
    const x = await tenantWithScopes(t, "Urls workflow", ["urls-write", "workflows-write"]);
    const wf = await createWorkflow(t, x, {
      name: "Panne",
      create_case: false,
      trigger: { event: "url.down", conditions: [{ field: "url.status", op: "eq", value: "down" }] },
      actions: [{ type: "notify_webhook", params: { url: "https://hooks.example.test/down" } }],
    });
    expect(wf.statusCode, wf.body).toBe(201);
    const u = await monitor(x, `${web.base}/error`, { down_after: 1 });
    await t.services.urls.scanOne(u.id);
    await t.services.runs.dispatchAll();
    const runs = await sqlRows<{ trigger_event: string; status: string }>(
      "select trigger_event, status from workflow_runs where project_id = $1",
      [x.projectId],
    );
    expect(runs).toEqual([{ trigger_event: "url.down", status: "success" }]);
    expect(calls.filter((c) => c.project === x.projectId)).toEqual([
      { action: "notify_webhook", title: `url.down ${u.url} touche Production`, project: x.projectId },
    ]);
  });
});

describe("url.cert_expiring and a trigger's days_before", () => {
  it("fires only when the certificate's days_left is within the trigger's days_before; else the run succeeds with the reason", async () => {
    const x = await tenantWithScopes(t, "Urls days_before", ["urls-write", "workflows-write"]);
    const wf = async (name: string, params: Record<string, unknown>) => {
      const res = await createWorkflow(t, x, {
        name,
        create_case: false,
        trigger: { event: "url.cert_expiring", params },
        actions: [{ type: "notify_webhook", params: { url: `https://hooks.example.test/${name}` } }],
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().id as string;
    };
    const within = await wf("dans-le-seuil", {}); // days_before 14 by default; the certificate ends in 10 days
    const beyond = await wf("au-dela", { days_before: 5 });
    const u = await monitor(x, `${soon.base}/`);
    await t.services.urls.scanOne(u.id);
    const [event] = await eventsOf(u.id);
    const left = (event!.payload as { days_left: number }).days_left;
    expect(left).toBeGreaterThan(5);
    expect(left).toBeLessThanOrEqual(14);
    await t.services.runs.dispatchAll();
    const runs = await sqlRows<{
      workflow_id: string;
      status: string;
      report: { steps: { node: string; outcome: string; detail: string }[] };
    }>("select workflow_id, status, report from workflow_runs where project_id = $1", [x.projectId]);
    const of = (id: string) => runs.find((r) => r.workflow_id === id)!;
    expect(of(within).status).toBe("success");
    expect(of(within).report.steps.map((s) => s.outcome)).toEqual(["declenche", "succes"]);
    expect(of(beyond).status).toBe("success");
    expect(of(beyond).report.steps[0]).toMatchObject({
      outcome: "non_declenche",
      detail: `échéance dans ${left} jour(s), au-delà du seuil days_before 5`,
    });
    expect(
      of(beyond)
        .report.steps.slice(1)
        .map((s) => s.outcome),
    ).toEqual(["non_atteint"]);
    expect(calls.filter((c) => c.project === x.projectId)).toHaveLength(1);
  });
});

describe("monitored URLs: a detected technology watched in a stack", () => {
  it("adds Apache Tomcat 9.0.80 as a CPE item, matched at once against real CVE records", async () => {
    expect((await importFeed(t.database.db, "cve5", ["test/fixtures/matching/cve5-tomcat.jsonl"])).errors).toEqual([]);
    const u = await monitor(b, `${web.base}/`);
    await t.services.urls.scanOne(u.id);
    const stack = (await b.call("POST", "/stacks", { name: "Web" })).json();
    const res = await b.call("POST", `/monitored-urls/${u.id}/technologies/apache%20tomcat/watch`, { stack_id: stack.id });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ item_type: "cpe", value: "cpe:2.3:a:apache:tomcat:9.0.80:*:*:*:*:*:*:*" });
    expect(res.json().alertes_creees).toBeGreaterThan(0);
    const alerts = (await b.call("GET", "/alerts?page_size=100")).json().items.map((x: { cve_id: string }) => x.cve_id);
    // CVE-2024-23672: Apache Tomcat 9.0.0-M1 to 9.0.85 (CNA record).
    expect(alerts).toContain("CVE-2024-23672");

    const noCpe = await b.call("POST", `/monitored-urls/${u.id}/technologies/jQuery%20Migrate/watch`, { stack_id: stack.id });
    expect(noCpe.statusCode).toBe(409);
    expect(noCpe.json().detail.code).toBe("technologie_sans_cpe");
    const noVersion = await b.call("POST", `/monitored-urls/${u.id}/technologies/MySQL/watch`, { stack_id: stack.id });
    expect(noVersion.statusCode).toBe(409);
    expect(noVersion.json().detail.code).toBe("technologie_sans_version");
    const absent = await b.call("POST", `/monitored-urls/${u.id}/technologies/Drupal/watch`, { stack_id: stack.id });
    expect(absent.statusCode).toBe(404);
  });
});

describe("monitored URLs: tenancy", () => {
  it("another tenant cannot see or touch a URL", async () => {
    const u = await monitor(a, "https://private.example.org/");
    const other = await createTenant(t);
    const c = await tenantWithScopes(t, "Intruder", ["urls-write", "stacks-write"]);
    const stack = (await c.call("POST", "/stacks", { name: "S" })).json();
    for (const [method, path, body] of [
      ["GET", `/monitored-urls/${u.id}`, undefined],
      ["PATCH", `/monitored-urls/${u.id}`, { label: "x" }],
      ["DELETE", `/monitored-urls/${u.id}`, undefined],
      ["POST", `/monitored-urls/${u.id}/scan`, undefined],
      ["POST", `/monitored-urls/${u.id}/technologies/Nginx/watch`, { stack_id: stack.id }],
    ] as const) {
      const res = await c.call(method, path, body);
      expect(res.statusCode, `${method} ${path}`).toBe(404);
      expect(res.json()).toEqual({ detail: "URL surveillée introuvable" });
    }
    expect((await c.call("GET", "/monitored-urls")).json().total).toBe(0);
    // Its own project path under another organization: the project is not found.
    const cross = await t.app.inject({
      method: "GET",
      url: `/api/v1/organizations/${other.orgId}/projects/${a.projectId}/monitored-urls`,
      headers: { authorization: `Bearer ${other.key}` },
    });
    expect(cross.statusCode).toBe(404);
    expect((await detail(a, u.id)).label).toBeNull();
  });
});

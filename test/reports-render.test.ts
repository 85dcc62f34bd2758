import type { AddressInfo } from "node:net";
import { describe, expect, it, vi } from "vitest";
import { pdfRenderer } from "../src/modules/reports/reports.renderer.js";
import type { Content } from "../src/modules/reports/reports.content.js";
import type { PdfMeta } from "../src/modules/reports/reports.pdf.js";
import { bearer, createTestApp, tenantWithScopes } from "./helpers.js";
import { readPdf } from "./pdf-reader.js";

/**
 * A report's PDF is laid out in a worker thread (reports.renderer.ts), not on the event loop: while
 * it renders, a request on another keep-alive connection is answered (issue 21: requests of other
 * connections waited for the whole layout, 0.1 to 0.4 s a report on the snapshot data). The KEV
 * report lists every KEV alert of the project: 1,500 of them here, a PDF of some 40 pages, so that
 * the layout is long. The rows are synthetic (CVE-2099-…): this test is about where the work runs.
 */

const t = await createTestApp();
const a = await tenantWithScopes(t, "Alpha", ["reports-write"]);
const ROWS = 1500;
await t.database.executeSql(
  `insert into cves (cve_id, state, severity, cvss_score, date_published, is_kev, kev)
   select 'CVE-2099-' || (10000 + n), 'PUBLISHED', 'critical', 9.8, timestamptz '2024-01-01' + n * interval '1 hour', true,
     jsonb_build_object('date_added', '2024-03-01', 'due_date', to_char(date '2024-03-22' + n % 90, 'YYYY-MM-DD'),
       'vendor_project', 'Vendor ' || n % 40, 'product', 'Product ' || n % 200)
   from generate_series(1, ${ROWS}) as n`,
);
await t.database.executeSql(
  `insert into alerts (org_id, project_id, cve_id, triggered_at, severity, cvss_score, is_kev, has_poc, palier, vendor, product, source, match)
   select $1, $2, 'CVE-2099-' || (10000 + n), now() - n * interval '1 minute', 'critical', 9.8, true, n % 3 = 0, 'P1',
     'vendor' || n % 40, 'product' || n % 200, 'cna', '{}'::jsonb
   from generate_series(1, ${ROWS}) as n`,
  [a.orgId, a.projectId],
);
await t.app.listen({ port: 0, host: "127.0.0.1" });
const origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;

describe("a report's PDF rendered off the event loop", () => {
  it("lets a request on another connection be answered while the PDF renders", async () => {
    // A first report: PDFKit and the fonts are loaded (an import whose I/O would leave gaps in the layout's run).
    const first = await fetch(`${origin}${a.base}/reports`, {
      method: "POST",
      headers: { ...bearer(a.key), "content-type": "application/json" },
      body: JSON.stringify({ report_type: "conformite_kev", language: "en" }),
    });
    expect(first.status).toBe(201);
    const events: string[] = [];
    let other: Promise<void> | undefined;
    const render = pdfRenderer.render.bind(pdfRenderer);
    // The report's PDF is asked for: at that moment, another client sends a request.
    const spy = vi.spyOn(pdfRenderer, "render").mockImplementation((content: Content, meta: PdfMeta) => {
      events.push("render started");
      other = fetch(`${origin}/api/v1/me`, { headers: bearer(a.readKey) }).then(async (r) => {
        await r.arrayBuffer();
        events.push(`other request answered ${r.status}`);
      });
      return render(content, meta).then((pdf) => {
        events.push("render done");
        return pdf;
      });
    });
    try {
      const res = await fetch(`${origin}${a.base}/reports`, {
        method: "POST",
        headers: { ...bearer(a.key), "content-type": "application/json" },
        body: JSON.stringify({ report_type: "conformite_kev" }),
      });
      events.push(`report answered ${res.status}`);
      const report = (await res.json()) as { id: string };
      await other;
      expect(events).toEqual(["render started", "other request answered 200", "render done", "report answered 201"]);
      // The PDF made in the worker is the report's: every KEV row is in it.
      const pdf = await fetch(`${origin}${a.base}/reports/${report.id}/download?format=pdf`, { headers: bearer(a.key) });
      expect(pdf.status).toBe(200);
      const doc = await readPdf(Buffer.from(await pdf.arrayBuffer()));
      expect(doc.pages).toBeGreaterThan(20);
      expect(await doc.text()).toContain(`CVE-2099-${10000 + ROWS}`);
      await doc.close();
    } finally {
      spy.mockRestore();
    }
  });

  it("gives the same bytes as rendering on the event loop, and a renderer's failure is the job's error", async () => {
    const { renderPdf } = await import("../src/modules/reports/reports.pdf.js");
    const report = (
      (await (await fetch(`${origin}${a.base}/reports?report_type=conformite_kev`, { headers: bearer(a.key) })).json()) as {
        items: { id: string }[];
      }
    ).items[0]!;
    const json = await (await fetch(`${origin}${a.base}/reports/${report.id}/download?format=json`, { headers: bearer(a.key) })).json();
    const meta: PdfMeta = {
      type: "conformite_kev",
      language: "fr",
      empreinte: "0".repeat(64),
      genereLe: "2026-11-26T04:00:00Z",
      version: 1,
    };
    const content = (json as { contenu?: Content }).contenu ?? (json as Content);
    expect((await pdfRenderer.render(content, meta)).equals(await renderPdf(content, meta))).toBe(true);
    await expect(pdfRenderer.render({} as Content, meta)).rejects.toThrow(/rendu PDF impossible/);
    // The worker still serves the next job.
    expect((await pdfRenderer.render(content, meta)).length).toBeGreaterThan(10_000);
  });
});

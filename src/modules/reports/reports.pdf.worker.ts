import { parentPort } from "node:worker_threads";
import type { Content } from "./reports.content.js";
import { renderPdf, type PdfMeta } from "./reports.pdf.js";

/**
 * The PDF renderer's thread (started by reports.renderer.ts): plain content and metadata in, the
 * PDF's bytes out, one job at a time. PDFKit lays out and compresses synchronously (0.1 to 0.4 s
 * for a report of a few hundred rows): here it does not hold up the server's event loop.
 */
parentPort!.on("message", async (job: { id: number; content: Content; meta: PdfMeta }) => {
  try {
    const pdf = await renderPdf(job.content, job.meta);
    parentPort!.postMessage({ id: job.id, pdf: new Uint8Array(pdf.buffer, pdf.byteOffset, pdf.byteLength) });
  } catch (err) {
    parentPort!.postMessage({ id: job.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
});

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { TooManyRequests } from "../../platform/errors.js";
import { AUTH } from "../../platform/messages.js";
import type { Content } from "./reports.content.js";
import type { PdfMeta } from "./reports.pdf.js";

/**
 * PDF rendering off the event loop: one worker thread per process (reports.pdf.worker.ts, started
 * at the first report, restarted after a crash), fed one job at a time from a bounded queue. A
 * report's layout took up to 0.36 s of the loop on the snapshot data (the KEV report, first one):
 * every request of every other connection waited meanwhile. The worker is unreferenced while idle,
 * so it never keeps a process (CLI, tests) alive.
 */

/** Jobs waiting beyond the one rendering: more are refused (429), not queued without bound. */
export const PDF_QUEUE = 16;

interface Job {
  id: number;
  content: Content;
  meta: PdfMeta;
  resolve: (pdf: Buffer) => void;
  reject: (err: Error) => void;
}

/**
 * The worker's module beside this one: the built .js; or, when this module runs from its .ts source
 * (tests, `npm run dev`), the .ts source, imported once tsx's ESM API has registered its loader in
 * the thread (`--import tsx` in a worker's execArgv is not applied on Node 20).
 */
function startWorker(): Worker {
  if (!import.meta.url.endsWith(".ts")) return new Worker(new URL("./reports.pdf.worker.js", import.meta.url));
  const source = new URL("./reports.pdf.worker.ts", import.meta.url).href;
  const require = createRequire(import.meta.url);
  const manifest = require.resolve("tsx/package.json");
  const api = (JSON.parse(readFileSync(manifest, "utf8")) as { exports: Record<string, { import: { default: string } }> }).exports[
    "./esm/api"
  ]!;
  const tsx = pathToFileURL(join(dirname(manifest), api.import.default)).href;
  return new Worker(`import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); });`, {
    eval: true,
  });
}

export class PdfRenderer {
  #worker: Worker | null = null;
  #current: Job | null = null;
  readonly #queue: Job[] = [];
  #next = 1;

  constructor(private readonly maxQueued = PDF_QUEUE) {}

  /** The PDF of a version's content (renderPdf, in the worker). */
  render(content: Content, meta: PdfMeta): Promise<Buffer> {
    if (this.#queue.length >= this.maxQueued) return Promise.reject(new TooManyRequests(AUTH.reportsBusy, 5));
    return new Promise((resolve, reject) => {
      this.#queue.push({ id: this.#next++, content, meta, resolve, reject });
      this.#pump();
    });
  }

  /** Stops the worker (the jobs still waiting fail). */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    this.#fail(new Error("rendu PDF arrêté"));
    await worker?.terminate();
  }

  #pump(): void {
    if (this.#current || !this.#queue.length) return;
    const job = this.#queue.shift()!;
    this.#current = job;
    const worker = this.#start();
    worker.ref();
    worker.postMessage({ id: job.id, content: job.content, meta: job.meta });
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = startWorker();
    worker.on("message", (m: { id: number; pdf?: Uint8Array; error?: string }) => {
      const job = this.#current;
      if (!job || job.id !== m.id) return;
      this.#current = null;
      if (m.pdf) job.resolve(Buffer.from(m.pdf.buffer, m.pdf.byteOffset, m.pdf.byteLength));
      else job.reject(new Error(`rendu PDF impossible : ${m.error}`));
      if (this.#queue.length) this.#pump();
      else worker.unref();
    });
    // A crash fails the job being rendered; the next job starts a new worker.
    const lost = (err: Error) => {
      if (this.#worker !== worker) return;
      this.#worker = null;
      const job = this.#current;
      this.#current = null;
      job?.reject(err);
      this.#pump();
    };
    worker.on("error", lost);
    worker.on("exit", (code) => lost(new Error(`rendu PDF interrompu (code ${code})`)));
    this.#worker = worker;
    return worker;
  }

  #fail(err: Error): void {
    const jobs = [...(this.#current ? [this.#current] : []), ...this.#queue.splice(0)];
    this.#current = null;
    for (const job of jobs) job.reject(err);
  }
}

/** The process's renderer. */
export const pdfRenderer = new PdfRenderer();

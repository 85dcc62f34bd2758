import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { getDocument } from "pdfjs-dist/legacy/build/pdf.mjs";
import type { TextItem } from "pdfjs-dist/types/src/display/api.js";

/**
 * Reads the PDFs the tests render with Mozilla's pdf.js (an npm package, so `npm test` needs no
 * poppler): the text laid out in lines as on the page, the page count, the document information
 * dictionary, and page 1 rasterised to PNG (pdf.js draws on @napi-rs/canvas, its Node canvas).
 */

const STANDARD_FONTS = `${pathToFileURL(join(dirname(createRequire(import.meta.url).resolve("pdfjs-dist/package.json")), "standard_fonts")).href}/`;

export interface PdfRead {
  pages: number;
  /** The information dictionary: Title, Author, Subject, Keywords, Producer, CreationDate… */
  info: Record<string, string>;
  /** Page n's text (1-based), one line per baseline, words in reading order, columns separated by spaces. */
  pageText(n: number): Promise<string>;
  /** The whole document's text, pages separated by a form feed (as pdftotext writes them). */
  text(): Promise<string>;
  /** Page n rendered at `scale` as a PNG, and the share of its pixels that are not white. */
  renderPng(n: number, scale: number): Promise<{ png: Buffer; inked: number }>;
  close(): Promise<void>;
}

/** Opens a PDF held in memory. */
export async function readPdf(bytes: Uint8Array): Promise<PdfRead> {
  // pdf.js detaches the buffer it is handed: give it a copy.
  const doc = await getDocument({ data: new Uint8Array(bytes), standardFontDataUrl: STANDARD_FONTS, verbosity: 0 }).promise;
  const meta = await doc.getMetadata();
  const info = Object.fromEntries(
    Object.entries(meta.info as Record<string, unknown>).filter(([, v]) => typeof v === "string") as [string, string][],
  );
  const pageText = async (n: number) => layout((await (await doc.getPage(n)).getTextContent()).items as TextItem[]);
  return {
    pages: doc.numPages,
    info,
    pageText,
    async text() {
      const out: string[] = [];
      for (let n = 1; n <= doc.numPages; n++) out.push(await pageText(n));
      return out.join("\f");
    },
    async renderPng(n, scale) {
      const page = await doc.getPage(n);
      const viewport = page.getViewport({ scale });
      const factory = doc.canvasFactory as { create(w: number, h: number): { canvas: CanvasLike; context: ContextLike } };
      const { canvas, context } = factory.create(Math.ceil(viewport.width), Math.ceil(viewport.height));
      // Typed against the DOM's canvas, which this Node project's types do not include.
      await page.render({ canvas: canvas as never, canvasContext: context as never, viewport }).promise;
      const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
      let inked = 0;
      for (let i = 0; i < pixels.length; i += 4) if (pixels[i]! < 200 || pixels[i + 1]! < 200 || pixels[i + 2]! < 200) inked++;
      return { png: canvas.toBuffer("image/png"), inked: inked / (pixels.length / 4) };
    },
    close: () => doc.destroy(),
  };
}

interface ContextLike {
  getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
}

interface CanvasLike {
  width: number;
  height: number;
  toBuffer(mime: "image/png"): Buffer;
}

/**
 * Lays text items out as lines: items whose baselines are within a point of each other share a
 * line, ordered left to right; a horizontal gap wider than a fifth of the font size becomes one
 * space per gap so that table cells stay apart (as `pdftotext -layout` keeps columns apart).
 */
function layout(items: TextItem[]): string {
  const runs = items
    .filter((i) => i.str !== "")
    .map((i) => ({
      x: i.transform[4] as number,
      y: i.transform[5] as number,
      w: i.width,
      size: Math.hypot(i.transform[2], i.transform[3]),
      str: i.str,
    }));
  runs.sort((a, b) => b.y - a.y || a.x - b.x);
  const lines: (typeof runs)[] = [];
  for (const r of runs) {
    const line = lines.at(-1);
    if (line && Math.abs(line[0]!.y - r.y) <= 1) line.push(r);
    else lines.push([r]);
  }
  return lines
    .map((line) => {
      line.sort((a, b) => a.x - b.x);
      let out = "";
      let end = Number.NEGATIVE_INFINITY;
      for (const r of line) {
        if (out !== "" && r.x - end > r.size / 5 && !out.endsWith(" ") && !r.str.startsWith(" ")) out += " ";
        out += r.str;
        end = r.x + r.w;
      }
      return out;
    })
    .join("\n");
}

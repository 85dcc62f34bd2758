import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { CASE_STATUSES, type ReportType } from "../../platform/db/schema/index.js";
import { PALIERS } from "../../matching/priority.js";
import { KEV_VERDICTS, SEVERITY_ORDER, type Content, type Language } from "./reports.content.js";
import { LABELS, type Labels } from "./reports.labels.js";

/**
 * The PDF of a report version, rendered from its content alone with PDFKit and DejaVu Sans
 * (embedded, subset: French accents, « », œ). Every page's footer and the document's metadata
 * (Subject, Keywords) carry the fingerprint and the generation time. The output is deterministic
 * for a version — CreationDate and ModDate are the version's generation time, PDFKit's file id is
 * derived from the metadata — and the bytes are stored with the version anyway (the download
 * returns exactly the file whose hash was recorded).
 */

const fontDir = join(dirname(createRequire(import.meta.url).resolve("dejavu-fonts-ttf/package.json")), "ttf");
let fonts: { regular: Buffer; bold: Buffer } | null = null;
function fontData() {
  fonts ??= { regular: readFileSync(join(fontDir, "DejaVuSans.ttf")), bold: readFileSync(join(fontDir, "DejaVuSans-Bold.ttf")) };
  return fonts;
}

export interface PdfMeta {
  type: ReportType;
  language: Language;
  empreinte: string;
  /** The version's generation time, canonical form (YYYY-MM-DDTHH:MM:SSZ). */
  genereLe: string;
  version: number;
}

type Cell = string | number | boolean | null;
const MARGIN = 50;
const FOOTER = 36;

/** PDFKit, loaded at the first report rather than when the server starts. */
let pdfkit: Promise<typeof import("pdfkit")> | undefined;

class Writer {
  readonly doc: PDFKit.PDFDocument;
  constructor(
    PDFDocument: typeof import("pdfkit"),
    readonly l: Labels,
    readonly language: Language,
    meta: PdfMeta,
    titre: string,
  ) {
    const date = new Date(meta.genereLe);
    this.doc = new PDFDocument({
      size: "A4",
      margins: { top: MARGIN, left: MARGIN, right: MARGIN, bottom: MARGIN + FOOTER },
      bufferPages: true,
      autoFirstPage: true,
      info: {
        Title: titre,
        Author: "Vigie",
        Creator: "Vigie",
        Subject: `${l.fingerprint} ${meta.empreinte}`,
        Keywords: `empreinte:${meta.empreinte}, genere_le:${meta.genereLe}, version:${meta.version}, report_type:${meta.type}`,
        CreationDate: date,
        ModDate: date,
      },
    });
    const f = fontData();
    this.doc.registerFont("R", f.regular);
    this.doc.registerFont("B", f.bold);
    this.doc.font("R").fontSize(9);
  }

  fmt(v: Cell): string {
    if (v === null) return "—";
    if (typeof v === "boolean") return v ? this.l.yes : this.l.no;
    if (typeof v === "number") return this.language === "fr" ? String(v).replace(".", ",") : String(v);
    return v;
  }

  heading(text: string, size = 12): void {
    this.space(40);
    this.doc.moveDown(0.6).font("B").fontSize(size).text(text, MARGIN).font("R").fontSize(9).moveDown(0.3);
  }

  /** `label : value` (French puts a space before the colon, English does not). */
  line(label: string, value: Cell): void {
    this.doc
      .font("R")
      .fontSize(9)
      .text(`${label}${this.colon} ${this.fmt(value)}`, MARGIN);
  }

  get colon(): string {
    return this.language === "fr" ? " :" : ":";
  }

  /** Starts a new page when fewer than `h` points remain above the footer. */
  space(h: number): void {
    if (this.doc.y + h > this.doc.page.height - this.doc.page.margins.bottom) this.doc.addPage();
  }

  private fit(text: string, width: number): string {
    if (this.doc.widthOfString(text) <= width) return text;
    let t = text;
    while (t.length > 1 && this.doc.widthOfString(`${t}…`) > width) t = t.slice(0, -1);
    return `${t}…`;
  }

  /** An organization report: its rows name their project (a first column). */
  org = false;

  /** A table of rows that, in an organization report, start with their project. */
  rows(columns: string[], widths: number[], list: Obj[], cells: (r: Obj) => Cell[]): void {
    if (!this.org) return this.table(columns, widths, list.map(cells));
    this.table(
      [this.l.project, ...columns],
      [1.8, ...widths],
      list.map((r) => [r.projet as string, ...cells(r)]),
    );
  }

  /**
   * A table: a bold header row, then one line per row (cells cut with … to their column), the
   * header repeated on a new page. `widths` are relative; a two-column table of figures takes half the page.
   */
  table(columns: string[], widths: number[], rows: Cell[][]): void {
    const total = widths.reduce((a, b) => a + b, 0);
    const full = this.doc.page.width - 2 * MARGIN;
    const scale = (columns.length <= 2 ? full / 2 : full) / total;
    const w = widths.map((x) => x * scale);
    const rowH = 13;
    const header = () => {
      this.drawRow(columns, w, rowH, true);
    };
    this.space(rowH * 3);
    header();
    for (const r of rows) {
      if (this.doc.y + rowH > this.doc.page.height - this.doc.page.margins.bottom) {
        this.doc.addPage();
        header();
      }
      this.drawRow(
        r.map((c) => this.fmt(c)),
        w,
        rowH,
        false,
      );
    }
    this.doc.x = MARGIN;
    this.doc.moveDown(0.4);
  }

  private drawRow(cells: string[], w: number[], h: number, bold: boolean): void {
    const y = this.doc.y;
    let x = MARGIN;
    this.doc.font(bold ? "B" : "R").fontSize(8);
    if (bold)
      this.doc
        .rect(
          MARGIN,
          y - 2,
          w.reduce((a, b) => a + b, 0),
          h,
        )
        .fill("#e8ecf2")
        .fillColor("black");
    cells.forEach((c, i) => {
      this.doc.text(this.fit(c, w[i]! - 4), x + 2, y, { lineBreak: false });
      x += w[i]!;
    });
    this.doc.font("R").fontSize(9);
    this.doc.y = y + h;
  }

  /** The footer of every page: fingerprint, generation time, version, page number. */
  footers(meta: PdfMeta): void {
    const range = this.doc.bufferedPageRange();
    for (let i = 0; i < range.count; i++) {
      this.doc.switchToPage(range.start + i);
      const bottom = this.doc.page.margins.bottom;
      this.doc.page.margins.bottom = 0; // writing inside the margin must not open a page
      const y = this.doc.page.height - MARGIN - FOOTER + 12;
      const width = this.doc.page.width - 2 * MARGIN;
      this.doc
        .moveTo(MARGIN, y - 4)
        .lineTo(MARGIN + width, y - 4)
        .lineWidth(0.5)
        .stroke("#888888");
      this.doc.font("R").fontSize(7).fillColor("#333333");
      this.doc.text(`${this.l.fingerprint}${this.colon} ${meta.empreinte}`, MARGIN, y, { width, lineBreak: false });
      this.doc.text(
        `${this.l.generated} ${meta.genereLe} · ${this.l.version} ${meta.version} · ${this.l.page} ${i + 1} ${this.l.of} ${range.count}`,
        MARGIN,
        y + 10,
        { width, lineBreak: false },
      );
      this.doc.fillColor("black");
      this.doc.page.margins.bottom = bottom;
    }
  }

  async end(): Promise<Buffer> {
    const chunks: Buffer[] = [];
    this.doc.on("data", (c: Buffer) => chunks.push(c));
    const done = new Promise<void>((resolve, reject) => {
      this.doc.on("end", resolve);
      this.doc.on("error", reject);
    });
    this.doc.end();
    await done;
    return Buffer.concat(chunks);
  }
}

type Obj = Record<string, unknown>;
const obj = (v: unknown) => v as Obj;
const arr = (v: unknown) => v as Obj[];

function projectReport(w: Writer, c: Obj): void {
  const l = w.l;
  const a = obj(c.alertes);
  w.heading(l.alerts);
  w.line(l.total, a.total as number);
  w.line(l.kev, a.kev as number);
  w.line(l.poc, a.poc as number);
  w.heading(l.byTier, 10);
  w.table(
    [l.tier, l.count],
    [1, 1],
    PALIERS.map((p) => [p, obj(a.par_palier)[p] as number]),
  );
  w.heading(l.bySeverity, 10);
  w.table(
    [l.severity, l.count],
    [1, 1],
    Object.entries(obj(a.par_severite))
      .sort(([x], [y]) => SEVERITY_ORDER.indexOf(x as never) - SEVERITY_ORDER.indexOf(y as never))
      .map(([k, v]) => [k, v as number]),
  );
  if (arr(a.principales).length) {
    w.heading(l.top, 10);
    w.table(
      ["CVE", l.tier, l.severity, "CVSS", "KEV", l.product, l.triggered],
      [2.2, 1, 1.3, 0.9, 0.8, 3, 2.6],
      arr(a.principales).map((x) => [x.cve_id, x.palier, x.severite, x.cvss, x.kev, x.produit, x.declenchee_le] as Cell[]),
    );
  }
  const cases = obj(c.cas);
  w.heading(l.cases);
  w.line(l.total, cases.total as number);
  w.line(l.openedInPeriod, cases.ouverts_sur_periode as number);
  w.line(l.closedInPeriod, cases.clos_sur_periode as number);
  const byStatus = obj(cases.par_statut);
  w.table(
    [l.status, l.count],
    [1, 1],
    [
      ...CASE_STATUSES.filter((s) => s in byStatus),
      ...Object.keys(byStatus)
        .filter((s) => !(CASE_STATUSES as readonly string[]).includes(s))
        .sort(),
    ].map((k) => [k, byStatus[k] as number]),
  );
  const ex = obj(c.exceptions);
  w.heading(l.exceptions);
  w.line(l.inForce, ex.en_vigueur as number);
  w.line(l.expiring, ex.expirant_sous_30_jours as number);
  exceptionTable(w, arr(ex.liste), ex.en_vigueur as number);
  const d = obj(c.delais);
  w.heading(l.delays);
  w.table(
    [l.delay, l.count, l.mean, l.median, "P90"],
    [2.5, 1, 1, 1, 1],
    (
      [
        [l.pubAlert, d.publication_alerte],
        [l.alertClosed, d.alerte_cloture],
        [l.pubClosed, d.publication_cloture],
      ] as [string, Obj][]
    ).map(([label, s]) => [label, s.nombre, s.moyenne, s.mediane, s.p90] as Cell[]),
  );
}

function exceptionTable(w: Writer, list: Obj[], total: number): void {
  if (!list.length) return;
  if (list.length < total) w.doc.text(w.l.listed(list.length, total));
  w.rows(["CVE", w.l.status, w.l.nature, w.l.expires, w.l.register], [2.2, 1.6, 1.6, 1.4, 3], list, (e) => [
    e.cve_id as string,
    e.statut as string,
    e.nature as string,
    e.expire_le as string,
    e.registre ? (obj(e.registre).titre as string) : null,
  ]);
}

function kevReport(w: Writer, c: Obj): void {
  const l = w.l;
  const s = obj(c.synthese);
  w.heading(l.kevSummary);
  w.line(l.total, s.total as number);
  w.table(
    [l.verdict, l.count],
    [2, 1],
    KEV_VERDICTS.map((v) => [l.verdicts[v] ?? v, s[v] as number]),
  );
  w.heading(l.kevList);
  w.rows(
    ["CVE", l.product, l.added, l.due, l.status, l.handled, l.verdict],
    [2.1, 3, 1.4, 1.4, 1.5, 1.4, 2],
    arr(c.cves),
    (r) => [r.cve_id, r.produit, r.kev_ajoute_le, r.echeance, r.statut_cas, r.traite_le, l.verdicts[r.verdict as string] ?? null] as Cell[],
  );
}

function exceptionsReport(w: Writer, c: Obj): void {
  const l = w.l;
  const s = obj(c.synthese);
  w.heading(l.exceptions);
  w.line(l.inForce, s.en_vigueur as number);
  w.line(l.expiring, s.expirant_sous_30_jours as number);
  exceptionTable(w, arr(c.exceptions), s.en_vigueur as number);
  w.heading(l.registerEntries);
  w.table(
    [l.register, l.owner, l.expires, l.status, l.covered],
    [3, 2, 1.4, 1.2, 1.2],
    arr(c.registre).map((r) => [r.titre, r.responsable, r.expire_le, r.statut, r.cas_couverts] as Cell[]),
  );
}

function inventoryReport(w: Writer, c: Obj): void {
  const l = w.l;
  const s = obj(c.synthese);
  w.heading(l.inventory);
  w.line(l.stacks, s.piles as number);
  w.line(l.items, s.elements as number);
  w.line(l.itemsEnded, s.elements_en_fin_de_vie as number);
  w.line(l.urls, s.urls as number);
  w.line(l.certsExpired, s.certificats_expires as number);
  w.line(l.certsExpiring, s.certificats_expirant_sous_30_jours as number);
  for (const p of arr(c.piles)) {
    w.heading(w.org ? `${p.projet as string} — ${p.nom as string}` : (p.nom as string), 10);
    w.table(
      [l.type, l.value, l.minSeverity, l.alertsCol, l.eolCycle, l.eolStatus],
      [0.8, 3.4, 1.5, 0.9, 2.2, 1.4],
      arr(p.elements).map((e) => {
        const f = e.fin_de_vie as Obj | null;
        return [
          e.type,
          e.valeur,
          e.severite_min,
          e.alertes,
          f ? `${f.produit as string} ${f.cycle as string} (${f.eol === null ? "—" : String(f.eol)})` : null,
          f ? (l.eolStatuses[f.statut as string] ?? (f.statut as string)) : null,
        ] as Cell[];
      }),
    );
  }
  if (arr(c.urls).length) {
    w.heading(l.urlsHeading);
    w.rows([l.url, l.status, "HTTP", l.certExpires, l.certIssuer, l.certStatus], [3.2, 1, 0.7, 2.4, 1.4, 2.4], arr(c.urls), (u) => {
      const cert = u.certificat as Obj | null;
      return [
        u.url as string,
        u.statut as string,
        u.http as number | null,
        cert ? (cert.expire_le as string | null) : null,
        cert ? (cert.emetteur as string | null) : null,
        cert?.statut ? (l.certStatuses[cert.statut as string] ?? (cert.statut as string)) : null,
      ];
    });
  }
}

const SECTIONS: Record<ReportType, (w: Writer, c: Obj) => void> = {
  rapport_projet: projectReport,
  conformite_kev: kevReport,
  exceptions: exceptionsReport,
  inventaire: inventoryReport,
};

/** The PDF bytes of a version: title block, the type's sections, then the footers. */
export async function renderPdf(content: Content, meta: PdfMeta): Promise<Buffer> {
  const c = content as Obj;
  const titre = obj(c.rapport).titre as string;
  pdfkit ??= import("pdfkit").then((m) => m.default);
  const w = new Writer(await pdfkit, LABELS[meta.language], meta.language, meta, titre);
  const l = w.l;
  w.doc.font("B").fontSize(16).text(titre, MARGIN).font("R").fontSize(9).moveDown(0.4);
  if (c.projet === null) {
    w.org = true;
    w.line(
      l.organization,
      (arr(c.projets).length as number) === 0
        ? l.none
        : arr(c.projets)
            .map((p) => p.nom as string)
            .join(", "),
    );
  } else w.line(l.project, obj(c.projet).nom as string);
  const period = c.periode as { du: string; au: string } | null;
  if (period) w.line(l.period, `${l.from} ${period.du} ${l.to} ${period.au}`);
  if (typeof c.etat_au === "string") w.line(l.asOf, c.etat_au);
  w.line(l.generated, meta.genereLe);
  w.line(l.fingerprint, meta.empreinte);
  SECTIONS[meta.type](w, c);
  w.footers(meta);
  return w.end();
}

import { stringify } from "csv-stringify/sync";
import { Readable } from "node:stream";
import type { CaseRow } from "./cases.repository.js";
import { presentCaseExport } from "./cases.presenter.js";
import { CaseExportRow } from "./cases.schemas.js";

/** The export's columns (CSV) and keys (JSON), in CaseExportRow's order. */
export const EXPORT_COLUMNS = Object.keys(CaseExportRow.shape) as (keyof CaseExportRow)[];

/**
 * A CSV cell a spreadsheet would run as a formula (it starts with = + - @, a tab or a carriage
 * return: OWASP "CSV Injection") is prefixed with a single quote, which spreadsheets show as text.
 * A note or a register title is free text written by any key holding cases-write; the export is
 * opened by someone else. The JSON export keeps the values as they are.
 */
export function neutralise(cell: string): string {
  return /^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell;
}

function cell(v: string | boolean | null): string {
  if (v === null) return "";
  if (typeof v === "boolean") return v ? "true" : "false";
  return neutralise(v);
}

type Chunks = AsyncIterable<(CaseRow & { tag_names: string })[]>;

/** CSV (RFC 4180 quoting by csv-stringify, UTF-8, a header row), one piece per chunk of cases. */
async function* csv(chunks: Chunks): AsyncGenerator<string> {
  yield stringify([EXPORT_COLUMNS]);
  for await (const rows of chunks) {
    yield stringify(
      rows.map((r) => {
        const row = presentCaseExport(r);
        return EXPORT_COLUMNS.map((k) => cell(row[k]));
      }),
    );
  }
}

/** A JSON array of CaseExportRow objects, one piece per chunk of cases. */
async function* json(chunks: Chunks): AsyncGenerator<string> {
  yield "[";
  let first = true;
  for await (const rows of chunks) {
    yield (first ? "" : ",") + rows.map((r) => JSON.stringify(presentCaseExport(r))).join(",");
    first = false;
  }
  yield "]";
}

/** The export as a stream: pulled a chunk at a time as the client reads (memory stays flat). */
export function exportStream(format: "csv" | "json", chunks: Chunks): Readable {
  return Readable.from(format === "csv" ? csv(chunks) : json(chunks));
}

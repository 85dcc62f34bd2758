/**
 * readSbom: one entry for every SBOM format read. The media type, when it names a format, says which
 * reader; otherwise the first non-blank character does (`<` XML, `{` JSON, then the JSON's own
 * `bomFormat` or `spdxVersion`). Anything not read (another format, another version, an invalid
 * document) is an SbomInvalid with its faults.
 */
import { BodyTooLarge } from "../platform/http/raw-body.js";
import { readCycloneDxXml } from "./cyclonedx-xml.js";
import { readJsonSbom } from "./json.js";
import { type ReadOptions, type SbomDocument, type SbomFormat, SbomInvalid } from "./types.js";
import { ACCEPTED, unsupported } from "./unsupported.js";

export { SbomInvalid };
export type { ReadOptions, SbomComponent, SbomDocument, SbomFault, SbomFormat } from "./types.js";

interface Hint {
  encoding: "json" | "xml";
  format: SbomFormat | null;
}

const MEDIA_TYPES: Record<string, Hint> = {
  "application/vnd.cyclonedx+json": { encoding: "json", format: "cyclonedx" },
  "application/vnd.cyclonedx+xml": { encoding: "xml", format: "cyclonedx" },
  "application/spdx+json": { encoding: "json", format: "spdx" },
  "application/json": { encoding: "json", format: null },
  "application/xml": { encoding: "xml", format: null },
  "text/xml": { encoding: "xml", format: null },
};

/** Media types of formats known and refused. */
const REFUSED: Record<string, string> = {
  "text/spdx": "SPDX tag-value",
  "application/spdx+xml": "SPDX en RDF/XML",
  "application/rdf+xml": "SPDX en RDF/XML",
  "application/ld+json": "SPDX 3 (JSON-LD)",
  "application/spdx+yaml": "SPDX en YAML",
};

/** The document's bytes, whatever it was given as. */
async function* bytes(input: NodeJS.ReadableStream | Buffer | string): AsyncGenerator<Buffer> {
  if (typeof input === "string") yield Buffer.from(input, "utf8");
  else if (Buffer.isBuffer(input)) yield input;
  else for await (const chunk of input) yield typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
}

const BLANK = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * The first non-blank byte (after a UTF-8 byte order mark) and the document's chunks from its start:
 * those read to find it, then the rest.
 */
async function peek(
  input: NodeJS.ReadableStream | Buffer | string,
): Promise<{ first: number | null; head: Buffer; chunks: AsyncIterable<Buffer> }> {
  const it = bytes(input)[Symbol.asyncIterator]();
  const seen: Buffer[] = [];
  let first: number | null = null;
  let offset = 0;
  while (first === null) {
    const next = await it.next();
    if (next.done) break;
    seen.push(next.value);
    for (let i = 0; i < next.value.length; i++, offset++) {
      const b = next.value[i] as number;
      if (offset < 3 && b === [0xef, 0xbb, 0xbf][offset]) continue;
      if (!BLANK.has(b)) {
        first = b;
        break;
      }
    }
  }
  const head = Buffer.concat(seen);
  async function* chunks() {
    for (const b of seen) yield b;
    for (let next = await it.next(); !next.done; next = await it.next()) yield next.value;
  }
  return { first, head, chunks: chunks() };
}

/** The largest XML document read (JSON is streamed up to the route's 50 MiB): 50,000 components of npm's SBOM are 8.9 MiB. */
export const MAX_XML_BYTES = 16 * 1024 * 1024;

/**
 * Reads an SBOM: CycloneDX 1.2–1.7 (JSON streamed; XML parsed whole) or SPDX 2.2–2.3 JSON (streamed),
 * validated against the official schema of its version (lenient: a document failing it is read all
 * the same when it is readable, its faults in the answer). `mediaType` (a Content-Type, parameters ignored) is a hint:
 * absent or generic, the content decides. A stream is read at most once; on a document refused early
 * (another format, another version, the hundredth fault) reading stops and the rest is left unread,
 * the stream neither drained nor destroyed.
 */
export async function readSbom(
  input: NodeJS.ReadableStream | Buffer | string,
  mediaType?: string,
  options: ReadOptions = {},
): Promise<SbomDocument> {
  const type = (mediaType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (REFUSED[type]) throw unsupported(REFUSED[type] as string);
  const hint = MEDIA_TYPES[type] ?? null;
  const { first, head, chunks } = await peek(input);
  if (first === null) throw new SbomInvalid("Le document est vide.", [{ at: "", message: `Le document est vide. ${ACCEPTED}` }]);
  const encoding = first === 0x3c ? "xml" : first === 0x7b || first === 0x5b ? "json" : null;
  if (encoding === null) {
    const start = head.subarray(0, 64).toString("utf8").trimStart();
    if (/^(SPDXVersion|DataLicense|SPDXID|DocumentName)\s*:/.test(start)) throw unsupported("SPDX tag-value");
    throw new SbomInvalid("Format de SBOM non reconnu.", [
      { at: "line 1", message: `Le document n'est ni du JSON ni du XML. ${ACCEPTED}` },
    ]);
  }
  if (hint && hint.encoding !== encoding) {
    throw new SbomInvalid("Le document ne correspond pas à son type de média.", [
      {
        at: "",
        message: `Le type de média « ${type} » annonce du ${hint.encoding.toUpperCase()}, le document est du ${encoding.toUpperCase()}.`,
      },
    ]);
  }
  if (encoding === "xml") {
    if (hint?.format === "spdx") throw unsupported("SPDX en XML");
    // libxml2 parses a whole document: the XML reader needs all of it, and its tree costs about 20
    // times the text (bench/sbom-read.ts): past MAX_XML_BYTES, 413 rather than a process out of memory.
    const parts: Buffer[] = [];
    let size = 0;
    for await (const chunk of chunks) {
      size += chunk.length;
      if (size > MAX_XML_BYTES) throw new BodyTooLarge(MAX_XML_BYTES, "Document XML (lu en entier, contrairement au JSON)");
      parts.push(chunk);
    }
    return readCycloneDxXml(Buffer.concat(parts), options);
  }
  return readJsonSbom(chunks, hint?.format ?? null, options);
}

/**
 * A JSON document read as a stream (stream-json's tokenizer) and assembled into values, except the
 * arrays a format declares "streamed": their items are handed over one at a time, as each one ends,
 * and the assembled document keeps an empty array in their place. Memory holds the document minus
 * its streamed arrays, plus one item being assembled: a 50,000-component SBOM never exists as a tree.
 */
import { createRequire } from "node:module";
import type { Writable } from "node:stream";
import type ParserModule from "stream-json/Parser.js";
import { SbomInvalid } from "./types.js";

const require = createRequire(import.meta.url);
const { parser: makeParser } = require("stream-json/Parser.js") as typeof ParserModule;

/** A place in the document: object keys and array indexes from the root. */
export type Path = (string | number)[];

/** RFC 6901 JSON pointer of a path. */
export function pointer(path: Path): string {
  let out = "";
  for (const seg of path) out += `/${String(seg).replaceAll("~", "~0").replaceAll("/", "~1")}`;
  return out;
}

/**
 * What a format tells the walker. `kind` names the value a frame holds ("root" for the document);
 * `arrayKind` says, for an array opening under `key` in a value of kind `parent`, whether its items
 * are streamed and of which kind; `objectKind` gives the kind of an object value (streamed items get
 * the kind of their array).
 */
export interface StreamRules {
  arrayKind(parent: string, key: string | number): string | null;
  objectKind(parent: string, key: string | number): string;
}

export interface StreamHandlers {
  /** A streamed item begins (its order in the document is its `seq`). */
  itemStart?(kind: string, seq: number): void;
  /** A streamed item ended: its value (its own streamed arrays left empty) and its path. */
  item(kind: string, seq: number, path: Path, value: unknown): void;
  /** A member of the root object ended (streamed arrays arrive empty). */
  rootMember?(key: string, value: unknown): void;
}

interface Frame {
  kind: string;
  /** null while streaming an array's items (they are not kept). */
  value: Record<string, unknown> | unknown[] | null;
  isArray: boolean;
  key: string | null;
  index: number;
  /** Kind of a streamed array's items, else null. */
  streams: string | null;
  /** This frame is a streamed item: its sequence number. */
  seq: number | null;
}

interface Token {
  name: string;
  value?: string;
}

/** Deepest nesting read: deeper is no SBOM, and would make the schema validation recurse as deep. */
export const MAX_DEPTH = 256;

/** Longest piece handed to the tokenizer: a syntax error is placed within this many characters of a line. */
const PIECE = 256;

/**
 * Reads the JSON text `chunks` (UTF-8 bytes) and returns the assembled root value (streamed arrays
 * empty). A syntax error becomes an SbomInvalid with its line; an exception thrown by a handler
 * stops the reading and is thrown as is.
 */
export async function walkJson(chunks: AsyncIterable<Buffer>, rules: StreamRules, handlers: StreamHandlers): Promise<unknown> {
  const parser = makeParser({ packValues: true, streamValues: false });
  const stack: Frame[] = [];
  const path: Path = [];
  let root: unknown;
  let seqNext = 0;
  let failure: unknown = null;

  const attach = (value: unknown) => {
    const top = stack.at(-1);
    if (!top) {
      root = value;
      return;
    }
    if (top.isArray) {
      if (top.value) (top.value as unknown[]).push(value);
      top.index++;
    } else {
      (top.value as Record<string, unknown>)[top.key as string] = value;
      if (stack.length === 1 && handlers.rootMember) handlers.rootMember(top.key as string, value);
    }
  };
  // A scalar or an ended container, given to its parent or, for a streamed item, to the handler.
  const complete = (value: unknown, seq: number | null) => {
    const top = stack.at(-1);
    if (top?.streams) {
      const at = top.index;
      top.index++;
      handlers.item(top.streams, seq ?? seqNext++, [...path, at], value);
      return;
    }
    attach(value);
  };
  const open = (isArray: boolean) => {
    if (stack.length >= MAX_DEPTH) {
      throw new SbomInvalid("Le document est trop imbriqué.", [
        { at: pointer(path), message: `Plus de ${MAX_DEPTH} niveaux d'imbrication : ce n'est pas un SBOM.` },
      ]);
    }
    const top = stack.at(-1);
    const key = top ? (top.isArray ? top.index : (top.key as string)) : null;
    let kind = "root";
    let streams: string | null = null;
    let seq: number | null = null;
    if (top) {
      if (top.streams) {
        kind = top.streams;
        seq = seqNext++;
        handlers.itemStart?.(kind, seq);
      } else if (isArray) {
        streams = rules.arrayKind(top.kind, key as string | number);
        kind = "array";
      } else {
        kind = rules.objectKind(top.kind, key as string | number);
      }
      path.push(key as string | number);
    }
    stack.push({
      kind,
      value: isArray ? (streams ? null : []) : {},
      isArray,
      key: null,
      index: 0,
      streams,
      seq,
    });
  };
  const close = () => {
    const frame = stack.pop() as Frame;
    if (stack.length > 0) path.pop();
    complete(frame.streams ? [] : frame.value, frame.seq);
  };

  const onToken = (token: Token) => {
    switch (token.name) {
      case "startObject":
        open(false);
        break;
      case "startArray":
        open(true);
        break;
      case "endObject":
      case "endArray":
        close();
        break;
      case "keyValue":
        (stack.at(-1) as Frame).key = token.value as string;
        break;
      case "stringValue":
        complete(token.value, null);
        break;
      case "numberValue":
        complete(Number(token.value), null);
        break;
      case "nullValue":
        complete(null, null);
        break;
      case "trueValue":
        complete(true, null);
        break;
      case "falseValue":
        complete(false, null);
        break;
    }
  };
  parser.on("data", (token: Token) => {
    if (failure) return;
    try {
      onToken(token);
    } catch (err) {
      failure = err;
      parser.destroy();
    }
  });
  const ended = new Promise<void>((resolve) => {
    parser.on("end", resolve);
    parser.on("error", () => resolve());
    parser.on("close", () => resolve());
  });

  // Line and column of the piece being tokenized: the tokenizer fails inside the piece last written.
  let line = 1;
  let column = 1;
  let pieceLine = 1;
  let pieceColumn = 1;
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const syntaxFault = (at: string, message: string): SbomInvalid =>
    new SbomInvalid("Le document n'est pas un JSON valide.", [{ at, message }]);
  const where = () => (pieceColumn > 1 ? `line ${pieceLine}, column ${pieceColumn}` : `line ${pieceLine}`);
  const frLine = () => (pieceColumn > 1 ? `ligne ${pieceLine}, vers la colonne ${pieceColumn}` : `ligne ${pieceLine}`);
  // stream-json says "Parser cannot parse input: expected ','" or, at the end, "Parser has expected a value".
  const parserError = (): SbomInvalid => {
    const raw = String((parser.errored as Error | null)?.message ?? "");
    const reason =
      raw.startsWith("Parser has expected") || !raw ? "fin inattendue du document" : raw.replace(/^Parser (cannot parse input: )?/, "");
    return syntaxFault(where(), `JSON invalide à la ${frLine()} : ${reason}.`);
  };
  /** The end of the text: its last line when it ends with a line break. */
  const atEnd = () => {
    pieceLine = column === 1 && line > 1 ? line - 1 : line;
    pieceColumn = 1;
  };

  const write = async (text: string) => {
    let i = 0;
    while (i < text.length) {
      const nl = text.indexOf("\n", i);
      const end = nl >= 0 && nl < i + PIECE ? nl + 1 : Math.min(i + PIECE, text.length);
      pieceLine = line;
      pieceColumn = column;
      const ok = (parser as unknown as Writable).write(text.slice(i, end));
      if (failure) throw failure;
      if (parser.errored) throw parserError();
      if (nl >= 0 && end === nl + 1) {
        line++;
        column = 1;
      } else column += end - i;
      i = end;
      if (!ok) await Promise.race([new Promise((resolve) => parser.once("drain", resolve)), ended]);
    }
  };

  try {
    for await (const chunk of chunks) {
      let text: string;
      try {
        text = decoder.decode(chunk, { stream: true });
      } catch {
        throw syntaxFault(`line ${line}`, `Le document n'est pas encodé en UTF-8 valide (vers la ligne ${line}).`);
      }
      await write(text);
    }
    try {
      await write(decoder.decode());
    } catch (err) {
      if (err instanceof TypeError) throw syntaxFault(`line ${line}`, "Le document se termine par une séquence UTF-8 incomplète.");
      throw err;
    }
    atEnd();
    parser.end();
    await ended;
    if (failure) throw failure;
    if (parser.errored) throw parserError();
    if (stack.length > 0 || root === undefined) throw syntaxFault(where(), `JSON invalide à la ${frLine()} : fin inattendue du document.`);
    return root;
  } finally {
    if (!parser.destroyed) parser.destroy();
  }
}

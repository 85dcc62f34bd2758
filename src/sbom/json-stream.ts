/**
 * A JSON text read by stream-json's tokenizer and assembled into values, except the arrays a format
 * declares "streamed": their items are handed over one at a time, as each one ends, and the
 * assembled value keeps an empty array in their place. json-split.ts gives it the document's
 * skeleton (the document without its big arrays' items, which it parses itself) and, to report a
 * fault exactly where and as this tokenizer does, the text of an item JSON.parse refused.
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

/** The numbering of streamed items, shared by every reader of one document. */
export interface Sequence {
  next: number;
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
 * A syntax fault at a line and, on a long line, a column: the start of the stretch of PIECE
 * characters (counted from the line's start) that holds it, whatever pieces the text came in.
 */
export function syntaxFault(line: number, column: number, reason: string): SbomInvalid {
  const from = column - ((column - 1) % PIECE);
  const at = from > 1 ? `line ${line}, column ${from}` : `line ${line}`;
  const fr = from > 1 ? `ligne ${line}, vers la colonne ${from}` : `ligne ${line}`;
  return new SbomInvalid("Le document n'est pas un JSON valide.", [{ at, message: `JSON invalide à la ${fr} : ${reason}.` }]);
}

/** The item of a streamed array that an Assembler reads alone: where it sits. */
export interface ItemPlace {
  kind: string;
  key: string;
  index: number;
}

/**
 * stream-json's tokenizer and the assembly of its tokens. Fed the whole document (its skeleton), it
 * assembles the root; fed one item (`place`), it starts inside the root object and its streamed array,
 * so that the item's depth, paths and sequence number are those it has in the document. A syntax
 * error becomes an SbomInvalid with its line; an exception thrown by a handler stops the reading and
 * is thrown as is.
 */
export class Assembler {
  private readonly parser = makeParser({ packValues: true, streamValues: false });
  private readonly stack: Frame[] = [];
  private readonly path: Path = [];
  private root: unknown;
  private failure: unknown = null;
  private readonly ended: Promise<void>;
  // Line and column of the next character written, and of the piece being tokenized: the tokenizer
  // fails inside the piece last written.
  private line = 1;
  private column = 1;
  private pieceLine = 1;
  private pieceColumn = 1;

  constructor(
    private readonly rules: StreamRules,
    private readonly handlers: StreamHandlers,
    private readonly seq: Sequence,
    private readonly place?: ItemPlace,
  ) {
    if (place) {
      const frame = { value: null, key: null, seq: null };
      this.stack.push({ ...frame, kind: "root", isArray: false, key: place.key, index: 0, streams: null });
      this.stack.push({ ...frame, kind: "array", isArray: true, index: place.index, streams: place.kind });
      this.path.push(place.key);
    }
    this.parser.on("data", (token: Token) => {
      if (this.failure) return;
      try {
        this.onToken(token);
      } catch (err) {
        this.failure = err;
        this.parser.destroy();
      }
    });
    this.ended = new Promise<void>((resolve) => {
      this.parser.on("end", resolve);
      this.parser.on("error", () => resolve());
      this.parser.on("close", () => resolve());
    });
  }

  /** The item read alone has ended, and was handed over. */
  get itemDone(): boolean {
    return this.stack.length === 2 && (this.stack[1] as Frame).index > (this.place?.index ?? 0);
  }

  /** The next text written starts at this line and column (the text between was read elsewhere). */
  moveTo(line: number, column: number): void {
    this.line = line;
    this.column = column;
  }

  /** Tokenizes `text`, the document's text from the current position. */
  async write(text: string): Promise<void> {
    const parser = this.parser as unknown as Writable;
    let i = 0;
    while (i < text.length) {
      // A piece ends at a line break or where the next stretch of PIECE characters of the line begins.
      const room = PIECE - ((this.column - 1) % PIECE);
      const nl = text.indexOf("\n", i);
      const end = nl >= 0 && nl < i + room ? nl + 1 : Math.min(i + room, text.length);
      this.pieceLine = this.line;
      this.pieceColumn = this.column;
      const ok = parser.write(text.slice(i, end));
      if (this.failure) throw this.failure;
      if (this.parser.errored) throw this.parserError();
      if (nl >= 0 && end === nl + 1) {
        this.line++;
        this.column = 1;
      } else this.column += end - i;
      i = end;
      if (!ok) await Promise.race([new Promise((resolve) => this.parser.once("drain", resolve)), this.ended]);
    }
  }

  /**
   * The end of the text: the assembled root, or the fault of a text that is not one whole value;
   * `lacking`, what the text lacks at its end when the caller knows better (the tokenizer did not
   * see the last item).
   */
  async end(lacking?: string): Promise<unknown> {
    // The end of the text is placed on its last line when it ends with a line break.
    this.pieceLine = this.column === 1 && this.line > 1 ? this.line - 1 : this.line;
    this.pieceColumn = 1;
    try {
      if (lacking) throw syntaxFault(this.pieceLine, 1, lacking);
      this.parser.end();
      await this.ended;
      if (this.failure) throw this.failure;
      if (this.parser.errored) throw this.parserError();
      if (this.stack.length > 0 || this.root === undefined) throw syntaxFault(this.pieceLine, 1, "fin inattendue du document");
      return this.root;
    } finally {
      this.destroy();
    }
  }

  destroy(): void {
    if (!this.parser.destroyed) this.parser.destroy();
  }

  // stream-json says "Parser cannot parse input: expected ','" or, at the end, "Parser has expected a value".
  private parserError(): SbomInvalid {
    const raw = String((this.parser.errored as Error | null)?.message ?? "");
    const reason =
      raw.startsWith("Parser has expected") || !raw ? "fin inattendue du document" : raw.replace(/^Parser (cannot parse input: )?/, "");
    return syntaxFault(this.pieceLine, this.pieceColumn, reason);
  }

  private attach(value: unknown): void {
    const top = this.stack.at(-1);
    if (!top) {
      this.root = value;
      return;
    }
    if (top.isArray) {
      if (top.value) (top.value as unknown[]).push(value);
      top.index++;
    } else {
      (top.value as Record<string, unknown>)[top.key as string] = value;
      if (this.stack.length === 1) this.handlers.rootMember?.(top.key as string, value);
    }
  }

  /** A scalar or an ended container, given to its parent or, for a streamed item, to the handler. */
  private complete(value: unknown, seq: number | null): void {
    const top = this.stack.at(-1);
    if (top?.streams) {
      const at = top.index;
      top.index++;
      this.handlers.item(top.streams, seq ?? this.seq.next++, [...this.path, at], value);
      return;
    }
    this.attach(value);
  }

  private open(isArray: boolean): void {
    const { stack, path } = this;
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
        seq = this.seq.next++;
        this.handlers.itemStart?.(kind, seq);
      } else if (isArray) {
        streams = this.rules.arrayKind(top.kind, key as string | number);
        kind = "array";
      } else {
        kind = this.rules.objectKind(top.kind, key as string | number);
      }
      path.push(key as string | number);
    }
    stack.push({ kind, value: isArray ? (streams ? null : []) : {}, isArray, key: null, index: 0, streams, seq });
  }

  private close(): void {
    const frame = this.stack.pop() as Frame;
    if (this.stack.length > 0) this.path.pop();
    this.complete(frame.streams ? [] : frame.value, frame.seq);
  }

  private onToken(token: Token): void {
    switch (token.name) {
      case "startObject":
        this.open(false);
        break;
      case "startArray":
        this.open(true);
        break;
      case "endObject":
      case "endArray":
        this.close();
        break;
      case "keyValue":
        (this.stack.at(-1) as Frame).key = token.value as string;
        break;
      case "stringValue":
        this.complete(token.value, null);
        break;
      case "numberValue":
        this.complete(Number(token.value), null);
        break;
      case "nullValue":
        this.complete(null, null);
        break;
      case "trueValue":
        this.complete(true, null);
        break;
      case "falseValue":
        this.complete(false, null);
        break;
    }
  }
}

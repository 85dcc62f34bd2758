/**
 * A JSON document read as a stream, its big arrays cut into items by a scanner: the items of the
 * root object's streamed arrays (a format's `components`, `packages`…) never go through a tokenizer
 * written in JavaScript. The scanner follows only strings (and their escapes) and brackets; each
 * item's text is parsed by the native JSON.parse, which also checks its syntax, and the item's own
 * streamed arrays (nested components) are handed over from memory: one item with its children is
 * small. The rest of the document, its skeleton, goes to the stream-json Assembler (json-stream.ts),
 * which assembles it as before. An item that JSON.parse refuses, that nests too deep or whose
 * brackets do not match is read again by an Assembler of its own, so that its fault is the one, at
 * the line and JSON pointer, that tokenizer gives. Memory holds the skeleton plus one item: a
 * 50,000-component SBOM never exists as a tree, nor as one text.
 *
 * Why: stream-json's tokenizer and the token-by-token assembly were about 40 % of reading a
 * 61.6 MiB CycloneDX document (BENCH=sbom-read); with this scanner, readSbom reads it in 1.25 s
 * instead of 4.5–4.9 s, its peak RSS unchanged (about 145 MB).
 */
import { Assembler, MAX_DEPTH, type Path, type Sequence, type StreamHandlers, type StreamRules, syntaxFault } from "./json-stream.js";
import { SbomInvalid } from "./types.js";

// Character codes the scanner acts on.
const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** Whitespace as stream-json's tokenizer takes it between tokens (the regex class \s). */
function isSpace(c: number): boolean {
  return (
    c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0b || c === 0x0c || (c > 0x7f && /\s/.test(String.fromCharCode(c)))
  );
}

/** Characters of a number or of true/false/null (and of their misspellings): a bare item ends at the first other one. */
function isBare(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x2d || c === 0x2b || c === 0x2e;
}

/** Line and column of positions in the text read so far; positions are asked in increasing order. */
class Lines {
  line = 1;
  column = 1;
  private text = "";
  private at = 0;
  private nextBreak = -1;

  /** The next piece of the document. */
  next(text: string): void {
    this.to(this.text.length);
    this.text = text;
    this.at = 0;
    this.nextBreak = text.indexOf("\n");
  }

  /** Moves to position `pos` of the current piece. */
  to(pos: number): void {
    while (this.nextBreak !== -1 && this.nextBreak < pos) {
      this.line++;
      this.column = 1;
      this.at = this.nextBreak + 1;
      this.nextBreak = this.text.indexOf("\n", this.at);
    }
    this.column += pos - this.at;
    this.at = pos;
  }
}

/**
 * Where the scanner is: in the skeleton (handed to the Assembler), between the items of a streamed
 * array, or in an item.
 */
type Mode = "skeleton" | "between" | "item";

/** Between items, what may come next: an item or `]` (just after `[`), an item (after `,`), `,` or `]` (after an item). */
type Next = "first" | "item" | "separator";

/** The scanner over the document's text, piece by piece (see the file's comment). */
class Splitter {
  private mode: Mode = "skeleton";
  private readonly lines = new Lines();
  private readonly skeleton: Assembler;
  // String state, kept across pieces: inside a string, and its next character escaped.
  private inString = false;
  private escaped = false;
  // The next backslash of the current piece at or after the position last looked at (-1: none).
  private backslash = -1;

  // The skeleton's depth, and what tells a streamed array of the root object.
  private depth = 0;
  private rootIsObject = false;
  private expectKey = false;
  private afterColon = false;
  private key = "";
  /** The text read so far of a root key that straddles two pieces. */
  private keyText: string | null = null;

  // The streamed array being read: its place in the document and what comes next.
  private arrayKey = "";
  private arrayKind = "";
  private index = 0;
  private next: Next = "first";

  // The item being read: its text from previous pieces, its first line and column, the type of
  // each of its open brackets, whether it is a bare value (number, true…), and whether the scanner
  // cut it short (brackets that do not match, too deep).
  private itemText = "";
  private itemLine = 1;
  private itemColumn = 1;
  private itemDepth = 0;
  private readonly brackets = new Uint8Array(MAX_DEPTH + 1);
  private bare = false;
  private cut = false;

  constructor(
    private readonly rules: StreamRules,
    private readonly handlers: StreamHandlers,
    private readonly seq: Sequence,
  ) {
    this.skeleton = new Assembler(rules, handlers, seq);
  }

  /** Line of the end of the text read so far. */
  get line(): number {
    this.lines.next("");
    return this.lines.line;
  }

  /** Reads the next piece of the document. */
  async scan(text: string): Promise<void> {
    if (text === "") return;
    this.lines.next(text);
    this.backslash = text.indexOf("\\");
    let i = 0;
    // Where this piece's text of the skeleton, or of the item being read, starts (-1: not in this piece).
    let skeletonFrom = this.mode === "skeleton" ? 0 : -1;
    let itemFrom = this.mode === "item" ? 0 : -1;
    if (this.inString && this.mode === "skeleton") {
      i = this.skipString(text, 0);
      if (i === -1) {
        if (this.keyText !== null) this.keyText += text;
        await this.skeleton.write(text);
        return;
      }
      this.inString = false;
      if (this.keyText !== null) this.readKey(this.keyText + text.slice(0, i));
    }
    while (i < text.length) {
      if (this.mode === "item") {
        const end = this.bare ? this.scanBare(text, i) : this.scanNested(text, i);
        if (end === -1) {
          this.itemText += text.slice(itemFrom);
          return;
        }
        const item = this.itemText + text.slice(itemFrom, end);
        this.itemText = "";
        i = end;
        this.mode = "between";
        this.next = "separator";
        await this.readItem(item);
        continue;
      }
      const c = text.charCodeAt(i);
      if (this.mode === "between") {
        if (isSpace(c)) {
          i++;
          continue;
        }
        if (this.next === "separator") {
          if (c === COMMA) {
            this.next = "item";
            i++;
            continue;
          }
          if (c !== CLOSE_ARRAY) throw this.fault(i, c === CLOSE_OBJECT ? "expected ']'" : "expected ','");
        } else if (c === CLOSE_ARRAY) {
          if (this.next === "item") throw this.fault(i, "unexpected token ']'");
        } else if (c === QUOTE || c === OPEN_OBJECT || c === OPEN_ARRAY || isBare(c)) {
          this.lines.to(i);
          this.itemLine = this.lines.line;
          this.itemColumn = this.lines.column;
          this.itemDepth = 0;
          this.bare = c !== QUOTE && c !== OPEN_OBJECT && c !== OPEN_ARRAY;
          this.mode = "item";
          itemFrom = i;
          continue;
        } else throw this.fault(i, "expected a value");
        // `]`: the array ends, the skeleton goes on from it.
        this.lines.to(i);
        this.skeleton.moveTo(this.lines.line, this.lines.column);
        this.mode = "skeleton";
        skeletonFrom = i;
        continue;
      }
      // The skeleton: its text is handed over as it is, the scanner only looks for streamed arrays.
      if (c === QUOTE) {
        const isKey = this.depth === 1 && this.expectKey;
        const end = this.skipString(text, i + 1);
        if (end === -1) {
          this.inString = true;
          if (isKey) this.keyText = text.slice(i);
          break;
        }
        if (isKey) this.readKey(text.slice(i, end));
        this.afterColon = false;
        i = end;
        continue;
      }
      if (this.afterColon && this.depth === 1 && !isSpace(c)) {
        this.afterColon = false;
        const kind = c === OPEN_ARRAY ? this.rules.arrayKind("root", this.key) : null;
        if (kind) {
          // A streamed array: the skeleton gets its brackets, the scanner its items.
          await this.skeleton.write(text.slice(skeletonFrom, i + 1));
          skeletonFrom = -1;
          this.arrayKey = this.key;
          this.arrayKind = kind;
          this.index = 0;
          this.next = "first";
          this.mode = "between";
          this.depth++;
          i++;
          continue;
        }
      }
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        if (this.depth === 0) {
          this.rootIsObject = c === OPEN_OBJECT;
          this.expectKey = this.rootIsObject;
        }
        this.depth++;
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) this.depth--;
      else if (this.depth === 1 && this.rootIsObject) {
        if (c === COLON) this.afterColon = true;
        else if (c === COMMA) this.expectKey = true;
      }
      i++;
    }
    if (skeletonFrom >= 0) await this.skeleton.write(text.slice(skeletonFrom));
  }

  /** The end of the document: its assembled skeleton, or the fault of a document cut short. */
  async end(): Promise<unknown> {
    this.lines.next("");
    if (this.mode === "item") {
      // Cut short inside an item: its own fault if it has one before the end, else the end's.
      const reader = this.itemReader();
      await reader.write(this.itemText);
      await reader.end();
    }
    this.skeleton.moveTo(this.lines.line, this.lines.column);
    // After an item, the tokenizer would have expected a comma (its words when a document ends there).
    return this.skeleton.end(this.mode === "between" && this.next === "separator" ? "expected ','" : undefined);
  }

  destroy(): void {
    this.skeleton.destroy();
  }

  /** From `i`, inside a string: the position after its closing quote, or -1 when the piece ends first. */
  private skipString(text: string, i: number): number {
    if (this.escaped) {
      this.escaped = false;
      i++;
    }
    for (;;) {
      const quote = text.indexOf('"', i);
      if (this.backslash !== -1 && this.backslash < i) this.backslash = text.indexOf("\\", i);
      const b = this.backslash;
      if (b === -1 || (quote !== -1 && quote < b)) return quote === -1 ? -1 : quote + 1;
      // A backslash first: the character after it is escaped, a quote or not.
      if (b + 1 >= text.length) {
        this.escaped = true;
        return -1;
      }
      i = b + 2;
    }
  }

  /** From `i`, in an object, array or string item: the position after its end, or -1 when the piece ends first. */
  private scanNested(text: string, i: number): number {
    if (this.inString) {
      i = this.skipString(text, i);
      if (i === -1) return -1;
      this.inString = false;
      if (this.itemDepth === 0) return i;
    }
    const brackets = this.brackets;
    const length = text.length;
    while (i < length) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        i = this.skipString(text, i + 1);
        if (i === -1) {
          this.inString = true;
          return -1;
        }
        if (this.itemDepth === 0) return i;
        continue;
      }
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        // The item sits two levels down (root object, array): the Assembler refuses this bracket.
        if (this.itemDepth + 2 >= MAX_DEPTH) {
          this.cut = true;
          return i + 1;
        }
        brackets[++this.itemDepth] = c;
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        // `}` and `]` are their opening bracket's code plus 2.
        if (brackets[this.itemDepth] !== c - 2) {
          this.cut = true;
          return i + 1;
        }
        if (--this.itemDepth === 0) return i + 1;
      }
      i++;
    }
    return -1;
  }

  /** From `i`, in a bare item: the position after it, or -1 when the piece ends first. */
  private scanBare(text: string, i: number): number {
    while (i < text.length && isBare(text.charCodeAt(i))) i++;
    return i < text.length ? i : -1;
  }

  private readKey(raw: string): void {
    this.keyText = null;
    this.expectKey = false;
    try {
      this.key = JSON.parse(raw);
    } catch {
      // A malformed key: the skeleton's tokenizer, which reads it too, reports it.
      this.key = "";
    }
  }

  /** An item's whole text: parsed and handed over, or read again for its fault. */
  private async readItem(text: string): Promise<void> {
    const path: Path = [this.arrayKey, this.index];
    const cut = this.cut;
    this.cut = false;
    this.index++;
    let value: unknown;
    try {
      if (!cut) value = JSON.parse(text);
    } catch {}
    if (value === undefined) {
      const reader = this.itemReader(path[1] as number);
      await reader.write(text);
      // What may follow the item: the tokenizer waits for a number's end, and judges a text that
      // begins no value only once it has more than 16 characters of it.
      await reader.write(" ".repeat(17));
      reader.destroy();
      // Without a fault, stream-json read what JSON.parse refuses (U+00A0 between tokens…) and handed
      // the item over; an item neither refused nor read would go unvalidated: the document is refused.
      if (!reader.itemDone) throw syntaxFault(this.itemLine, 1, "valeur illisible");
      return;
    }
    this.handOver(this.arrayKind, path, value);
  }

  /** An Assembler for the item being read alone, from its first line and column. */
  private itemReader(index = this.index): Assembler {
    const reader = new Assembler(this.rules, this.handlers, this.seq, { kind: this.arrayKind, key: this.arrayKey, index });
    reader.moveTo(this.itemLine, this.itemColumn);
    return reader;
  }

  /**
   * An item parsed whole, handed over as the Assembler hands one over: its start, the items of its
   * own streamed arrays (which end before it), then the item with those arrays emptied.
   */
  private handOver(kind: string, path: Path, value: unknown): void {
    if (value === null || typeof value !== "object") {
      this.handlers.item(kind, this.seq.next++, path, value);
      return;
    }
    const seq = this.seq.next++;
    this.handlers.itemStart?.(kind, seq);
    if (!Array.isArray(value)) {
      const object = value as Record<string, unknown>;
      for (const key of Object.keys(object)) {
        const children = object[key];
        const childKind = Array.isArray(children) ? this.rules.arrayKind(kind, key) : null;
        if (!childKind) continue;
        for (let i = 0; i < (children as unknown[]).length; i++) this.handOver(childKind, [...path, key, i], (children as unknown[])[i]);
        object[key] = [];
      }
    }
    this.handlers.item(kind, seq, path, value);
  }

  private fault(i: number, reason: string): SbomInvalid {
    this.lines.to(i);
    return syntaxFault(this.lines.line, this.lines.column, reason);
  }
}

/**
 * Reads the JSON text `chunks` (UTF-8 bytes) and returns the assembled root value (streamed arrays
 * empty). A syntax error becomes an SbomInvalid with its line; an exception thrown by a handler
 * stops the reading and is thrown as is.
 */
export async function walkJson(chunks: AsyncIterable<Buffer>, rules: StreamRules, handlers: StreamHandlers): Promise<unknown> {
  const splitter = new Splitter(rules, handlers, { next: 0 });
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const encodingFault = (message: string) =>
    new SbomInvalid("Le document n'est pas un JSON valide.", [{ at: `line ${splitter.line}`, message }]);
  try {
    for await (const chunk of chunks) {
      let text: string;
      try {
        text = decoder.decode(chunk, { stream: true });
      } catch {
        throw encodingFault(`Le document n'est pas encodé en UTF-8 valide (vers la ligne ${splitter.line}).`);
      }
      await splitter.scan(text);
    }
    let rest: string;
    try {
      rest = decoder.decode();
    } catch {
      throw encodingFault("Le document se termine par une séquence UTF-8 incomplète.");
    }
    await splitter.scan(rest);
    return await splitter.end();
  } finally {
    splitter.destroy();
  }
}

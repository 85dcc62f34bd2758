/**
 * JSON parsing with the error reporting of CPython's `json.loads` (C scanner, strict=True),
 * as FastAPI surfaces it: `{"type": "json_invalid", "loc": ["body", e.pos], "msg": "JSON decode error",
 * "input": {}, "ctx": {"error": e.msg}}`.
 *
 * Sources (read, not guessed):
 *  - CPython `Modules/_json.c`: `scanstring_unicode`, `_parse_object_unicode`, `_parse_array_unicode`,
 *    `_match_number_unicode`, `scan_once_unicode` — every message and the index it is raised at.
 *  - CPython `Lib/json/decoder.py`: `decode` ("Extra data" after trailing whitespace) and `raw_decode`
 *    (a StopIteration from the scanner becomes "Expecting value" at `err.value`).
 *  - CPython `Lib/json/__init__.py` `loads`: a str starting with U+FEFF is rejected with
 *    "Unexpected UTF-8 BOM (decode using utf-8-sig)" at 0.
 * The message set is CPython 3.11/3.12's: 3.13 added "Illegal trailing comma before end of object/array",
 * which is deliberately NOT produced here (`{"a":1,}` → "Expecting property name enclosed in double
 * quotes" at the `}`, `[1,]` → "Expecting value" at the `]`).
 *
 * Positions are Python `str` indexes, i.e. code points (an astral character counts 1, not 2).
 * An empty document is "Expecting value" at 0, but a whitespace-only one is "Expecting value" at its
 * length: `decode` skips leading whitespace before scanning (json.loads("\n") → "line 2 column 1 (char 1)").
 *
 * Strategy: `JSON.parse` first. It accepts exactly the RFC 8259 grammar, which Python also accepts
 * (same whitespace set, same escapes, same number syntax, last duplicate key wins in both), so its
 * success is Python's success. Only when it throws do we run the scanner below, which also accepts
 * Python's extensions `NaN`, `Infinity` and `-Infinity` (json.loads turns them into floats), so a
 * document using them parses to JS `NaN` / `±Infinity` instead of failing.
 *
 * Not mirrored: Python ints are unbounded (JS numbers lose precision past 2^53); Python raises
 * ValueError (not JSONDecodeError) for > 4300-digit ints, which FastAPI answers with a 400, not a 422.
 * Deep nesting (RecursionError in Python, a 400 too) is bounded by MAX_JSON_DEPTH. Note FastAPI (via Starlette `request.json()`) gives
 * json.loads *bytes*: those are decoded with `utf-8-sig` when they start with a UTF-8 BOM, so to match
 * FastAPI the caller should decode the body with `new TextDecoder()` (which strips the BOM) — the BOM
 * error below is what json.loads does for a `str`.
 */

export type PythonJsonResult = { ok: true; value: unknown } | { ok: false; pos: number; msg: string } | { ok: false; tooDeep: true };

/**
 * Deepest nesting of arrays and objects accepted. CPython's scanner recurses once per level and
 * raises RecursionError near the interpreter's recursion limit (FastAPI 0.142 on Python 3.11 takes
 * 969 levels and answers 400 "There was an error parsing the body" past them); a fixed limit a
 * little below keeps our own recursion (scanner, validation, the 422 echo of `input`) far from the
 * JS stack's end, which used to turn such a body into a 500 or an empty 422.
 */
export const MAX_JSON_DEPTH = 900;

/** Parses JSON text like Python's json.loads (C scanner, strict=True). */
export function parsePythonJson(text: string): PythonJsonResult {
  // json.loads(str) checks the BOM before decoding anything (Lib/json/__init__.py).
  if (text.charCodeAt(0) === 0xfeff) {
    return { ok: false, pos: 0, msg: "Unexpected UTF-8 BOM (decode using utf-8-sig)" };
  }
  // Only a document that nests too deep somewhere needs the scanner, which stops at the first
  // failure, a syntax error or the depth limit, in document order as Python does.
  if (maxDepth(text) <= MAX_JSON_DEPTH) {
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch {
      // fall through to the scanner for Python's message and position
    }
  }
  return new Scanner(text).decode();
}

/** The deepest `[`/`{` nesting of the text, strings skipped (an over-estimate on invalid JSON is harmless). */
function maxDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) max = depth;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/** A JSONDecodeError raised by the C scanner (`raise_errmsg`). */
class DecodeError {
  constructor(
    readonly msg: string,
    readonly pos: number,
  ) {}
}

/** RecursionError: nesting past MAX_JSON_DEPTH. */
class TooDeep {}

/** `raise_stop_iteration(idx)`: no JSON value starts at idx; `raw_decode` turns it into "Expecting value". */
class StopIteration {
  constructor(readonly pos: number) {}
}

const isWs = (c: number | undefined) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;

class Scanner {
  /** The document as code points, so every index below is a Python str index. */
  private readonly s: number[] = [];
  private readonly len: number;
  private depth = 0;

  constructor(text: string) {
    // for..of iterates code points and yields lone surrogates one by one, like a Python str.
    for (const ch of text) this.s.push(ch.codePointAt(0)!);
    this.len = this.s.length;
  }

  decode(): PythonJsonResult {
    try {
      // JSONDecoder.decode: skip whitespace, scan one value, skip whitespace, require end of input.
      let idx = this.skipWs(0);
      let value: unknown;
      try {
        [value, idx] = this.scanOnce(idx);
      } catch (e) {
        if (e instanceof StopIteration) return { ok: false, pos: e.pos, msg: "Expecting value" };
        throw e;
      }
      idx = this.skipWs(idx);
      if (idx !== this.len) return { ok: false, pos: idx, msg: "Extra data" };
      return { ok: true, value };
    } catch (e) {
      if (e instanceof DecodeError) return { ok: false, pos: e.pos, msg: e.msg };
      if (e instanceof TooDeep) return { ok: false, tooDeep: true };
      throw e;
    }
  }

  /** The code points [start, end) as a JS string (chunked: spreading a huge array overflows the stack). */
  private text(start: number, end: number): string {
    let out = "";
    for (let i = start; i < end; i += 8192) {
      out += String.fromCodePoint(...this.s.slice(i, Math.min(end, i + 8192)));
    }
    return out;
  }

  private skipWs(idx: number): number {
    while (idx < this.len && isWs(this.s[idx])) idx++;
    return idx;
  }

  private matches(idx: number, word: string): boolean {
    // The C code checks `idx + len(word) - 1 < length` and then each character.
    if (idx + word.length > this.len) return false;
    for (let i = 0; i < word.length; i++) if (this.s[idx + i] !== word.charCodeAt(i)) return false;
    return true;
  }

  /** scan_once_unicode: one JSON term starting exactly at idx. Returns [value, next index]. */
  private scanOnce(idx: number): [unknown, number] {
    if (idx >= this.len) throw new StopIteration(idx);
    switch (this.s[idx]) {
      case 0x22: // "
        return this.scanString(idx + 1);
      case 0x7b: // {
        return this.nested(() => this.parseObject(idx + 1));
      case 0x5b: // [
        return this.nested(() => this.parseArray(idx + 1));
      case 0x6e: // n
        if (this.matches(idx, "null")) return [null, idx + 4];
        break;
      case 0x74: // t
        if (this.matches(idx, "true")) return [true, idx + 4];
        break;
      case 0x66: // f
        if (this.matches(idx, "false")) return [false, idx + 5];
        break;
      case 0x4e: // N
        if (this.matches(idx, "NaN")) return [NaN, idx + 3];
        break;
      case 0x49: // I
        if (this.matches(idx, "Infinity")) return [Infinity, idx + 8];
        break;
      case 0x2d: // -
        if (this.matches(idx, "-Infinity")) return [-Infinity, idx + 9];
        break;
    }
    return this.matchNumber(idx);
  }

  /** One level deeper (Py_EnterRecursiveCall), failing past MAX_JSON_DEPTH. */
  private nested<T>(parse: () => T): T {
    if (++this.depth > MAX_JSON_DEPTH) throw new TooDeep();
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  /** _match_number_unicode, including its backtracking on a dangling "." or exponent. */
  private matchNumber(start: number): [number, number] {
    const s = this.s;
    const endIdx = this.len - 1;
    let idx = start;
    if (s[idx] === 0x2d) {
      idx++;
      if (idx > endIdx) throw new StopIteration(start);
    }
    const first = s[idx]!;
    if (first >= 0x31 && first <= 0x39) {
      idx++;
      while (idx <= endIdx && isDigit(s[idx])) idx++;
    } else if (first === 0x30) {
      idx++; // a leading 0 is a whole integer part: "01" is the number 0 followed by "1"
    } else {
      throw new StopIteration(start);
    }
    if (idx < endIdx && s[idx] === 0x2e && isDigit(s[idx + 1])) {
      idx += 2;
      while (idx <= endIdx && isDigit(s[idx])) idx++;
    }
    if (idx < endIdx && (s[idx] === 0x65 || s[idx] === 0x45)) {
      const eStart = idx;
      idx++;
      if (idx < endIdx && (s[idx] === 0x2d || s[idx] === 0x2b)) idx++;
      while (idx <= endIdx && isDigit(s[idx])) idx++;
      if (!isDigit(s[idx - 1])) idx = eStart; // "1e", "1e+": backtrack, the number ends before the e
    }
    // Python makes an int or a float of it; both are Number() here (float("1e999") is inf, so is Number()).
    return [Number(this.text(start, idx)), idx];
  }

  /** scanstring_unicode: `end` is the index just after the opening quote. */
  private scanString(end: number): [string, number] {
    const s = this.s;
    const len = this.len;
    const begin = end - 1;
    let out = "";
    for (;;) {
      let next = end;
      let c = 0;
      for (; next < len; next++) {
        c = s[next]!;
        if (c === 0x22 || c === 0x5c) break;
        if (c <= 0x1f) throw new DecodeError("Invalid control character at", next);
      }
      if (next >= len) throw new DecodeError("Unterminated string starting at", begin);
      if (next !== end) out += this.text(end, next);
      next++;
      if (c === 0x22) return [out, next];
      // a backslash
      if (next === len) throw new DecodeError("Unterminated string starting at", begin);
      c = s[next]!;
      if (c !== 0x75 /* u */) {
        end = next + 1;
        const esc = SIMPLE_ESCAPES[c];
        if (esc === undefined) throw new DecodeError("Invalid \\escape", end - 2);
        out += esc;
        continue;
      }
      next++;
      end = next + 4;
      // Note `>=`: four hex digits that end the document are still an error (no closing quote left).
      if (end >= len) throw new DecodeError("Invalid \\uXXXX escape", next - 1);
      let u = this.hex4(next, end - 5);
      next = end;
      // A high surrogate followed by "\u" + low surrogate joins into one code point; otherwise the
      // lone surrogate is kept (Python str can hold it, so can a JS string).
      if (u >= 0xd800 && u <= 0xdbff && end + 6 < len && s[next] === 0x5c && s[next + 1] === 0x75) {
        const u2 = this.hex4(next + 2, end + 1);
        if (u2 >= 0xdc00 && u2 <= 0xdfff) {
          u = 0x10000 + ((u - 0xd800) << 10) + (u2 - 0xdc00);
          end += 6;
        }
      }
      out += String.fromCodePoint(u);
    }
  }

  /** Four hex digits at idx; an invalid digit raises "Invalid \uXXXX escape" at errPos (the `u`). */
  private hex4(idx: number, errPos: number): number {
    let v = 0;
    for (let i = idx; i < idx + 4; i++) {
      const d = this.s[i]!;
      let n: number;
      if (d >= 0x30 && d <= 0x39) n = d - 0x30;
      else if (d >= 0x61 && d <= 0x66) n = d - 0x61 + 10;
      else if (d >= 0x41 && d <= 0x46) n = d - 0x41 + 10;
      else throw new DecodeError("Invalid \\uXXXX escape", errPos);
      v = (v << 4) | n;
    }
    return v;
  }

  /** _parse_object_unicode (3.12): `idx` is just after the `{`. */
  private parseObject(idx: number): [Record<string, unknown>, number] {
    const s = this.s;
    const obj: Record<string, unknown> = {};
    idx = this.skipWs(idx);
    if (idx < this.len && s[idx] === 0x7d) return [obj, idx + 1];
    for (;;) {
      if (idx >= this.len || s[idx] !== 0x22) {
        throw new DecodeError("Expecting property name enclosed in double quotes", idx);
      }
      let key: string;
      [key, idx] = this.scanString(idx + 1);
      idx = this.skipWs(idx);
      if (idx >= this.len || s[idx] !== 0x3a) throw new DecodeError("Expecting ':' delimiter", idx);
      idx = this.skipWs(idx + 1);
      let value: unknown;
      [value, idx] = this.scanOnce(idx);
      // defineProperty so that a "__proto__" key stays an own property, as JSON.parse does.
      Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
      idx = this.skipWs(idx);
      if (idx < this.len && s[idx] === 0x7d) return [obj, idx + 1];
      if (idx >= this.len || s[idx] !== 0x2c) throw new DecodeError("Expecting ',' delimiter", idx);
      idx = this.skipWs(idx + 1);
    }
  }

  /** _parse_array_unicode (3.12): `idx` is just after the `[`. */
  private parseArray(idx: number): [unknown[], number] {
    const s = this.s;
    const arr: unknown[] = [];
    idx = this.skipWs(idx);
    if (idx < this.len && s[idx] === 0x5d) return [arr, idx + 1];
    for (;;) {
      let value: unknown;
      [value, idx] = this.scanOnce(idx);
      arr.push(value);
      idx = this.skipWs(idx);
      if (idx < this.len && s[idx] === 0x5d) return [arr, idx + 1];
      if (idx >= this.len || s[idx] !== 0x2c) throw new DecodeError("Expecting ',' delimiter", idx);
      idx = this.skipWs(idx + 1);
    }
  }
}

const SIMPLE_ESCAPES: Record<number, string> = {
  0x22: '"',
  0x5c: "\\",
  0x2f: "/",
  0x62: "\b",
  0x66: "\f",
  0x6e: "\n",
  0x72: "\r",
  0x74: "\t",
};

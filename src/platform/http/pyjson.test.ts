/**
 * Expected messages and positions are derived from CPython's C scanner, Modules/_json.c
 * (https://github.com/python/cpython/blob/3.12/Modules/_json.c: scanstring_unicode,
 * _parse_object_unicode, _parse_array_unicode, _match_number_unicode, scan_once_unicode) and
 * Lib/json/decoder.py (JSONDecoder.decode / raw_decode), Lib/json/__init__.py (loads: BOM check).
 * Positions are Python str indexes (code points).
 */
import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, parsePythonJson } from "./pyjson.js";

const err = (text: string) => {
  const r = parsePythonJson(text);
  if (r.ok || "tooDeep" in r) throw new Error(`expected a decode error for ${JSON.stringify(text)}`);
  return [r.msg, r.pos];
};

describe("parsePythonJson: valid documents", () => {
  it("parses plain JSON like JSON.parse", () => {
    expect(parsePythonJson('{"a": [1, 2.5, "x", true, null], "b": {}}')).toEqual({
      ok: true,
      value: { a: [1, 2.5, "x", true, null], b: {} },
    });
    expect(parsePythonJson(" \t\r\n[]\n")).toEqual({ ok: true, value: [] });
  });

  it("accepts Python's NaN / Infinity / -Infinity constants (decoder.py _CONSTANTS)", () => {
    const r = parsePythonJson('{"x": [NaN, Infinity, -Infinity, 1]}');
    expect(r.ok).toBe(true);
    const xs = (r as { value: { x: number[] } }).value.x;
    expect(Number.isNaN(xs[0])).toBe(true);
    expect(xs.slice(1)).toEqual([Infinity, -Infinity, 1]);
    expect(parsePythonJson("Infinity")).toEqual({ ok: true, value: Infinity });
    expect(parsePythonJson(" -Infinity ")).toEqual({ ok: true, value: -Infinity });
  });

  it("decodes escapes and surrogate pairs in the slow path too", () => {
    expect(parsePythonJson('[NaN, "\\ud83d\\ude00\\n\\u00e9\\/"]')).toMatchObject({ ok: true, value: [NaN, "😀\né/"] });
    // a lone high surrogate followed by a non-low-surrogate escape is kept as is
    expect(parsePythonJson('[NaN, "\\ud83d\\u0041"]')).toMatchObject({ ok: true, value: [NaN, "\ud83dA"] });
  });

  it("keeps a __proto__ key as an own property (both paths)", () => {
    for (const text of ['{"__proto__": 1}', '{"__proto__": 1, "n": NaN}']) {
      const r = parsePythonJson(text) as { ok: true; value: Record<string, unknown> };
      expect(Object.hasOwn(r.value, "__proto__")).toBe(true);
      expect(Object.getPrototypeOf(r.value)).toBe(Object.prototype);
    }
  });

  it("last duplicate key wins, like a Python dict", () => {
    expect(parsePythonJson('{"a": 1, "a": 2}')).toEqual({ ok: true, value: { a: 2 } });
  });
});

describe("parsePythonJson: errors (CPython 3.11/3.12 messages)", () => {
  it("empty and whitespace-only documents: 'Expecting value' after the whitespace", () => {
    expect(err("")).toEqual(["Expecting value", 0]);
    // decode() skips leading whitespace first: json.loads("\n") → "line 2 column 1 (char 1)"
    expect(err("\n")).toEqual(["Expecting value", 1]);
    expect(err("   ")).toEqual(["Expecting value", 3]);
  });

  it("rejects a leading BOM in a str (json/__init__.py loads)", () => {
    expect(err("\ufeff{}")).toEqual(["Unexpected UTF-8 BOM (decode using utf-8-sig)", 0]);
  });

  it("bad values", () => {
    expect(err("nul")).toEqual(["Expecting value", 0]);
    expect(err("tru")).toEqual(["Expecting value", 0]);
    expect(err("-")).toEqual(["Expecting value", 0]);
    expect(err("-Inf")).toEqual(["Expecting value", 0]);
    expect(err("'a'")).toEqual(["Expecting value", 0]);
    expect(err('{"a": tru}')).toEqual(["Expecting value", 6]);
    expect(err('{"a":')).toEqual(["Expecting value", 5]);
    expect(err("[")).toEqual(["Expecting value", 1]);
    expect(err("[-]")).toEqual(["Expecting value", 1]);
  });

  it("trailing commas use the pre-3.13 messages", () => {
    expect(err('{"a":1,}')).toEqual(["Expecting property name enclosed in double quotes", 7]);
    expect(err("[1,]")).toEqual(["Expecting value", 3]);
    expect(err("[1, ]")).toEqual(["Expecting value", 4]);
  });

  it("object syntax", () => {
    expect(err("{")).toEqual(["Expecting property name enclosed in double quotes", 1]);
    expect(err("{'a': 1}")).toEqual(["Expecting property name enclosed in double quotes", 1]);
    expect(err("{a: 1}")).toEqual(["Expecting property name enclosed in double quotes", 1]);
    expect(err('{"a"')).toEqual(["Expecting ':' delimiter", 4]);
    expect(err('{"a" 1}')).toEqual(["Expecting ':' delimiter", 5]);
    expect(err('{"a":1 "b":2}')).toEqual(["Expecting ',' delimiter", 7]);
    expect(err('{"a":1')).toEqual(["Expecting ',' delimiter", 6]);
  });

  it("array syntax", () => {
    expect(err("[1 2]")).toEqual(["Expecting ',' delimiter", 3]);
    expect(err("[1")).toEqual(["Expecting ',' delimiter", 2]);
    expect(err("[01]")).toEqual(["Expecting ',' delimiter", 2]);
    expect(err("[1.]")).toEqual(["Expecting ',' delimiter", 2]);
  });

  it("numbers end where the C scanner stops (then 'Extra data')", () => {
    expect(err("01")).toEqual(["Extra data", 1]);
    expect(err("1.")).toEqual(["Extra data", 1]);
    expect(err("1.5e")).toEqual(["Extra data", 3]);
    expect(err("1e+")).toEqual(["Extra data", 1]);
    expect(err('{"a": 1} x')).toEqual(["Extra data", 9]);
    expect(err('"a" "b"')).toEqual(["Extra data", 4]);
    expect(err("[] ]")).toEqual(["Extra data", 3]);
  });

  it("strings", () => {
    expect(err('"abc')).toEqual(["Unterminated string starting at", 0]);
    expect(err('{"a": "abc\\')).toEqual(["Unterminated string starting at", 6]);
    expect(err('{"a": "b\nc"}')).toEqual(["Invalid control character at", 8]);
    expect(err('"\t"')).toEqual(["Invalid control character at", 1]);
    expect(err('"\\x"')).toEqual(["Invalid \\escape", 1]);
    expect(err('["ok", "\\a"]')).toEqual(["Invalid \\escape", 8]);
    // \u errors point at the "u"
    expect(err('"\\u12"')).toEqual(["Invalid \\uXXXX escape", 2]);
    expect(err('"\\u12zz"')).toEqual(["Invalid \\uXXXX escape", 2]);
    // four valid digits that end the document are still an error (`end >= len` in _json.c)
    expect(err('"\\u0041')).toEqual(["Invalid \\uXXXX escape", 2]);
    // a bad low-surrogate escape is reported at its own "u"
    expect(err('"\\ud83d\\uzzzz"')).toEqual(["Invalid \\uXXXX escape", 8]);
  });

  it("positions count code points, not UTF-16 units", () => {
    expect(err('["😀", x]')).toEqual(["Expecting value", 6]);
    expect(err('{"😀😀": 1,}')).toEqual(["Expecting property name enclosed in double quotes", 9]);
  });
});

describe("parsePythonJson: nesting depth (RecursionError in Python, a 400 under FastAPI)", () => {
  const arrays = (n: number) => "[".repeat(n) + "]".repeat(n);
  it("accepts MAX_JSON_DEPTH levels and refuses one more, arrays or objects", () => {
    expect(parsePythonJson(arrays(MAX_JSON_DEPTH)).ok).toBe(true);
    expect(parsePythonJson(arrays(MAX_JSON_DEPTH + 1))).toEqual({ ok: false, tooDeep: true });
    const objects = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);
    expect(parsePythonJson(objects(MAX_JSON_DEPTH)).ok).toBe(true);
    expect(parsePythonJson(objects(MAX_JSON_DEPTH + 1))).toEqual({ ok: false, tooDeep: true });
  });

  it("never overflows the stack: 100,000 levels, closed or not", () => {
    expect(parsePythonJson(arrays(100_000))).toEqual({ ok: false, tooDeep: true });
    expect(parsePythonJson("[".repeat(100_000))).toEqual({ ok: false, tooDeep: true });
  });

  it("brackets inside strings do not count; a syntax error before the depth limit wins, as in document order", () => {
    expect(parsePythonJson(JSON.stringify(["[".repeat(5000)])).ok).toBe(true);
    expect(err("[1,]" + "[".repeat(5000))).toEqual(["Expecting value", 3]);
  });
});

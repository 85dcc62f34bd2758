/**
 * pyRepr against CPython 3.12's `repr()` (float_repr_style 'short', unicode_repr): each expected
 * text is what the interpreter prints for the Python value named in the comment.
 */
import { describe, expect, it } from "vitest";
import { pyRepr } from "./repr.js";

describe("pyRepr", () => {
  it("None, bools, ints (an integral JS number is a Python int)", () => {
    expect(pyRepr(null)).toBe("None");
    expect(pyRepr(true)).toBe("True");
    expect(pyRepr(false)).toBe("False");
    expect(pyRepr(-3)).toBe("-3");
    expect(pyRepr(1e21)).toBe("1000000000000000000000"); // int(1e21), not 1e+21
  });

  it("floats: shortest digits, exponent form below 1e-4", () => {
    expect(pyRepr(0.1)).toBe("0.1");
    expect(pyRepr(0.00012)).toBe("0.00012");
    expect(pyRepr(0.000012)).toBe("1.2e-05");
    expect(pyRepr(-1.5e-7)).toBe("-1.5e-07");
    expect(pyRepr(123456789.123)).toBe("123456789.123");
    expect(pyRepr(1.5e-300)).toBe("1.5e-300");
    expect(pyRepr(Number.NaN)).toBe("nan");
    expect(pyRepr(Number.NEGATIVE_INFINITY)).toBe("-inf");
  });

  it("str: quote choice and escapes of unicode_repr", () => {
    expect(pyRepr("a")).toBe("'a'");
    expect(pyRepr("it's")).toBe(`"it's"`); // repr("it's")
    expect(pyRepr(`it's "x"`)).toBe(`'it\\'s "x"'`); // both quotes: single, escaped
    expect(pyRepr("a\\b")).toBe("'a\\\\b'");
    expect(pyRepr("\t\n\r\x00\x7f")).toBe("'\\t\\n\\r\\x00\\x7f'");
    expect(pyRepr("\x85\xa0é")).toBe("'\\x85\\xa0é'"); // C1 control and no-break space are not printable
    expect(pyRepr("\u2028\u3000")).toBe("'\\u2028\\u3000'");
    expect(pyRepr("😀\u{e0001}")).toBe("'😀\\U000e0001'"); // emoji printable, language tag (Cf) not
  });

  it("lists and dicts", () => {
    expect(pyRepr([1, "x", null, true])).toBe("[1, 'x', None, True]");
    expect(pyRepr({ a: 1, "b'": [0.5] })).toBe(`{'a': 1, "b'": [0.5]}`);
  });
});

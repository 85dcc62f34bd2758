/**
 * Python int and float in lax mode: the str/bool/float coercions of pydantic-core (shared.rs,
 * input_python.rs), with its quirks, and the bound checks (int.rs / float.rs) with Rust-rendered figures.
 */
import { checksOf, type Def, fail, failUnicode, INVALID, LONE_SURROGATE, type Node, type State } from "./state.js";

interface Bounds {
  multipleOf?: number;
  le?: number;
  lt?: number;
  ge?: number;
  gt?: number;
}

/** int (z.int(), int32, uint32…) or float, with their bounds (gt/ge/lt/le/multiple_of). */
export function buildNumber(def: Def, node: Node): void {
  const checks = checksOf(def);
  const formats = [def, ...checks].filter((c) => c.check === "number_format").map((c) => c.format as string);
  const isInt = formats.some((f) => f.includes("int"));
  const b: Bounds = {};
  // int32/uint32 carry real bounds (a Python model would declare them); safeint's are JS artefacts.
  if (formats.includes("int32")) Object.assign(b, { ge: -2147483648, le: 2147483647 });
  if (formats.includes("uint32")) Object.assign(b, { ge: 0, le: 4294967295 });
  for (const c of checks) {
    const v = c.value as number;
    if (c.check === "greater_than") {
      delete b.ge;
      delete b.gt;
      b[c.inclusive ? "ge" : "gt"] = v;
    } else if (c.check === "less_than") {
      delete b.le;
      delete b.lt;
      b[c.inclusive ? "le" : "lt"] = v;
    } else if (c.check === "multiple_of") b.multipleOf = v;
  }
  const constrained = Object.keys(b).length > 0;
  const base = isInt ? "int" : "float";
  node.name = () => (constrained ? `constrained-${base}` : base);
  const coerce = isInt ? toInt : toFloat;
  node.run = (input, st) => {
    const v = coerce(input, st);
    if (v === INVALID) return v;
    // Python ints have no negative zero ("-0" → 0).
    return checkBounds(isInt && v === 0 ? 0 : v, b, isInt, input, st);
  };
}

/** Python lax int (input_python.rs `validate_int`, shared.rs `str_as_int` / `float_as_int`). */
function toInt(input: unknown, st: State): number | typeof INVALID {
  if (typeof input === "number") {
    if (Number.isInteger(input)) return input;
    if (st.strict) return fail(st, "int_type", "Input should be a valid integer", input);
    if (!Number.isFinite(input)) return fail(st, "finite_number", "Input should be a finite number", input);
    return fail(st, "int_from_float", "Input should be a valid integer, got a number with a fractional part", input);
  }
  if (!st.strict && typeof input === "boolean") return input ? 1 : 0; // bool is an int subclass
  if (!st.strict && typeof input === "string") {
    if (LONE_SURROGATE.test(input)) return failUnicode(st, input);
    const v = strAsInt(input);
    if (typeof v === "number") return v;
    return v === "size"
      ? fail(st, "int_parsing_size", "Unable to parse input string as an integer, exceeded maximum size", input)
      : fail(st, "int_parsing", "Input should be a valid integer, unable to parse string as an integer", input);
  }
  return fail(st, "int_type", "Input should be a valid integer", input);
}

const JSON_INT_RE = /^-?(?:0|[1-9][0-9]*)$/;

/**
 * shared.rs `str_as_int`: jiter's JSON-integer grammar first; failing that, `clean_int_str` (strip
 * whitespace, one leading "+", leading zeros, an all-zero fraction, single underscores between digits)
 * and the JSON-integer grammar again.
 */
function strAsInt(s: string): number | "parsing" | "size" {
  if (JSON_INT_RE.test(s)) return s.length > 4300 ? "size" : Number(s);
  const cleaned = cleanIntStr(s);
  return cleaned !== null && JSON_INT_RE.test(cleaned) && cleaned.length <= 4300 ? Number(cleaned) : "parsing";
}

function cleanIntStr(original: string): string | null {
  let s = rustTrim(original);
  if (s.startsWith("+")) {
    if (s[1] === "-") return null;
    s = s.slice(1);
  }
  let negative = false;
  if (s.startsWith("-")) {
    if (s[1] === "-" || s[1] === "+") return null;
    negative = true;
    s = s.slice(1);
  }
  const stripped = stripLeadingZeros(s);
  if (stripped === null) return null;
  s = stripped;
  const dot = s.indexOf(".");
  if (dot !== -1 && dot < s.length - 1 && /^0+$/.test(s.slice(dot + 1))) s = s.slice(0, dot);
  const noUnderscores = stripUnderscores(s);
  if (noUnderscores !== null) return (negative ? "-" : "") + noUnderscores;
  if (s.length === original.length) return null; // nothing was cleaned: give up
  return (negative ? "-" : "") + s;
}

/** shared.rs `strip_leading_zeros`, including its quirks ("0_1" → "1", "00.0" → "0.0"). */
function stripLeadingZeros(s: string): string | null {
  const first = s[0];
  if (first === undefined) return null;
  if (first !== "0") return (first >= "1" && first <= "9") || first === "-" ? s : null;
  for (let i = 1; i < s.length; i++) {
    const c = s[i]!;
    if (c === "0" || c === "_") continue;
    if ((c >= "1" && c <= "9") || c === "-") return s.slice(i);
    if (c === ".") return s.slice(i - 1);
    return null;
  }
  return s.slice(-1);
}

/** shared.rs `strip_underscores`: only single underscores strictly inside the string. */
function stripUnderscores(s: string): string | null {
  if (s.startsWith("_") || s.endsWith("_") || !s.includes("_") || s.includes("__")) return null;
  return s.replaceAll("_", "");
}

/** Rust `str::trim` strips Unicode White_Space: unlike JS `trim`, it strips U+0085 and keeps U+FEFF. */
const WS = "\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const RUST_TRIM_RE = new RegExp(`^[${WS}]+|[${WS}]+$`, "g");
const rustTrim = (s: string) => s.replace(RUST_TRIM_RE, "");

/** Rust `f64::from_str` grammar (what `str_as_float` uses): no hex, no whitespace, inf/nan words. */
const RUST_FLOAT_RE = /^[+-]?(?:inf|infinity|nan|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?)$/i;

function parseRustFloat(s: string): number | null {
  if (!RUST_FLOAT_RE.test(s)) return null;
  const body = s.replace(/^[+-]/, "").toLowerCase();
  const sign = s.startsWith("-") ? -1 : 1;
  if (body === "nan") return NaN;
  if (body.startsWith("inf")) return sign * Infinity;
  return Number(s);
}

/** Python lax float (input_python.rs `validate_float`, shared.rs `str_as_float`). */
function toFloat(input: unknown, st: State): number | typeof INVALID {
  if (typeof input === "number") return input;
  if (!st.strict && typeof input === "boolean") return input ? 1 : 0;
  if (!st.strict && typeof input === "string") {
    if (LONE_SURROGATE.test(input)) return failUnicode(st, input);
    // str.trim().parse(), then (untrimmed) underscore stripping + parse.
    const v = parseRustFloat(rustTrim(input)) ?? mapNull(stripUnderscores(input), parseRustFloat);
    if (v !== null) return v;
    return fail(st, "float_parsing", "Input should be a valid number, unable to parse string as a number", input);
  }
  return fail(st, "float_type", "Input should be a valid number", input);
}

const mapNull = <T, U>(v: T | null, f: (v: T) => U | null): U | null => (v === null ? null : f(v));

/** Constraint order of pydantic-core int.rs / float.rs: multiple_of, le, lt, ge, gt. */
function checkBounds(v: number, b: Bounds, isInt: boolean, input: unknown, st: State): unknown {
  if (b.multipleOf !== undefined) {
    const m = b.multipleOf;
    const rem = v % m;
    const threshold = Math.abs(v) / 1e9;
    const bad = isInt ? rem !== 0 : Math.abs(rem) > threshold && Math.abs(rem - m) > threshold;
    if (bad) return fail(st, "multiple_of", `Input should be a multiple of ${rustNum(m)}`, input, { multiple_of: m });
  }
  // Written as !(ok) so that NaN fails every bound, like Rust's partial_cmp.
  if (b.le !== undefined && !(v <= b.le)) {
    return fail(st, "less_than_equal", `Input should be less than or equal to ${rustNum(b.le)}`, input, { le: b.le });
  }
  if (b.lt !== undefined && !(v < b.lt)) {
    return fail(st, "less_than", `Input should be less than ${rustNum(b.lt)}`, input, { lt: b.lt });
  }
  if (b.ge !== undefined && !(v >= b.ge)) {
    return fail(st, "greater_than_equal", `Input should be greater than or equal to ${rustNum(b.ge)}`, input, {
      ge: b.ge,
    });
  }
  if (b.gt !== undefined && !(v > b.gt)) {
    return fail(st, "greater_than", `Input should be greater than ${rustNum(b.gt)}`, input, { gt: b.gt });
  }
  return v;
}

/** Rust `Display` of an i64/f64 (how bounds are rendered in messages): never an exponent. */
function rustNum(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (Number.isInteger(x)) return Math.abs(x) < 1e21 ? String(x) : BigInt(x).toString();
  const s = String(x);
  const e = s.indexOf("e-");
  if (e === -1) return s;
  // |x| < 1e-6: expand "d.ddde-N" into "0.000ddd"
  const mantissa = s.slice(0, e);
  const sign = mantissa.startsWith("-") ? "-" : "";
  const digits = mantissa.replace("-", "").replace(".", "");
  return `${sign}0.${"0".repeat(Number(s.slice(e + 2)) - 1)}${digits}`;
}

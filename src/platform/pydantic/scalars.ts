/**
 * Leaf values other than numbers, coerced as pydantic-core's lax ("python") mode does: str and
 * constrained str, `datetime.date`, `uuid.UUID`, bool, and `Literal[...]`.
 */
import { parsePythonDate } from "./pydate.js";
import { pyRepr } from "./repr.js";
import { checksOf, type Def, fail, failUnicode, LONE_SURROGATE, type Node, plural, type State } from "./state.js";

/** z.uuid() / z.guid() (or a string with that format check) is Python's `uuid.UUID`. */
export function isUuidString(def: Def): boolean {
  const isUuid = (d: Record<string, unknown>) => d.check === "string_format" && (d.format === "uuid" || d.format === "guid");
  return isUuid(def) || checksOf(def).some(isUuid);
}

/** Python `len()`: code points, so an astral character counts once (UTF-16 would count 2). */
function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** str, or constr when the schema has length or pattern checks (counted in code points, as Python does). */
export function buildString(def: Def, node: Node): void {
  let min: number | undefined;
  let max: number | undefined;
  const patterns: RegExp[] = [];
  for (const c of checksOf(def)) {
    if (c.check === "min_length") min = c.minimum as number;
    else if (c.check === "max_length") max = c.maximum as number;
    else if (c.check === "length_equals") min = max = c.length as number;
    else if (c.check === "string_format" && c.format === "regex") {
      const re = c.pattern as RegExp;
      patterns.push(new RegExp(re.source, re.flags.replace(/[gy]/g, "")));
    }
  }
  const constrained = min !== undefined || max !== undefined || patterns.length > 0;
  node.name = () => (constrained ? "constrained-str" : "str");
  node.run = (input, st) => {
    // No number/bool → str coercion in Pydantic v2 (coerce_numbers_to_str defaults to False).
    if (typeof input !== "string") return fail(st, "string_type", "Input should be a valid string", input);
    if (!constrained) return input;
    if (LONE_SURROGATE.test(input)) return failUnicode(st, input);
    if (min !== undefined || max !== undefined) {
      const len = codePointLength(input);
      if (min !== undefined && len < min) {
        return fail(st, "string_too_short", `String should have at least ${min} character${plural(min)}`, input, {
          min_length: min,
        });
      }
      if (max !== undefined && len > max) {
        return fail(st, "string_too_long", `String should have at most ${max} character${plural(max)}`, input, {
          max_length: max,
        });
      }
    }
    for (const re of patterns) {
      if (!re.test(input)) {
        return fail(st, "string_pattern_mismatch", `String should match pattern '${re.source}'`, input, {
          pattern: re.source,
        });
      }
    }
    return input;
  };
}

/** z.iso.date() is Python's `datetime.date`. */
export function isDateString(def: Def): boolean {
  const isDate = (d: Record<string, unknown>) => d.check === "string_format" && d.format === "date";
  return isDate(def) || checksOf(def).some(isDate);
}

/** datetime.date in lax mode (src/validators/date.rs); the value is the ISO text `YYYY-MM-DD`. */
export function buildDate(node: Node): void {
  node.name = () => "date";
  node.run = (input, st) => {
    // From JSON, only a str (or an int/float timestamp) can be a date; strict mode wants a date object.
    const text = typeof input === "string" ? input : typeof input === "number" && Number.isFinite(input) ? String(input) : undefined;
    if (text === undefined || st.strict) return fail(st, "date_type", "Input should be a valid date", input);
    if (LONE_SURROGATE.test(text)) return failUnicode(st, input);
    const r = parsePythonDate(text);
    if (r.ok) return r.value;
    if (r.type === "date_from_datetime_inexact") {
      return fail(st, r.type, "Datetimes provided to dates should have zero time - e.g. be exact dates", input);
    }
    const prefix =
      r.type === "date_parsing" ? "Input should be a valid date in the format YYYY-MM-DD" : "Input should be a valid date or datetime";
    return fail(st, r.type, `${prefix}, ${r.error}`, input, { error: r.error });
  };
}

/** uuid.UUID in lax mode: the four textual forms of the uuid crate, the version check of UUID1/UUID4/…; the value is the hyphenated lower-case text. */
export function buildUuid(def: Def, node: Node): void {
  const formatDef = def.check === "string_format" ? def : checksOf(def).find((c) => c.check === "string_format");
  const version = typeof formatDef?.version === "string" ? Number(formatDef.version.slice(1)) : undefined;
  node.name = () => "uuid";
  node.run = (input, st) => {
    // Only str (or bytes, or a UUID object — impossible from JSON) is accepted (src/validators/uuid.rs).
    if (typeof input !== "string") {
      return fail(st, "uuid_type", "UUID input should be a string, bytes or UUID object", input);
    }
    if (st.strict) return fail(st, "is_instance_of", "Input should be an instance of UUID", input, { class: "UUID" });
    if (LONE_SURROGATE.test(input)) return failUnicode(st, input);
    const hex = parseUuid(input);
    if (hex === null) {
      const error = uuidParseError(input);
      return fail(st, "uuid_parsing", `Input should be a valid UUID, ${error}`, input, { error });
    }
    // UUID1/UUID4/... types: version nibble and RFC 4122 variant must both match.
    if (version !== undefined && (parseInt(hex[12]!, 16) !== version || !"89ab".includes(hex[16]!))) {
      return fail(st, "uuid_version", `UUID version ${version} expected`, input, { expected_version: version });
    }
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
}

const HEX_RE = /^[0-9a-fA-F]+$/;

/** uuid crate `try_parse`: simple (32), hyphenated (36), braced (38) or `urn:uuid:` (45). Lower-case hex or null. */
function parseUuid(s: string): string | null {
  let body = s;
  if (s.length === 38 && s[0] === "{" && s[37] === "}") body = s.slice(1, 37);
  else if (s.length === 45 && s.startsWith("urn:uuid:")) body = s.slice(9);
  if (body.length === 32 && body === s) return HEX_RE.test(body) ? body.toLowerCase() : null;
  if (body.length !== 36 || body[8] !== "-" || body[13] !== "-" || body[18] !== "-" || body[23] !== "-") return null;
  const hex = body.slice(0, 8) + body.slice(9, 13) + body.slice(14, 18) + body.slice(19, 23) + body.slice(24);
  return HEX_RE.test(hex) ? hex.toLowerCase() : null;
}

/**
 * The Display text of the uuid crate's parse error (`InvalidUuid::into_err`, src/error.rs of uuid
 * 1.x as locked by pydantic-core; the same texts are asserted in pydantic-core
 * tests/validators/test_uuid.py). Indexes are 1-based byte offsets into the whole input; the
 * last-group length is computed from the whole input, prefix included, exactly like the crate.
 */
function uuidParseError(input: string): string {
  let body = input;
  let offset = 0;
  let simple = true;
  if (input.length >= 2 && input[0] === "{" && input[input.length - 1] === "}") {
    body = input.slice(1, -1);
    offset = 1;
    simple = false;
  } else if (input.startsWith("urn:uuid:")) {
    body = input.slice(9);
    offset = 9;
    simple = false;
  }
  let hyphens = 0;
  const bounds = [0, 0, 0, 0];
  let index = 0; // byte index; every character before a non-ASCII one is ASCII, so it counts 1
  for (const ch of body) {
    if (ch === "-") {
      if (hyphens < 4) bounds[hyphens] = index;
      hyphens++;
    } else if (ch.length !== 1 || ch.charCodeAt(0) > 0x7f || !HEX_RE.test(ch)) {
      return `invalid character: expected an optional prefix of \`urn:uuid:\` followed by [0-9a-fA-F-], found \`${ch}\` at ${index + offset + 1}`;
    }
    index++;
  }
  // From here on the input is pure ASCII, so its UTF-8 length is its JS length.
  if (hyphens === 0 && simple) return `invalid length: expected length 32 for simple format, found ${input.length}`;
  if (hyphens !== 4) return `invalid group count: expected 5, found ${hyphens + 1}`;
  const starts = [0, 9, 14, 19, 24];
  const expected = [8, 4, 4, 4, 12];
  for (let i = 0; i < 4; i++) {
    if (bounds[i] !== starts[i + 1]! - 1) {
      return `invalid group length in group ${i}: expected ${expected[i]}, found ${bounds[i]! - starts[i]!}`;
    }
  }
  return `invalid group length in group 4: expected 12, found ${input.length - 24}`;
}

/** Python lax bool (input_python.rs `validate_bool`, shared.rs `str_as_bool` / `int_as_bool`). */
export function runBool(input: unknown, st: State): unknown {
  if (typeof input === "boolean") return input;
  if (!st.strict && typeof input === "string") {
    if (LONE_SURROGATE.test(input)) return failUnicode(st, input);
    const lower = input.replace(/[A-Z]/g, (c) => c.toLowerCase()); // eq_ignore_ascii_case
    if (TRUE_STRINGS.has(lower)) return true;
    if (FALSE_STRINGS.has(lower)) return false;
    return fail(st, "bool_parsing", "Input should be a valid boolean, unable to interpret input", input);
  }
  if (!st.strict && typeof input === "number") {
    if (input === 0 || input === 1) return input === 1;
    // other ints (and integral floats) → bool_parsing; fractional/inf/nan floats → bool_type
    if (Number.isInteger(input)) {
      return fail(st, "bool_parsing", "Input should be a valid boolean, unable to interpret input", input);
    }
  }
  return fail(st, "bool_type", "Input should be a valid boolean", input);
}
const TRUE_STRINGS = new Set(["1", "t", "y", "on", "yes", "true"]);
const FALSE_STRINGS = new Set(["0", "f", "n", "no", "off", "false"]);

/** Literal[...] (src/validators/literal.rs): exact type matches, then Python `==` (1 == True == 1.0). */
export function literalMatch(expected: readonly unknown[], input: unknown): { value: unknown } | undefined {
  for (const v of expected) if (v === input) return { value: v };
  for (const v of expected) {
    if (typeof v === "number" && typeof input === "boolean" && v === +input) return { value: v };
    if (typeof v === "boolean" && typeof input === "number" && input === +v) return { value: v };
  }
  return undefined;
}

/** Literal[...] with its `expected` text (`'a', 'b' or 'c'`). */
export function buildLiteral(expected: unknown[], node: Node): void {
  const reprs = expected.map(pyRepr);
  // expected_repr_name(): "'a'", "'a' or 'b'", "'a', 'b' or 'c'"
  const text = reprs.length === 1 ? reprs[0]! : `${reprs.slice(0, -1).join(", ")} or ${reprs[reprs.length - 1]}`;
  node.name = () => `literal[${reprs.join(",")}]`;
  const hasStrings = expected.some((v) => typeof v === "string");
  node.run = (input, st) => {
    if (hasStrings && typeof input === "string" && LONE_SURROGATE.test(input)) return failUnicode(st, input);
    const hit = literalMatch(expected, input);
    return hit ? hit.value : fail(st, "literal_error", `Input should be ${text}`, input, { expected: text });
  };
}

/**
 * Validates values against Zod 4 schemas with the semantics — and the exact error objects — of a
 * FastAPI endpoint backed by Pydantic v2 in lax ("python") mode.
 *
 * FastAPI runs `TypeAdapter(...).validate_python(json.loads(body), from_attributes=True)`
 * (fastapi/_compat.py) and answers 422 with `exc.errors(include_url=False)`, each loc prefixed by
 * "body"/"query"/...; so the rules below are pydantic-core's *Python-input* rules
 * (src/input/input_python.rs, src/input/shared.rs), not its JSON-input rules, and a non-dict where a
 * model is expected is `model_attributes_type` (from_attributes=True), not `model_type`.
 * Message templates: pydantic-core src/errors/types.rs (`message_template_python`).
 *
 * Mapping Zod → Pydantic:
 *   z.object → BaseModel (extra="ignore"; z.strictObject → "forbid"; z.looseObject → "allow")
 *   z.string (+min/max/length/regex) → str / constr;  z.uuid / .uuid() / z.guid → uuid.UUID
 *   z.int / .int() → int;  z.number → float;  z.boolean → bool
 *   z.enum / z.literal → Literal[...];  z.array → list;  z.record → dict;  z.null → None
 *   z.any / z.unknown → Any;  .optional / .default / .nullable / .nullish → field default / Optional
 *   z.discriminatedUnion → Field(discriminator=...) tagged union;  z.union → smart Union
 * Refinements and transforms are ignored (custom checks are reported by the caller via `valueError`).
 *
 * Known, deliberate approximations (see the report in the tests' header too):
 *  - JS has one number type: an integral number is treated as a Python int, so `input`/`ctx` values
 *    serialise as `1` where Python would print `1.0` (e.g. float bounds: ctx `{"ge": 1.0}`), and
 *    ints beyond 2^53 lose precision.
 *  - Smart unions (plain z.union) use a strict pass then a lax pass instead of pydantic-core's
 *    exactness scores; ties between models go to the one with the most fields set (pydantic ≥ 2.8).
 *    Member labels in `loc` follow pydantic-core's validator names (`str`, `int`, `list[int]`,
 *    `literal['a','b']`, …); a model's label is its Zod `.meta({ id })` (or title), else "Model".
 *  - z.iso.date() is `datetime.date` (see pydate.ts); other string formats than uuid/guid/date
 *    (email, url, datetime…) are validated as plain `str`.
 */
import { z } from "zod";
import type { Issue, Loc } from "../errors.js";
import { parsePythonDate } from "./pydate.js";

export type { Loc };
export interface PydanticError {
  type: string;
  loc: Loc;
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

/** Pydantic's "missing" error: {type:"missing", loc, msg:"Field required", input}. */
export function missing(loc: Loc, input: unknown): PydanticError {
  return { type: "missing", loc, msg: "Field required", input };
}

/**
 * A model-level / custom validator failure the way Pydantic reports a ValueError raised in a validator:
 * {type:"value_error", loc, msg:"Value error, " + message, input, ctx:{error:{}}}
 * (FastAPI's jsonable_encoder turns the ValueError instance kept in ctx into {}).
 */
export function valueError(loc: Loc, message: string, input: unknown): PydanticError {
  return { type: "value_error", loc, msg: `Value error, ${message}`, input, ctx: { error: {} } };
}

/**
 * An error of this validator as a domain issue (the inverse of http/error-body's issueItem), for the
 * checks a service runs with it (a workflow graph): a value_error is a rule, any other a schema check.
 */
export function issueOf(e: PydanticError): Issue {
  if (e.type === "value_error") return { loc: e.loc, message: e.msg.replace(/^Value error, /, ""), input: e.input };
  return { loc: e.loc, message: e.msg, input: e.input, check: { type: e.type, ...(e.ctx ? { ctx: e.ctx } : {}) } };
}

/**
 * Validates `input` against `schema` with Pydantic v2 lax semantics; pushes errors (in Pydantic's
 * order) and returns the coerced value (undefined when invalid). `input === undefined` means "absent":
 * a required schema then reports `missing` at `loc` with input null, as FastAPI does for a missing body.
 */
export function validate(schema: z.ZodType, input: unknown, loc: Loc, errors: PydanticError[]): unknown {
  const node = compile(schema);
  if (input === undefined) {
    if (node.absent.kind === "required") errors.push(missing(loc.slice(), null));
    const value = absentValue(node, { path: loc.slice(), errors, strict: false });
    return value === INVALID ? undefined : value;
  }
  const out = node.run(input, { path: loc.slice(), errors, strict: false });
  return out === INVALID ? undefined : out;
}

// ---------------------------------------------------------------------------------------------
// Compiled validators

/** Returned by a validator that failed (after pushing at least one error). */
const INVALID: unique symbol = Symbol("invalid");

interface State {
  /** Current location; validators push/pop around children and errors copy it. */
  path: Loc;
  errors: PydanticError[];
  /** Strict pass of a smart union: no coercions. */
  strict: boolean;
}

type Absent = { kind: "required" } | { kind: "optional" } | { kind: "default"; value: () => unknown; validated: boolean };

interface Node {
  run(input: unknown, st: State): unknown;
  /** pydantic-core's validator name: the loc label of a smart-union member. */
  name(): string;
  /** What an absent object key means for this schema. */
  absent: Absent;
  /** Field names of a model (z.object), used by smart unions to prefer the best-filled model. */
  modelKeys?: string[];
}

interface Def {
  type: string;
  checks?: { _zod: { def: CheckDef } }[];
  [key: string]: unknown;
}
interface CheckDef {
  check: string;
  [key: string]: unknown;
}

const REQUIRED: Absent = { kind: "required" };
const OPTIONAL: Absent = { kind: "optional" };
const cache = new WeakMap<object, Node>();

const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

function compile(schema: z.ZodType): Node {
  const hit = cache.get(schema);
  if (hit) return hit;
  // Cache the (still empty) node before building children so recursive schemas terminate.
  const node: Node = { run: () => INVALID, name: () => "...", absent: REQUIRED };
  cache.set(schema, node);
  build(schema, defOf(schema), node);
  return node;
}

function fail(st: State, type: string, msg: string, input: unknown, ctx?: Record<string, unknown>): typeof INVALID {
  const error: PydanticError = { type, loc: st.path.slice(), msg, input };
  if (ctx) error.ctx = ctx;
  st.errors.push(error);
  return INVALID;
}

function absentValue(node: Node, st: State): unknown {
  const absent = node.absent;
  if (absent.kind !== "default") return undefined;
  // .prefault(): the default goes through validation; .default(): it does not (validate_default=False).
  return absent.validated ? node.run(absent.value(), st) : absent.value();
}

const hasOwn = (o: object, k: string) => Object.hasOwn(o, k);
const isDict = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
/** Assignment that keeps a "__proto__" key an own data property. */
function put(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === "__proto__") Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}

function build(schema: z.ZodType, def: Def, node: Node): void {
  switch (def.type) {
    case "string":
      if (isUuidString(def)) return buildUuid(def, node);
      return isDateString(def) ? buildDate(node) : buildString(def, node);
    case "number":
      return buildNumber(def, node);
    case "boolean":
      node.name = () => "bool";
      node.run = runBool;
      return;
    case "literal":
      return buildLiteral([...(def.values as Iterable<unknown>)], node);
    case "enum":
      return buildLiteral((schema as unknown as { options: unknown[] }).options, node);
    case "null":
      node.name = () => "none";
      node.run = (input, st) => (input === null ? null : fail(st, "none_required", "Input should be None", input));
      return;
    case "any":
    case "unknown":
      node.name = () => "any";
      node.run = (input) => input;
      return;
    case "array":
      return buildList(def, node);
    case "record":
      return buildDict(def, node);
    case "object":
      return buildModel(schema, def, node);
    case "union":
      return def.discriminator === undefined ? buildUnion(def, node) : buildTaggedUnion(def, node);
    case "optional":
    case "default":
    case "prefault":
    case "nonoptional":
    case "nullable":
    case "readonly":
    case "catch":
      return buildWrapper(def, node);
    case "pipe": {
      // Transforms are not run: validate the input side (or, for z.preprocess, the target schema).
      const side = defOf(def.in).type === "transform" ? def.out : def.in;
      const inner = compile(side as z.ZodType);
      // Delegate at call time: `inner` may still be under construction (recursive schemas).
      node.run = (input, st) => inner.run(input, st);
      node.name = () => inner.name();
      node.absent = inner.absent;
      return;
    }
    case "lazy": {
      let inner: Node | undefined;
      const resolve = () => (inner ??= compile((def.getter as () => z.ZodType)()));
      node.run = (input, st) => resolve().run(input, st);
      node.name = () => resolve().name();
      return;
    }
    default:
      throw new Error(`pydantic.ts: unsupported Zod type "${def.type}"`);
  }
}

function buildWrapper(def: Def, node: Node): void {
  const inner = compile(def.innerType as z.ZodType);
  node.name = () => (def.type === "nullable" ? `nullable[${inner.name()}]` : inner.name());
  switch (def.type) {
    case "nullable":
      node.absent = inner.absent;
      node.run = (input, st) => (input === null ? null : inner.run(input, st));
      return;
    case "optional":
      // `.default(x).optional()` still fills in the default when absent.
      node.absent = inner.absent.kind === "default" ? inner.absent : OPTIONAL;
      node.run = (input, st) => (input === undefined ? undefined : inner.run(input, st));
      return;
    case "default":
    case "prefault":
      node.absent = { kind: "default", value: () => def.defaultValue, validated: def.type === "prefault" };
      node.run = (input, st) => (input === undefined ? absentValue(node, st) : inner.run(input, st));
      return;
    case "nonoptional":
      node.absent = REQUIRED;
      node.run = (input, st) => inner.run(input, st);
      return;
    default: // readonly, catch: no Pydantic counterpart, validate the inner schema
      node.absent = inner.absent;
      node.run = (input, st) => inner.run(input, st);
  }
}

// ---------------------------------------------------------------------------------------------
// Scalars

const checksOf = (def: Def): CheckDef[] => (def.checks ?? []).map((c) => c._zod.def);

/**
 * A lone surrogate (possible in a Python str via a "\ud800" JSON escape) cannot become a Rust &str:
 * wherever pydantic-core reads the text (`py_string_str`: constrained str, uuid, str→int/float/bool,
 * str literals) it fails with string_unicode instead. In `u` mode only unpaired surrogates match.
 */
const LONE_SURROGATE = /\p{Cs}/u;
const failUnicode = (st: State, input: unknown): typeof INVALID =>
  fail(st, "string_unicode", "Input should be a valid string, unable to parse raw data as a unicode string", input);
const plural = (n: number) => (n === 1 ? "" : "s");

function isUuidString(def: Def): boolean {
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

function buildString(def: Def, node: Node): void {
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
function isDateString(def: Def): boolean {
  const isDate = (d: Record<string, unknown>) => d.check === "string_format" && d.format === "date";
  return isDate(def) || checksOf(def).some(isDate);
}

/** datetime.date in lax mode (src/validators/date.rs); the value is the ISO text `YYYY-MM-DD`. */
function buildDate(node: Node): void {
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

function buildUuid(def: Def, node: Node): void {
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

interface Bounds {
  multipleOf?: number;
  le?: number;
  lt?: number;
  ge?: number;
  gt?: number;
}

function buildNumber(def: Def, node: Node): void {
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

/** Python lax bool (input_python.rs `validate_bool`, shared.rs `str_as_bool` / `int_as_bool`). */
function runBool(input: unknown, st: State): unknown {
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
function literalMatch(expected: readonly unknown[], input: unknown): { value: unknown } | undefined {
  for (const v of expected) if (v === input) return { value: v };
  for (const v of expected) {
    if (typeof v === "number" && typeof input === "boolean" && v === +input) return { value: v };
    if (typeof v === "boolean" && typeof input === "number" && input === +v) return { value: v };
  }
  return undefined;
}

function buildLiteral(expected: unknown[], node: Node): void {
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

// ---------------------------------------------------------------------------------------------
// Containers

function buildList(def: Def, node: Node): void {
  const item = compile(def.element as z.ZodType);
  let min: number | undefined;
  let max: number | undefined;
  for (const c of checksOf(def)) {
    if (c.check === "min_length") min = c.minimum as number;
    else if (c.check === "max_length") max = c.maximum as number;
    else if (c.check === "length_equals") min = max = c.length as number;
  }
  node.name = () => `list[${item.name()}]`;
  node.run = (input, st) => {
    if (!Array.isArray(input)) return fail(st, "list_type", "Input should be a valid list", input);
    const n = input.length;
    // The max-length check fires while iterating, discarding the item errors collected so far.
    if (max !== undefined && n > max) {
      return fail(st, "too_long", `List should have at most ${max} item${plural(max)} after validation, not ${n}`, input, {
        field_type: "List",
        max_length: max,
        actual_length: n,
      });
    }
    const out: unknown[] = new Array(n);
    let ok = true;
    for (let i = 0; i < n; i++) {
      st.path.push(i);
      const v = item.run(input[i], st);
      st.path.pop();
      if (v === INVALID) ok = false;
      else out[i] = v;
    }
    if (!ok) return INVALID;
    // min_length is checked after validation, and only when every item was valid.
    if (min !== undefined && n < min) {
      return fail(st, "too_short", `List should have at least ${min} item${plural(min)} after validation, not ${n}`, input, {
        field_type: "List",
        min_length: min,
        actual_length: n,
      });
    }
    return out;
  };
}

function buildDict(def: Def, node: Node): void {
  const key = compile(def.keyType as z.ZodType);
  const value = compile(def.valueType as z.ZodType);
  node.name = () => `dict[${key.name()},${value.name()}]`;
  node.run = (input, st) => {
    if (!isDict(input)) return fail(st, "dict_type", "Input should be a valid dictionary", input);
    const out: Record<string, unknown> = {};
    let ok = true;
    for (const k of Object.keys(input)) {
      // Key errors are located at [key, "[key]"], value errors at [key] (src/validators/dict.rs).
      st.path.push(k, "[key]");
      const kv = key.run(k, st);
      st.path.pop();
      const vv = value.run(input[k], st);
      st.path.pop();
      if (kv === INVALID || vv === INVALID) ok = false;
      else put(out, String(kv), vv);
    }
    return ok ? out : INVALID;
  };
}

function buildModel(schema: z.ZodType, def: Def, node: Node): void {
  const shape = def.shape as Record<string, z.ZodType>;
  const fields = Object.keys(shape).map((k) => ({ key: k, node: compile(shape[k]!) }));
  const catchall = def.catchall === undefined ? undefined : defOf(def.catchall).type;
  const extra = catchall === undefined ? "ignore" : catchall === "never" ? "forbid" : "allow";
  const extraNode = catchall === undefined || catchall === "never" ? undefined : compile(def.catchall as z.ZodType);
  const meta = z.globalRegistry.get(schema) as { id?: string; title?: string } | undefined;
  const modelName = meta?.id ?? meta?.title ?? "Model";
  node.name = () => modelName;
  node.modelKeys = fields.map((f) => f.key);
  node.run = (input, st) => {
    if (!isDict(input)) {
      return fail(st, "model_attributes_type", "Input should be a valid dictionary or object to extract fields from", input);
    }
    const out: Record<string, unknown> = {};
    let ok = true;
    for (const f of fields) {
      const v = hasOwn(input, f.key) ? input[f.key] : undefined;
      if (v === undefined) {
        if (f.node.absent.kind === "required") {
          st.path.push(f.key);
          fail(st, "missing", "Field required", input); // input: the whole dict, as Pydantic reports it
          st.path.pop();
          ok = false;
        } else if (f.node.absent.kind === "default") {
          st.path.push(f.key);
          const d = absentValue(f.node, st);
          st.path.pop();
          if (d === INVALID) ok = false;
          else put(out, f.key, d);
        }
        continue;
      }
      st.path.push(f.key);
      const r = f.node.run(v, st);
      st.path.pop();
      if (r === INVALID) ok = false;
      else put(out, f.key, r);
    }
    if (extra !== "ignore") {
      // Extra keys come after the field errors, in input order (model_fields.rs).
      for (const k of Object.keys(input)) {
        if (hasOwn(shape, k)) continue;
        st.path.push(k);
        const r = extraNode ? extraNode.run(input[k], st) : fail(st, "extra_forbidden", "Extra inputs are not permitted", input[k]);
        st.path.pop();
        if (r === INVALID) ok = false;
        else put(out, k, r);
      }
    }
    return ok ? out : INVALID;
  };
}

// ---------------------------------------------------------------------------------------------
// Unions

/**
 * Smart union (src/validators/union.rs). `X | None` becomes nullable[X], as Pydantic builds it.
 * Approximation of the exactness ranking: the first member that validates without coercion wins;
 * else the first that validates with coercion; among models, the one with the most fields set.
 * On failure every member's errors are reported, in member order, under the member's label.
 */
function buildUnion(def: Def, node: Node): void {
  const options = def.options as z.ZodType[];
  const nonNull = options.filter((o) => defOf(o).type !== "null");
  const choices = nonNull.map(compile);
  const nullable = nonNull.length !== options.length;
  const inner = choices.length === 1 ? choices[0]! : undefined;
  const unionName = () => (inner ? inner.name() : `union[${choices.map((c) => c.name()).join(",")}]`);
  node.name = () => (nullable ? `nullable[${unionName()}]` : unionName());
  const runUnion = inner
    ? (input: unknown, st: State) => inner.run(input, st)
    : (input: unknown, st: State) => smartUnion(choices, input, st);
  node.run = nullable ? (input, st) => (input === null ? null : runUnion(input, st)) : runUnion;
}

function smartUnion(choices: Node[], input: unknown, st: State): unknown {
  const fieldsSet = (c: Node) => (c.modelKeys && isDict(input) ? c.modelKeys.filter((k) => hasOwn(input, k)).length : 0);
  const pass = (strict: boolean, labelled: boolean): { value: unknown } | undefined => {
    let best: { value: unknown; fields: number } | undefined;
    for (const c of choices) {
      const sub: State = { path: st.path, errors: labelled ? st.errors : [], strict };
      if (labelled) st.path.push(c.name());
      const v = c.run(input, sub);
      if (labelled) st.path.pop();
      if (v === INVALID) continue;
      if (!c.modelKeys) return { value: v };
      const fields = fieldsSet(c);
      if (!best || fields > best.fields) best = { value: v, fields };
    }
    return best;
  };
  const mark = st.errors.length;
  // Inside an enclosing strict pass there is no lax pass: report the strict errors right away.
  const hit = pass(true, st.strict) ?? (st.strict ? undefined : pass(false, true));
  if (!hit) return INVALID;
  st.errors.length = mark; // errors of the members tried before the winner do not count
  return hit.value;
}

/**
 * Tagged union (`Field(discriminator=...)`, src/validators/union.rs TaggedUnionValidator): the tag is
 * looked up in the dict; errors of the chosen member get the tag inserted in their loc.
 */
function buildTaggedUnion(def: Def, node: Node): void {
  const key = def.discriminator as string;
  const tags: unknown[] = [];
  const members: Node[] = [];
  for (const option of def.options as z.ZodType[]) {
    const values = (option as unknown as { _zod: { propValues?: Record<string, Set<unknown>> } })._zod.propValues?.[key];
    const member = compile(option);
    for (const t of values ?? []) {
      tags.push(t);
      members.push(member);
    }
  }
  const discriminator = pyRepr(key); // LookupKey Display: 'type'
  const expectedTags = tags.map(pyRepr).join(", ");
  node.name = () => `tagged-union[${[...new Set(members)].map((m) => m.name()).join(",")}]`;
  node.run = (input, st) => {
    // from_attributes=True (FastAPI) → validate_model_fields: a non-dict is model_attributes_type.
    if (!isDict(input)) {
      return fail(st, "model_attributes_type", "Input should be a valid dictionary or object to extract fields from", input);
    }
    if (!hasOwn(input, key) || input[key] === undefined) {
      return fail(st, "union_tag_not_found", `Unable to extract tag using discriminator ${discriminator}`, input, {
        discriminator,
      });
    }
    const tag = input[key];
    const hit = literalMatch(tags, tag);
    if (!hit) {
      const shown = typeof tag === "string" ? tag : pyRepr(tag); // str(tag)
      return fail(
        st,
        "union_tag_invalid",
        `Input tag '${shown}' found using ${discriminator} does not match any of the expected tags: ${expectedTags}`,
        input,
        { discriminator, tag: shown, expected_tags: expectedTags },
      );
    }
    st.path.push(typeof tag === "boolean" ? +tag : (tag as string | number));
    const out = members[tags.indexOf(hit.value)]!.run(input, st);
    st.path.pop();
    return out;
  };
}

// ---------------------------------------------------------------------------------------------
// Python repr()

/** Python `repr()` of a JSON-like value (literal expectations, tags). Integral numbers are ints. */
function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "number") return pyNumberRepr(v);
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "string") return pyStrRepr(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(", ")}]`;
  if (typeof v === "object") {
    return `{${Object.entries(v)
      .map(([k, x]) => `${pyStrRepr(k)}: ${pyRepr(x)}`)
      .join(", ")}}`;
  }
  return String(v);
}

function pyNumberRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (Number.isInteger(x)) return Math.abs(x) < 1e21 ? String(x) : BigInt(x).toString();
  // float_repr_style 'short': shortest digits; exponent form when decpt <= -4 or decpt > 16.
  const [mant, exp] = x.toExponential().split("e") as [string, string];
  const sign = mant.startsWith("-") ? "-" : "";
  const digits = mant.replace("-", "").replace(".", "");
  const decpt = Number(exp) + 1;
  if (decpt <= -4 || decpt > 16) {
    const e = decpt - 1;
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  if (decpt <= 0) return `${sign}0.${"0".repeat(-decpt)}${digits}`;
  return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
}

const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Z}]/u;

/** Python `repr(str)`: single quotes unless the text has ' and no ", escapes per unicode_repr. */
function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === quote || ch === "\\") out += `\\${ch}`;
    else if (ch === "\t") out += "\\t";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else if (cp < 0x7f || !NON_PRINTABLE.test(ch)) out += ch;
    else if (cp <= 0xff) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else if (cp <= 0xffff) out += `\\u${cp.toString(16).padStart(4, "0")}`;
    else out += `\\U${cp.toString(16).padStart(8, "0")}`;
  }
  return out + quote;
}

/**
 * Expected error objects, with where each exact text comes from:
 *  [types]   pydantic-core src/errors/types.rs, message_template_python()
 *            https://github.com/pydantic/pydantic-core/blob/main/src/errors/types.rs
 *  [shared]  pydantic-core src/input/shared.rs (str_as_bool, str_as_int/clean_int_str, str_as_float, float_as_int)
 *  [pyinput] pydantic-core src/input/input_python.rs (lax validate_bool/int/float/str, validate_model_fields)
 *  [uuidrs]  pydantic-core src/validators/uuid.rs + the uuid crate's src/error.rs (InvalidUuid::into_err, Display)
 *            https://github.com/uuid-rs/uuid/blob/main/src/error.rs, parser tests in src/parser.rs
 *  [uuidpy]  pydantic-core tests/validators/test_uuid.py (exact messages asserted there)
 *  [tagged]  pydantic-core src/validators/union.rs (TaggedUnionValidator) + tests/validators/test_tagged_union.py
 *  [literal] pydantic-core src/validators/literal.rs (expected_repr_name, LiteralLookup)
 *  [list]    pydantic-core src/validators/list.rs + src/input/return_enums.rs (MaxLengthCheck, min_length_check!)
 *  [fastapi] fastapi/_compat.py: validate_python(value, from_attributes=True); error shape of
 *            https://fastapi.tiangolo.com/tutorial/handling-errors/ (int_parsing example)
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { missing, validate, valueError, type PydanticError } from "./pydantic.js";

function run(schema: z.ZodType, input: unknown, loc: (string | number)[] = ["body"]) {
  const errors: PydanticError[] = [];
  const value = validate(schema, input, loc, errors);
  return { value, errors };
}
const errorsOf = (schema: z.ZodType, input: unknown, loc?: (string | number)[]) => run(schema, input, loc).errors;
const validatedOf = (schema: z.ZodType, input: unknown) => {
  const r = run(schema, input);
  expect(r.errors).toEqual([]);
  return r.value;
};

describe("helpers", () => {
  it("missing / valueError", () => {
    expect(missing(["body", "name"], { a: 1 })).toEqual({
      type: "missing",
      loc: ["body", "name"],
      msg: "Field required",
      input: { a: 1 },
    });
    expect(valueError(["body"], "end must be after start", { start: 2, end: 1 })).toEqual({
      type: "value_error",
      loc: ["body"],
      msg: "Value error, end must be after start",
      input: { start: 2, end: 1 },
      ctx: { error: {} },
    });
  });

  it("an undefined top-level input is a missing body (FastAPI: input None)", () => {
    expect(errorsOf(z.object({ a: z.string() }), undefined)).toEqual([
      { type: "missing", loc: ["body"], msg: "Field required", input: null },
    ]);
    expect(run(z.string().default("d"), undefined)).toEqual({ value: "d", errors: [] });
  });
});

describe("z.object → BaseModel", () => {
  const Item = z.object({ name: z.string().min(1).max(100), price: z.number(), tags: z.array(z.string()).optional() });

  it("non-dict input is model_attributes_type [types][pyinput][fastapi]", () => {
    for (const input of [[1], "abc", 42, null, true]) {
      expect(errorsOf(Item, input)).toEqual([
        {
          type: "model_attributes_type",
          loc: ["body"],
          msg: "Input should be a valid dictionary or object to extract fields from",
          input,
        },
      ]);
    }
  });

  it("missing fields carry the whole dict as input, in declaration order; undefined counts as missing", () => {
    const input = { price: "x", name: undefined, extra: 1 };
    expect(errorsOf(Item, input)).toEqual([
      { type: "missing", loc: ["body", "name"], msg: "Field required", input },
      {
        type: "float_parsing",
        loc: ["body", "price"],
        msg: "Input should be a valid number, unable to parse string as a number",
        input: "x",
      },
    ]);
  });

  it("drops unknown keys (extra='ignore') and returns coerced values", () => {
    expect(validatedOf(Item, { name: "a", price: "1.5", junk: true })).toEqual({ name: "a", price: 1.5 });
  });

  it("does not take prototype properties as fields", () => {
    expect(errorsOf(z.object({ toString: z.string() }), {})).toEqual([
      { type: "missing", loc: ["body", "toString"], msg: "Field required", input: {} },
    ]);
  });

  it("z.strictObject → extra='forbid'; z.looseObject → extra='allow'", () => {
    expect(errorsOf(z.strictObject({ a: z.int() }), { a: "x", b: 2 })).toEqual([
      {
        type: "int_parsing",
        loc: ["body", "a"],
        msg: "Input should be a valid integer, unable to parse string as an integer",
        input: "x",
      },
      { type: "extra_forbidden", loc: ["body", "b"], msg: "Extra inputs are not permitted", input: 2 },
    ]);
    expect(validatedOf(z.looseObject({ a: z.int() }), { a: "1", b: 2 })).toEqual({ a: 1, b: 2 });
  });

  it("nested models report nested locs", () => {
    const Outer = z.object({ inner: z.object({ n: z.int() }) });
    expect(errorsOf(Outer, { inner: { n: 1.5 } })).toEqual([
      {
        type: "int_from_float",
        loc: ["body", "inner", "n"],
        msg: "Input should be a valid integer, got a number with a fractional part",
        input: 1.5,
      },
    ]);
    expect(errorsOf(Outer, { inner: [] })[0]?.type).toBe("model_attributes_type");
  });
});

describe("z.string → str [types]", () => {
  const S = z.string().min(1).max(100);

  it("no coercion of numbers, booleans, null, lists", () => {
    for (const input of [123, 1.5, true, null, ["a"], {}]) {
      expect(errorsOf(S, input)).toEqual([{ type: "string_type", loc: ["body"], msg: "Input should be a valid string", input }]);
    }
  });

  it("length errors, singular/plural, counted in code points", () => {
    expect(errorsOf(S, "")).toEqual([
      {
        type: "string_too_short",
        loc: ["body"],
        msg: "String should have at least 1 character",
        input: "",
        ctx: { min_length: 1 },
      },
    ]);
    expect(errorsOf(z.string().min(3), "ab")[0]).toMatchObject({
      msg: "String should have at least 3 characters",
      ctx: { min_length: 3 },
    });
    expect(errorsOf(S, "x".repeat(101))).toEqual([
      {
        type: "string_too_long",
        loc: ["body"],
        msg: "String should have at most 100 characters",
        input: "x".repeat(101),
        ctx: { max_length: 100 },
      },
    ]);
    expect(errorsOf(z.string().max(1), "ab")[0]?.msg).toBe("String should have at most 1 character");
    // "😀😀" is 4 UTF-16 units but len() == 2 in Python
    expect(validatedOf(z.string().max(2), "😀😀")).toBe("😀😀");
    expect(errorsOf(z.string().length(3), "😀😀")[0]?.type).toBe("string_too_short");
  });

  it("regex → string_pattern_mismatch", () => {
    expect(errorsOf(z.string().regex(/^[a-z]+$/), "A1")).toEqual([
      {
        type: "string_pattern_mismatch",
        loc: ["body"],
        msg: "String should match pattern '^[a-z]+$'",
        input: "A1",
        ctx: { pattern: "^[a-z]+$" },
      },
    ]);
  });

  it("lone surrogates: string_unicode wherever pydantic-core converts to a Rust str (py_string_str)", () => {
    const unicode = (input: string): PydanticError => ({
      type: "string_unicode",
      loc: ["body"],
      msg: "Input should be a valid string, unable to parse raw data as a unicode string",
      input,
    });
    expect(validatedOf(z.string(), "a\ud800")).toBe("a\ud800"); // plain str keeps the PyString as is
    expect(errorsOf(z.string().min(1), "a\ud800")).toEqual([unicode("a\ud800")]);
    expect(errorsOf(z.uuid(), "\udc00")).toEqual([unicode("\udc00")]);
    expect(errorsOf(z.int(), "1\ud800")).toEqual([unicode("1\ud800")]);
    expect(errorsOf(z.enum(["a"]), "\ud800")).toEqual([unicode("\ud800")]);
    expect(validatedOf(z.string().max(1), "😀")).toBe("😀"); // a proper pair is fine
  });

  it(".describe() / .meta() do not interfere", () => {
    expect(errorsOf(z.string().min(2).describe("d").meta({ title: "t" }), "a")[0]?.type).toBe("string_too_short");
  });
});

describe("UUIDs [uuidrs][uuidpy]", () => {
  const U = z.uuid();
  const parsing = (input: string, error: string): PydanticError => ({
    type: "uuid_parsing",
    loc: ["body"],
    msg: `Input should be a valid UUID, ${error}`,
    input,
    ctx: { error },
  });

  it("accepts every shape uuid::Uuid::parse_str accepts, any version, and canonicalises", () => {
    const canonical = "67e55044-10b1-426f-9247-bb680e5fe0c8";
    for (const input of [
      canonical,
      "67E55044-10B1-426F-9247-BB680E5FE0C8",
      "67e5504410b1426f9247bb680e5fe0c8",
      "{67e55044-10b1-426f-9247-bb680e5fe0c8}",
      "urn:uuid:67e55044-10b1-426f-9247-bb680e5fe0c8",
    ]) {
      expect(validatedOf(U, input)).toBe(canonical);
    }
    expect(validatedOf(U, "00000000-0000-0000-0000-000000000000")).toBe("00000000-0000-0000-0000-000000000000");
    expect(validatedOf(z.string().uuid(), "12345678-1234-5678-1234-567812345678")).toBe("12345678-1234-5678-1234-567812345678");
    expect(validatedOf(z.guid(), "a6cc5730-2261-11ee-9c43-2eb5a363657c")).toBe("a6cc5730-2261-11ee-9c43-2eb5a363657c");
  });

  it("non-strings are uuid_type", () => {
    for (const input of [123, null, true, ["x"], {}]) {
      expect(errorsOf(U, input)).toEqual([
        { type: "uuid_type", loc: ["body"], msg: "UUID input should be a string, bytes or UUID object", input },
      ]);
    }
  });

  it("parse errors: texts asserted by pydantic-core's own tests [uuidpy]", () => {
    const char = (c: string, at: number) =>
      `invalid character: expected an optional prefix of \`urn:uuid:\` followed by [0-9a-fA-F-], found \`${c}\` at ${at}`;
    expect(errorsOf(U, "not-a-valid-uuid")).toEqual([parsing("not-a-valid-uuid", char("n", 1))]);
    for (const [input, found] of [
      ["12345678-1234-5678-1234-5678123456789", 13],
      ["f47ac10b-58cc-4372-a567-0e02b2c3d47", 11],
      ["10c25fc2-835b-4ef3-bb3d-bf44fe496e", 10], // FastAPI 422 captured in a public test suite
    ] as const) {
      expect(errorsOf(U, input)).toEqual([parsing(input, `invalid group length in group 4: expected 12, found ${found}`)]);
    }
    expect(errorsOf(U, "550e8400-e29b-41d4-a716")).toEqual([
      parsing("550e8400-e29b-41d4-a716", "invalid group count: expected 5, found 4"),
    ]);
  });

  it("parse errors: cases from the uuid crate's parser tests [uuidrs]", () => {
    const char = (c: string, at: number) =>
      `invalid character: expected an optional prefix of \`urn:uuid:\` followed by [0-9a-fA-F-], found \`${c}\` at ${at}`;
    const cases: [string, string][] = [
      ["", "invalid length: expected length 32 for simple format, found 0"],
      ["abc", "invalid length: expected length 32 for simple format, found 3"],
      ["67e5504410b1426f9247bb680e5fe0c", "invalid length: expected length 32 for simple format, found 31"],
      ["231231212212423424324323477343246663", "invalid length: expected length 32 for simple format, found 36"],
      ["zzz", char("z", 1)],
      ["!", char("!", 1)],
      ["F9168C5E-CEB2-4faa-BGBF-329BF39FA1E4", char("G", 21)],
      ["67e5504410b1426f9247bb680e5fe0cg8", char("g", 32)],
      ["{F9168C5E-CEB2-4faa9B6BFF329BF39FA1E41", char("{", 1)],
      ["urn:uuid:{}", char("{", 10)],
      ["\u{bcf3c}", char("\u{bcf3c}", 1)],
      ["a\u00e9", char("\u00e9", 2)],
      ["F9168C5E-CEB2F4faaFB6BFF329BF39FA1E4", "invalid group count: expected 5, found 2"],
      ["{F9168C5E-CEB2-4faa9B6BFF329BF39FA1E41}", "invalid group count: expected 5, found 3"],
      ["{00000000000000000000000000000000}", "invalid group count: expected 5, found 1"],
      ["F9168C5E-CEB-24fa-eB6BFF32-BF39FA1E4", "invalid group length in group 1: expected 4, found 3"],
      ["F9168C5E-CEB2-4faa-B6BF1-02BF39FA1E4", "invalid group length in group 3: expected 4, found 5"],
      ["01020304-1112-2122-3132-41424344", "invalid group length in group 4: expected 12, found 8"],
      ["1-1-1-1-1", "invalid group length in group 0: expected 8, found 1"],
    ];
    for (const [input, error] of cases) expect(errorsOf(U, input)).toEqual([parsing(input, error)]);
  });

  it("versioned UUIDs (z.uuidv4 → pydantic UUID4) report uuid_version", () => {
    expect(errorsOf(z.uuidv4(), "a6cc5730-2261-11ee-9c43-2eb5a363657c")).toEqual([
      {
        type: "uuid_version",
        loc: ["body"],
        msg: "UUID version 4 expected",
        input: "a6cc5730-2261-11ee-9c43-2eb5a363657c",
        ctx: { expected_version: 4 },
      },
    ]);
    expect(validatedOf(z.uuidv4(), "0E7AC198-9ACD-4C0C-B4B4-761974BF71D7")).toBe("0e7ac198-9acd-4c0c-b4b4-761974bf71d7");
  });
});

describe("integers [types][shared][pyinput]", () => {
  const I = z.int().min(1).max(200);
  const intParsing = (input: unknown): PydanticError => ({
    type: "int_parsing",
    loc: ["body"],
    msg: "Input should be a valid integer, unable to parse string as an integer",
    input,
  });

  it("FastAPI docs example: path item_id 'foo' [fastapi]", () => {
    expect(errorsOf(z.int(), "foo", ["path", "item_id"])).toEqual([
      {
        type: "int_parsing",
        loc: ["path", "item_id"],
        msg: "Input should be a valid integer, unable to parse string as an integer",
        input: "foo",
      },
    ]);
  });

  it("lax coercions accepted by str_as_int / bool / integral floats", () => {
    const cases: [unknown, number][] = [
      ["42", 42],
      [" 42\n", 42],
      ["+7", 7],
      ["-0", 0],
      ["007", 7],
      ["-007", -7],
      ["1_000", 1000],
      ["1.0", 1],
      ["1.000", 1],
      ["00.0", 0],
      ["\u0085\u3000 12 ", 12], // Rust trim: Unicode White_Space
      [true, 1],
      [false, 0],
      [3.0, 3],
    ];
    for (const [input, out] of cases) expect(validatedOf(z.int(), input)).toBe(out);
  });

  it("strings str_as_int rejects", () => {
    for (const input of ["abc", "", " ", "1.5", "1.", "1e3", "0x10", "1__0", "_1", "1_", "+-1", "--1", "1 2", "١", "\ufeff1"]) {
      expect(errorsOf(z.int(), input)).toEqual([intParsing(input)]);
    }
  });

  it("types, fractional and non-finite floats", () => {
    for (const input of [null, [], {}, [1]]) {
      expect(errorsOf(z.int(), input)).toEqual([{ type: "int_type", loc: ["body"], msg: "Input should be a valid integer", input }]);
    }
    expect(errorsOf(z.number().int(), 1.5)).toEqual([
      {
        type: "int_from_float",
        loc: ["body"],
        msg: "Input should be a valid integer, got a number with a fractional part",
        input: 1.5,
      },
    ]);
    expect(errorsOf(z.int(), Infinity)).toEqual([
      { type: "finite_number", loc: ["body"], msg: "Input should be a finite number", input: Infinity },
    ]);
  });

  it("bounds: ge / le / gt / lt / multiple_of with ctx", () => {
    expect(errorsOf(I, 0)).toEqual([
      {
        type: "greater_than_equal",
        loc: ["body"],
        msg: "Input should be greater than or equal to 1",
        input: 0,
        ctx: { ge: 1 },
      },
    ]);
    expect(errorsOf(I, "201")).toEqual([
      {
        type: "less_than_equal",
        loc: ["body"],
        msg: "Input should be less than or equal to 200",
        input: "201",
        ctx: { le: 200 },
      },
    ]);
    expect(errorsOf(z.int().gt(0), 0)).toEqual([
      { type: "greater_than", loc: ["body"], msg: "Input should be greater than 0", input: 0, ctx: { gt: 0 } },
    ]);
    expect(errorsOf(z.int().lt(10), 10)).toEqual([
      { type: "less_than", loc: ["body"], msg: "Input should be less than 10", input: 10, ctx: { lt: 10 } },
    ]);
    expect(errorsOf(z.int().multipleOf(5), 12)).toEqual([
      { type: "multiple_of", loc: ["body"], msg: "Input should be a multiple of 5", input: 12, ctx: { multiple_of: 5 } },
    ]);
    expect(validatedOf(I, "150")).toBe(150);
    // z.int()'s safe-integer range is a JS artefact, not a Python bound
    expect(validatedOf(z.int(), 2 ** 60)).toBe(2 ** 60);
  });
});

describe("floats [types][shared]", () => {
  it("lax coercions (Rust f64 grammar after trim, underscores, bool)", () => {
    const cases: [unknown, number][] = [
      ["1.5", 1.5],
      [" 2 ", 2],
      ["1e3", 1000],
      [".5", 0.5],
      ["5.", 5],
      ["+1.25", 1.25],
      ["1_000.5", 1000.5],
      ["inf", Infinity],
      ["-Infinity", -Infinity],
      [true, 1],
      [7, 7],
    ];
    for (const [input, out] of cases) expect(validatedOf(z.number(), input)).toBe(out);
    expect(Number.isNaN(validatedOf(z.number(), "NaN"))).toBe(true);
  });

  it("errors", () => {
    for (const input of ["abc", "", "0x1", "1,5", "1e"]) {
      expect(errorsOf(z.number(), input)).toEqual([
        {
          type: "float_parsing",
          loc: ["body"],
          msg: "Input should be a valid number, unable to parse string as a number",
          input,
        },
      ]);
    }
    for (const input of [null, [], {}]) {
      expect(errorsOf(z.number(), input)).toEqual([{ type: "float_type", loc: ["body"], msg: "Input should be a valid number", input }]);
    }
    expect(errorsOf(z.number().gte(1.5), 1)).toEqual([
      {
        type: "greater_than_equal",
        loc: ["body"],
        msg: "Input should be greater than or equal to 1.5",
        input: 1,
        ctx: { ge: 1.5 },
      },
    ]);
    // bounds render with Rust's f64 Display: no exponent
    expect(errorsOf(z.number().positive().lt(1e-7), 1)[0]?.msg).toBe("Input should be less than 0.0000001");
  });
});

describe("booleans [shared][pyinput]", () => {
  it("accepted inputs", () => {
    for (const s of ["1", "on", "t", "true", "y", "yes", "TRUE", "Yes", "oN"]) expect(validatedOf(z.boolean(), s)).toBe(true);
    for (const s of ["0", "off", "f", "false", "n", "no", "FALSE", "No"]) expect(validatedOf(z.boolean(), s)).toBe(false);
    expect(validatedOf(z.boolean(), 1)).toBe(true);
    expect(validatedOf(z.boolean(), 0)).toBe(false);
    expect(validatedOf(z.boolean(), false)).toBe(false);
  });

  it("bool_parsing vs bool_type", () => {
    const parsing = "Input should be a valid boolean, unable to interpret input";
    for (const input of ["maybe", "", " true", "2", 2, -1]) {
      expect(errorsOf(z.boolean(), input)).toEqual([{ type: "bool_parsing", loc: ["body"], msg: parsing, input }]);
    }
    for (const input of [null, [], {}, 0.5]) {
      expect(errorsOf(z.boolean(), input)).toEqual([{ type: "bool_type", loc: ["body"], msg: "Input should be a valid boolean", input }]);
    }
  });
});

describe("Literal (z.enum / z.literal) [literal]", () => {
  const lit = (schema: z.ZodType, input: unknown, expected: string): void => {
    expect(errorsOf(schema, input)).toEqual([
      { type: "literal_error", loc: ["body"], msg: `Input should be ${expected}`, input, ctx: { expected } },
    ]);
  };

  it("formats 1, 2 and n expected values", () => {
    lit(z.enum(["a"]), "x", "'a'");
    lit(z.enum(["a", "b"]), "x", "'a' or 'b'");
    lit(z.enum(["a", "b", "c"]), "A", "'a', 'b' or 'c'");
    lit(z.literal("a"), 1, "'a'");
  });

  it("non-string literals use Python repr; strings are repr()'d", () => {
    lit(z.literal([1, true, null]), "1", "1, True or None");
    lit(z.literal(["it's"]), "x", `"it's"`);
    lit(z.literal([1.5]), 2, "1.5");
  });

  it("matching is exact except Python's 1 == True", () => {
    expect(validatedOf(z.enum(["a", "b"]), "b")).toBe("b");
    expect(validatedOf(z.literal(1), true)).toBe(1);
    expect(validatedOf(z.literal(null), null)).toBe(null);
    lit(z.literal(1), "1", "1");
  });
});

describe("lists and dicts [list][types]", () => {
  const L = z.array(z.int()).min(1).max(2);

  it("list_type for non-lists (strings and dicts are not iterated)", () => {
    for (const input of ["ab", { 0: 1 }, 1, null]) {
      expect(errorsOf(L, input)).toEqual([{ type: "list_type", loc: ["body"], msg: "Input should be a valid list", input }]);
    }
  });

  it("item errors carry the index", () => {
    expect(errorsOf(L, ["x", 2])).toEqual([
      {
        type: "int_parsing",
        loc: ["body", 0],
        msg: "Input should be a valid integer, unable to parse string as an integer",
        input: "x",
      },
    ]);
  });

  it("too_short / too_long texts and ctx", () => {
    expect(errorsOf(L, [])).toEqual([
      {
        type: "too_short",
        loc: ["body"],
        msg: "List should have at least 1 item after validation, not 0",
        input: [],
        ctx: { field_type: "List", min_length: 1, actual_length: 0 },
      },
    ]);
    // too_long wins over (and drops) item errors, like MaxLengthCheck during iteration
    expect(errorsOf(L, ["x", "y", 3])).toEqual([
      {
        type: "too_long",
        loc: ["body"],
        msg: "List should have at most 2 items after validation, not 3",
        input: ["x", "y", 3],
        ctx: { field_type: "List", max_length: 2, actual_length: 3 },
      },
    ]);
    expect(errorsOf(z.array(z.string()).min(2), ["a"])[0]?.msg).toBe("List should have at least 2 items after validation, not 1");
    expect(errorsOf(z.array(z.string()).max(1), ["a", "b"])[0]?.msg).toBe("List should have at most 1 item after validation, not 2");
    expect(validatedOf(L, ["1", 2])).toEqual([1, 2]);
  });

  it("z.record → dict: dict_type, value errors under their key", () => {
    const D = z.record(z.string(), z.int());
    expect(errorsOf(D, [1])).toEqual([{ type: "dict_type", loc: ["body"], msg: "Input should be a valid dictionary", input: [1] }]);
    expect(errorsOf(D, { a: 1, b: "x" })).toEqual([
      {
        type: "int_parsing",
        loc: ["body", "b"],
        msg: "Input should be a valid integer, unable to parse string as an integer",
        input: "x",
      },
    ]);
    expect(validatedOf(D, { a: "1" })).toEqual({ a: 1 });
    expect(errorsOf(z.record(z.enum(["a"]), z.int()), { b: 1 })[0]?.loc).toEqual(["body", "b", "[key]"]);
  });

  it("z.unknown / z.any accept anything", () => {
    const A = z.object({ u: z.unknown(), a: z.any() });
    expect(validatedOf(A, { u: [1, { x: null }], a: "s" })).toEqual({ u: [1, { x: null }], a: "s" });
  });
});

describe("optional / nullable / default / nullish", () => {
  const M = z.object({
    opt: z.string().optional(),
    nul: z.string().nullable(),
    def: z.int().default(5),
    both: z.string().nullish(),
  });

  it("absent optional is left out, absent default is filled in, null only where nullable", () => {
    expect(validatedOf(M, { nul: null })).toEqual({ nul: null, def: 5 });
    expect(validatedOf(M, { nul: "x", both: null, def: "7" })).toEqual({ nul: "x", both: null, def: 7 });
    expect(errorsOf(M, { opt: null, def: null })).toEqual([
      { type: "string_type", loc: ["body", "opt"], msg: "Input should be a valid string", input: null },
      { type: "missing", loc: ["body", "nul"], msg: "Field required", input: { opt: null, def: null } },
      { type: "int_type", loc: ["body", "def"], msg: "Input should be a valid integer", input: null },
    ]);
  });
});

describe("discriminated unions [tagged]", () => {
  const Trigger = z.object({ type: z.literal("trigger"), event: z.string() });
  const Condition = z.object({ type: z.literal("condition"), expr: z.string() });
  const Action = z.object({ type: z.literal("action"), run: z.int() });
  const Node = z.discriminatedUnion("type", [Trigger, Condition, Action]);
  const Body = z.object({ graph: z.object({ nodes: z.array(Node) }) });

  it("errors inside the chosen member get the tag in their loc", () => {
    expect(errorsOf(Body, { graph: { nodes: [{ type: "trigger", event: 1 }] } })).toEqual([
      {
        type: "string_type",
        loc: ["body", "graph", "nodes", 0, "trigger", "event"],
        msg: "Input should be a valid string",
        input: 1,
      },
    ]);
    const input = { type: "action" };
    expect(errorsOf(Node, input)).toEqual([{ type: "missing", loc: ["body", "action", "run"], msg: "Field required", input }]);
    expect(validatedOf(Node, { type: "action", run: "3", x: 1 })).toEqual({ type: "action", run: 3 });
  });

  it("union_tag_not_found when the tag is absent", () => {
    expect(errorsOf(Node, {})).toEqual([
      {
        type: "union_tag_not_found",
        loc: ["body"],
        msg: "Unable to extract tag using discriminator 'type'",
        input: {},
        ctx: { discriminator: "'type'" },
      },
    ]);
  });

  it("union_tag_invalid for an unknown tag (str(tag) for non-strings)", () => {
    const expected_tags = "'trigger', 'condition', 'action'";
    expect(errorsOf(Node, { type: "foo" })).toEqual([
      {
        type: "union_tag_invalid",
        loc: ["body"],
        msg: `Input tag 'foo' found using 'type' does not match any of the expected tags: ${expected_tags}`,
        input: { type: "foo" },
        ctx: { discriminator: "'type'", tag: "foo", expected_tags },
      },
    ]);
    expect(errorsOf(Node, { type: 123 })[0]?.ctx).toEqual({ discriminator: "'type'", tag: "123", expected_tags });
    expect(errorsOf(Node, { type: null })[0]?.ctx).toEqual({ discriminator: "'type'", tag: "None", expected_tags });
  });

  it("a non-dict input is model_attributes_type (validate_model_fields with from_attributes)", () => {
    expect(errorsOf(Node, "trigger")).toEqual([
      {
        type: "model_attributes_type",
        loc: ["body"],
        msg: "Input should be a valid dictionary or object to extract fields from",
        input: "trigger",
      },
    ]);
  });

  it("multi-valued member tags and ordering of expected_tags", () => {
    const U = z.discriminatedUnion("kind", [z.object({ kind: z.enum(["a", "b"]) }), z.object({ kind: z.literal("c"), n: z.int() })]);
    expect(errorsOf(U, { kind: "z" })[0]?.ctx).toEqual({ discriminator: "'kind'", tag: "z", expected_tags: "'a', 'b', 'c'" });
    expect(errorsOf(U, { kind: "c", n: "x" })[0]?.loc).toEqual(["body", "c", "n"]);
  });
});

describe("plain unions (smart mode)", () => {
  it("X | None is nullable[X]: errors are X's, unlabelled", () => {
    const U = z.union([z.int(), z.null()]);
    expect(validatedOf(U, null)).toBe(null);
    expect(errorsOf(U, "x")).toEqual([
      {
        type: "int_parsing",
        loc: ["body"],
        msg: "Input should be a valid integer, unable to parse string as an integer",
        input: "x",
      },
    ]);
  });

  it("exact matches win over coercions", () => {
    expect(validatedOf(z.union([z.int(), z.string()]), "1")).toBe("1");
    expect(validatedOf(z.union([z.string(), z.int()]), 1)).toBe(1);
    expect(validatedOf(z.union([z.boolean(), z.int()]), "1")).toBe(true); // lax pass, first member
  });

  it("failures list every member's errors under pydantic-core's member names", () => {
    const U = z.union([z.int(), z.array(z.string())]);
    expect(errorsOf(U, { a: 1 })).toEqual([
      { type: "int_type", loc: ["body", "int"], msg: "Input should be a valid integer", input: { a: 1 } },
      { type: "list_type", loc: ["body", "list[str]"], msg: "Input should be a valid list", input: { a: 1 } },
    ]);
  });

  it("union of models: labelled by .meta({id}); best-filled model wins", () => {
    const Cat = z.object({ meow: z.int() }).meta({ id: "Cat" });
    const Dog = z.object({ bark: z.int(), name: z.string().optional() }).meta({ id: "Dog" });
    const U = z.union([Cat, Dog]);
    expect(errorsOf(U, { meow: "x" })).toEqual([
      {
        type: "int_parsing",
        loc: ["body", "Cat", "meow"],
        msg: "Input should be a valid integer, unable to parse string as an integer",
        input: "x",
      },
      { type: "missing", loc: ["body", "Dog", "bark"], msg: "Field required", input: { meow: "x" } },
    ]);
    expect(validatedOf(U, { bark: 1, name: "rex" })).toEqual({ bark: 1, name: "rex" });
  });
});

describe("caching", () => {
  it("a compiled validator is reused and recursive schemas work", () => {
    interface Tree {
      v: number;
      children: Tree[];
    }
    const Tree: z.ZodType<Tree> = z.object({
      v: z.int(),
      get children() {
        return z.array(Tree);
      },
    });
    const input = { v: 1, children: [{ v: "x", children: [] }] };
    const expected = [
      {
        type: "int_parsing",
        loc: ["body", "children", 0, "v"],
        msg: "Input should be a valid integer, unable to parse string as an integer",
        input: "x",
      },
    ];
    expect(errorsOf(Tree, input)).toEqual(expected);
    expect(errorsOf(Tree, input)).toEqual(expected);
  });
});

/**
 * Expected error objects, with where each exact text comes from:
 *  [types]   pydantic-core src/errors/types.rs, message_template_python()
 *            https://github.com/pydantic/pydantic-core/blob/main/src/errors/types.rs
 *  [shared]  pydantic-core src/input/shared.rs (str_as_bool, str_as_int/clean_int_str, str_as_float, float_as_int)
 *  [pyinput] pydantic-core src/input/input_python.rs (lax validate_bool/int/float/str, validate_model_fields)
 *  [uuidrs]  pydantic-core src/validators/uuid.rs + the uuid crate's src/error.rs (InvalidUuid::into_err, Display)
 *            https://github.com/uuid-rs/uuid/blob/main/src/error.rs, parser tests in src/parser.rs
 *  [uuidpy]  pydantic-core tests/validators/test_uuid.py (exact messages asserted there)
 *  [literal] pydantic-core src/validators/literal.rs (expected_repr_name, LiteralLookup)
 *  [fastapi] fastapi/_compat.py: validate_python(value, from_attributes=True); error shape of
 *            https://fastapi.tiangolo.com/tutorial/handling-errors/ (int_parsing example)
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { PydanticError } from "./validate.js";
import { errorsOf, validatedOf } from "./validate.testkit.js";

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

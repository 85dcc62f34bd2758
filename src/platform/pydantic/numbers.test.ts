/**
 * Expected error objects, with where each exact text comes from:
 *  [types]   pydantic-core src/errors/types.rs, message_template_python()
 *            https://github.com/pydantic/pydantic-core/blob/main/src/errors/types.rs
 *  [shared]  pydantic-core src/input/shared.rs (str_as_bool, str_as_int/clean_int_str, str_as_float, float_as_int)
 *  [pyinput] pydantic-core src/input/input_python.rs (lax validate_bool/int/float/str, validate_model_fields)
 *  [fastapi] fastapi/_compat.py: validate_python(value, from_attributes=True); error shape of
 *            https://fastapi.tiangolo.com/tutorial/handling-errors/ (int_parsing example)
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { PydanticError } from "./validate.js";
import { errorsOf, validatedOf } from "./validate.testkit.js";

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

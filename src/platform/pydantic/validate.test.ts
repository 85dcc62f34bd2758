/**
 * Expected error objects, with where each exact text comes from:
 *  [types]   pydantic-core src/errors/types.rs, message_template_python()
 *            https://github.com/pydantic/pydantic-core/blob/main/src/errors/types.rs
 *  [pyinput] pydantic-core src/input/input_python.rs (lax validate_bool/int/float/str, validate_model_fields)
 *  [tagged]  pydantic-core src/validators/union.rs (TaggedUnionValidator) + tests/validators/test_tagged_union.py
 *  [list]    pydantic-core src/validators/list.rs + src/input/return_enums.rs (MaxLengthCheck, min_length_check!)
 *  [fastapi] fastapi/_compat.py: validate_python(value, from_attributes=True); error shape of
 *            https://fastapi.tiangolo.com/tutorial/handling-errors/ (int_parsing example)
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { missing, valueError } from "./validate.js";
import { errorsOf, run, validatedOf } from "./validate.testkit.js";

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
